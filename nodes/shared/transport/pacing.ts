import { sleepUnlessCancelled } from '../sleep';
import type { RequestContext } from './credentials';

/**
 * How fast one execution sends: after a 429, every request of the execution holds back for as long
 * as the service asked. A pause never outlasts the request's own limit (its Timeout, or the
 * Maximum Wait Time of a job wait) nor the execution's cancel: where the service asks for longer,
 * the request fails at once, saying so.
 */

// A longer Retry-After is the service asking for a pause the node should not take silently.
export const MAX_PAUSE_MS = 30_000;

/** Until when the service asked this execution to hold back. */
const heldUntil = new WeakMap<RequestContext, number>();

export function holdBack(context: RequestContext, ms: number): void {
	heldUntil.set(context, Math.max(heldUntil.get(context) ?? 0, Date.now() + Math.min(ms, MAX_PAUSE_MS)));
}

/**
 * Waits until the execution may send again. Resolves to false when the pause would end after
 * `deadline` (nothing is waited then) or the execution was cancelled.
 */
export async function waitTurn(context: RequestContext, deadline: number, signal?: AbortSignal): Promise<boolean> {
	const pause = (heldUntil.get(context) ?? 0) - Date.now();
	if (pause <= 0) return true;
	if (Date.now() + pause > deadline) return false;
	return await sleepUnlessCancelled(pause, signal);
}
