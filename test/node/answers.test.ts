/**
 * Answers that break the shape the node expects fail clearly, and lists stay bounded: no broken
 * items, no success that is not one, no endless paging.
 */
import { FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';

const harness = useFakeService();

const getAccount = { resource: 'account', operation: 'get' };

describe('single objects', () => {
	it.each([
		['no body', undefined],
		['a string', 'ok'],
		['a number', 42],
		['a list', [{ id: 'x' }]],
		['null', null],
	])('an answer with %s fails the item instead of passing as a result', async (found, body) => {
		harness.service.injectFault({ match: { path: '/v1/me' }, rewriteAnswer: () => body });
		const result = await harness.run(getAccount);
		expect(result.error?.message).toBe(
			`The service answered with ${found} where it should return an object`,
		);
	});

	it('a publish whose answer has no body is not taken for a success, and nothing is polled', async () => {
		harness.service.injectFault({ match: { method: 'POST' }, rewriteAnswer: () => undefined });
		const result = await harness.run({
			resource: 'publication',
			operation: 'publishLinkedin',
			source: 'text',
			text: 'Hello',
			options: FAST_WAIT,
		});
		expect(result.error?.message).toBe(
			'The service answered with no body where it should return an object',
		);
		expect(harness.sent('getJob')).toHaveLength(0);
	});

	it('a job poll that answers with text fails the wait clearly', async () => {
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			rewriteAnswer: () => 'done',
		});
		const result = await harness.run({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A video',
			options: FAST_WAIT,
		});
		expect(result.error?.message).toBe(
			'The service answered with a string where it should return an object',
		);
	});
});

describe('lists', () => {
	const endless = (pageSize: number) => {
		let page = 0;
		return () => {
			page++;
			return {
				data: Array.from({ length: pageSize }, (_, index) => ({ id: `post_${page}_${index}` })),
				next_cursor: `cursor_${page}`,
			};
		};
	};

	it('Return All stops with a clear error after 10,000 items when the cursor never ends', async () => {
		harness.service.injectFault({
			match: { path: '/v1/posts' },
			status: 200,
			body: endless(100),
			times: 1000,
		});
		const result = await harness.run({ resource: 'post', operation: 'getMany', returnAll: true });
		expect(result.error?.message).toBe('Return All stopped after 10,000 items');
		expect(harness.sent('listPosts')).toHaveLength(101);
	});

	// Two answers of 200,000 items, each made, sent and read in full: seconds on an idle machine,
	// more than Jest's 30 s on 2 cores under load, so this test may take 180 s.
	it('reads one page of 200,000 items without overflowing the stack', async () => {
		harness.service.injectFault({ match: { path: '/v1/posts' }, rewriteAnswer: endless(200_000) });
		const result = await harness.run({
			resource: 'post',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
		});
		expect(jsonOf(result).map((item) => item.id)).toEqual(['post_1_0', 'post_1_1', 'post_1_2']);

		harness.service.injectFault({ match: { path: '/v1/posts' }, rewriteAnswer: endless(200_000) });
		expect(
			(await harness.run({ resource: 'post', operation: 'getMany', returnAll: true })).error
				?.message,
		).toBe('Return All stopped after 10,000 items');
	}, 180_000);

	it('a cursor that repeats stops the paging without repeating items', async () => {
		harness.service.injectFault({
			match: { path: '/v1/posts' },
			status: 200,
			body: { data: [{ id: 'post_a' }, { id: 'post_b' }], next_cursor: 'again' },
			times: 10,
		});
		const result = await harness.run({ resource: 'post', operation: 'getMany', returnAll: true });
		expect(jsonOf(result).map((item) => item.id)).toEqual(['post_a', 'post_b']);
		expect(harness.sent('listPosts')).toHaveLength(2);
	});
});
