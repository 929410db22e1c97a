import { jsonOf, useFakeService } from '../support/fixtures';
import { listenOnNewPort } from '../support/ports';

const harness = useFakeService();

const getAccount = { resource: 'account', operation: 'get' };

describe('base URL', () => {
	it.each(['', '/', '/v1', '/v1/', '//'])(
		'accepts the base URL with the suffix "%s" without doubling /v1',
		async (suffix) => {
			const result = await harness.run(getAccount, {
				credentials: { baseUrl: `${harness.service.url}${suffix}` },
			});
			expect(result.error).toBeUndefined();
			expect(harness.service.requests.map((request) => request.path)).toEqual(['/v1/me']);
		},
	);

	it('refuses a base URL without a scheme', async () => {
		const result = await harness.run(getAccount, { credentials: { baseUrl: '127.0.0.1:1' } });
		expect(result.error?.message).toBe(
			"The credential's Base URL must start with http:// or https://",
		);
	});

	it('explains an unreachable service without leaking the key', async () => {
		// A port that was just free: nothing listens there.
		const { createServer } = await import('node:net');
		const port = await new Promise<number>((resolve) => {
			const probe = createServer().listen(0, '127.0.0.1', () => {
				const { port: free } = probe.address() as { port: number };
				probe.close(() => resolve(free));
			});
		});
		const result = await harness.run(getAccount, {
			credentials: { baseUrl: `http://127.0.0.1:${port}` },
		});
		expect(result.error?.message).toBe(`Could not reach the service at http://127.0.0.1:${port}`);
		expect(result.error?.description).toMatch(/^ECONNREFUSED: .*Check the credential's Base URL/);
		// What was sent, though nothing answered it.
		expect(result.error?.description).toMatch(/Request: GET \/v1\/me, operation \w+\.$/);
		expect(JSON.stringify(result.error)).not.toContain(harness.service.apiKey);
	});
	it('reads an answer cut off before its end as no answer: tried again, then said so', async () => {
		const { createServer } = await import('node:http');
		let answers = 0;
		// Each answer of /v1/me promises 100 bytes and sends 9; the third is whole. No document.
		const server = createServer((request, response) => {
			if (request.url !== '/v1/me') return void response.writeHead(404).end();
			answers++;
			if (answers === 3) return void response.end('{"id":"acct_1","name":"Whole"}');
			response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
			response.write('{"id":"ac', () => response.destroy());
		});
		const port = await listenOnNewPort(server);
		try {
			const baseUrl = `http://127.0.0.1:${port}`;
			const result = await harness.run(getAccount, { credentials: { baseUrl } });
			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json)).toEqual([{ id: 'acct_1', name: 'Whole' }]);
			answers = -10;
			const failed = await harness.run(getAccount, { credentials: { baseUrl } });
			expect(failed.error?.message).toBe(`Could not reach the service at ${baseUrl}`);
			expect(answers).toBe(-7);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it('abandons every request under way at once when the execution is cancelled', async () => {
		const { createServer } = await import('node:http');
		// Twelve requests, more than one shared controller holds; none is ever answered.
		const open = new Set<unknown>();
		let closed = 0;
		const server = createServer((request, response) => {
			if (request.url !== '/v1/me') return void response.writeHead(404).end();
			open.add(request);
			request.socket.once('close', () => closed++);
		});
		const port = await listenOnNewPort(server);
		try {
			const result = await harness.run(
				{ ...getAccount, requestOptions: { timeout: 600, parallel: 12 } },
				{
					credentials: { baseUrl: `http://127.0.0.1:${port}` },
					input: Array.from({ length: 12 }, () => ({ json: {} })),
					onStarted: (cancel) => {
						const check = setInterval(() => {
							if (open.size < 12) return;
							clearInterval(check);
							cancel();
						}, 20);
					},
				},
			);
			expect(result.run.status).toBe('canceled');
			expect(result.items).toEqual([]);
			await new Promise<void>((resolve) => {
				const check = setInterval(() => closed === 12 && (clearInterval(check), resolve()), 20);
			});
		} finally {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	});
});

describe('service errors', () => {
	it('sends a write again after a 429, with its Idempotency-Key: the service did nothing with it', async () => {
		harness.service.injectFault({ status: 429, retryAfterSeconds: 0 });
		const result = await harness.run({
			resource: 'post',
			operation: 'create',
			content: 'Rate limited once',
		});
		expect(result.error).toBeUndefined();
		const sent = harness.sent('createPost');
		expect(sent.map((request) => request.status)).toEqual([429, 201]);
		expect(sent[1].headers['idempotency-key']).toBe(sent[0].headers['idempotency-key']);
		expect(harness.service.posts.size).toBe(1);
	});

	it('turns a 429 on a write that asks for more than 30 s into an error with the delay and a hint', async () => {
		harness.service.injectFault({ status: 429, retryAfterSeconds: 31 });
		const result = await harness.run({
			resource: 'post',
			operation: 'create',
			content: 'Rate limited',
		});
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.description).toMatch(/retry after 31 seconds/);
		expect(result.error?.description).toMatch(/Requests in Parallel/);
		expect(harness.service.requests).toHaveLength(1);
	});

	it("sends a write again after a gateway error only with the Idempotency-Key the service's document declares", async () => {
		harness.service.injectFault({ status: 503, retryAfterSeconds: 0 });
		const result = await harness.run({
			resource: 'post',
			operation: 'create',
			content: 'Unavailable',
		});
		expect(result.error).toBeUndefined();
		const [refused, created] = harness.sent('createPost');
		expect([refused.status, created.status]).toEqual([503, 201]);
		expect(created.headers['idempotency-key']).toBe(refused.headers['idempotency-key']);
		expect(harness.service.posts.size).toBe(1);
	});

	it('never pauses past the Timeout: a 429 asking for longer fails the request at once, saying so', async () => {
		harness.service.injectFault({ status: 429, retryAfterSeconds: 10 });
		const started = Date.now();
		const result = await harness.run({
			resource: 'account',
			operation: 'get',
			requestOptions: { timeout: 2 },
		});
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.description).toMatch(/retry after 10 seconds/);
		// Waiting out the Retry-After would take its 10 s; no bound tighter than what it tells apart.
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(harness.service.requests).toHaveLength(1);
	});

	it('retries a read after the Retry-After of a 429, a 502, a 503 and a 504', async () => {
		for (const status of [429, 502, 503, 504]) {
			harness.service.reset();
			harness.service.injectFault({ status, retryAfterSeconds: 0 });
			const result = await harness.run(getAccount);
			expect(result.error).toBeUndefined();
			expect(harness.service.requests.map((request) => request.status)).toEqual([status, 200]);
		}
	});

	it('gives up on a read after 3 attempts, or at once when Retry-After asks for more than 30 seconds', async () => {
		harness.service.injectFault({ status: 503, retryAfterSeconds: 0, times: 3 });
		expect((await harness.run(getAccount)).error?.httpCode).toBe('503');
		expect(harness.service.requests).toHaveLength(3);

		harness.service.reset();
		harness.service.injectFault({ status: 429, retryAfterSeconds: 31 });
		const result = await harness.run(getAccount);
		expect(result.error?.description).toMatch(/retry after 31 seconds/);
		expect(harness.service.requests).toHaveLength(1);
	});

	it('gives up on an answer that does not come within the timeout, and says so', async () => {
		harness.service.injectFault({ delayMs: 5000, times: 3 });
		const started = Date.now();
		const result = await harness.run({
			resource: 'post',
			operation: 'create',
			content: 'Slow',
			requestOptions: { timeout: 1 },
		});
		expect(result.error?.message).toBe(
			`The service at ${harness.service.url} did not answer within 1 seconds`,
		);
		// Waiting for the slow answer would take its 5 s.
		expect(Date.now() - started).toBeLessThan(5000);
		expect(harness.service.requests).toHaveLength(1);
	});

	it('refuses a timeout outside 1 to 3600 seconds before sending', async () => {
		const result = await harness.run({ ...getAccount, requestOptions: { timeout: 0 } });
		expect(result.error?.message).toBe(
			'"Timeout (Seconds)" of item 0 must be a number of seconds from 1 to 3600',
		);
		expect(harness.service.requests).toHaveLength(0);
	});

	it('turns 500 into an error carrying the service message', async () => {
		harness.service.injectFault({ status: 500 });
		const result = await harness.run(getAccount);
		expect(result.error?.httpCode).toBe('500');
		expect(result.error?.message).not.toBe('');
		expect(result.error?.description).toMatch(/internal_error/);
	});

	it('fails clearly on a page that is not JSON', async () => {
		harness.service.injectFault({ nonJsonBody: true });
		const result = await harness.run(getAccount);
		expect(result.error?.message).toBe('The service answered with text/html instead of JSON');
		expect(result.error?.description).toMatch(/Base URL/);
	});

	it("hints at the Base URL when a refusal is not JSON, as another web app's 404 page is", async () => {
		harness.service.injectFault({
			status: 404,
			body: '<!doctype html><title>Page not found</title><h1>Not found</h1>',
		});
		const result = await harness.run(getAccount);
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.description).toMatch(
			/may not come from this API at all: check that the credential's Base URL/,
		);
		// A refusal in the service's own JSON needs no such hint.
		harness.service.injectFault({ status: 404 });
		expect((await harness.run(getAccount)).error?.description).not.toMatch(
			/may not come from this API/,
		);
	});

	it('waits for a slow answer', async () => {
		harness.service.injectFault({ delayMs: 300 });
		const result = await harness.run(getAccount);
		expect(jsonOf(result)).toEqual([expect.objectContaining({ id: harness.service.account.id })]);
	});

	it('never shows the API key in an error', async () => {
		const result = await harness.run(getAccount, {
			credentials: { apiKey: 'sk-very-secret-value' },
		});
		expect(result.error?.httpCode).toBe('401');
		expect(
			JSON.stringify({
				...result.error,
				message: result.error?.message,
				stack: result.error?.stack,
			}),
		).not.toContain('sk-very-secret-value');
	});
});

describe('ids in paths', () => {
	it.each(['a/b', 'x?y=1', '%2e%2ex', 'id with spaces', '..a/b'])(
		'encodes "%s" so it cannot address another route',
		async (id) => {
			const result = await harness.run({ resource: 'job', operation: 'get', jobId: id });
			expect(result.error?.httpCode).toBe('404');
			const [request] = harness.service.requests;
			expect(request.operationId).toBe('getJob');
			expect(request.path).toBe(`/v1/jobs/${encodeURIComponent(id)}`);
		},
	);
});
