import { NodeApiError } from 'n8n-workflow';

import type { OperationName, OperationProfile } from '../profile/types';
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
const MAX_REMEMBERED = 10_000;

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

export function sendPolicy(
	name: OperationName,
	operation: OperationProfile,
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

export type Outcome<T> = { answered: T } | { unknown: true };

const outcomes = new Map<string, { outcome: Outcome<unknown>; at: number }>();
const firstSentTimes = new Map<string, string>();

/** When a write was first sent, as an IMF-fixdate, remembered for its repeats. */
function firstSent(memoKey: string): string {
	let sent = firstSentTimes.get(memoKey);
	if (sent === undefined) {
		sent = new Date().toUTCString();
		// Kept as long as outcomes are, and as many.
		if (firstSentTimes.size >= MAX_REMEMBERED)
			firstSentTimes.delete(firstSentTimes.keys().next().value as string);
		firstSentTimes.set(memoKey, sent);
	}
	return sent;
}

/** What an earlier attempt of this item's write came to, if it is remembered. */
export function recall<T>(memoKey: string | undefined): Outcome<T> | undefined {
	if (memoKey === undefined) return undefined;
	const now = Date.now();
	for (const [key, { at }] of outcomes) {
		if (now - at < REMEMBER_MS && outcomes.size <= MAX_REMEMBERED) break;
		outcomes.delete(key);
	}
	return outcomes.get(memoKey)?.outcome as Outcome<T> | undefined;
}

export function remember<T>(memoKey: string | undefined, outcome: Outcome<T>): void {
	if (memoKey === undefined) return;
	outcomes.delete(memoKey);
	outcomes.set(memoKey, { outcome, at: Date.now() });
}
