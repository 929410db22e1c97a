import { TOLERANCE_SECONDS } from './signature';

// A delivery older than the signature's replay window is refused anyway, so ids need keeping
// only that long (twice, for clocks that differ).
const REMEMBER_MS = 2 * TOLERANCE_SECONDS * 1000;
const MAX_REMEMBERED = 10_000;

/** Keys of recent deliveries, oldest first, with when each arrived. */
const recent = new Map<string, number>();

/**
 * Whether this delivery (a webhook registration's event id) arrived before, recently. The service
 * retries a delivery whose answer it did not get; that retry must not start a second execution.
 * Memory stays bounded: entries older than the replay window go, and beyond 10,000 the oldest.
 * Kept per n8n process: n8n's webhook processors in queue mode each keep their own.
 */
export function isRepeatedDelivery(key: string, now = Date.now()): boolean {
	for (const [oldest, arrivedAt] of recent) {
		if (now - arrivedAt < REMEMBER_MS && recent.size < MAX_REMEMBERED) break;
		recent.delete(oldest);
	}
	if (recent.has(key)) return true;
	recent.set(key, now);
	return false;
}
