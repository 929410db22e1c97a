/**
 * The API key goes only to the credential's origin and never into a message, a description, a
 * stored error body or a Continue On Fail item.
 */
import { inspect } from 'node:util';

import { jsonOf, useFakeService } from '../support/fixtures';
import type { RunResult } from '../support/n8n-engine';

const harness = useFakeService();

const getAccount = { resource: 'account', operation: 'get' };
const createPost = { resource: 'post', operation: 'create', content: 'Secret-free' };
const CONTINUE = { node: { onError: 'continueRegularOutput' as const } };

/** Everything of a run a user or n8n's execution store could see, as text. */
function visible(result: RunResult): string {
	return [
		JSON.stringify(result.run.data),
		JSON.stringify(result.items),
		inspect(result.error, { depth: 20 }),
	].join('\n');
}

let errorPaths = 0;
let leaks = 0;
afterAll(() => console.log(`key leaks: ${leaks} in ${errorPaths} error paths`));

/** Whether any 8 characters in a row of the key show in the text. */
function leaksKey(text: string): boolean {
	const key = harness.service.apiKey;
	errorPaths++;
	for (let start = 0; start + 8 <= key.length; start++) {
		if (text.includes(key.slice(start, start + 8))) {
			leaks++;
			return true;
		}
	}
	return false;
}

describe('redirects', () => {
	const elsewhere = () => harness.service.url.replace('127.0.0.1', 'localhost');

	it.each([
		['a read', getAccount, 'GET', 302],
		['a write', createPost, 'POST', 307],
		['a write', createPost, 'POST', 308],
	])(
		'does not follow %s redirected to another origin (%s %s → %i)',
		async (_what, parameters, method, status) => {
			harness.service.injectFault({
				match: { method },
				status,
				redirectTo: `${elsewhere()}/v1/steal`,
			});
			const result = await harness.run(parameters);

			expect(result.error?.message).toBe(
				`The service redirected the request to ${elsewhere()}, which the node does not follow`,
			);
			expect(harness.service.requests).toHaveLength(1);
			expect(leaksKey(visible(result))).toBe(false);
		},
	);

	it('follows a read redirected within the origin, with the key', async () => {
		harness.service.injectFault({
			match: { path: '/v1/pages' },
			status: 302,
			redirectTo: '/v1/pages?limit=1',
		});
		const result = await harness.run({
			resource: 'page',
			operation: 'getMany',
			returnAll: false,
			limit: 2,
		});

		expect(jsonOf(result)).toHaveLength(2);
		expect(
			harness.service.requests
				.slice(0, 2)
				.map((request) => [request.status, request.query, request.headers.authorization]),
		).toEqual([
			[302, { limit: '2' }, `Bearer ${harness.service.apiKey}`],
			[200, { limit: '1' }, `Bearer ${harness.service.apiKey}`],
		]);
	});

	it('does not repeat a write that a same-origin 302 would turn into a GET', async () => {
		harness.service.injectFault({
			match: { method: 'POST' },
			status: 302,
			redirectTo: '/v1/posts',
		});
		const result = await harness.run(createPost);

		expect(result.error?.message).toMatch(
			/redirected the request to http:\/\/127\.0\.0\.1:\d+, which the node does not follow/,
		);
		expect(harness.service.requests).toHaveLength(1);
	});

	it('stops after five redirects', async () => {
		harness.service.injectFault({
			match: { path: '/v1/me' },
			status: 307,
			redirectTo: '/v1/me',
			times: 100,
		});
		const result = await harness.run(getAccount);

		expect(result.error?.message).toBe('The service redirected more than 5 times');
		expect(harness.service.requests).toHaveLength(6);
	});
});

describe('error bodies that echo the key', () => {
	const echoes = () => {
		const authorization = `Bearer ${harness.service.apiKey}`;
		return {
			error: {
				code: 'bad_request',
				message: `Rejected header Authorization: ${authorization}`,
				details: [{ field: 'authorization', message: authorization }],
			},
			request: { headers: { authorization } },
		};
	};

	it.each([
		['stops the run', {}],
		['becomes an error item', CONTINUE],
	])('JSON: the run %s without the key anywhere', async (_what, options) => {
		harness.service.injectFault({ status: 400, body: echoes() });
		const result = await harness.run(getAccount, options);

		const message = result.error?.message ?? String(jsonOf(result)[0].error);
		expect(message).toBe('Rejected header Authorization: Bearer ***');
		expect(leaksKey(visible(result))).toBe(false);
	});

	it('text: the key is removed before the body is cut to length, so no part of it shows', async () => {
		const text = `${'x'.repeat(295)}${harness.service.apiKey}${'y'.repeat(300)}`;
		harness.service.injectFault({ status: 500, body: text });
		const result = await harness.run(getAccount, CONTINUE);

		expect(String(jsonOf(result)[0].error)).toMatch(/^x{295}\*\*\*y+$/);
		expect(leaksKey(visible(result))).toBe(false);
	});
});

describe('a Base URL with a user name and password', () => {
	it('is refused before anything is sent, without repeating it', async () => {
		const withUserInfo = harness.service.url.replace('http://', 'http://admin:hunter2-password@');
		const result = await harness.run(getAccount, { credentials: { baseUrl: withUserInfo } });

		expect(result.error?.message).toBe(
			"The credential's Base URL must not contain a user name or password",
		);
		expect(visible(result)).not.toContain('hunter2');
		expect(harness.service.requests).toHaveLength(0);
	});
});
