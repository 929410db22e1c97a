import { TOLERANCE_SECONDS } from '../shared/executor/signatures';

// A delivery older than the signature's replay window is refused anyway, so ids need keeping
// only that long (twice, for clocks that differ).
const REMEMBER_MS = 2 * TOLERANCE_SECONDS * 1000;
const MAX_REMEMBERED = 10_000;

/** Keys of deliveries that started a workflow, oldest first, with when each did. */
const started = new Map<string, number>();

function forgetOld(now: number): void {
	for (const [oldest, at] of started) {
		if (now - at < REMEMBER_MS && started.size < MAX_REMEMBERED) break;
		started.delete(oldest);
	}
}

/**
 * Whether this delivery (a webhook registration's event id) already started a workflow, recently.
 * The service retries a delivery whose answer it did not get; that retry must not start a second
 * execution. Memory stays bounded: entries older than the replay window go, and beyond 10,000 the
 * oldest. Kept per n8n process: n8n's webhook processors in queue mode each keep their own.
 */
export function startedBefore(key: string, now = Date.now()): boolean {
	forgetOld(now);
	return started.has(key);
}

/**
 * Remembers a delivery once its workflow is being started, not before: a delivery whose handling
 * failed (a job lookup the service did not answer) is answered with an error, and its retry runs.
 */
export function markStarted(key: string, now = Date.now()): void {
	forgetOld(now);
	started.set(key, now);
}
