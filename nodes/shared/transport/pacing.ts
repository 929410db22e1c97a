import { sleep } from 'n8n-workflow';

import { headerValue, type Headers } from '../http-values';
import type { RequestContext } from './credentials';

/**
 * How fast one execution sends: every request of an execution takes its turn here, so
 * "Requests in Parallel" is a ceiling and the rate follows the service's limit. Where the service
 * states its quota (`RateLimit` per the IETF draft, `X-RateLimit-*`), no more requests are under way
 * than the quota left; where it does not, a 429 spaces requests 15% wider than the rate that met
 * it and successes narrow that by 2% a second, as TCP does. No wait outlasts the request's own
 * limit or the execution's cancel: a longer one fails at once, saying so.
 */

// A longer Retry-After is the service asking for a pause the node should not take silently.
export const MAX_PAUSE_MS = 30_000;
const SLOWER = 1.15;
const FASTER_PER_SECOND = 0.02;
// Waits are slept in slices, so a cancel or a turn freed by an answer is seen within this long.
const PACING_CHECK_MS = 25;
const RECENT_MS = 1000;

class Pace {
	/** Least time between two requests' starts; 0 sends as fast as the ceiling allows. */
	interval = 0;
	nextStart = 0;
	heldUntil = 0;
	/** The quota the service said is left, until `quotaUntil`. */
	quota?: number;
	quotaUntil = 0;
	lastRefusal = 0;
	readonly starts: number[] = [];

	recentRate(now: number): number {
		while (this.starts.length > 0 && now - this.starts[0] > RECENT_MS) this.starts.shift();
		return this.starts.length;
	}
}

const paces = new WeakMap<RequestContext, Pace>();

function paceOf(context: RequestContext): Pace {
	let pace = paces.get(context);
	if (pace === undefined) paces.set(context, (pace = new Pace()));
	return pace;
}

/** The quota a service says is left, when it is refilled, and how large it is, from whichever rate-limit fields it sends. */
function quotaOf(
	headers: Headers,
	now = Date.now(),
): { remaining: number; resetAt: number; limit?: number } | undefined {
	// Most answers carry none of these fields: said at once, without reading each.
	let fields = false;
	for (const name in headers) if ((fields = name.includes('ratelimit'))) break;
	if (!fields) return undefined;
	const number = (name: string) => {
		const value = headerValue(headers, name).trim();
		return /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
	};
	// RFC draft structured field: `"default";r=42;t=17`.
	const structured = /(?:^|;)\s*r=(\d+)\s*;.*?\bt=(\d+)|(?:^|;)\s*t=(\d+)\s*;.*?\br=(\d+)/.exec(
		headerValue(headers, 'ratelimit'),
	);
	if (structured !== null) {
		const policy = /\bq=(\d+)/.exec(headerValue(headers, 'ratelimit-policy'));
		return {
			remaining: Number(structured[1] ?? structured[4]),
			resetAt: now + Number(structured[2] ?? structured[3]) * 1000,
			limit: policy === null ? undefined : Number(policy[1]),
		};
	}
	for (const prefix of ['ratelimit', 'x-ratelimit']) {
		const remaining = number(`${prefix}-remaining`);
		const reset = number(`${prefix}-reset`);
		if (remaining === undefined || reset === undefined) continue;
		// Seconds from now, or a Unix time in seconds or milliseconds (GitHub, Okta).
		const resetAt = reset > 1e12 ? reset : reset > 1e9 ? reset * 1000 : now + reset * 1000;
		return { remaining, resetAt, limit: number(`${prefix}-limit`) };
	}
	return undefined;
}

/**
 * Waits for this execution's turn to send. Resolves to false, having waited nothing more, when the
 * turn would come after `deadline`, or when the execution is cancelled.
 */
export async function takeTurn(
	context: RequestContext,
	deadline: number,
	signal?: AbortSignal,
): Promise<boolean> {
	const pace = paceOf(context);
	for (;;) {
		if (signal?.aborted) return false;
		const now = Date.now();
		// The quota left, less the requests sent since the service said it: none left, none sent.
		const full = pace.quota !== undefined && now < pace.quotaUntil && pace.quota <= 0;
		const at = Math.max(pace.heldUntil, pace.nextStart);
		if (at > deadline || (full && pace.quotaUntil > deadline)) return false;
		if (at <= now && !full) break;
		await sleep(Math.max(1, Math.min(at - now, PACING_CHECK_MS)));
	}
	const now = Date.now();
	if (pace.quota !== undefined) pace.quota = Math.max(0, pace.quota - 1);
	pace.nextStart = now + pace.interval;
	pace.starts.push(now);
	return true;
}

/** Ends a turn with what the service answered: its rate-limit fields, or its 429. */
export function endTurn(
	context: RequestContext,
	answer: { statusCode: number; headers: Headers } | undefined,
	retryAfterMs?: number,
): void {
	const pace = paceOf(context);
	const now = Date.now();
	const quota = answer === undefined ? undefined : quotaOf(answer.headers, now);
	if (quota !== undefined) {
		pace.quota = quota.remaining;
		pace.quotaUntil = quota.resetAt;
		if (quota.remaining === 0) {
			// None left: wait for the reset or, where the quota's size is known, for one request's share
			// of it (a token bucket refills one at a time; a fixed window answers early with a 429).
			const share = quota.limit ? (quota.resetAt - now) / quota.limit : quota.resetAt - now;
			pace.heldUntil = Math.max(pace.heldUntil, now + Math.min(Math.max(share, 0), MAX_PAUSE_MS));
			if (quota.limit) pace.quota = 1;
		}
	}
	if (answer?.statusCode === 429) {
		const pause = Math.min(retryAfterMs ?? RECENT_MS, MAX_PAUSE_MS);
		pace.heldUntil = Math.max(pace.heldUntil, now + pause);
		// Requests under way when the limit was met are refused together: that is one slow-down.
		if (now - pace.lastRefusal > Math.max(pace.interval * 2, 100))
			pace.interval =
				pace.interval === 0
					? (RECENT_MS / Math.max(1, pace.recentRate(now))) * SLOWER
					: pace.interval * SLOWER;
		pace.lastRefusal = now;
	} else if (
		answer !== undefined &&
		answer.statusCode < 400 &&
		pace.interval > 0 &&
		now - pace.lastRefusal > RECENT_MS
	) {
		// Each success speeds up by its share of 2% a second.
		pace.interval /= 1 + (FASTER_PER_SECOND * pace.interval) / RECENT_MS;
	}
}
