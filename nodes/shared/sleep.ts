import { sleep } from 'n8n-workflow';

// Community nodes may not clear timers: a wait sleeps in slices, so a cancelled one leaves one
// slice behind and no timer meets Node.js's 24.8-day limit (beyond which it fires at once).
const CANCEL_CHECK_MS = 1000;

/**
 * Waits `ms` unless the execution is cancelled first; resolves to whether the whole delay passed.
 * n8n-workflow's `sleepWithAbort` is gone from n8n 2.34 on, while `sleep` is in every version.
 */
export async function sleepUnlessCancelled(ms: number, signal?: AbortSignal): Promise<boolean> {
	const end = Date.now() + ms;
	while (!signal?.aborted) {
		const left = end - Date.now();
		if (left <= 0) return true;
		await untilEitherSettles(sleep(Math.min(left, CANCEL_CHECK_MS)), signal);
	}
	return false;
}

// What runs when an execution is cancelled, by its signal: one listener on each, however many
// pauses and requests are under way (Node warns past 10 listeners on one signal).
const onCancel = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `callback` once when `signal` aborts; returns what stops waiting for it. */
export function whenCancelled(signal: AbortSignal, callback: () => void): () => void {
	if (signal.aborted) {
		callback();
		return () => {};
	}
	let callbacks = onCancel.get(signal);
	if (callbacks === undefined) {
		const all = new Set<() => void>();
		signal.addEventListener('abort', () => all.forEach((run) => run()), { once: true });
		onCancel.set(signal, (callbacks = all));
	}
	// Each registration is its own entry: stopping one never stops another of the same callback.
	const mine = () => callback();
	callbacks.add(mine);
	const waiting = callbacks;
	return () => waiting.delete(mine);
}

async function untilEitherSettles(slice: Promise<void>, signal?: AbortSignal): Promise<void> {
	if (signal === undefined) return await slice;
	let stopWaiting = () => {};
	const cancelled = new Promise<void>((resolve) => {
		stopWaiting = whenCancelled(signal, resolve);
	});
	try {
		await Promise.race([slice, cancelled]);
	} finally {
		stopWaiting();
	}
}
