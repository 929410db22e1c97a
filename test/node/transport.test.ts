import { jsonOf, useFakeService } from '../support/fixtures';

const harness = useFakeService();

const getAccount = { resource: 'account', operation: 'get' };

describe('base URL', () => {
	it.each(['', '/', '/v1', '/v1/', '//'])('accepts the base URL with the suffix "%s" without doubling /v1', async (suffix) => {
		const result = await harness.run(getAccount, { credentials: { baseUrl: `${harness.service.url}${suffix}` } });
		expect(result.error).toBeUndefined();
		expect(harness.service.requests.map((request) => request.path)).toEqual(['/v1/me']);
	});

	it('refuses a base URL without a scheme', async () => {
		const result = await harness.run(getAccount, { credentials: { baseUrl: '127.0.0.1:1' } });
		expect(result.error?.message).toBe("The credential's Base URL must start with http:// or https://");
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
		const result = await harness.run(getAccount, { credentials: { baseUrl: `http://127.0.0.1:${port}` } });
		expect(result.error?.message).toBe(`Could not reach the service at http://127.0.0.1:${port}`);
		expect(result.error?.description).toMatch(/^ECONNREFUSED: .*Check the credential's Base URL/);
		expect(JSON.stringify(result.error)).not.toContain(harness.service.apiKey);
	});
});

describe('service errors', () => {
	it('turns 429 into an error with the retry delay and a hint', async () => {
		harness.service.injectFault({ status: 429, retryAfterSeconds: 7 });
		const result = await harness.run(getAccount);
		expect(result.error?.httpCode).toBe('429');
		expect(result.error?.description).toMatch(/retry after 7 seconds/);
		expect(result.error?.description).toMatch(/Retry On Fail/);
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

	it('waits for a slow answer', async () => {
		harness.service.injectFault({ delayMs: 300 });
		const result = await harness.run(getAccount);
		expect(jsonOf(result)).toEqual([expect.objectContaining({ id: harness.service.account.id })]);
	});

	it('never shows the API key in an error', async () => {
		const result = await harness.run(getAccount, { credentials: { apiKey: 'sk-very-secret-value' } });
		expect(result.error?.httpCode).toBe('401');
		expect(JSON.stringify({ ...result.error, message: result.error?.message, stack: result.error?.stack })).not.toContain(
			'sk-very-secret-value',
		);
	});
});

describe('ids in paths', () => {
	it.each(['../webhooks', 'a/b', 'x?y=1', '%2e%2ex', 'id with spaces'])('encodes "%s" so it cannot address another route', async (id) => {
		const result = await harness.run({ resource: 'job', operation: 'get', jobId: id });
		expect(result.error?.httpCode).toBe('404');
		const [request] = harness.service.requests;
		expect(request.operationId).toBe('getJob');
		expect(request.path).toBe(`/v1/jobs/${encodeURIComponent(id)}`);
	});
});
