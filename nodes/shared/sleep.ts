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

async function untilEitherSettles(slice: Promise<void>, signal?: AbortSignal): Promise<void> {
	if (signal === undefined) return await slice;
	let stopWaiting = () => {};
	const cancelled = new Promise<void>((resolve) => {
		stopWaiting = resolve;
		signal.addEventListener('abort', stopWaiting, { once: true });
	});
	try {
		await Promise.race([slice, cancelled]);
	} finally {
		signal.removeEventListener('abort', stopWaiting);
	}
}
