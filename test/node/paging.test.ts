import http from 'node:http';

import { jsonOf, useFakeService } from '../support/fixtures';
import { contentPublishingNode, listSearch, runNode, shutDownEngine } from '../support/n8n-engine';
import { listenOnNewPort } from '../support/ports';

/**
 * Paging that always ends, against services that try to make it not: pages that come back under
 * ever new cursors or links, a list search's cursor that repeats, a total of 10^12, a list that never ends, a total that lies low, and a
 * Limit far above the cap. The hostile services are small servers of the test's own on 127.0.0.1;
 * one is the fake service with its totals rewritten.
 */
const requestCounts: number[] = [];
afterAll(() => {
	console.log(
		`paging: ${requestCounts.length} hostile services, max requests ${Math.max(...requestCounts)}`,
	);
	shutDownEngine();
});

const KEY = 'test-key-0123456789';

/** A service with no document (so its lists are read by the built-in conventions) whose list of posts `answer` makes up. */
async function hostile(
	answer: (query: URLSearchParams, count: number) => unknown,
	document?: object,
): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
	let count = 0;
	const server = http.createServer((request, response) => {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		if (url.pathname === '/v1/openapi.json' && document !== undefined) {
			response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
			return;
		}
		if (url.pathname !== '/v1/posts') {
			response
				.writeHead(404, { 'content-type': 'application/json' })
				.end('{"error": {"message": "No route"}}');
			return;
		}
		count++;
		response
			.writeHead(200, { 'content-type': 'application/json' })
			.end(JSON.stringify(answer(url.searchParams, count)));
	});
	return {
		url: `http://127.0.0.1:${await listenOnNewPort(server)}`,
		count: () => count,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

async function readAll(url: string, parameters: object = { returnAll: true }) {
	return await runNode(
		contentPublishingNode({ resource: 'post', operation: 'getMany', ...parameters }),
		{ credentials: { baseUrl: url, apiKey: KEY } },
	);
}

describe('services that page with cursors', () => {
	it('stops when a page brings nothing new, however new its cursor looks', async () => {
		const service = await hostile((_, count) => ({
			data: [{ id: 'p1' }, { id: 'p2' }],
			next_cursor: `fresh-${count}`,
		}));
		try {
			const result = await readAll(service.url);
			expect(jsonOf(result).map((post) => post.id)).toEqual(['p1', 'p2']);
			expect(service.count()).toBe(2);
			requestCounts.push(service.count());
		} finally {
			await service.close();
		}
	});

	it("ends the editor's list search where the next cursor repeats an earlier one", async () => {
		const service = await hostile(() => ({
			data: [{ id: 'p1', title: 'Other' }],
			next_cursor: 'same',
		}));
		try {
			const node = contentPublishingNode({ resource: 'post', operation: 'get' });
			const credentials = { baseUrl: service.url, apiKey: KEY };
			const found = await listSearch(node, 'searchPosts', credentials, 'needle');
			expect(found).toEqual({ results: [], paginationToken: undefined });
			expect(service.count()).toBe(2);
			requestCounts.push(service.count());
		} finally {
			await service.close();
		}
	});

	it('stops at 1,000 requests of a list that never ends, with an error that says so', async () => {
		const service = await hostile((_, count) => ({
			data: [{ id: `a${count}` }],
			next_cursor: `c${count}`,
		}));
		try {
			const result = await readAll(service.url);
			expect(result.error?.message).toBe('Reading the list stopped after 1,000 requests');
			expect(service.count()).toBe(1000);
			requestCounts.push(service.count());
		} finally {
			await service.close();
		}
	});

	it('stops at 10,000 items of a list that never ends, and a Limit above 10,000 is refused before sending', async () => {
		const service = await hostile((query, count) => ({
			data: Array.from({ length: Number(query.get('limit')) }, (_, index) => ({
				id: `b${count}_${index}`,
			})),
			next_cursor: `c${count}`,
		}));
		try {
			const result = await readAll(service.url);
			expect(result.error?.message).toBe('Return All stopped after 10,000 items');
			requestCounts.push(service.count());
			expect(service.count()).toBeLessThanOrEqual(101);
			const limited = await readAll(service.url, { returnAll: false, limit: 1_000_000 });
			expect(limited.error?.message).toBe(
				'"Limit" of item 0 must be a whole number from 1 to 10,000',
			);
			expect(service.count()).toBe(requestCounts.at(-1));
		} finally {
			await service.close();
		}
	});
});

describe('a service that pages with next links', () => {
	// Its document: a list of posts with a `next` address (as many APIs write it).
	const document = {
		openapi: '3.1.0',
		paths: {
			'/v1/posts': {
				get: {
					parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
					responses: {
						'200': {
							description: 'A page.',
							content: {
								'application/json': {
									schema: {
										type: 'object',
										properties: {
											items: {
												type: 'array',
												items: { type: 'object', properties: { id: { type: 'string' } } },
											},
											next: { type: 'string', format: 'uri' },
										},
									},
								},
							},
						},
					},
				},
			},
		},
	};

	it('stops when the next link keeps growing but the items do not', async () => {
		let service: Awaited<ReturnType<typeof hostile>> | undefined = undefined;
		service = await hostile(
			(_, count) => ({
				items: [{ id: 'p1' }],
				next: `${service?.url}/v1/posts?after=${'x'.repeat(count * 50)}`,
			}),
			document,
		);
		try {
			const result = await readAll(service.url);
			expect(jsonOf(result).map((post) => post.id)).toEqual(['p1']);
			expect(service.count()).toBe(2);
			requestCounts.push(service.count());
		} finally {
			await service.close();
		}
	});
});

describe('a service with page numbers, offsets and next links (the alternate profile)', () => {
	const harness = useFakeService({ profile: 'alternate' });
	const reads = (path: string) =>
		harness.service.requests.filter((request) => request.method === 'GET' && request.path === path);

	beforeEach(async () => {
		for (const text of ['One', 'Two', 'Three', 'Four', 'Five'])
			await harness.run({ resource: 'post', operation: 'create', content: text });
		harness.service.requests.length = 0;
		harness.expectContractViolation();
	});

	it('stops when an offset list repeats its page under a total of 10^12', async () => {
		// Every page is the same first page, whatever the offset: the service ignores it.
		const [first, second] = [...harness.service.posts.keys()];
		harness.service.injectFault({
			match: { method: 'GET', path: '/v1/posts' },
			times: 100_000,
			rewriteAnswer: () => ({
				results: [{ id: first }, { id: second }],
				total: 1e12,
				offset: 0,
				limit: 2,
			}),
		});
		const result = await harness.run({ resource: 'post', operation: 'getMany', returnAll: true });
		expect(jsonOf(result).map((post) => post.id)).toEqual([first, second]);
		expect(reads('/v1/posts').length).toBe(2);
		requestCounts.push(reads('/v1/posts').length);
	});

	it('outputs every item there is when the stated total lies low, reading on to an empty page', async () => {
		harness.service.injectFault({
			match: { method: 'GET', path: '/v1/posts' },
			times: 100_000,
			rewriteAnswer: (body) => ({ ...(body as object), total: 2 }),
		});
		const result = await harness.run({ resource: 'post', operation: 'getMany', returnAll: true });
		expect(jsonOf(result)).toHaveLength(5);
		requestCounts.push(reads('/v1/posts').length);
	});
});
