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
});
