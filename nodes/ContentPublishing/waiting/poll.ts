import type { IDataObject, IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	findJob,
	jobProblem,
	pointerToMember,
	readJob,
	readResource,
	type JobView,
} from '../../shared/executor/answers';
import { isRecord, readLocation } from '../../shared/profile/pointer';
import { sleepUnlessCancelled } from '../../shared/sleep';
import { parameterError } from '../parameters/fields';
import { notAsProfiled } from '../../shared/executor/errors';
import { loadProfile } from '../../shared/executor/profiles';
import {
	asNodeError,
	type Answer,
	isTransient,
	READ_ONCE,
	readJobById,
	requireObject,
	retryAfterMs,
} from '../../shared/executor/send';
import { JobToAwait, type RequestPlan, type WaitOptions } from '../actions/types';

// A Poll Interval beyond this is taken as this: it bounds every timer the wait sets.
const LONGEST_POLL_INTERVAL_MS = 3_600_000;
// A poll shortly before the deadline still gets this long to answer.
const MIN_POLL_TIMEOUT_MS = 1000;

/** The override that points a job's status (or id) at where `held` has one, as an example. */
function jobsFix(held: unknown, part: 'status' | 'id'): string {
	const named = part === 'status' ? /^(status|state)$/i : /^(id|job_?id|uuid)$/i;
	const found = pointerToMember(held, (name) => named.test(name));
	const at = JSON.stringify(found ?? (part === 'status' ? '/data/attributes/status' : '/job_id'));
	return part === 'status'
		? `{"jobs": {"completion": {"status": ${at}}}}`
		: `{"jobs": {"id": ${at}}}`;
}

/** A job's output once it has ended (or was accepted to run later): the job, or its failure. */
export function endedJob(
	context: { getNode(): INode },
	job: IDataObject,
	view: JobView,
	itemIndex: number,
): IDataObject | NodeApiError | undefined {
	if (view.unread !== undefined)
		return notAsProfiled(
			context,
			`The service's answer for job ${view.id || '(no id)'} holds no state where the profile says: ${view.unread}`,
			`the job's status at the profile's place (jobs.completion)`,
			job,
			jobsFix(job, 'status'),
			itemIndex,
		);
	if (view.state === 'succeeded' || view.state === 'scheduled') return job;
	if (view.state !== 'failed') return undefined;
	const message = view.error?.message ?? `The job ended with status "${view.status}"`;
	const error = new NodeApiError(context.getNode(), job as JsonObject, {
		message: `Job ${view.id} failed: ${message}`,
		description: view.error?.code ? `Error code: ${view.error.code}` : undefined,
		itemIndex,
	});
	// Every request succeeded; n8n would otherwise take the job's "status" for an HTTP code.
	error.httpCode = null;
	return error;
}

/** Polls a job until it finishes, backing off between polls, until the execution is cancelled. */
export async function waitForJob(
	this: IExecuteFunctions,
	{ jobId, waitOptions: { pollIntervalSeconds, maxWaitSeconds }, since }: JobToAwait,
	itemIndex: number,
	/** The item's request timeout; a poll never outlasts the wait's deadline either. */
	requestTimeoutMs: number,
): Promise<IDataObject> {
	const signal = this.getExecutionCancelSignal();
	const profile = await loadProfile.call(this, itemIndex);
	const deadline = Date.now() + maxWaitSeconds * 1000;
	const chosen = Math.min(Math.max(pollIntervalSeconds * 1000, 50), LONGEST_POLL_INTERVAL_MS);
	// Checks come every tenth of the time since the job started, from `floor` to `ceiling` apart: a
	// job that finishes after t is seen by max(t + 1 s, 1.1 t) in log(t) polls (docs/waiting.md).
	const floor = Math.min(1000, chosen);
	const ceiling = Math.max(30_000, chosen);
	const gap = () => Math.min(Math.max((Date.now() - since) * 0.1, floor), ceiling);
	let interval = Math.max(since + floor - Date.now(), 0);
	let lastStatus = 'unknown';

	const cancelled = () =>
		new NodeOperationError(
			this.getNode(),
			`Stopped waiting for job ${jobId}: the execution was cancelled`,
			{ itemIndex },
		);

	while (true) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) throw jobTimeoutError(this, jobId, maxWaitSeconds, lastStatus, itemIndex);
		if (!(await sleepUnlessCancelled(Math.min(interval, remaining), signal))) throw cancelled();

		let job: IDataObject;
		try {
			job = await readJobById.call(this, jobId, {
				itemIndex,
				signal,
				// The wait retries on its own schedule, and neither a poll nor a pause outlasts the wait.
				policy: READ_ONCE,
				timeoutMs: Math.max(MIN_POLL_TIMEOUT_MS, Math.min(requestTimeoutMs, deadline - Date.now())),
				deadline,
			});
		} catch (error) {
			if (signal?.aborted) throw cancelled();
			// A rate limit, a gateway error or a poll without answer is a reason to wait longer, not to give up.
			if (!isTransient(error)) throw asNodeError(this, error, itemIndex);
			lastStatus = `unknown (the last poll failed: ${(error as Error).message})`;
			interval = Math.max(Math.min(gap() * 2, ceiling), retryAfterMs(error) ?? 0);
			continue;
		}

		// The job is the one asked for, whether or not its answer names it where the profile says.
		const view = { ...readJob(profile.jobs, job), id: jobId };
		lastStatus = statusText(view);
		const ended = endedJob(this, job, view, itemIndex);
		if (ended instanceof Error) throw ended;
		if (ended !== undefined) return ended;
		interval = gap();
	}
}

/** A job's status for a message, saying where the profile maps it to no state. */
export function statusText(view: JobView): string {
	const status = view.status || 'unknown';
	return view.unmapped
		? `"${status}", a value the profile maps to no state, so it counts as pending: Service → Describe lists the states, and Profile Overrides can map it (jobs.completion.states)`
		: status;
}

/** A wait that ended before its job did: the job goes on in the service. */
export function jobTimeoutError(
	context: { getNode(): INode },
	jobId: string,
	maxWaitSeconds: number,
	lastStatus: string,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`Job ${jobId} did not finish within ${maxWaitSeconds} seconds (last status: ${lastStatus})`,
		{
			itemIndex,
			description: `The job goes on in the service. To pick up its result later, use the Job resource's "Wait for Completion" operation with Job ID ${jobId}, or raise "Maximum Wait Time".`,
		},
	);
}

/** An answer's output (a job, or a synchronous result), or the unfinished job to wait for where asked. */
export function resultOrJobToAwait(
	this: IExecuteFunctions,
	answer: Answer,
	{ endpoint, wait, media }: RequestPlan,
	itemIndex: number,
): IDataObject | JobToAwait {
	const { profile } = answer;
	const reading = profile.operations[endpoint].answer;
	const found = findJob(profile.jobs, reading.jobs, answer, profile.operations.getJob.path);
	const resource = readResource(reading, answer.body);
	// A job known only by where it is (a 202's Location) is output as its id, named as the service's jobs
	// name it; one named in a body, as that body.
	const idName = (profile.jobs.id[0] ?? '/id').slice(1).split('/')[0] || 'id';
	const output =
		found?.job ??
		(found !== undefined && (found.via === 'address' || !isRecord(resource))
			? { [idName]: found.id }
			: requireObject(this, resource, itemIndex));
	if (wait === undefined) return output;
	if (found === undefined) {
		// The profile says the answer is the result itself: there is nothing to wait for.
		if ((reading.jobs ?? []).length === 0) return output;
		const { method, path } = profile.operations[endpoint];
		const where = (reading.jobs ?? [])
			.map((reference) =>
				'job' in reference
					? `the job at ${reference.job} (${jobProblem(profile.jobs, readLocation(answer, reference.job))})`
					: 'id' in reference
						? `its id at ${reference.id}`
						: `its address at ${reference.address}`,
			)
			.join(', or ');
		const missingId = /^no id/.test(jobProblem(profile.jobs, answer.body) ?? '');
		throw notAsProfiled(
			this,
			`The service's answer to ${method} ${path} holds no job to wait for where the profile says`,
			`${where} (operations.${endpoint}.answer.jobs, jobs.id, jobs.completion)`,
			answer.body,
			jobsFix(answer.body, missingId ? 'id' : 'status'),
			itemIndex,
		);
	}
	// A wait for the service's event reads every job once after registering, whatever its first answer said.
	if (found.job !== undefined && wait.method !== 'event') {
		const ended = endedJob(this, found.job, readJob(profile.jobs, found.job), itemIndex);
		if (ended instanceof Error) throw ended;
		if (ended !== undefined) return ended;
	}
	return new JobToAwait(found.id, wait, media);
}

/** The wait options of an operation with a "Wait for Completion" switch, or undefined when off. */
export function readJobWait(this: IExecuteFunctions, itemIndex: number): WaitOptions | undefined {
	const waitForCompletion = this.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	return waitForCompletion ? readWaitOptions.call(this, itemIndex) : undefined;
}

export function readWaitOptions(this: IExecuteFunctions, itemIndex: number): WaitOptions {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const method = this.getNodeParameter('waitMethod', itemIndex, 'poll');
	if (method !== 'poll' && method !== 'event')
		throw parameterError(this, 'Wait Method', itemIndex, 'must be "poll" or "event"');
	const pollIntervalSeconds = Number(options.pollInterval ?? 5);
	const maxWaitSeconds = Number(options.maxWaitTime ?? 600);
	for (const [name, value] of [
		['Poll Interval', pollIntervalSeconds],
		['Maximum Wait Time', maxWaitSeconds],
	] as const) {
		if (!Number.isFinite(value) || value <= 0)
			throw parameterError(this, name, itemIndex, 'must be a positive number of seconds');
	}
	return { pollIntervalSeconds, maxWaitSeconds, method };
}
