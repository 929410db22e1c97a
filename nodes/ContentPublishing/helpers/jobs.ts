import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, asNodeError, isTransient, loadContract, requireObject, retryAfterMs } from '../transport';
import type { JobContract, JobState } from '../transport/contract';
import type { MediaOptions } from './media';
import { sleepUnlessCancelled } from './sleep';

// Status values the service's document does not explain are read by the usual names of each outcome.
const SUCCEEDED = new Set(['succeeded', 'success', 'successful', 'completed', 'complete', 'done', 'finished']);
const FAILED = new Set(['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'expired', 'rejected']);
const PENDING = new Set(['queued', 'pending', 'running', 'processing', 'in_progress', 'started', 'scheduled', 'waiting']);

const MAX_POLL_INTERVAL_MS = 30_000;
// A Poll Interval beyond this is taken as this: it bounds every timer the wait sets.
const LONGEST_POLL_INTERVAL_MS = 3_600_000;
// A poll shortly before the deadline still gets this long to answer.
const MIN_POLL_TIMEOUT_MS = 1000;
const FIRST_POLL_MS = 1000;
const WAITED_FRACTION = 0.1;

export interface WaitOptions {
	pollIntervalSeconds: number;
	maxWaitSeconds: number;
}

/** An operation's answer that is a job still to be waited for, once every item has started its own. */
export class JobToAwait {
	/**
	 * When the node learnt of the job. Waits run a few at a time, so a later item's wait may begin
	 * long after its job started: its checks are timed from here, not from when its wait begins.
	 */
	readonly since = Date.now();

	constructor(
		readonly jobId: string,
		readonly waitOptions: WaitOptions,
		readonly media?: MediaOptions,
	) {}
}

function firstValue(record: IDataObject, keys: string[]): unknown {
	return keys.map((key) => record[key]).find((value) => value !== undefined && value !== null);
}

function rawStatus(job: IDataObject, jobs: JobContract): string {
	const status = firstValue(job, jobs.status);
	return typeof status === 'string' ? status : '';
}

function stateOf(status: string, jobs: JobContract): JobState | undefined {
	if (jobs.states[status] !== undefined) return jobs.states[status];
	const lower = status.toLowerCase();
	if (SUCCEEDED.has(lower)) return 'succeeded';
	if (FAILED.has(lower)) return 'failed';
	return PENDING.has(lower) ? 'pending' : undefined;
}

export function jobState(job: IDataObject, jobs: JobContract): JobState {
	return stateOf(rawStatus(job, jobs), jobs) ?? 'pending';
}

/** Whether an object is a job: an id and a status the contract or the usual names know. */
export function isJob(value: unknown, jobs: JobContract): boolean {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
	const id = firstValue(value as IDataObject, jobs.id);
	return (typeof id === 'string' || typeof id === 'number') && stateOf(rawStatus(value as IDataObject, jobs), jobs) !== undefined;
}

/** The job an answer is or refers to: itself, a `job` inside it, or a `job_id`/`jobId` reference. */
export function findJob(body: unknown, jobs: JobContract): { id: string; job?: IDataObject } | undefined {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const record = body as IDataObject;
	if (isJob(record, jobs)) return { id: String(firstValue(record, jobs.id)), job: record };
	if (isJob(record.job, jobs)) return { id: String(firstValue(record.job as IDataObject, jobs.id)), job: record.job as IDataObject };
	for (const candidate of [record.job_id, record.jobId]) {
		if (typeof candidate === 'string' && candidate.length > 0) return { id: candidate };
	}
	const nested = record.job as IDataObject | undefined;
	if (nested !== null && typeof nested === 'object' && typeof nested.id === 'string') return { id: nested.id };
	return undefined;
}

function jobError(job: IDataObject, jobs: JobContract): { message: string; code?: string } {
	const error = firstValue(job, jobs.error);
	if (typeof error === 'string') return { message: error };
	if (error !== null && typeof error === 'object') {
		const record = error as IDataObject;
		const message = firstValue(record, ['message', 'reason', 'detail', 'description']);
		return {
			message: typeof message === 'string' ? message : JSON.stringify(error),
			code: typeof record.code === 'string' ? record.code : undefined,
		};
	}
	for (const key of ['error_message', 'errorMessage', 'failure_reason', 'message']) {
		if (typeof job[key] === 'string') return { message: job[key] as string };
	}
	return { message: `The job ended with status "${rawStatus(job, jobs)}"` };
}

function failedJobError(context: IExecuteFunctions, jobId: string, job: IDataObject, jobs: JobContract, itemIndex: number) {
	const { message, code } = jobError(job, jobs);
	const error = new NodeApiError(context.getNode(), job as JsonObject, {
		message: `Job ${jobId} failed: ${message}`,
		description: code ? `Error code: ${code}` : undefined,
		itemIndex,
	});
	// Every request succeeded; n8n would otherwise take the job's "status" for an HTTP code.
	error.httpCode = null;
	return error;
}

/**
 * Polls a job until it finishes, backing off between polls. Sleeping goes through the
 * execution's cancel signal, so a cancelled execution stops waiting at once.
 */
export async function waitForJob(
	this: IExecuteFunctions,
	{ jobId, waitOptions: { pollIntervalSeconds, maxWaitSeconds }, since }: JobToAwait,
	itemIndex: number,
	/** The item's request timeout; a poll never outlasts the wait's deadline either. */
	requestTimeoutMs: number,
): Promise<IDataObject> {
	const signal = this.getExecutionCancelSignal();
	const { jobs } = await loadContract.call(this, itemIndex);
	const deadline = Date.now() + maxWaitSeconds * 1000;
	const chosen = Math.min(Math.max(pollIntervalSeconds * 1000, 50), LONGEST_POLL_INTERVAL_MS);
	// Checks come every tenth of the time since the job started, so a job that finishes after t is
	// seen by max(t + 1 s, 1.1 t) with a number of polls that grows with the logarithm of t. The
	// first comes a second after the job started (the Poll Interval, if shorter), at once for a wait
	// that begins later than that; backing off stops at 30 s between polls (the Poll Interval, if
	// longer).
	const floor = Math.min(FIRST_POLL_MS, chosen);
	const ceiling = Math.max(MAX_POLL_INTERVAL_MS, chosen);
	const gap = () => Math.min(Math.max((Date.now() - since) * WAITED_FRACTION, floor), ceiling);
	let interval = Math.max(since + floor - Date.now(), 0);
	let lastStatus = 'unknown';

	const cancelled = () =>
		new NodeOperationError(this.getNode(), `Stopped waiting for job ${jobId}: the execution was cancelled`, {
			itemIndex,
		});

	while (true) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			throw new NodeOperationError(
				this.getNode(),
				`Job ${jobId} did not finish within ${maxWaitSeconds} seconds (last status: ${lastStatus})`,
				{
					itemIndex,
					description: `The job goes on in the service. To pick up its result later, use the Job resource's "Wait for Completion" operation with Job ID ${jobId}, or raise "Maximum Wait Time".`,
				},
			);
		}
		if (!(await sleepUnlessCancelled(Math.min(interval, remaining), signal))) throw cancelled();

		let answer: unknown;
		try {
			answer = await apiRequest.call(this, 'getJob', {
				id: jobId,
				itemIndex,
				signal,
				// The wait retries on its own schedule, and a poll that hangs must not outlast the wait.
				retryReads: false,
				timeoutMs: Math.max(MIN_POLL_TIMEOUT_MS, Math.min(requestTimeoutMs, deadline - Date.now())),
			});
		} catch (error) {
			if (signal?.aborted) throw cancelled();
			// A rate limit, a gateway error or a poll without answer is a reason to wait longer, not to give up.
			if (!isTransient(error)) throw asNodeError(this, error, itemIndex);
			lastStatus = `unknown (the last poll failed: ${(error as Error).message})`;
			interval = Math.max(Math.min(gap() * 2, ceiling), retryAfterMs(error) ?? 0);
			continue;
		}

		const job = requireObject(this, answer, itemIndex);
		lastStatus = rawStatus(job, jobs) || 'unknown';
		const state = jobState(job, jobs);
		if (state === 'succeeded') return job;
		if (state === 'failed') throw failedJobError(this, jobId, job, jobs, itemIndex);
		interval = gap();
	}
}

/**
 * Reads an answer that may be a job: the job to wait for when waiting was asked for and the job
 * is unfinished, otherwise the answer itself (a job, or a synchronous result).
 */
export function resultOrJobToAwait(
	this: IExecuteFunctions,
	answer: IDataObject,
	wait: WaitOptions | undefined,
	jobs: JobContract,
	itemIndex: number,
	media?: MediaOptions,
): IDataObject | JobToAwait {
	const found = findJob(answer, jobs);
	if (wait === undefined || found === undefined) return answer;
	const job = found.job ?? answer;
	const state = found.job === undefined ? 'pending' : jobState(job, jobs);
	if (state === 'succeeded') return job;
	if (state === 'failed') throw failedJobError(this, found.id, job, jobs, itemIndex);
	return new JobToAwait(found.id, wait, media);
}

/** The wait options of an operation with a "Wait for Completion" switch, or undefined when off. */
export function readJobWait(this: IExecuteFunctions, itemIndex: number): WaitOptions | undefined {
	const waitForCompletion = this.getNodeParameter('waitForCompletion', itemIndex, true) as boolean;
	return waitForCompletion ? readWaitOptions.call(this, itemIndex) : undefined;
}

export function readWaitOptions(this: IExecuteFunctions, itemIndex: number): WaitOptions {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const pollIntervalSeconds = Number(options.pollInterval ?? 5);
	const maxWaitSeconds = Number(options.maxWaitTime ?? 600);
	for (const [name, value] of [
		['Poll Interval', pollIntervalSeconds],
		['Maximum Wait Time', maxWaitSeconds],
	] as const) {
		if (!Number.isFinite(value) || value <= 0) {
			throw new NodeOperationError(this.getNode(), `"${name}" must be a positive number of seconds`, {
				itemIndex,
			});
		}
	}
	return { pollIntervalSeconds, maxWaitSeconds };
}
