import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { createHash, randomBytes } from 'node:crypto';

import { readResource } from '../../shared/executor/answers';
import type { Profile } from '../../shared/profile/types';
import { readAllItems } from '../../shared/executor/paging';
import { loadProfile } from '../../shared/executor/profiles';
import {
	builtInNotice,
	callEndpoint,
	placeParams,
	requireObject,
} from '../../shared/executor/send';
import { perItem, readRequestTimeout } from '../parameters/fields';
import { awaitByEvent, prepareEventWait } from '../waiting/event';
import { resultOrJobToAwait, waitForJob } from '../waiting/poll';
import { downloadMedia } from '../media/binary';
import { errorJson, simplify, type Simplified, withoutErrorKey } from './outputs';
import * as account from './account';
import * as content from './content';
import * as job from './job';
import * as page from './page';
import * as post from './post';
import * as publication from './publication';
import * as service from './service';
import { JobToAwait, type OperationPlan, type Resource, type WaitOptions } from './types';
import * as webhook from './webhook';

/** Each resource's Operation field and operations, in the order of the Resource list. */
export const resources: Record<string, Resource> = {
	account,
	content,
	job,
	page,
	post,
	publication,
	service,
	webhook,
};

// Enough to overlap the waits of a batch without polling the service from dozens of loops at once.
const MAX_PARALLEL_JOB_WAITS = 8;
// The Requests in Parallel option's default (a literal in its description) and upper bound.
const DEFAULT_PARALLEL_REQUESTS = 4;
const MAX_PARALLEL_REQUESTS = 32;

/**
 * Runs up to `limit` entries at a time. After a failure no further entry starts; the ones under
 * way finish, then the first failure is thrown, so nothing is still sending when the node fails.
 */
async function forEachConcurrently<T>(
	entries: T[],
	limit: number,
	run: (entry: T) => Promise<void>,
): Promise<void> {
	let next = 0;
	const failures: unknown[] = [];
	const worker = async () => {
		while (failures.length === 0 && next < entries.length) {
			const entry = entries[next++];
			await run(entry).catch((failure: unknown) => failures.push(failure));
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, entries.length) }, worker));
	if (failures.length > 0) throw failures[0];
}

/** Requests in Parallel, from Request Options: one setting for the whole execution. */
function readParallelRequests(this: IExecuteFunctions): number {
	const options = this.getNodeParameter('requestOptions', 0, {}) as { parallel?: unknown };
	const { parallel = DEFAULT_PARALLEL_REQUESTS } = options;
	const count = Number(parallel);
	if (!Number.isInteger(count) || count < 1 || count > MAX_PARALLEL_REQUESTS)
		throw new NodeOperationError(
			this.getNode(),
			`"Requests in Parallel" must be a whole number from 1 to ${MAX_PARALLEL_REQUESTS}`,
		);
	return count;
}

/**
 * Each item's write key: the same for the same execution, node, run and item, so n8n's Retry On
 * Fail re-sends a write with the key it had, and different otherwise.
 */
function itemKeys(this: IExecuteFunctions): (itemIndex: number) => string {
	// Made on the first write: n8n's data proxy costs reads for nothing.
	let scope: string | undefined;
	return (itemIndex) => {
		if (scope === undefined) {
			const runIndex = this.getWorkflowDataProxy(0).$runIndex;
			// n8n gives every execution an id; were one missing, keys must still differ between runs.
			const executionId = this.getExecutionId() || randomBytes(16).toString('hex');
			scope = `${executionId}:${this.getNode().id}:${runIndex}`;
		}
		return createHash('sha256').update(`${scope}:${itemIndex}`).digest('hex').slice(0, 32);
	};
}

function waitOf(plan: OperationPlan | undefined): WaitOptions | undefined {
	if (plan instanceof JobToAwait) return plan.waitOptions;
	return plan !== undefined && 'endpoint' in plan ? plan.wait : undefined;
}

/** What Simplify takes an operation's output for: a job, a resource, or (Service → Describe) nothing. */
function simplifiedAs(plan: OperationPlan): Simplified | undefined {
	if (plan instanceof JobToAwait) return { job: true };
	if ('list' in plan) return { endpoint: plan.list };
	return 'endpoint' in plan ? { endpoint: plan.endpoint } : undefined;
}

/** Fails an item whose parameters the service has no place for, before anything is sent for any item. */
function checkFields(
	this: IExecuteFunctions,
	profile: Profile,
	plan: OperationPlan,
	itemIndex: number,
): void {
	if ('list' in plan)
		placeParams.call(this, profile.operations[plan.list], plan.qs, undefined, itemIndex);
	else if ('endpoint' in plan)
		placeParams.call(this, profile.operations[plan.endpoint], plan.params, undefined, itemIndex);
}

async function send(
	this: IExecuteFunctions,
	profile: Profile,
	plan: OperationPlan,
	sending: { itemIndex: number; timeoutMs: number; signal?: AbortSignal },
	itemKey: (itemIndex: number) => string,
): Promise<IDataObject | IDataObject[] | JobToAwait> {
	const { itemIndex } = sending;
	if (plan instanceof JobToAwait) return plan;
	if ('describe' in plan) return service.describeOutput(profile);
	if ('list' in plan) {
		const { qs: filters, extra, limit } = plan;
		return await readAllItems.call(this, plan.list, { filters, qs: extra?.qs, limit, ...sending });
	}
	const extraBody = plan.extra?.body ?? {};
	const answer = await callEndpoint.call(this, plan.endpoint, {
		id: plan.id,
		params: plan.params,
		body: Object.keys(extraBody).length > 0 ? extraBody : undefined,
		qs: plan.extra?.qs,
		// Only writes use one; hashing a key for every read would cost each item for nothing.
		itemKey: profile.operations[plan.endpoint].method === 'GET' ? undefined : itemKey(itemIndex),
		...sending,
	});
	// The profile the answer came by reads it (a changed document may have been read meanwhile).
	const answered = answer.profile.operations[plan.endpoint].answer;
	if (plan.endpoint.startsWith('delete')) {
		const resource = readResource(answered, answer.body);
		return {
			id: plan.id,
			deleted: true,
			...(resource === undefined ? {} : requireObject(this, resource, itemIndex)),
		};
	}
	if (answered.jobs !== undefined) return resultOrJobToAwait.call(this, answer, plan, itemIndex);
	return requireObject(this, readResource(answered, answer.body), itemIndex);
}

/** Checks every item's parameters, then sends each item's request, then waits for the jobs they started. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const execute = resources[resource]?.operations?.[operation]?.execute;
	if (typeof execute !== 'function')
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" is not known for the resource "${resource}"`,
		);

	const outputs: INodeExecutionData[][] = new Array(items.length);
	const simplifies = perItem(
		this,
		'simplify',
		(itemIndex) => this.getNodeParameter('simplify', itemIndex, false) === true,
	);

	const outputOf = async (
		data: IDataObject | IDataObject[],
		plan: OperationPlan,
		itemIndex: number,
	) => {
		const of = simplifiedAs(plan);
		const simple = of !== undefined && simplifies(itemIndex);
		const shown = (json: IDataObject) =>
			withoutErrorKey(simple && profile !== undefined ? simplify(profile, json, of) : json);
		const output = this.helpers.constructExecutionMetaData(
			this.helpers.returnJsonArray(Array.isArray(data) ? data.map(shown) : shown(data)),
			{ itemData: { item: itemIndex } },
		);
		const media = plan instanceof JobToAwait || 'endpoint' in plan ? plan.media : undefined;
		if (media === undefined || profile === undefined || Array.isArray(data)) return output;
		const [item] = output;
		const binary = await downloadMedia.call(this, data, profile.jobs, media, itemIndex);
		return [{ ...item, binary }];
	};

	const fail = (error: Error, itemIndex: number): INodeExecutionData[] => {
		if (this.continueOnFail()) return [{ json: errorJson(error), pairedItem: { item: itemIndex } }];
		if (!(error instanceof NodeApiError || error instanceof NodeOperationError))
			throw new NodeOperationError(this.getNode(), error, { itemIndex });
		error.context.itemIndex ??= itemIndex;
		throw error;
	};

	const plans: Array<OperationPlan | undefined> = new Array(items.length);
	const timeouts: number[] = new Array(items.length);
	// Read once: the service's profile, cached per base URL, decides how each plan is sent.
	let profile: Profile | undefined;
	const timeoutOf = perItem(this, 'requestOptions', (itemIndex) =>
		readRequestTimeout.call(this, itemIndex),
	);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			timeouts[itemIndex] = timeoutOf(itemIndex);
			const plan = await execute.call(this, itemIndex);
			profile ??= await loadProfile.call(this, itemIndex);
			checkFields.call(this, profile, plan, itemIndex);
			plans[itemIndex] = plan;
		} catch (error) {
			outputs[itemIndex] = fail(error as Error, itemIndex);
		}
	}

	const notice = profile === undefined ? undefined : builtInNotice(profile);
	if (notice !== undefined) this.addExecutionHints({ message: notice, location: 'outputPane' });

	// One execution waits one way: it sleeps until the service's event, or it polls.
	const methods = new Set(
		plans.map(waitOf).flatMap((wait) => (wait === undefined ? [] : [wait.method ?? 'poll'])),
	);
	if (methods.size > 1)
		throw new NodeOperationError(
			this.getNode(),
			'The items ask for both Wait Methods, "Poll" and "Service Event"',
			{
				description:
					'An execution either sleeps until the service reports the jobs finished or polls them: give every item the same Wait Method.',
			},
		);
	// Checked before anything is sent: where the execution cannot sleep, no job has started.
	const eventWait =
		methods.has('event') && profile !== undefined
			? await prepareEventWait.call(this, profile)
			: undefined;

	const itemKey = itemKeys.call(this);
	const signal = this.getExecutionCancelSignal();
	const jobsToAwait: Array<{ itemIndex: number; job: JobToAwait }> = [];
	const planned = plans.flatMap((plan, itemIndex) => (plan === undefined ? [] : [itemIndex]));
	await forEachConcurrently(planned, readParallelRequests.call(this), async (itemIndex) => {
		const plan = plans[itemIndex];
		if (plan === undefined || profile === undefined) return;
		try {
			const sending = { itemIndex, timeoutMs: timeouts[itemIndex], signal };
			const answer = await send.call(this, profile, plan, sending, itemKey);
			if (answer instanceof JobToAwait) jobsToAwait.push({ itemIndex, job: answer });
			else outputs[itemIndex] = await outputOf(answer, plan, itemIndex);
		} catch (error) {
			outputs[itemIndex] = fail(error as Error, itemIndex);
		}
	});
	jobsToAwait.sort((a, b) => a.itemIndex - b.itemIndex);

	let known: Map<number, IDataObject | Error> | undefined;
	if (eventWait !== undefined && profile !== undefined && jobsToAwait.length > 0) {
		const outcome = await awaitByEvent.call(this, profile, eventWait, jobsToAwait, outputs);
		// The execution sleeps; the node's webhook outputs the items when it resumes.
		if (outcome === 'waiting') return [items];
		known = outcome;
	}

	await forEachConcurrently(jobsToAwait, MAX_PARALLEL_JOB_WAITS, async ({ itemIndex, job }) => {
		try {
			const read = known?.get(itemIndex);
			if (read instanceof Error) throw read;
			const finished = read ?? (await waitForJob.call(this, job, itemIndex, timeouts[itemIndex]));
			outputs[itemIndex] = await outputOf(finished, job, itemIndex);
		} catch (error) {
			outputs[itemIndex] = fail(error as Error, itemIndex);
		}
	});

	return [outputs.flat()];
}
