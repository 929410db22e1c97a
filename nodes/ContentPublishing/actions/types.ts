import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationName } from '../../shared/profile/types';
import type { DownloadLimits } from '../../shared/executor/send';

/** Extra Body Fields and Extra Query Parameters: sent as given, last, so they override the rest. */
export interface ExtraFields {
	body: IDataObject;
	qs: IDataObject;
}

export interface WaitOptions {
	pollIntervalSeconds: number;
	maxWaitSeconds: number;
	/** Polling from the running node, or sleeping until the service's event; absent: poll. */
	method?: 'poll' | 'event';
}

/** An operation's answer that is a job still to be waited for, once every item has started its own. */
export class JobToAwait {
	/** When the node learnt of the job: a later item's wait, begun long after, times its checks from here. */
	readonly since = Date.now();

	constructor(
		readonly jobId: string,
		readonly waitOptions: WaitOptions,
		readonly media?: MediaOptions,
	) {}
}

/** Where a job's media goes (binary field `field`, or `field_0`, `field_1`, … for several files) and the bounds of its downloads. */
export interface MediaOptions extends DownloadLimits {
	field: string;
}

export interface RequestPlan {
	endpoint: OperationName;
	id?: string;
	params?: IDataObject;
	extra?: ExtraFields;
	/** For an endpoint that starts a job: how to wait for it; none returns the job. */
	wait?: WaitOptions;
	media?: MediaOptions;
}

/** A list endpoint to read, following its cursor up to `limit` items (all when absent). */
export interface ListPlan {
	list: OperationName;
	qs: IDataObject;
	extra?: ExtraFields;
	limit?: number;
}

/** What to send, or to wait for; `describe`: Service → Describe, the profile in use, without a request. */
export type OperationPlan = RequestPlan | ListPlan | JobToAwait | { describe: true };

export interface Operation {
	description: INodeProperties[];
	/**
	 * Reads and checks one item's parameters and answers with what to send. The router sends nothing
	 * until every item has been checked, so a bad item stops a batch before anything is written.
	 */
	execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationPlan>;
}

export interface Resource {
	operationField: INodeProperties;
	operations: Record<string, Operation>;
}
