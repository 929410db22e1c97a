import { NodeApiError } from 'n8n-workflow';

import { isTransient } from './errors';

/**
 * When a request may be sent again, decided in one place. A read is tried up to three times after
 * a rate limit, a gateway error or no answer. A write is sent again after a lost answer only with
 * the idempotency header the service declares (one key per item, the same on every attempt and on
 * n8n's Retry On Fail), else only after a 429, which the service answers before doing anything; a
 * lost answer then fails as "outcome unknown" and is not sent again in this execution. A write that
 * succeeded is remembered by its item's key, so Retry On Fail returns its first answer.
 */

const ATTEMPTS = 3;
// Answers of succeeded writes are kept this long and this many, in this n8n process.
const REMEMBER_MS = 60 * 60_000;
// The most entries one of this process's memories holds.
const MAX_REMEMBERED = 10_000;
// And this many characters of answers in all: 10,000 answers of up to a megabyte each would be 10 GB.
const MAX_REMEMBERED_CHARACTERS = 64 * 1024 * 1024;

export interface SendPolicy {
	attempts: number;
	retryable(error: unknown): boolean;
	/** The headers a write carries, where the service declares them: its key, and when it was first sent. */
	idempotency?: Record<string, string>;
	memoKey?: string;
}

// A read's policy depends on nothing of its item: the same two serve every read.
const READ: SendPolicy = { attempts: ATTEMPTS, retryable: isTransient };
const READ_ONCE: SendPolicy = { attempts: 1, retryable: isTransient };

/** A request's policy, by its method and the idempotency headers its service declares; `itemKey` is its item's key. */
export function sendPolicy(
	name: string,
	operation: { method: string; idempotency?: { header: string; firstSent?: string } },
	itemKey: string | undefined,
	retryReads = true,
): SendPolicy {
	if (operation.method === 'GET') return retryReads ? READ : READ_ONCE;
	const memoKey = itemKey === undefined ? undefined : `${name}:${itemKey}`;
	const { header, firstSent: firstSentHeader } = operation.idempotency ?? {};
	if (header === undefined || itemKey === undefined || memoKey === undefined)
		return {
			attempts: ATTEMPTS,
			retryable: (error) => error instanceof NodeApiError && error.httpCode === '429',
			memoKey,
		};
	// OASIS Repeatable Requests: a UUID, and the time the first attempt went out, the same on every repeat.
	const idempotency =
		firstSentHeader === undefined
			? { [header]: itemKey }
			: {
					[header]: itemKey.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12}).*$/, '$1-$2-$3-$4-$5'),
					[firstSentHeader]: firstSent(memoKey),
				};
	return { attempts: ATTEMPTS, retryable: isTransient, idempotency, memoKey };
}

/** Whether an error means the request may have reached the service without its answer reaching n8n. */
export function isLostAnswer(error: unknown): boolean {
	return (
		error instanceof NodeApiError &&
		(error.context.unanswered === true || ['502', '504'].includes(error.httpCode ?? ''))
	);
}

type Outcome<T> = { answered: T } | { unknown: true };

const outcomes = new Map<string, { outcome: Outcome<unknown>; at: number; size: number }>();
let rememberedCharacters = 0;

function forget(memoKey: string): void {
	rememberedCharacters -= outcomes.get(memoKey)?.size ?? 0;
	outcomes.delete(memoKey);
}
const firstSentTimes = new Map<string, string>();

/** Sets `key` in a memory of this process, forgetting the oldest entry where it holds MAX_REMEMBERED. */
export function keepInMemory<T>(memory: Map<string, T>, key: string, value: T): T {
	if (!memory.has(key) && memory.size >= MAX_REMEMBERED)
		memory.delete(memory.keys().next().value as string);
	memory.set(key, value);
	return value;
}

/** When a write was first sent, as an IMF-fixdate, remembered for its repeats. */
function firstSent(memoKey: string): string {
	let sent = firstSentTimes.get(memoKey);
	if (sent === undefined) {
		sent = new Date().toUTCString();
		// Kept as long as outcomes are, and as many.
		keepInMemory(firstSentTimes, memoKey, sent);
	}
	return sent;
}

/** What an earlier attempt of this item's write came to, if it is remembered. */
export function recall<T>(memoKey: string | undefined): Outcome<T> | undefined {
	if (memoKey === undefined) return undefined;
	const now = Date.now();
	for (const [key, { at }] of outcomes) {
		if (
			now - at < REMEMBER_MS &&
			outcomes.size <= MAX_REMEMBERED &&
			rememberedCharacters <= MAX_REMEMBERED_CHARACTERS
		)
			break;
		forget(key);
	}
	return outcomes.get(memoKey)?.outcome as Outcome<T> | undefined;
}

/** Remembers an item's outcome; `size`: the characters of the answer it holds. */
export function remember<T>(memoKey: string | undefined, outcome: Outcome<T>, size = 0): void {
	if (memoKey === undefined) return;
	forget(memoKey);
	outcomes.set(memoKey, { outcome, at: Date.now(), size });
	rememberedCharacters += size;
	// The oldest go first once the memory holds too much; the newest stays whatever its size.
	for (const key of outcomes.keys()) {
		if (rememberedCharacters <= MAX_REMEMBERED_CHARACTERS || key === memoKey) break;
		forget(key);
	}
}
