import { jsonOf, useFakeService } from '../support/fixtures';

/** Requests in Parallel: several items at once, the output as if one after another. */
const harness = useFakeService();
const input = (count: number) =>
	Array.from({ length: count }, (_, index) => ({ json: { n: index } }));
const createPosts = (parallel: number) => ({
	resource: 'post',
	operation: 'create',
	content: '=Post {{ $json.n }}',
	status: 'draft',
	requestOptions: { parallel },
});

it('sends up to the chosen number of requests at once and keeps the output in input order, paired', async () => {
	// The first answers wait until 8 requests are under way: on a busy machine the first answer
	// could otherwise come back before the eighth request was sent.
	harness.service.injectFault({
		match: { method: 'POST' },
		heldUntilConcurrent: 8,
		delayMs: 30,
		times: 24,
	});
	const result = await harness.run(createPosts(8), { input: input(24) });

	expect(jsonOf(result).map((post) => post.content)).toEqual(
		input(24).map(({ json }) => `Post ${json.n}`),
	);
	expect(result.items.map((item) => item.pairedItem)).toEqual(
		input(24).map((_, index) => ({ item: index })),
	);
	expect(harness.service.maxConcurrentRequests).toBe(8);
});

it('sends one item after another with 1', async () => {
	harness.service.injectFault({ match: { method: 'POST' }, delayMs: 10, times: 6 });
	await harness.run(createPosts(1), { input: input(6) });
	expect(harness.service.maxConcurrentRequests).toBe(1);
	expect(
		harness.sent('createPost').map((request) => (request.body as { content: string }).content),
	).toEqual(input(6).map(({ json }) => `Post ${json.n}`));
});

it('starts nothing new after a failing item, and fails once the requests under way are done', async () => {
	harness.service.injectFault({ match: { method: 'POST' }, status: 500, after: 3 });
	const result = await harness.run(createPosts(2), { input: input(40) });

	expect(result.error?.httpCode).toBe('500');
	// The failing fourth request, and at most one that was under way beside it.
	expect(harness.sent('createPost').length).toBeLessThanOrEqual(5);
	expect(harness.service.maxConcurrentRequests).toBeLessThanOrEqual(2);
});

it('holds every request back for the Retry-After of a 429, and sends the refused one again', async () => {
	harness.service.injectFault({ match: { method: 'POST' }, status: 429, retryAfterSeconds: 1 });
	const result = await harness.run(createPosts(4), { input: input(8) });

	expect(jsonOf(result)).toHaveLength(8);
	const sent = harness.sent('createPost');
	expect(sent.map((request) => request.status).filter((status) => status === 429)).toHaveLength(1);
	expect(harness.service.posts.size).toBe(8);
});

it('refuses a Requests in Parallel outside 1 to 32 before sending anything', async () => {
	const result = await harness.run(createPosts(0), { input: input(2) });
	expect(result.error?.message).toBe('"Requests in Parallel" must be a whole number from 1 to 32');
	expect(harness.service.requests).toEqual([]);
});
