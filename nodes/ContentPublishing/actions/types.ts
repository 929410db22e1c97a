import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { JobToAwait, WaitOptions } from '../helpers/jobs';
import type { MediaOptions } from '../helpers/media';
import type { EndpointName } from '../transport/endpoints';

export interface ExtraFields {
	body: IDataObject;
	qs: IDataObject;
}

/** One request to send for an item. */
export interface RequestPlan {
	endpoint: EndpointName;
	id?: string;
	/** The node's fields, which the service's contract renames to its own before sending. */
	body?: IDataObject;
	qs?: IDataObject;
	/** The escape hatches (Extra Body Fields, Extra Query Parameters), sent as given, last. */
	extra?: ExtraFields;
	/**
	 * How to read the answer: `deleted` confirms a deletion that answers with no body; `job` is an
	 * answer that may be a job, waited for with `wait` when that is set.
	 */
	answer?: 'deleted' | 'job';
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
