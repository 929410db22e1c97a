import { useFakeService } from '../support/fixtures';
import { testCredential } from '../support/n8n-engine';

const harness = useFakeService();

describe('credential test', () => {
	it('succeeds with a good key, calling GET /v1/me with it', async () => {
		await expect(testCredential(harness.credentials)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		const [request] = harness.service.requests;
		expect(request).toEqual(
			expect.objectContaining({ method: 'GET', path: '/v1/me', operationId: 'getAccount' }),
		);
		expect(request.headers.authorization).toBe(`Bearer ${harness.service.apiKey}`);
	});

	it('accepts a base URL with a trailing slash or /v1', async () => {
		for (const suffix of ['/', '/v1', '/v1/']) {
			await expect(
				testCredential({ ...harness.credentials, baseUrl: harness.service.url + suffix }),
			).resolves.toEqual(expect.objectContaining({ status: 'OK' }));
		}
		expect(harness.service.requests.map((request) => request.path)).toEqual([
			'/v1/me',
			'/v1/me',
			'/v1/me',
		]);
	});

	it('fails with a wrong key', async () => {
		const result = await testCredential({ ...harness.credentials, apiKey: 'not-the-key' });
		expect(result.status).toBe('Error');
		expect(result.message).not.toContain('not-the-key');
	});

	it('fails with a message saying so when the base URL answers HTML', async () => {
		harness.service.injectFault({ nonJsonBody: true });
		const result = await testCredential(harness.credentials);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/web page or text instead of JSON/),
		});
	});
});
