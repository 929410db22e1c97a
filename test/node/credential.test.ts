import { useFakeService } from '../support/fixtures';
import { testCredential } from '../support/n8n-engine';

const harness = useFakeService();

const OK = { status: 'OK', message: 'Connection successful!' };

describe('credential test', () => {
	it('succeeds with a good key, calling GET /v1/me with it', async () => {
		await expect(testCredential(harness.credentials)).resolves.toEqual(OK);
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

	it('fails with a wrong key, never quoting it', async () => {
		const result = await testCredential({ ...harness.credentials, apiKey: 'not-the-key' });
		expect(result.status).toBe('Error');
		expect(result.message).not.toContain('not-the-key');
	});

	it('fails with a message naming the Base URL when it answers HTML', async () => {
		harness.service.injectFault({ nonJsonBody: true });
		const result = await testCredential(harness.credentials);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Base URL: it answered with a web page or text instead of JSON/,
			),
		});
	});

	describe('Profile Overrides', () => {
		it('succeeds with them empty, as the text field saves them', async () => {
			await expect(
				testCredential({ ...harness.credentials, profileOverrides: '' }),
			).resolves.toEqual(OK);
			await expect(
				testCredential({ ...harness.credentials, profileOverrides: '  \n' }),
			).resolves.toEqual(OK);
		});

		it('succeeds with valid ones and a good key, sending the key as before', async () => {
			const profileOverrides = JSON.stringify({
				operations: { updatePost: { method: 'PATCH' } },
				jobs: { completion: { by: 'status', states: { queued: 'pending' } } },
			});
			await expect(testCredential({ ...harness.credentials, profileOverrides })).resolves.toEqual(
				OK,
			);
			expect(harness.service.requests[0].headers.authorization).toBe(
				`Bearer ${harness.service.apiKey}`,
			);
		});

		it.each([
			[
				'a method that is none',
				{ operations: { updatePost: { method: 'FETCH' } } },
				/^Profile Overrides: \/operations\/updatePost\/method: must be /,
			],
			[
				'a misspelt part',
				{ operatons: { updatePost: { method: 'POST' } } },
				/^Profile Overrides: \/operatons: is not a part of the profile that can be set/,
			],
			[
				'a misspelt operation',
				{ operations: { updatPost: { method: 'POST' } } },
				/^Profile Overrides: \/operations\/updatPost: is not an operation of the node/,
			],
		])('fails on %s, naming the JSON path, and sends nothing', async (_, overrides, message) => {
			const result = await testCredential({
				...harness.credentials,
				profileOverrides: JSON.stringify(overrides),
			});
			expect(result).toEqual({ status: 'Error', message: expect.stringMatching(message) });
			expect(harness.service.requests).toEqual([]);
		});

		it('fails on text that is not JSON, saying so, and sends nothing', async () => {
			const result = await testCredential({
				...harness.credentials,
				profileOverrides: '{"jobs": ',
			});
			expect(result).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^Profile Overrides: \/: must be JSON: /),
			});
			expect(harness.service.requests).toEqual([]);
		});

		it('fails the same way each time, also once the check is remembered', async () => {
			const profileOverrides = '{"operations": {"updatePost": {"method": "FETCH"}}}';
			const first = await testCredential({ ...harness.credentials, profileOverrides });
			await expect(testCredential({ ...harness.credentials, profileOverrides })).resolves.toEqual(
				first,
			);
			// Corrected, the same credential passes.
			await expect(
				testCredential({
					...harness.credentials,
					profileOverrides: profileOverrides.replace('FETCH', 'PUT'),
				}),
			).resolves.toEqual(OK);
		});

		it('never quotes the key, even where the overrides hold it', async () => {
			const { apiKey } = harness.service;
			const result = await testCredential({
				...harness.credentials,
				profileOverrides: JSON.stringify({ [apiKey]: true }),
			});
			expect(result).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^Profile Overrides: \/\*\*\*: is not a part/),
			});
			expect(result.message).not.toContain(apiKey);
		});
	});
});
