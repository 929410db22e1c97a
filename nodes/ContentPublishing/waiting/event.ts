import {
	createCipheriv,
	createDecipheriv,
	createHmac,
	randomBytes,
	randomInt,
	timingSafeEqual,
} from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import {
	jobInDelivery,
	readDelivery,
	readJob,
	type PageToken,
} from '../../shared/executor/answers';
import { verifyDelivery } from '../../shared/executor/signatures';
import { isRecord, nonEmptyText, own, readAt } from '../../shared/profile/pointer';
import type { Profile } from '../../shared/profile/types';
import {
	deleteRegistration,
	isNotFound,
	registerWebhook,
	registrationId,
	secretFor,
	type Registered,
} from '../../shared/secrets';
import { readPage } from '../../shared/executor/paging';
import { loadProfile } from '../../shared/executor/profiles';
import {
	asNodeError,
	callEndpoint,
	isLoopbackHost,
	isTransient,
	keepInMemory,
	readCredentials,
	readJobById,
	serviceEvents,
	type RequestContext,
} from '../../shared/executor/send';
import { endedJob, jobTimeoutError, statusText } from './poll';
import { downloadMedia } from '../media/binary';
import type { JobToAwait, MediaOptions } from '../actions/types';
import { errorJson, simplify, withoutErrorKey } from '../actions/outputs';

// Wait Method "Service Event" (docs/waiting.md). The wait's state travels sealed in the resume
// address: n8n keeps nothing of a waiting node's output for its webhook, and static data is the
// workflow's, not the execution's. A call of the address only prompts the node to read the jobs.

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

// Query parameters of the registered address, beside n8n's own `signature` (from n8n 2.14).
const STATE_PARAM = 'cp_wait';
const UNTIL_PARAM = 'cp_until';
const RUN_MAC_PARAM = 'cp_run';
const SECRET_PARAM = 'cp_key';
const PROBE_PARAM = 'cp_probe';
// Marks the node's own calls of a resume address, for n8n's logs (and the tests); nothing is believed from it.
export const CHECK_HEADER = 'x-content-publishing-wait';

// For a service that states no limit of a webhook's address; n8n refuses request lines near 16 kB.
const DEFAULT_MAX_URL_LENGTH = 2048;
const MAX_URL_LENGTH = 8000;
const READ_TIMEOUT_MS = 10_000;
const PROBE_TIMEOUT_MS = 5_000;
// A registration this far past its deadline is of an execution n8n resumed (it checks once a minute).
export const LEFTOVER_GRACE_MS = 120_000;
// What one sweep may send (list pages, probes of n8n, DELETEs) and how long it may take.
export const MAX_LIST_PAGES = 10;
const LIST_PAGE_SIZE = 100;
const MAX_PROBES = 20;
export const MAX_SWEEP_DELETES = 20;
const SWEEP_TIME_LIMIT_MS = 30_000;
// n8n answers 409 for a wait it is still saving, as for an ended one: younger waits are not probed.
const YOUNG_MS = 60_000;
// While registrations of this n8n's waits remain, a process that made or saw one sweeps this often.
export const SWEEP_INTERVAL_MS = 5 * 60_000;
// After a failed clean-up, the next sweep comes when the registration is old enough to be judged.
export const SWEEP_RETRY_MS = YOUNG_MS;
// A process stops retrying a registration it fails to remove this long after the wait's time limit;
// the sweep before every wait of the credential still removes it.
export const SWEEP_GIVE_UP_MS = 60 * 60_000;
// How often a process with planned sweeps looks whether one is due: a plan may come earlier than the last.
const SWEEP_CHECK_MS = 1_000;
const CLEANUP_RETRY_MS = 1_000;
// Calls without a valid signature read this many jobs at once per wait and process, then one per 5 s.
export const UNSIGNED_READS_PER_MINUTE = 12;
const READ_REFILL_MS = 60_000 / UNSIGNED_READS_PER_MINUTE;
// n8n answers 409 until it has saved the wait: the node's own call this much later reads the jobs.
export const NUDGE_DELAY_MS = 2_000;
// Waits this process resumed, so that a call coming while n8n starts the execution does not resume it twice.
const RESUMED_MEMORY_MS = 10 * 60_000;
const UNREADABLE = {
	error: 'The jobs could not be read; the execution goes on waiting. Send again.',
};

/** A run of the node, or a call of its resume address. */
type WaitContext = IExecuteFunctions | IWebhookFunctions;

interface WaitState {
	v: 1;
	/** Random per registration: tells this node's registrations apart, and seeds the signing secret. */
	n: string;
	/** When the wait ends, in Unix seconds: n8n resumes the execution itself then. */
	d: number;
	/** The Maximum Wait Time, in seconds, for the timeout's message. */
	w: number;
	/** Each item's job id, or null where the item's output was decided before the wait (in `o`). */
	j: Array<string | null>;
	/** Outputs decided before the wait, by item index: an error item, or an answer without a job. */
	o?: Record<string, IDataObject>;
	/** Download Media's field and bounds of each item (null: none), or one for every item. */
	m?: MediaOptions | Array<MediaOptions | null>;
	/** 1 where the node chose the signing secret: derived from the key, written nowhere. */
	k?: 1;
}

interface EventWaitSetup {
	/** This execution's resume address for this node, with n8n's token where it has one. */
	resume: URL;
	/** The service's events for a finished and a failed job. */
	events: string[];
}

function hmac(key: Buffer | string, data: string): Buffer {
	return createHmac('sha256', key).update(data).digest();
}

/** The key that seals a wait's state (only this credential writes a state it believes), and the credential as sweeps know it. */
async function credentialOf(context: RequestContext): Promise<{ key: Buffer; credential: string }> {
	const { apiKey, baseUrl } = await readCredentials.call(context);
	const key = hmac(apiKey, 'n8n-nodes-content-publishing event wait v1');
	return { key, credential: hmac(key, `sweep\n${baseUrl}`).toString('base64url') };
}

function sameText(a: string, b: string): boolean {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
}

const stateScope = (executionId: string, nodeId: string) => `state\n${executionId}\n${nodeId}`;
const secretScope = (executionId: string, nodeId: string, nonce: string) =>
	`secret\n${executionId}\n${nodeId}\n${nonce}`;

/** The secret the node registers: derived from the key and the wait's secret scope, so it is never stored. */
function derivedSecret(profile: Profile, key: Buffer, scope: string): string {
	return secretFor(profile.webhooks.signature, hmac(key, scope));
}

/** Text sealed with the key (AES-256-GCM), bound to `aad`: only this credential opens it, and nothing in it can be changed. */
function seal(key: Buffer, aad: string, text: string): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', hmac(key, 'seal'), iv);
	cipher.setAAD(Buffer.from(aad));
	const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
	return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** Undefined where the text was sealed with another key or for another `aad`, or changed. */
function unseal(key: Buffer, aad: string, sealed: string): string | undefined {
	try {
		const bytes = Buffer.from(sealed, 'base64url');
		const decipher = createDecipheriv('aes-256-gcm', hmac(key, 'seal'), bytes.subarray(0, 12));
		decipher.setAAD(Buffer.from(aad));
		decipher.setAuthTag(bytes.subarray(12, 28));
		return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
	} catch {
		return undefined;
	}
}

/**
 * Binds the address to this run of the node (its input's node, output and run; not the item count,
 * which Execute Once changes): n8n serves one resume address per execution and node.
 */
function runMac(context: WaitContext, key: Buffer, nonce: string): string {
	const run = context.evaluateExpression(
		'{{ JSON.stringify([$prevNode.name, $prevNode.outputIndex, $prevNode.runIndex]) }}',
		0,
	);
	const parts = [context.getExecutionId(), context.getNode().id, nonce, String(run)];
	return hmac(key, parts.join('\n')).toString('base64url');
}

function isState(value: unknown): value is WaitState {
	return (
		isRecord(value) &&
		value.v === 1 &&
		typeof value.n === 'string' &&
		typeof value.d === 'number' &&
		typeof value.w === 'number' &&
		Array.isArray(value.j) &&
		value.j.every((id) => id === null || typeof id === 'string')
	);
}

/** The wait's state from its address, where this credential sealed it for this execution and node. */
function openState(
	key: Buffer,
	{ executionId, nodeId, sealed }: Pick<Registration, 'executionId' | 'nodeId' | 'sealed'>,
): WaitState | undefined {
	try {
		const value: unknown = JSON.parse(
			unseal(key, stateScope(executionId, nodeId), sealed) ?? 'null',
		);
		return isState(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/** A registration on the service of a wait of this n8n's Content Publishing nodes. */
interface Registration {
	id: string;
	executionId: string;
	nodeId: string;
	/** The wait's deadline, in milliseconds. */
	until: number;
	sealed: string;
	url: URL;
}

/** A registration's address read back as a wait of this n8n (its origin and waiting-webhook path): any node, any execution. */
function registeredWait(address: unknown, resume: URL): Omit<Registration, 'id'> | undefined {
	if (typeof address !== 'string') return undefined;
	try {
		const url = new URL(address);
		const segments = url.pathname.split('/');
		const ours = resume.pathname.split('/');
		const sealed = url.searchParams.get(STATE_PARAM);
		const until = url.searchParams.get(UNTIL_PARAM) ?? '';
		if (
			url.origin !== resume.origin ||
			segments.length !== ours.length ||
			segments.slice(0, -2).join('/') !== ours.slice(0, -2).join('/') ||
			sealed === null ||
			!url.searchParams.has(RUN_MAC_PARAM) ||
			!/^\d{1,12}$/.test(until)
		)
			return undefined;
		return {
			executionId: decodeURIComponent(segments[segments.length - 2]),
			nodeId: decodeURIComponent(segments[segments.length - 1]),
			until: Number(until) * 1000,
			sealed,
			url,
		};
	} catch {
		// Not an address, or a path that does not decode: no address n8n made.
		return undefined;
	}
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A failure's message without the wait's addresses, n8n's token or the node's query values, in any quoted form. */
function safeMessage(error: unknown, resume: URL, ...addresses: URL[]): string {
	let result = error instanceof Error ? error.message : String(error);
	const waitingPath = resume.pathname.split('/').slice(0, -2).join('/');
	if (waitingPath !== '')
		result = result.replace(
			new RegExp(
				`(?:${escapeRegExp(resume.origin)})?${escapeRegExp(waitingPath)}/[^\\s"'<>()]*`,
				'g',
			),
			'[address]',
		);
	const secrets = [resume, ...addresses]
		.flatMap((address) => [address.toString(), ...address.searchParams.values()])
		.filter((secret) => secret.length >= 8)
		.sort((a, b) => b.length - a.length);
	for (const secret of secrets)
		for (const form of new Set([
			secret,
			encodeURIComponent(secret),
			JSON.stringify(secret).slice(1, -1),
		]))
			result = result.split(form).join('[address]');
	return result.replace(
		new RegExp(
			`\\b(${[STATE_PARAM, UNTIL_PARAM, RUN_MAC_PARAM, SECRET_PARAM, PROBE_PARAM, 'signature'].join('|')})(=|%3D)[^\\s"'&<>()]*`,
			'gi',
		),
		'$1=…',
	);
}

type WaitedJob = { itemIndex: number; jobId: string };
type ReadOptions = { toTheEnd?: boolean; start?: number; budget?: { tokens: number } };

function jobsOf(state: WaitState): WaitedJob[] {
	return state.j.flatMap((jobId, itemIndex) => (jobId === null ? [] : [{ itemIndex, jobId }]));
}

/**
 * Each item's output (a pending job's: its timeout error), read up to the first job still pending
 * (or to the end), so a call that changes nothing costs one read. Reading starts at `start` and comes
 * round: after the job a signed event named (jobs tend to finish in order), or at the job an earlier
 * call found pending. Each read takes a token of `budget`.
 */
async function readJobs(
	context: RequestContext,
	profile: Profile,
	jobs: WaitedJob[],
	maxWaitSeconds: number,
	{ toTheEnd = false, start = 0, budget }: ReadOptions = {},
): Promise<{ outputs: Map<number, IDataObject | Error>; pendingAt?: number }> {
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
				retryReads: false,
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
		outputs.set(
			itemIndex,
			jobTimeoutError(context, jobId, maxWaitSeconds, statusText(view), itemIndex),
		);
		pendingAt ??= position;
		if (!toTheEnd) break;
	}
	return { outputs, pendingAt };
}

/** One call of the node's own to a wait's address; its answer's status. */
async function callAddress(
	context: WaitContext,
	url: URL,
	why: string,
	timeout: number,
): Promise<number> {
	const answer = (await context.helpers.httpRequest({
		method: 'POST',
		url: url.toString(),
		body: {},
		json: true,
		headers: { [CHECK_HEADER]: why },
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout,
	})) as { statusCode: number };
	return answer.statusCode;
}

/** The service's registrations of this n8n's waits, up to the page where `found` holds for one; `complete` where the list ended. */
async function listRegistrations(
	context: RequestContext,
	profile: Profile,
	resume: URL,
	found?: (registration: Registration) => boolean,
): Promise<{ registrations: Registration[]; complete: boolean }> {
	const registrations: Registration[] = [];
	const tokens = new Set<string>();
	let next: PageToken | undefined;
	for (let page = 1; page <= MAX_LIST_PAGES; page++) {
		const listed = await readPage.call(context, 'listWebhooks', {
			next,
			pageSize: LIST_PAGE_SIZE,
			timeoutMs: READ_TIMEOUT_MS,
		});
		let hit = false;
		for (const webhook of listed.items) {
			const wait = registeredWait(readAt(webhook, profile.webhooks.registration.url), resume);
			const id = registrationId(profile, webhook);
			if (wait === undefined || id === undefined) continue;
			const registration = { ...wait, id };
			registrations.push(registration);
			hit ||= found?.(registration) === true;
		}
		const token = listed.next === undefined ? undefined : JSON.stringify(listed.next);
		// A list whose next page repeats an earlier one, or brings nothing, has ended.
		if (token === undefined || listed.items.length === 0 || tokens.has(token))
			return { registrations, complete: true };
		if (hit) break;
		tokens.add(token);
		next = listed.next;
	}
	return { registrations, complete: false };
}

/** Whether a registration's execution still waits: n8n answers 404 or 409 for one that ended, the node 200. */
async function stillWaiting(context: WaitContext, url: URL): Promise<boolean> {
	const probe = new URL(url.toString());
	probe.searchParams.set(PROBE_PARAM, '1');
	try {
		const status = await callAddress(context, probe, 'probe', PROBE_TIMEOUT_MS);
		return status !== 404 && status !== 409;
	} catch (error) {
		// n8n not reachable from itself: the registration is kept until its deadline has passed.
		context.logger.debug(
			`Content Publishing: could not probe a waiting registration: ${safeMessage(error, url)}`,
		);
		return true;
	}
}

/** What a sweep runs with: a run of the node with the credential, and this n8n's resume address for it. */
type Sweeper = { context: WaitContext; profile: Profile; resume: URL } & Awaited<
	ReturnType<typeof credentialOf>
>;

/** A registration this process knows may remain: when a sweep is due for it, its wait's deadline, and whether the wait is over. */
type Due = { at: number; until: number; over?: boolean };

/** A credential's planned sweeps: by the latest run that planned one, and by registration (its sealed state). */
type Plan = { by: Sweeper; due: Map<string, Due> };

const plans = new Map<string, Plan>();

/** Plans a sweep for a registration; the first plan of a credential starts its sweeps in this process. */
function planSweep(by: Sweeper, sealed: string, due: Due): void {
	const plan = plans.get(by.credential) ?? { by, due: new Map<string, Due>() };
	plan.by = by;
	const planned = plan.due.get(sealed);
	keepInMemory(plan.due, sealed, {
		...due,
		at: Math.min(due.at, planned?.at ?? due.at),
		over: due.over === true || planned?.over === true,
	});
	if (plans.get(by.credential) === plan) return;
	keepInMemory(plans, by.credential, plan);
	sweepWhenDue(plan).catch((error: unknown) =>
		plan.by.context.logger.warn(
			`Content Publishing: the sweeps of event waits stopped: ${safeMessage(error, plan.by.resume)}`,
		),
	);
}

/**
 * A retry a minute from now for a registration that could not be removed, within its hour past the
 * deadline; says which, for n8n's log.
 */
function planRetry(by: Sweeper, sealed: string, { until, over }: Omit<Due, 'at'>): string {
	const now = Date.now();
	if (now >= until + SWEEP_GIVE_UP_MS)
		return "not tried again here, an hour past its wait's time limit: the next event wait with the credential looks for it";
	planSweep(by, sealed, { at: now + SWEEP_RETRY_MS, until, over });
	return 'tried again in a minute';
}

/**
 * Runs a credential's sweeps in this process as they come due, until none is planned: nothing of the
 * node runs when a waiting execution is cancelled or n8n resumes it at its time limit.
 */
async function sweepWhenDue(plan: Plan): Promise<void> {
	while (plans.get(plan.by.credential) === plan && plan.due.size > 0) {
		const now = Date.now();
		let next = Infinity;
		for (const { at } of plan.due.values()) next = Math.min(next, at);
		if (next <= now) await sweep(plan.by);
		else await sleep(Math.min(next - now, SWEEP_CHECK_MS));
	}
	if (plans.get(plan.by.credential) === plan) plans.delete(plan.by.credential);
}

/**
 * Removes the registrations of this n8n's waits that are over (docs/waiting.md), asking n8n from a
 * random place in the list so every wait is asked in turn; those of `current` are over. Never fails:
 * a registration that cannot be removed holds back no wait. Plans a sweep for each that remains.
 */
async function sweep(by: Sweeper, current?: string): Promise<void> {
	const { context, profile, resume, key, credential } = by;
	// Its time limit on a clock that no change of the system's time moves.
	const started = performance.now();
	// The registrations due now are this sweep's: where the list cannot tell of one, it is tried again.
	const swept = new Map<string, Due>();
	const dueBy = Date.now();
	for (const [sealed, due] of plans.get(credential)?.due ?? [])
		if (due.at <= dueBy) swept.set(sealed, due);
	for (const sealed of swept.keys()) plans.get(credential)?.due.delete(sealed);
	const listed = await listRegistrations(context, profile, resume).catch((error: unknown) => {
		context.logger.warn(
			`Content Publishing: the webhooks of event waits could not be read: ${safeMessage(error, resume)}`,
		);
		return undefined;
	});
	if (listed === undefined) {
		for (const [sealed, due] of swept) planRetry(by, sealed, due);
		return;
	}
	const { registrations, complete } = listed;
	let probes = 0;
	let deletes = 0;
	const offset = registrations.length > 0 ? randomInt(registrations.length) : 0;
	for (let index = 0; index < registrations.length; index++) {
		const registration = registrations[(offset + index) % registrations.length];
		const { sealed, until } = registration;
		const known = swept.get(sealed);
		swept.delete(sealed);
		const now = Date.now();
		const inTime = performance.now() - started < SWEEP_TIME_LIMIT_MS;
		let over =
			known?.over === true ||
			registration.executionId === current ||
			until + LEFTOVER_GRACE_MS < now;
		// Old enough to ask n8n about, but beyond this sweep's bounds: asked at the next.
		let unasked = false;
		if (!over) {
			const state = openState(key, registration);
			const begun = state === undefined ? undefined : (state.d - state.w) * 1000;
			if (until <= now || (begun !== undefined && begun + YOUNG_MS <= now)) {
				unasked = !inTime || probes >= MAX_PROBES;
				if (!unasked) {
					probes++;
					over = !(await stillWaiting(context, registration.url));
				}
			}
		}
		if (over && inTime && deletes < MAX_SWEEP_DELETES) {
			deletes++;
			try {
				await deleteRegistration(context, registration.id);
				plans.get(credential)?.due.delete(sealed);
			} catch (error) {
				const next = planRetry(by, sealed, { until, over: true });
				context.logger.warn(
					`Content Publishing: the webhook of an event wait that is over could not be removed (${next}): ${safeMessage(error, resume, registration.url)}`,
				);
			}
			continue;
		}
		// Beyond this sweep's bounds: in a minute. Still waiting: within 5 minutes, and 2 past its time limit.
		const at = over || unasked ? now : Math.min(now + SWEEP_INTERVAL_MS, until + LEFTOVER_GRACE_MS);
		planSweep(by, sealed, { at: Math.max(now + SWEEP_RETRY_MS, at), until, over });
	}
	// Not in a list that ended: removed already. Beyond the pages read: tried again.
	if (!complete) for (const [sealed, due] of swept) planRetry(by, sealed, due);
}

/** A wait's registration, by its id where known, and its sealed state (unique: it holds the nonce). */
type Target = { sealed: string; until: number; id?: string };

/**
 * Removes the wait's registration by its id, else by its sealed state. Tried once more a second
 * later; where that fails too, a sweep is planned and false returned.
 */
async function removeRegistration(by: Sweeper, target: Target): Promise<boolean> {
	const { context, profile, resume, credential } = by;
	for (let attempt = 1; ; attempt++) {
		try {
			if (target.id !== undefined) {
				await deleteRegistration(context, target.id);
			} else {
				const mine = (registration: Registration) => registration.sealed === target.sealed;
				const { registrations, complete } = await listRegistrations(context, profile, resume, mine);
				const found = registrations.filter(mine);
				for (const registration of found.slice(0, MAX_SWEEP_DELETES))
					await deleteRegistration(context, registration.id);
				if (found.length === 0 && !complete)
					throw new Error(
						`It is not among the first ${MAX_LIST_PAGES} pages of the service's webhooks`,
					);
			}
			plans.get(credential)?.due.delete(target.sealed);
			return true;
		} catch (error) {
			if (attempt >= 2) {
				// The wait is over: it resumed, or it polled.
				const next = planRetry(by, target.sealed, { until: target.until, over: true });
				context.logger.warn(
					`Content Publishing: the webhook of an event wait could not be removed (${next}): ${safeMessage(error, resume)}`,
				);
				return false;
			}
			await sleep(CLEANUP_RETRY_MS);
		}
	}
}

/** `$execution.resumeUrl` with this node's id: where n8n serves the node's webhook while the execution waits. */
function resumeAddress(context: WaitContext): URL | undefined {
	const executionId = context.getExecutionId();
	let resume: URL;
	try {
		resume = new URL(String(context.evaluateExpression('{{ $execution.resumeUrl }}', 0)));
	} catch {
		return undefined;
	}
	if (!executionId || !resume.pathname.endsWith(`/${executionId}`)) return undefined;
	// From n8n 2.14 the address carries its token as a query parameter: the node's id goes in the path.
	resume.pathname = `${resume.pathname}/${encodeURIComponent(context.getNode().id)}`;
	return resume;
}

/** Refuses, before any job has started, where waiting for the service's event cannot work. */
export async function prepareEventWait(
	this: IExecuteFunctions,
	profile: Profile,
): Promise<EventWaitSetup> {
	const cannotWait = (message: string, why: string) =>
		new NodeOperationError(this.getNode(), message, {
			description: `${why} Set "Wait Method" to "Poll" to wait for the jobs from the running node instead.`,
		});
	if (typeof this.isToolExecution === 'function' && this.isToolExecution())
		throw cannotWait(
			"An AI agent cannot wait for the service's event",
			"An agent's tool call cannot sleep until a job finishes.",
		);
	// n8n 2.41's opt-in engine v2 refuses to resume waiting executions.
	if (own(this.getWorkflowSettings(), 'engineType') === 'v2')
		throw cannotWait(
			"This workflow's execution engine cannot resume a waiting execution",
			"The workflow runs on n8n's engine v2, which cannot resume executions that wait (yet).",
		);
	const resume = resumeAddress(this);
	if (resume === undefined)
		throw cannotWait(
			'This n8n has no resume address for the execution',
			'n8n gives the execution no $execution.resumeUrl that names it.',
		);
	const { baseUrl } = await readCredentials.call(this);
	if (isLoopbackHost(resume.hostname) && !isLoopbackHost(new URL(baseUrl).hostname))
		throw cannotWait(
			`The service cannot reach n8n at ${resume.origin}`,
			"n8n's address for webhooks is on this machine only. Set n8n's WEBHOOK_URL to the address where the service reaches n8n.",
		);
	const { meanings, events } = profile.webhooks;
	if (events !== undefined && meanings['job.completed'].length === 0)
		throw cannotWait(
			'The service offers no event for a finished job',
			`Its OpenAPI document lists: ${events.join(', ')}.`,
		);
	const chosen =
		events === undefined || meanings['job.failed'].length > 0
			? ['job.completed', 'job.failed']
			: ['job.completed'];
	return { resume, events: serviceEvents.call(this, profile.webhooks, chosen) };
}

/** A call of the node's own to a wait's address `delayMs` from now, so the jobs are read; it holds no execution. */
function callLater(context: WaitContext, url: URL, why: string, delayMs: number): void {
	sleep(delayMs)
		.then(async () => await callAddress(context, url, why, READ_TIMEOUT_MS))
		.catch((error: unknown) =>
			context.logger.debug(
				`Content Publishing: the call to the resume address failed: ${safeMessage(error, url)}`,
			),
		);
}

/**
 * After every item's job has started: registers the webhook, reads the jobs once, and puts the
 * execution to wait unless all have finished (their outputs). Where it cannot, a notice says why.
 */
export async function awaitByEvent(
	this: IExecuteFunctions,
	profile: Profile,
	setup: EventWaitSetup,
	jobs: Array<{ itemIndex: number; job: JobToAwait }>,
	decided: Array<INodeExecutionData[] | undefined>,
): Promise<'waiting' | Map<number, IDataObject | Error> | undefined> {
	const pollInstead = (message: string) => {
		this.addExecutionHints({ message, location: 'outputPane' });
		return undefined;
	};
	const executionId = this.getExecutionId();
	const nodeId = this.getNode().id;
	const maxWaitSeconds = Math.max(...jobs.map(({ job }) => job.waitOptions.maxWaitSeconds));
	const deadline = Date.now() + maxWaitSeconds * 1000;

	const state: WaitState = {
		v: 1,
		n: randomBytes(9).toString('base64url'),
		d: Math.ceil(deadline / 1000),
		w: maxWaitSeconds,
		j: decided.map(() => null),
	};
	const media: Array<MediaOptions | null> = decided.map(() => null);
	for (const { itemIndex, job } of jobs) {
		state.j[itemIndex] = job.jobId;
		media[itemIndex] = job.media ?? null;
	}
	const outputs: Record<string, IDataObject> = {};
	for (const [itemIndex, output] of decided.entries()) {
		if (state.j[itemIndex] !== null) continue;
		// A file cannot travel in an address: such a batch is polled.
		if (output?.length !== 1 || output[0].binary !== undefined)
			return pollInstead(
				"An item's output holds binary data, which cannot wait for the service's event, so the node polled the jobs.",
			);
		outputs[itemIndex] = output[0].json;
	}
	if (Object.keys(outputs).length > 0) state.o = outputs;
	if (media.some((options) => options !== null))
		state.m =
			new Set(media.map((options) => JSON.stringify(options))).size === 1
				? (media[0] as MediaOptions)
				: media;
	if (profile.webhooks.secret.by === 'node') state.k = 1;

	const { key, credential } = await credentialOf(this);
	const secretOfWait = secretScope(executionId, nodeId, state.n);
	const sealed = seal(key, stateScope(executionId, nodeId), JSON.stringify(state));
	let address = new URL(setup.resume.toString());
	address.searchParams.set(STATE_PARAM, sealed);
	address.searchParams.set(UNTIL_PARAM, String(state.d));
	address.searchParams.set(RUN_MAC_PARAM, runMac(this, key, state.n));
	const stated = profile.webhooks.registration.maxUrlLength;
	const limit = stated === undefined ? DEFAULT_MAX_URL_LENGTH : Math.min(stated, MAX_URL_LENGTH);
	if (address.toString().length > limit)
		return pollInstead(
			`The ${jobs.length} items' jobs make the address the wait registers longer than the service takes (${limit} characters), so the node polled them. Split the items into smaller batches (Loop Over Items) to wait for the service's event.`,
		);

	// Before registering: what earlier waits left.
	const by: Sweeper = { context: this, profile, resume: setup.resume, key, credential };
	await sweep(by, executionId);
	const remove = async (id?: string) =>
		await removeRegistration(by, { sealed, until: deadline, id });
	const notRegistered = (why: string, removed: boolean) =>
		pollInstead(
			`${why}, so the node polled the jobs.${removed ? '' : ' A webhook the service may have registered for the wait could not be looked for: n8n looks for it again in a minute and removes it.'}`,
		);

	let registered: Registered;
	try {
		registered = await registerWebhook(this, profile, {
			url: address.toString(),
			events: setup.events,
			description: `n8n execution ${executionId}: waiting for ${jobs.length} jobs`,
			ownSecret: derivedSecret(profile, key, secretOfWait),
		});
	} catch (error) {
		// The service may have stored it all the same: a lost answer, or a refusal after storing.
		const why = `The service did not register the webhook the wait needs (${safeMessage(error, setup.resume, address)})`;
		return notRegistered(why, await remove());
	}
	const { id, secret } = registered;
	if (id === undefined) {
		const why = 'The service registered the webhook but answered without its id';
		return (await remove())
			? pollInstead(`${why}, so the node removed it again and polled the jobs.`)
			: notRegistered(why, false);
	}
	// Should the execution end without the node (cancelled, or at its deadline), this process sweeps.
	const at = Math.min(Date.now() + SWEEP_INTERVAL_MS, deadline + LEFTOVER_GRACE_MS);
	planSweep(by, sealed, { at, until: deadline });
	if (state.k !== 1 && secret !== undefined) {
		// The service chose the secret: the address carries it, sealed, so the node can check deliveries.
		const withSecret = new URL(address.toString());
		withSecret.searchParams.set(SECRET_PARAM, seal(key, secretOfWait, secret));
		try {
			await callEndpoint.call(this, 'updateWebhook', {
				id,
				params: { url: withSecret.toString() },
			});
			address = withSecret;
		} catch (error) {
			this.logger.warn(
				`Content Publishing: deliveries of this wait are read unsigned: ${safeMessage(error, setup.resume, withSecret)}`,
			);
		}
	}

	try {
		const { outputs: finished, pendingAt } = await readJobs(this, profile, jobsOf(state), state.w);
		if (pendingAt === undefined) {
			await remove(id);
			return finished;
		}
	} catch (error) {
		// Waiting goes on after a rate limit or a gateway error: the events, or the node's own call, read again.
		if (!isTransient(error)) {
			await remove(id);
			throw asNodeError(this, error);
		}
	}
	await this.putExecutionToWait(new Date(deadline));
	callLater(this, address, 'after-wait', NUDGE_DELAY_MS);
	return 'waiting';
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
function holdBack(
	context: IWebhookFunctions,
	reads: UnsignedReads,
	query: IDataObject,
): IWebhookResponseData {
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

function answer(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	const response = context.getResponseObject();
	if (!response.headersSent) response.status(status).json(body);
	return { noWebhookResponse: true };
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
			const request = context.getRequestObject();
			const headers = context.getHeaderData() as Record<string, string | string[] | undefined>;
			const rawBody = Buffer.isBuffer(request.rawBody)
				? request.rawBody
				: Buffer.from(JSON.stringify(context.getBodyData()));
			if (verifyDelivery(headers, rawBody, secret, profile.webhooks.signature).valid) {
				signed = true;
				const delivery = readDelivery(profile.webhooks.delivery, {
					body: context.getBodyData(),
					headers,
				});
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
		let read: Awaited<ReturnType<typeof readJobs>>;
		try {
			read = await readJobs(context, profile, jobs, state.w, {
				toTheEnd: late,
				start: unsigned?.start ?? start,
				budget: unsigned,
			});
		} catch (error) {
			context.logger.debug(
				`Content Publishing: a job of the wait could not be read: ${(error as Error).message}`,
			);
			return answer(context, 503, UNREADABLE);
		}
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
