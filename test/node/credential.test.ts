import { jsonOf, useFakeService } from '../support/fixtures';
import { testCredential } from '../support/n8n-engine';

const harness = useFakeService();

/** The paths the test asked the service for, in order. */
const asked = () => harness.service.requests.map((request) => `${request.method} ${request.path}`);

describe('credential test', () => {
	it('succeeds with a good key and empty Profile Overrides, reading the document and calling GET /v1/me with the key', async () => {
		await expect(testCredential({ ...harness.credentials, profileOverrides: '' })).resolves.toEqual(
			{ status: 'OK', message: 'Connection successful!' },
		);
		expect(asked()).toEqual(['GET /v1/openapi.json', 'GET /v1/me']);
		const me = harness.sent('getAccount')[0];
		expect(me.headers.authorization).toBe(`Bearer ${harness.service.apiKey}`);
	});

	it('succeeds with valid Profile Overrides and a good key', async () => {
		const profileOverrides = JSON.stringify({
			operations: { updatePost: { method: 'PATCH' } },
			jobs: { completion: { by: 'status', states: { queued: 'pending' } } },
		});
		await expect(testCredential({ ...harness.credentials, profileOverrides })).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	it('accepts a base URL with a trailing slash or /v1', async () => {
		for (const suffix of ['/', '/v1', '/v1/']) {
			await expect(
				testCredential({ ...harness.credentials, baseUrl: harness.service.url + suffix }),
			).resolves.toEqual(expect.objectContaining({ status: 'OK' }));
		}
		expect(asked().filter((path) => path !== 'GET /v1/openapi.json')).toEqual([
			'GET /v1/me',
			'GET /v1/me',
			'GET /v1/me',
		]);
	});

	it('fails on invalid Profile Overrides, naming the JSON path, before sending anything', async () => {
		const result = await testCredential({
			...harness.credentials,
			profileOverrides: '{"operations": {"updatePost": {"method": "FETCH"}}}',
		});
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Profile Overrides: \/operations\/updatePost\/method: must be /,
			),
		});
		expect(asked()).toEqual([]);
	});

	it('fails on Profile Overrides that are not JSON, saying so', async () => {
		const result = await testCredential({ ...harness.credentials, profileOverrides: '{"jobs": ' });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^Profile Overrides: \/: must be JSON/),
		});
	});

	it('fails with a wrong key, naming the key and never quoting it', async () => {
		const result = await testCredential({ ...harness.credentials, apiKey: 'not-the-key' });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^API Key: /),
		});
		expect(result.message).not.toContain('not-the-key');
	});

	it('fails with a message naming the Base URL when it answers HTML', async () => {
		harness.service.injectFault({ nonJsonBody: true, times: 2 });
		const result = await testCredential(harness.credentials);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Base URL: The service answered with text\/html instead of JSON/,
			),
		});
	});

	it('fails on a Base URL that is not an http(s) address, before sending anything', async () => {
		const result = await testCredential({ ...harness.credentials, baseUrl: 'ftp://example.test' });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^Base URL: must start with http:\/\/ or https:\/\//),
		});
		expect(asked()).toEqual([]);
	});

	// The credential works with the built-in conventions, but the service meant the node to read
	// its document: the test says what went wrong (n8n shows nothing of a test that passes).
	it('fails when the service serves a document the node cannot read, saying the key and the Base URL work', async () => {
		harness.service.injectFault({ match: { path: '/v1/openapi.json' }, status: 500 });
		const result = await testCredential(harness.credentials);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^OpenAPI document: The service's OpenAPI document could not be read \(HTTP 500\)\. The key and the Base URL work/,
			),
		});
		expect(asked()).toEqual(['GET /v1/openapi.json', 'GET /v1/me']);

		harness.service.injectFault({ match: { path: '/v1/openapi.json' }, nonJsonBody: true });
		await expect(testCredential(harness.credentials)).resolves.toEqual({
			status: 'Error',
			message: expect.stringMatching(/^OpenAPI document: .*openapi\.json: it is not JSON\./),
		});
	});

	it('succeeds where the service serves no document: the built-in conventions are its way', async () => {
		harness.service.injectFault({ match: { path: '/v1/openapi.json' }, status: 404 });
		await expect(testCredential(harness.credentials)).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	it('reads the document afresh, and the nodes then use that reading instead of an unreadable one they kept', async () => {
		const describe = { resource: 'service', operation: 'describe' };
		harness.service.injectFault({ match: { path: '/v1/openapi.json' }, status: 500 });
		await testCredential(harness.credentials);
		const [kept] = jsonOf(await harness.run(describe));
		expect(kept.notFollowed).toEqual([
			{ part: 'the whole document', why: expect.stringMatching(/HTTP 500/) as unknown },
		]);
		await expect(testCredential(harness.credentials)).resolves.toEqual(
			expect.objectContaining({ status: 'OK' }),
		);
		const [fresh] = jsonOf(await harness.run(describe));
		expect(fresh.notFollowed).toEqual([]);
		expect(asked().filter((path) => path === 'GET /v1/openapi.json')).toHaveLength(2);
	});

	it('names the key, not the document, when a wrong key is refused for both', async () => {
		const result = await testCredential({ ...harness.credentials, apiKey: 'not-the-key' });
		expect(asked()).toEqual(['GET /v1/openapi.json', 'GET /v1/me']);
		expect(result.message).toMatch(/^API Key: /);
	});
});
