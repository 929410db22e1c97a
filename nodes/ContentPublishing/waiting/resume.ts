import type {
	IDataObject,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { jobInDelivery, readDelivery, readJob } from '../../shared/executor/answers';
import { answer, deliveryOf, verifyDelivery } from '../../shared/executor/signatures';
import { nonEmptyText } from '../../shared/profile/pointer';
import type { Profile } from '../../shared/profile/types';
import { isNotFound } from '../../shared/secrets';
import { loadProfile } from '../../shared/executor/profiles';
import { asNodeError, keepInMemory, READ_ONCE, readJobById } from '../../shared/executor/send';
import { endedJob, jobTimeoutError, statusText } from './poll';
import { downloadMedia } from '../media/binary';
import { errorJson, simplify, withoutErrorKey } from '../actions/outputs';
import {
	PROBE_PARAM,
	RUN_MAC_PARAM,
	SECRET_PARAM,
	STATE_PARAM,
	UNTIL_PARAM,
	credentialOf,
	derivedSecret,
	openState,
	resumeAddress,
	runMac,
	sameText,
	secretScope,
	unseal,
	type WaitContext,
	type WaitState,
} from './sealed';
import { READ_TIMEOUT_MS, callLater, removeRegistration } from './registrations';

// `$execution.resumeUrl` + `/<node id>`. A named constant, as n8n's `sendAndWaitWebhooksDescription`:
// n8n never registers a restart webhook, so the rule `webhook-lifecycle-complete` must not ask for lifecycle methods.
export const EVENT_WAIT_WEBHOOKS: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	},
];

// Calls without a valid signature read this many jobs at once per wait and process, then one per 5 s.
export const UNSIGNED_READS_PER_MINUTE = 12;
const READ_REFILL_MS = 60_000 / UNSIGNED_READS_PER_MINUTE;
// Waits this process resumed, so that a call coming while n8n starts the execution does not resume it twice.
const RESUMED_MEMORY_MS = 10 * 60_000;
const UNREADABLE = {
	error: 'The jobs could not be read; the execution goes on waiting. Send again.',
};

type ReadOptions = { toTheEnd?: boolean; start?: number; budget?: { tokens: number } };

function jobsOf(state: WaitState) {
	return state.j.flatMap((jobId, itemIndex) => (jobId === null ? [] : [{ itemIndex, jobId }]));
}

/**
 * Each item's output (a pending job's: its timeout error), read up to the first job still pending
 * (or to the end), so a call that changes nothing costs one read. Reading starts at `start` and comes
 * round: after the job a signed event named (jobs tend to finish in order), or at the job an earlier
 * call found pending. Each read takes a token of `budget`.
 */
export async function readWaitedJobs(
	context: WaitContext,
	profile: Profile,
	state: WaitState,
	{ toTheEnd = false, start = 0, budget }: ReadOptions = {},
): Promise<{ outputs: Map<number, IDataObject | Error>; pendingAt?: number }> {
	const jobs = jobsOf(state);
	const outputs = new Map<number, IDataObject | Error>();
	let pendingAt: number | undefined;
	for (let step = 0; step < jobs.length; step++) {
		const position = (start + step) % jobs.length;
		const { itemIndex, jobId } = jobs[position];
		if (budget) budget.tokens--;
		let job: IDataObject;
		try {
			job = await readJobById.call(context, jobId, {
				itemIndex,
				policy: READ_ONCE,
				timeoutMs: READ_TIMEOUT_MS,
			});
		} catch (error) {
			// A job the service no longer knows will never finish: its item fails. Any other failure is read again later.
			if (!isNotFound(error)) throw asNodeError(context, error, itemIndex);
			outputs.set(itemIndex, error);
			continue;
		}
		const view = { ...readJob(profile.jobs, job), id: jobId };
		const ended = endedJob(context, job, view, itemIndex);
		if (ended !== undefined) {
			outputs.set(itemIndex, ended);
			continue;
		}
		outputs.set(itemIndex, jobTimeoutError(context, jobId, state.w, statusText(view), itemIndex));
		pendingAt ??= position;
		if (!toTheEnd) break;
	}
	return { outputs, pendingAt };
}

const running = new Map<string, Promise<unknown>>();
const resumed = new Map<string, number>();

/** Calls for one wait run one after another in this process: two that both see every job finished resume once. */
async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
	const before = running.get(key) ?? Promise.resolve();
	const mine = before.catch(() => undefined).then(work);
	running.set(key, mine);
	try {
		return await mine;
	} finally {
		if (running.get(key) === mine) running.delete(key);
	}
}

/** A wait's reads for calls without a valid signature, in this process: a token bucket. */
interface UnsignedReads {
	/** Reads allowed now: up to UNSIGNED_READS_PER_MINUTE, one more every READ_REFILL_MS; below 0 after a call that read many. */
	tokens: number;
	at: number;
	/** The position of the job the last such call found pending: where the next one starts. */
	start: number;
	/** When the node's own call, planned for the calls held back meanwhile, is due. */
	owedAt: number;
}

const unsignedReads = new Map<string, UnsignedReads>();

function unsignedReadsOf(wait: string): UnsignedReads {
	const now = Date.now();
	const full = { tokens: UNSIGNED_READS_PER_MINUTE, at: now, start: 0, owedAt: 0 };
	const reads = unsignedReads.get(wait) ?? keepInMemory(unsignedReads, wait, full);
	reads.tokens = Math.min(
		UNSIGNED_READS_PER_MINUTE,
		reads.tokens + Math.max(0, now - reads.at) / READ_REFILL_MS,
	);
	reads.at = now;
	return reads;
}

/**
 * A call without a valid signature and without a read left: 429 with Retry-After, and one call of the
 * node's own once a read is allowed, so an event held back is not lost (nothing in a call is believed).
 */
function holdBack(context: IWebhookFunctions, reads: UnsignedReads, query: IDataObject) {
	const waitMs = Math.ceil((1 - reads.tokens) * READ_REFILL_MS);
	const address = resumeAddress(context);
	if (reads.owedAt <= Date.now() && address !== undefined) {
		for (const param of [STATE_PARAM, UNTIL_PARAM, RUN_MAC_PARAM, SECRET_PARAM]) {
			const value = nonEmptyText(query[param]);
			if (value !== undefined) address.searchParams.set(param, value);
		}
		reads.owedAt = Date.now() + waitMs;
		callLater(context, address, 'held-back', waitMs);
	}
	context.getResponseObject().setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
	return answer(context, 429, {
		error: 'Too many calls without a valid signature: the jobs are read again shortly.',
	});
}

/** The items the execution resumes with: one per input item, paired, in order. */
async function resumedItems(
	context: IWebhookFunctions,
	profile: Profile,
	state: WaitState,
	outputs: Map<number, IDataObject | Error>,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	const simple = context.getNodeParameter('simplify', false) === true;
	for (const [itemIndex, jobId] of state.j.entries()) {
		const pairedItem = { item: itemIndex };
		if (jobId === null) {
			items.push({ json: state.o?.[itemIndex] ?? {}, pairedItem });
			continue;
		}
		const output =
			outputs.get(itemIndex) ?? jobTimeoutError(context, jobId, state.w, 'unknown', itemIndex);
		const media = Array.isArray(state.m) ? state.m[itemIndex] : state.m;
		try {
			if (output instanceof Error) throw output;
			const json = withoutErrorKey(simple ? simplify(profile, output, { job: true }) : output);
			const binary =
				media && (await downloadMedia.call(context, output, profile.jobs, media, itemIndex));
			items.push(binary ? { json, pairedItem, binary } : { json, pairedItem });
		} catch (error) {
			items.push({ json: errorJson(error as Error), pairedItem });
		}
	}
	return items;
}

/**
 * A call of the resume address: resumes the execution once every job has finished, or after the
 * deadline. Never throws: n8n would resume the execution with its data replaced by the error.
 */
export async function resumeOnEvent(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await handleCall(this);
	} catch (error) {
		this.logger.warn(
			`Content Publishing: a call of the resume address failed: ${(error as Error).message}`,
		);
		return answer(this, 503, UNREADABLE);
	}
}

async function handleCall(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const query = context.getQueryData() as IDataObject;
	const sealed = nonEmptyText(query[STATE_PARAM]) ?? '';
	const executionId = context.getExecutionId();
	const nodeId = context.getNode().id;
	const { key, credential } = await credentialOf(context);
	const state = openState(key, { executionId, nodeId, sealed });
	const ours =
		state !== undefined &&
		sameText(nonEmptyText(query[RUN_MAC_PARAM]) ?? '', runMac(context, key, state.n));
	if (!ours)
		return answer(context, 401, { error: 'This address is not the one this wait registered.' });
	if (query[PROBE_PARAM] === '1') return answer(context, 200, { waiting: true });

	const wait = `${executionId}:${nodeId}:${state.n}`;
	return await oneAtATime(wait, async () => {
		if ((resumed.get(wait) ?? 0) > Date.now())
			return answer(context, 200, { received: true, resumed: true });
		const profile = await loadProfile.call(context);
		const jobs = jobsOf(state);

		// A delivery the node can check, about a job not of this wait, needs no read; one about a job of
		// this wait says where reading starts: after it.
		let start = 0;
		let signed = false;
		const scope = secretScope(executionId, nodeId, state.n);
		const secret =
			state.k === 1
				? derivedSecret(profile, key, scope)
				: unseal(key, scope, nonEmptyText(query[SECRET_PARAM]) ?? '');
		if (secret !== undefined) {
			const { headers, body, rawBody } = deliveryOf(context);
			if (verifyDelivery(headers, rawBody, secret, profile.webhooks.signature).valid) {
				signed = true;
				const delivery = readDelivery(profile.webhooks.delivery, { body, headers });
				const job = jobInDelivery(profile.jobs, profile.webhooks.delivery, delivery.data);
				const position = job === undefined ? -1 : jobs.findIndex(({ jobId }) => jobId === job.id);
				if (job !== undefined && position < 0)
					return answer(context, 200, { received: true, ignored: 'not a job of this wait' });
				start = position + 1;
			}
		}

		// Calls without a valid signature read within a budget, from where the last one found a job pending.
		const unsigned = signed ? undefined : unsignedReadsOf(wait);
		if (unsigned !== undefined && unsigned.tokens < 1) return holdBack(context, unsigned, query);
		const late = Date.now() >= state.d * 1000;
		const read = await readWaitedJobs(context, profile, state, {
			toTheEnd: late,
			start: unsigned?.start ?? start,
			budget: unsigned,
		}).catch((error: unknown) => {
			context.logger.debug(
				`Content Publishing: a job of the wait could not be read: ${(error as Error).message}`,
			);
		});
		if (read === undefined) return answer(context, 503, UNREADABLE);
		if (unsigned !== undefined) unsigned.start = read.pendingAt ?? 0;
		if (read.pendingAt !== undefined && !late)
			return answer(context, 200, { received: true, waiting: true });

		// The caller has its answer before media are downloaded: a service waits only seconds for one.
		answer(context, 200, { received: true, resumed: true });
		const items = await resumedItems(context, profile, state, read.outputs);
		// The call does not say which registration it came by: the one with this wait's address.
		const resume = resumeAddress(context);
		if (resume !== undefined)
			await removeRegistration(
				{ context, profile, resume, key, credential },
				{ sealed, until: state.d * 1000 },
			);
		keepInMemory(resumed, wait, Date.now() + RESUMED_MEMORY_MS);
		unsignedReads.delete(wait);
		return { noWebhookResponse: true, workflowData: [items] };
	});
}
