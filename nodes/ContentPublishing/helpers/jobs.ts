import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, asNodeError, isTransient, requireObject, retryAfterMs } from '../transport';
import { sleepUnlessCancelled } from './sleep';

export type JobState = 'pending' | 'succeeded' | 'failed';

// The service's job states are not published, so the usual names of each outcome are accepted.
const SUCCEEDED = new Set(['succeeded', 'success', 'successful', 'completed', 'complete', 'done', 'finished']);
const FAILED = new Set(['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'expired', 'rejected']);
const PENDING = new Set(['queued', 'pending', 'running', 'processing', 'in_progress', 'started', 'scheduled', 'waiting']);

const MAX_POLL_INTERVAL_MS = 30_000;
// A Poll Interval beyond this is taken as this: it bounds every timer the wait sets.
const LONGEST_POLL_INTERVAL_MS = 3_600_000;
// A poll shortly before the deadline still gets this long to answer.
const MIN_POLL_TIMEOUT_MS = 1000;
const BACKOFF_FACTOR = 1.5;

export interface WaitOptions {
	pollIntervalSeconds: number;
	maxWaitSeconds: number;
}

/** An operation's answer that is a job still to be waited for, once every item has started its own. */
export class JobToAwait {
	constructor(
		readonly jobId: string,
		readonly waitOptions: WaitOptions,
	) {}
}

function rawStatus(job: IDataObject): string {
	const status = job.status ?? job.state;
	return typeof status === 'string' ? status.toLowerCase() : '';
}

export function jobState(job: IDataObject): JobState {
	const status = rawStatus(job);
	if (SUCCEEDED.has(status)) return 'succeeded';
	if (FAILED.has(status)) return 'failed';
	return 'pending';
}

/**
 * Finds the job an answer refers to: `{ job_id }`, `{ jobId }`, `{ job: { id } }`, or a job
 * object itself (an id with a known job state). Anything else is a finished, synchronous answer.
 */
export function findJobId(body: unknown): string | undefined {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
	const record = body as IDataObject;
	for (const candidate of [record.job_id, record.jobId]) {
		if (typeof candidate === 'string' && candidate.length > 0) return candidate;
	}
	const nested = record.job as IDataObject | undefined;
	if (nested !== null && typeof nested === 'object' && typeof nested.id === 'string') return nested.id;
	const status = rawStatus(record);
	if (typeof record.id === 'string' && (SUCCEEDED.has(status) || FAILED.has(status) || PENDING.has(status))) {
		return record.id;
	}
	return undefined;
}

function jobError(job: IDataObject): { message: string; code?: string } {
	const error = job.error;
	if (typeof error === 'string') return { message: error };
	if (error !== null && typeof error === 'object') {
		const { message, code } = error as IDataObject;
		return {
			message: typeof message === 'string' ? message : JSON.stringify(error),
			code: typeof code === 'string' ? code : undefined,
		};
	}
	for (const key of ['error_message', 'errorMessage', 'failure_reason', 'message']) {
		if (typeof job[key] === 'string') return { message: job[key] as string };
	}
	return { message: `The job ended with status "${rawStatus(job)}"` };
}

function failedJobError(context: IExecuteFunctions, jobId: string, job: IDataObject, itemIndex: number) {
	const { message, code } = jobError(job);
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
	jobId: string,
	{ pollIntervalSeconds, maxWaitSeconds }: WaitOptions,
	itemIndex: number,
	/** The item's request timeout; a poll never outlasts the wait's deadline either. */
	requestTimeoutMs: number,
): Promise<IDataObject> {
	const signal = this.getExecutionCancelSignal();
	const deadline = Date.now() + maxWaitSeconds * 1000;
	let interval = Math.min(Math.max(pollIntervalSeconds * 1000, 50), LONGEST_POLL_INTERVAL_MS);
	// Backing off stops at 30 s between polls, or at the chosen interval when that is longer.
	const ceiling = Math.max(MAX_POLL_INTERVAL_MS, interval);
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
			interval = Math.max(Math.min(interval * 2, ceiling), retryAfterMs(error) ?? 0);
			continue;
		}

		const job = requireObject(this, answer, itemIndex);
		lastStatus = rawStatus(job) || 'unknown';
		const state = jobState(job);
		if (state === 'succeeded') return job;
		if (state === 'failed') throw failedJobError(this, jobId, job, itemIndex);
		interval = Math.min(interval * BACKOFF_FACTOR, ceiling);
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
	itemIndex: number,
): IDataObject | JobToAwait {
	const jobId = findJobId(answer);
	if (wait === undefined || jobId === undefined) return answer;
	const job = (answer.job as IDataObject | undefined) ?? answer;
	const state = jobState(job);
	if (state === 'succeeded') return job;
	if (state === 'failed') throw failedJobError(this, jobId, job, itemIndex);
	return new JobToAwait(jobId, wait);
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
