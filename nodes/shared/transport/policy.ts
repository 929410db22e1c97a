import type { IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { parseJson } from '../json';
import { keepInMemory, MAX_REMEMBERED } from '../memory';
import { sleepUnlessCancelled } from '../sleep';
import type { RequestContext } from './credentials';
import {
	asNodeError,
	cancelledError,
	isTransient,
	retryAfterMs,
	serviceError,
	type ErrorSettings,
	type ServiceAnswer,
} from './errors';
import { exchange, type ExchangeSettings } from './http';
import { endTurn, MAX_PAUSE_MS, takeTurn } from './pacing';

/**
 * When a request may be sent again, decided in one place: sendUnderPolicy sends every request to
 * the service. A read is tried up to three times after a rate limit, a gateway error or no answer.
 * A write is sent again after a lost answer only with the idempotency header the service declares
 * (one key per item, the same on every attempt and on n8n's Retry On Fail), else only after a 429,
 * which the service answers before doing anything; a lost answer then fails as "outcome unknown"
 * and is not sent again in this execution. A write that succeeded is remembered by its item's key,
 * so Retry On Fail returns its first answer.
 */

const ATTEMPTS = 3;
const RETRY_BACKOFF_MS = 1000;
// Answers of succeeded writes are kept this long and this many, in this n8n process.
const REMEMBER_MS = 60 * 60_000;
// And this many characters of answers in all: 10,000 answers of up to a megabyte each would be 10 GB.
const MAX_REMEMBERED_CHARACTERS = 64 * 1024 * 1024;
// Answers of writes are remembered for n8n's Retry On Fail only up to this size.
const MAX_REMEMBERED_ANSWER = 1024 * 1024;

export interface SendPolicy {
	attempts: number;
	retryable(error: unknown): boolean;
	/** The headers a write carries, where the service declares them: its key, and when it was first sent. */
	idempotency?: Record<string, string>;
	memoKey?: string;
}

// A read's policy depends on nothing of its item: the same serves every read.
export const READ: SendPolicy = { attempts: ATTEMPTS, retryable: isTransient };
/** For a caller that reads again on its own schedule (a job's polls, a delivery the service repeats). */
export const READ_ONCE: SendPolicy = { attempts: 1, retryable: isTransient };
/** A clean-up that does no harm twice (a webhook's DELETE: 404 means done): again after any 5xx. */
export const CLEAN_UP: SendPolicy = {
	attempts: 2,
	retryable: (error) =>
		isTransient(error) || Number((error as NodeApiError | undefined)?.httpCode) >= 500,
};

/** A request's policy, by its method and the idempotency headers its service declares; `itemKey` is its item's key. */
export function sendPolicy(
	name: string,
	operation: { method: string; idempotency?: { header: string; firstSent?: string } },
	itemKey: string | undefined,
): SendPolicy {
	if (operation.method === 'GET') return READ;
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

interface Sending<T> extends ExchangeSettings, Pick<ErrorSettings, 'describe' | 'notice'> {
	/** No pause may end after this time. */
	deadline: number;
	/** An answer below 400 as what is returned (and remembered by the policy's memoKey). */
	read(answer: ServiceAnswer): Promise<T>;
}

/**
 * The one retry loop: sends a request under its policy and the execution's pace (every attempt
 * takes its turn) until an answer below 400, which it returns as read. A failure the policy
 * retries is sent again after a pause: a 429's is the pace's, which holds every request back for
 * its Retry-After; any other failure backs off 1, 2, 4… seconds, or its Retry-After where longer.
 * A Retry-After beyond MAX_PAUSE_MS is not waited for, nor a pause that would end after the
 * deadline; a cancel ends a pause at once.
 */
export async function sendUnderPolicy<T>(
	context: RequestContext,
	endpoint: { method: string; path: string },
	request: IHttpRequestOptions,
	policy: SendPolicy,
	settings: Sending<T>,
): Promise<T> {
	const { deadline, signal, itemIndex } = settings;
	const earlier = recall<T>(policy.memoKey);
	if (earlier !== undefined) {
		if ('answered' in earlier) return earlier.answered;
		throw outcomeUnknown(context, endpoint, itemIndex);
	}
	for (let attempt = 1; ; attempt++) {
		if (!(await takeTurn(context, deadline, signal))) {
			if (signal?.aborted) throw cancelledError(context, itemIndex);
			throw pausedTooLong(context, endpoint, itemIndex);
		}
		let answer: ServiceAnswer | undefined;
		try {
			answer = await exchange.call(context, request, settings);
			if (answer.statusCode >= 400) {
				// A refusal's body is read as JSON where it is, and quoted as text where it is not.
				const limits = { maxLength: settings.maxBytes, maxDepth: 256, maxValues: 4_000_000 };
				const body = await parseJson(answer.text, limits).catch(() => undefined);
				throw serviceError(context, answer, body, {
					...settings,
					idempotent: !!policy.idempotency,
				});
			}
			endTurn(context, answer);
			const read = await settings.read(answer);
			if (answer.text.length <= MAX_REMEMBERED_ANSWER)
				remember(policy.memoKey, { answered: read }, answer.text.length);
			return read;
		} catch (error) {
			if (answer === undefined || answer.statusCode >= 400)
				endTurn(context, answer, retryAfterMs(error));
			const retryAfter = retryAfterMs(error) ?? 0;
			if (signal?.aborted) throw cancelledError(context, itemIndex);
			const rateLimited = error instanceof NodeApiError && error.httpCode === '429';
			const pause = rateLimited ? 0 : Math.max(retryAfter, RETRY_BACKOFF_MS * 2 ** (attempt - 1));
			const retry =
				attempt < policy.attempts &&
				policy.retryable(error) &&
				retryAfter <= MAX_PAUSE_MS &&
				Date.now() + Math.max(pause, retryAfter) <= deadline;
			if (!retry && endpoint.method !== 'GET' && !policy.idempotency && isLostAnswer(error)) {
				remember(policy.memoKey, { unknown: true });
				throw outcomeUnknown(context, endpoint, itemIndex, error);
			}
			if (!retry || !(await sleepUnlessCancelled(pause, signal))) {
				if (signal?.aborted) throw cancelledError(context, itemIndex);
				throw asNodeError(context, error, itemIndex);
			}
		}
	}
}

function pausedTooLong(
	context: RequestContext,
	endpoint: { method: string; path: string },
	itemIndex?: number,
): NodeApiError {
	const error = new NodeApiError(
		context.getNode(),
		{ status: 429 },
		{
			message: 'The service asked to wait longer than this request may take',
			description: `The service is limiting the request rate, and its Retry-After ends after this request's limit (its Timeout, or the Maximum Wait Time). Nothing was sent for ${endpoint.method} ${endpoint.path}. Raise the limit, lower "Requests in Parallel", or run fewer items at once.`,
			httpCode: '429',
			itemIndex,
		},
	);
	error.context.transient = true;
	return error;
}

function outcomeUnknown(
	context: RequestContext,
	endpoint: { method: string; path: string },
	itemIndex?: number,
	cause?: unknown,
): NodeApiError {
	const why = cause instanceof Error ? ` (${cause.message})` : '';
	return new NodeApiError(
		context.getNode(),
		{ outcome: 'unknown' },
		{
			message: `The service's answer to ${endpoint.method} ${endpoint.path} was lost${why}: it may or may not have been carried out`,
			description:
				'The service does not declare idempotency keys, so the node does not send a write twice. Check in the service whether it was carried out (for example with Get Many) before running this item again; Retry On Fail of this execution will not send it again.',
			itemIndex,
		},
	);
}

/** Whether an error means the request may have reached the service without its answer reaching n8n. */
function isLostAnswer(error: unknown): boolean {
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

/** When a write was first sent, as an IMF-fixdate, remembered for its repeats. */
function firstSent(memoKey: string): string {
	// Kept as long as outcomes are, and as many.
	return (
		firstSentTimes.get(memoKey) ?? keepInMemory(firstSentTimes, memoKey, new Date().toUTCString())
	);
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
