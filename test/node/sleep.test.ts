import { getEventListeners } from 'node:events';

import { sleepUnlessCancelled } from '../../nodes/shared/sleep';

describe('sleepUnlessCancelled', () => {
	it('resolves true once the delay has passed', async () => {
		const started = Date.now();
		await expect(sleepUnlessCancelled(30, new AbortController().signal)).resolves.toBe(true);
		expect(Date.now() - started).toBeGreaterThanOrEqual(25);
	});

	it('resolves false at once when the execution is cancelled during the wait', async () => {
		const controller = new AbortController();
		const waiting = sleepUnlessCancelled(60_000, controller.signal);
		controller.abort();
		await expect(waiting).resolves.toBe(false);
	});

	it('does not wait at all when the execution was already cancelled', async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(sleepUnlessCancelled(60_000, controller.signal)).resolves.toBe(false);
	});

	it('keeps waiting for a delay longer than a Node.js timer can hold instead of ending at once', async () => {
		const controller = new AbortController();
		let settled: boolean | undefined;
		const waiting = sleepUnlessCancelled(1e12, controller.signal).then(
			(value) => (settled = value),
		);
		await new Promise((resolve) => setImmediate(resolve));
		await sleepUnlessCancelled(20);
		expect(settled).toBeUndefined();
		controller.abort();
		await waiting;
		expect(settled).toBe(false);
	});

	it('listens on the execution once however many pauses are under way, and lets go when they end', async () => {
		const controller = new AbortController();
		const warnings: Error[] = [];
		const warned = (warning: Error) => warnings.push(warning);
		process.on('warning', warned);
		try {
			const ended = await Promise.all(
				Array.from({ length: 3 }, () => sleepUnlessCancelled(5, controller.signal)),
			);
			expect(ended).toEqual([true, true, true]);
			const waiting = Array.from({ length: 40 }, () =>
				sleepUnlessCancelled(60_000, controller.signal),
			);
			expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
			controller.abort();
			expect(await Promise.all(waiting)).toEqual(Array.from({ length: 40 }, () => false));
			await new Promise((resolve) => setImmediate(resolve));
			expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
		} finally {
			process.off('warning', warned);
		}
	});
});
