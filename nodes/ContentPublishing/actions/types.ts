import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { EndpointName } from '../../shared/contract';
import type { JobToAwait, WaitOptions } from '../helpers/jobs';
import type { MediaOptions } from '../helpers/media';

export interface ExtraFields {
	body: IDataObject;
	qs: IDataObject;
}

/** One request to send for an item. */
export interface RequestPlan {
	endpoint: EndpointName;
	id?: string;
	/** The node's fields (the catalog's names), which the service's contract renames to its own before sending. */
	body?: IDataObject;
	qs?: IDataObject;
	/** The escape hatches (Extra Body Fields, Extra Query Parameters), sent as given, last. */
	extra?: ExtraFields;
	/** For an endpoint that starts a job (the catalog says which): how to wait for it; none returns the job. */
	wait?: WaitOptions;
	/** Where the finished job's media goes, when it is to be downloaded. */
	media?: MediaOptions;
}

/** A list endpoint to read, following its cursor up to `limit` items (all when absent). */
export interface ListPlan {
	list: EndpointName;
	qs: IDataObject;
	extra?: ExtraFields;
	limit?: number;
}

export type OperationPlan = RequestPlan | ListPlan | JobToAwait;

export interface Operation {
	description: INodeProperties[];
	/**
	 * Reads and checks one item's parameters and answers with what to send. The router sends
	 * nothing until every item has been checked, so a bad item stops a batch before anything is
	 * written.
	 */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationPlan>;
}
