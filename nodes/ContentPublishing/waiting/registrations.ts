import { randomInt } from 'crypto';
import { sleep } from 'n8n-workflow';

import { readAt } from '../../shared/profile/pointer';
import type { Profile } from '../../shared/profile/types';
import { deleteRegistration, registrationId } from '../../shared/secrets';
import { readPages } from '../../shared/executor/paging';
import {
	CLEAN_UP,
	keepInMemory,
	type RequestContext,
	type SendPolicy,
} from '../../shared/executor/send';
import {
	PROBE_PARAM,
	RUN_MAC_PARAM,
	STATE_PARAM,
	UNTIL_PARAM,
	openState,
	safeMessage,
	type WaitContext,
	type credentialOf,
} from './sealed';

// Marks the node's own calls of a resume address, for n8n's logs (and the tests); nothing is believed from it.
export const CHECK_HEADER = 'x-content-publishing-wait';

export const READ_TIMEOUT_MS = 10_000;
// A registration this far past its deadline is of an execution n8n resumed (it checks once a minute).
export const LEFTOVER_GRACE_MS = 120_000;
// What one sweep may send (list pages, probes of n8n, DELETEs) and how long it may take.
export const MAX_LIST_PAGES = 10;
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

/** A registration on the service of a wait of this n8n's Content Publishing nodes. */
type Registration = NonNullable<ReturnType<typeof registeredWait>> & { id: string };

/** A registration's address read back as a wait of this n8n (its origin and waiting-webhook path): any node, any execution. */
function registeredWait(address: unknown, resume: URL) {
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

/** One call of the node's own to a wait's address; its answer's status. */
async function callAddress(context: WaitContext, url: URL, why: string, timeout: number) {
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
	policy?: SendPolicy,
): Promise<{ registrations: Registration[]; complete: boolean }> {
	const registrations: Registration[] = [];
	const pages = readPages.call(context, 'listWebhooks', {
		maxPages: MAX_LIST_PAGES,
		pageSize: () => 100,
		timeoutMs: READ_TIMEOUT_MS,
		policy,
	});
	for await (const listed of pages) {
		let hit = false;
		for (const webhook of listed.items) {
			const wait = registeredWait(readAt(webhook, profile.webhooks.registration.url), resume);
			const id = registrationId(profile, webhook);
			if (wait === undefined || id === undefined) continue;
			const registration = { ...wait, id };
			registrations.push(registration);
			hit ||= found?.(registration) === true;
		}
		if (listed.next === undefined) return { registrations, complete: true };
		if (hit) break;
	}
	return { registrations, complete: false };
}

/** Whether a registration's execution still waits: n8n answers 404 or 409 for one that ended, the node 200. */
async function stillWaiting(context: WaitContext, url: URL): Promise<boolean> {
	const probe = new URL(url.toString());
	probe.searchParams.set(PROBE_PARAM, '1');
	try {
		return ![404, 409].includes(await callAddress(context, probe, 'probe', 5_000));
	} catch (error) {
		// n8n not reachable from itself: the registration is kept until its deadline has passed.
		context.logger.debug(
			`Content Publishing: could not probe a waiting registration: ${safeMessage(error, url)}`,
		);
		return true;
	}
}

/** What a sweep runs with: a run of the node with the credential, and this n8n's resume address for it. */
export type Sweeper = { context: WaitContext; profile: Profile; resume: URL } & Awaited<
	ReturnType<typeof credentialOf>
>;

/** A registration this process knows may remain: when a sweep is due for it, its wait's deadline, and whether the wait is over. */
type Due = { at: number; until: number; over?: boolean };

/** A credential's planned sweeps: by the latest run that planned one, and by registration (its sealed state). */
type Plan = { by: Sweeper; due: Map<string, Due> };

const plans = new Map<string, Plan>();

/** Plans a sweep for a registration; the first plan of a credential starts its sweeps in this process. */
export function planSweep(by: Sweeper, sealed: string, due: Due): void {
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

/** A retry a minute from now for a registration that could not be removed, within its hour past the deadline; says which, for n8n's log. */
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
export async function sweep(by: Sweeper, current?: string): Promise<void> {
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

type Target = { sealed: string; until: number; id?: string };

/**
 * Removes the wait's registration by its id where known, else by its sealed state (unique: it holds
 * the nonce), each request sent once more a second later where the service fails it (CLEAN_UP);
 * where that fails too, a sweep is planned and false returned.
 */
export async function removeRegistration(by: Sweeper, target: Target): Promise<boolean> {
	const { context, profile, resume, credential } = by;
	try {
		if (target.id !== undefined) {
			await deleteRegistration(context, target.id, CLEAN_UP);
		} else {
			const mine = (registration: Registration) => registration.sealed === target.sealed;
			const listed = await listRegistrations(context, profile, resume, mine, CLEAN_UP);
			const found = listed.registrations.filter(mine);
			for (const registration of found.slice(0, MAX_SWEEP_DELETES))
				await deleteRegistration(context, registration.id, CLEAN_UP);
			if (found.length === 0 && !listed.complete)
				throw new Error(
					`It is not among the first ${MAX_LIST_PAGES} pages of the service's webhooks`,
				);
		}
		plans.get(credential)?.due.delete(target.sealed);
		return true;
	} catch (error) {
		// The wait is over: it resumed, or it polled.
		const next = planRetry(by, target.sealed, { until: target.until, over: true });
		context.logger.warn(
			`Content Publishing: the webhook of an event wait could not be removed (${next}): ${safeMessage(error, resume)}`,
		);
		return false;
	}
}

/** A call of the node's own to a wait's address `delayMs` from now, so the jobs are read; it holds no execution. */
export function callLater(context: WaitContext, url: URL, why: string, delayMs: number): void {
	sleep(delayMs)
		.then(async () => await callAddress(context, url, why, READ_TIMEOUT_MS))
		.catch((error: unknown) =>
			context.logger.debug(
				`Content Publishing: the call to the resume address failed: ${safeMessage(error, url)}`,
			),
		);
}
