import { createHash } from 'crypto';

import { TOLERANCE_SECONDS } from '../shared/executor/signatures';
import type { SignatureScheme } from '../shared/profile/types';

// The deliveries each trigger (a workflow's node on its subscription) has started its workflow for,
// in this process, so a retry or a replay starts nothing while its signature would still verify
// (docs/trigger.md). An entry is never dropped early: a full memory answers "later".

/** Deliveries one trigger remembers at most: 10,000 in the 10-minute window is 16 a second. */
export const MAX_DELIVERIES_PER_TRIGGER = 10_000;
/** Triggers the process remembers deliveries for at most, each at most MAX_DELIVERIES_PER_TRIGGER. */
export const MAX_TRIGGERS = 1_000;

// A signed timestamp is accepted TOLERANCE_SECONDS either side of n8n's clock, so a delivery can
// be replayed for up to 2 × TOLERANCE_SECONDS from now, and the second still counting.
const SIGNED_TIME_WINDOW_MS = (2 * TOLERANCE_SECONDS + 1) * 1000;
// A signature over the body alone verifies for ever. An hour covers the retries soon after a lost
// answer (Standard Webhooks retries after 5 s, 5 min and 30 min); a later replay starts again.
const UNSIGNED_TIME_RETENTION_MS = 60 * 60 * 1000;

/** How long a started delivery is remembered: as long as a replay of it could verify. */
export function retentionMs(scheme: Pick<SignatureScheme, 'signed'>): number {
	return scheme.signed.includes('timestamp') ? SIGNED_TIME_WINDOW_MS : UNSIGNED_TIME_RETENTION_MS;
}

/** Start the workflow, answer that it was delivered before, or answer 503 with Retry-After. */
export type Admission =
	| { admit: 'start' }
	| { admit: 'repeat' }
	| { admit: 'later'; retryAfterSeconds: number };

interface TriggerMemory {
	/** A digest of each delivery, with when it may be forgotten (ms). */
	forgetAt: Map<string, number>;
	/**
	 * The same digests in the order they started, the oldest at `head`: a Map's iterator walks
	 * past every entry deleted before it, so forgetting the oldest would cost the memory's size.
	 */
	order: string[];
	head: number;
	/** When the last of them may be forgotten. */
	emptyAt: number;
}

// The forgotten part of a queue is cut off once it is this long and most of the queue.
const QUEUE_COMPACTION = 1024;

const triggers = new Map<string, TriggerMemory>();

// SHA-256, one character a byte: ids and bodies of any length cost the same 32 characters.
function digest(text: string | Buffer): string {
	return createHash('sha256').update(text).digest('binary');
}

/** What identifies a delivery: its id where the service gives one, else its body. */
export function deliveryKey(id: string | undefined, rawBody: Buffer): string {
	return id === undefined ? `body ${digest(rawBody)}` : `id ${id}`;
}

function secondsUntil(at: number, now: number): number {
	return Math.max(1, Math.ceil((at - now) / 1000));
}

/** Drops the entries whose time is up: the oldest come first, so this stops at the first that is not. */
function forgetExpired(trigger: string, memory: TriggerMemory, now: number): void {
	while (memory.head < memory.order.length) {
		const oldest = memory.order[memory.head];
		if ((memory.forgetAt.get(oldest) ?? 0) > now) break;
		memory.forgetAt.delete(oldest);
		memory.head++;
	}
	if (memory.forgetAt.size === 0) triggers.delete(trigger);
	else if (memory.head >= QUEUE_COMPACTION && memory.head * 2 >= memory.order.length) {
		memory.order = memory.order.slice(memory.head);
		memory.head = 0;
	}
}

/** By the digests of the trigger and the delivery; a trigger not yet remembered needs room too. */
function decide(trigger: string, delivery: string, now: number): Admission {
	const memory = triggers.get(trigger);
	if (memory !== undefined) forgetExpired(trigger, memory, now);
	if (memory?.forgetAt.has(delivery)) return { admit: 'repeat' };
	if (memory !== undefined && memory.forgetAt.size >= MAX_DELIVERIES_PER_TRIGGER) {
		const oldest = memory.forgetAt.get(memory.order[memory.head]) ?? now;
		return { admit: 'later', retryAfterSeconds: secondsUntil(oldest, now) };
	}
	if (triggers.has(trigger) || triggers.size < MAX_TRIGGERS) return { admit: 'start' };
	// Only ever reached with MAX_TRIGGERS triggers in their window: one pass over them, not their deliveries.
	for (const [other, itsMemory] of triggers) forgetExpired(other, itsMemory, now);
	if (triggers.size < MAX_TRIGGERS) return { admit: 'start' };
	// When the first of them will have nothing left to remember.
	const soonest = Math.min(...[...triggers.values()].map(({ emptyAt }) => emptyAt));
	return { admit: 'later', retryAfterSeconds: secondsUntil(soonest, now) };
}

/** Whether the trigger started this delivery before, or cannot remember it now: asked before any job lookup. */
export function admission(trigger: string, delivery: string, now = Date.now()): Admission {
	return decide(digest(trigger), digest(delivery), now);
}

/**
 * Remembers the delivery as the trigger starts its workflow, for `keepMs`: 'start' where it is new;
 * a copy that arrived meanwhile and got here first makes this one a 'repeat'.
 */
export function rememberStart(
	trigger: string,
	delivery: string,
	keepMs: number,
	now = Date.now(),
): Admission {
	const triggerKey = digest(trigger);
	const deliveryDigest = digest(delivery);
	const decided = decide(triggerKey, deliveryDigest, now);
	if (decided.admit !== 'start') return decided;
	let memory = triggers.get(triggerKey);
	if (memory === undefined)
		triggers.set(triggerKey, (memory = { forgetAt: new Map(), order: [], head: 0, emptyAt: 0 }));
	// Never before an entry already there: a clock set back keeps entries longer, never shorter.
	const forgetAt = Math.max(now + keepMs, memory.emptyAt);
	memory.forgetAt.set(deliveryDigest, forgetAt);
	memory.order.push(deliveryDigest);
	memory.emptyAt = forgetAt;
	return decided;
}
