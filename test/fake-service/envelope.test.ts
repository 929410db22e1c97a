import { createHmac, timingSafeEqual } from 'node:crypto';

import { ENVELOPE } from './envelope';
import { buildEnvelopeDocument } from './envelope-document';
import { createContractValidator, profileRoutes, type FakeService, type JsonSchema } from './index';
import {
	checkedCall,
	serviceStarter,
	startReceiver,
	validateOpenApiDocument,
	CLI_TIMEOUT_MS,
	withCli,
	type CheckedAnswer,
} from './test-helpers';

/** The envelope profile: every operation on the wire, checked against its own 3.0 document (headers included); state in canonical terms. */

interface Message {
	code: number;
	message: string;
	source?: { pointer: string };
}
interface Envelope<T> {
	success: boolean;
	errors: Message[];
	messages: Message[];
	result: T;
	result_info?: Record<string, unknown>;
}
interface EnvPost {
	id: string;
	page: string | null;
	subject: string | null;
	body: string;
	publication: string;
	publish_on: string | null;
	categories: string[];
	asset_urls: string[];
}
interface EnvJob {
	id: string;
	task: string;
	state: string;
	response: Record<string, unknown> | null;
	error_code: number | null;
	error_message: string | null;
}
interface EnvWebhook {
	id: string;
	address: string;
	triggers: string[];
	name: string | null;
	disabled: boolean;
	secret: string;
}
type Answer<T> = CheckedAnswer<Envelope<T>>;

const document = buildEnvelopeDocument();
const contract = createContractValidator(document);
const OPERATION_IDS = [
	'meta/openapi',
	'account/get',
	'pages/list',
	'pages/get',
	'posts/create',
	'posts/list',
	'posts/get',
	'posts/update',
	'posts/delete',
	'generation/create-blog',
	'generation/create-linkedin',
	'generation/create-twitter',
	'generation/create-carousel',
	'generation/create-video',
	'publishing/create-linkedin',
	'publishing/create-twitter',
	'jobs/get',
	'webhooks/create',
	'webhooks/list',
	'webhooks/get',
	'webhooks/update',
	'webhooks/delete',
];
const RATE_LIMIT = /^"default";r=\d+;t=\d+$/;

const start = serviceStarter('envelope');
const startPrimary = serviceStarter('primary');

/** An answer to a documented operation must match the envelope document, headers included; every answer has RateLimit fields. */
async function call<T = null>(
	service: FakeService,
	method: string,
	url: string,
	options: Parameters<typeof checkedCall>[4] = {},
): Promise<Answer<T>> {
	const mergePatch: Record<string, string> =
		method === 'PATCH' && options.body !== undefined
			? { 'Content-Type': 'application/merge-patch+json' }
			: {};
	const answer = await checkedCall<Envelope<T>>(contract, service, method, url, {
		...options,
		headers: { ...mergePatch, ...options.headers },
	});
	expect(answer.headers.get('ratelimit')).toMatch(RATE_LIMIT);
	return answer;
}

/** Standard Webhooks verification: any `v1` entry matching the HMAC of `<id>.<timestamp>.<body>` under the decoded secret; other versions skipped. */
function verifies(
	secret: string,
	headers: Record<string, string | string[] | undefined>,
	body: string,
): boolean {
	const [id, timestamp, signature] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map(
		(name) => String(headers[name] ?? ''),
	);
	if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300)
		return false;
	const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
		.update(`${id}.${timestamp}.${body}`)
		.digest();
	return signature.split(' ').some((entry) => {
		const [version, value = ''] = entry.split(',');
		const given = Buffer.from(value, 'base64');
		return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
	});
}

let service: FakeService;

beforeAll(async () => {
	service = await start();
});

beforeEach(() => service.reset());

/** Follows a 202's Location until the job is finished; every unfinished answer has Retry-After. */
async function untilDone(started: Answer<null>): Promise<EnvJob> {
	const location = String(started.headers.get('location'));
	expect(location).toMatch(new RegExp(`^${service.url}/v1/jobs/job_`));
	expect([started.status, started.headers.get('retry-after'), started.body.result]).toEqual([
		202,
		'1',
		null,
	]);
	for (let poll = 0; poll < 5; poll += 1) {
		const { body, headers, operationId } = await call<EnvJob>(service, 'GET', location);
		expect(operationId).toBe('jobs/get');
		const finished = body.result.state === 'completed' || body.result.state === 'errored';
		expect(headers.get('retry-after')).toBe(finished ? null : '1');
		if (finished) return body.result;
	}
	throw new Error(`${location} did not finish`);
}

describe('the envelope document', () => {
	it('is a valid OpenAPI 3.0.3 document, as served (anonymously) and as built, its paths below servers[0]', async () => {
		const served = await call<never>(service, 'GET', '/v1/openapi.json', { apiKey: null });
		const body = served.body as unknown as Record<string, unknown>;
		expect(served).toMatchObject({ status: 200, operationId: 'meta/openapi' });
		expect([body.openapi, body.servers]).toEqual(['3.0.3', [{ url: `${service.url}/v1` }]]);
		expect(await validateOpenApiDocument(body)).toEqual({ valid: true });
		expect(await validateOpenApiDocument(document)).toEqual({ valid: true });
		expect(JSON.stringify(document)).not.toMatch(
			/Idempotency-Key|"webhooks":\{"|"type":\[|"const"/,
		);
	});

	it('describes exactly the routes the envelope profile serves, rate-limit fields on every answer', () => {
		const documented = Object.entries(document.paths).flatMap(([template, pathItem]) =>
			Object.entries(pathItem).map(
				([method, operation]) => `${method.toUpperCase()} /v1${template} ${operation.operationId}`,
			),
		);
		const routes = profileRoutes(ENVELOPE);
		expect(
			routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort(),
		).toEqual(documented.sort());
		expect(routes.map((route) => route.operationId).sort()).toEqual([...OPERATION_IDS].sort());
		const components = (
			document as unknown as {
				components: { responses: Record<string, { headers: Record<string, unknown> }> };
			}
		).components;
		for (const operation of Object.values(document.paths).flatMap((pathItem) =>
			Object.values(pathItem),
		)) {
			for (const [status, response] of Object.entries(operation.responses)) {
				const headers = (response.$ref ? components.responses[status] : response).headers as Record<
					string,
					unknown
				>;
				expect({ [`${operation.operationId} ${status}`]: Object.keys(headers) }).toEqual({
					[`${operation.operationId} ${status}`]: expect.arrayContaining([
						'RateLimit',
						'RateLimit-Policy',
					]),
				});
			}
		}
		expect(
			Object.keys(document.paths['/posts/{post_id}'].patch?.requestBody?.content ?? {}),
		).toEqual(['application/merge-patch+json']);
		expect(document.paths['/posts'].post?.parameters).toEqual([
			{ $ref: '#/components/parameters/RepeatabilityRequestId' },
			{ $ref: '#/components/parameters/RepeatabilityFirstSent' },
		]);
	});

	it('explains states and publications in x-enumDescriptions and describes deliveries as callbacks', () => {
		const schemas = (
			document as unknown as {
				components: { schemas: Record<string, { properties: Record<string, JsonSchema> }> };
			}
		).components.schemas;
		expect(Object.keys(schemas.Job.properties.state['x-enumDescriptions'] as object)).toEqual([
			'scheduled',
			'pending',
			'in-progress',
			'completed',
			'errored',
		]);
		expect(schemas.Post.properties.publication['x-enumDescriptions']).toMatchObject({
			future: 'Scheduled: goes out at publish_on.',
		});
		expect(schemas.BlogRequest.properties.recording_text.description).toBe(
			'Transcript of the recording to turn into a blog post.',
		);
		const callbacks = document.paths['/webhooks'].post?.callbacks ?? {};
		expect(Object.keys(callbacks)).toEqual([
			'task.run.succeeded',
			'task.run.failed',
			'post.went_public',
		]);
		const delivery = callbacks['task.run.succeeded']['{$request.body#/address}'].post;
		expect(delivery?.parameters?.map((parameter) => parameter.name)).toEqual([
			'webhook-id',
			'webhook-timestamp',
			'webhook-signature',
		]);
	});

	it('has answers checked for their documented headers: a 202 without Location breaks it', () => {
		const answer = {
			operationId: 'generation/create-video',
			status: 202,
			body: { success: true, errors: [], messages: [], result: null },
			contentType: 'application/json',
		};
		const headers = {
			RateLimit: '"default";r=1;t=1',
			'RateLimit-Policy': '"default";q=2;w=1',
			'Retry-After': '1',
		};
		expect(
			contract.validateResponse({
				...answer,
				headers: { ...headers, Location: 'http://127.0.0.1:1/v1/jobs/job_1' },
			}),
		).toEqual([]);
		expect(contract.validateResponse({ ...answer, headers })).toEqual([
			{ field: 'header.location', message: 'is required' },
		]);
		expect(
			contract.validateResponse({
				...answer,
				headers: { ...headers, Location: '/v1/jobs/job_1', 'Retry-After': 'soon' },
			}),
		).toEqual([
			{ field: 'header.location', message: '"/v1/jobs/job_1" must match format "uri"' },
			{ field: 'header.retry-after', message: '"soon" must be integer' },
		]);
	});
});

describe('every operation', () => {
	it('answers in envelopes as its document says, with state kept in canonical terms', async () => {
		const seen = new Set<string>();
		const op = async <T>(
			operationId: string,
			method: string,
			url: string,
			body?: unknown,
		): Promise<Answer<T>> => {
			const answer = await call<T>(service, method, url, { body });
			expect({ [url]: answer.operationId }).toEqual({ [url]: operationId });
			seen.add(operationId);
			return answer;
		};
		await op('meta/openapi', 'GET', '/v1/openapi.json');
		const { account } = service;
		expect((await op('account/get', 'GET', '/v1/me')).body).toEqual({
			success: true,
			errors: [],
			messages: [],
			result: {
				id: account.id,
				email: account.email,
				full_name: account.name,
				tier: account.plan,
				created_on: account.created_at,
			},
		});
		const pages = await op<Array<{ display_name: string }>>(
			'pages/list',
			'GET',
			'/v1/pages?search=acme',
		);
		expect(pages.body.result.map((page) => page.display_name)).toEqual([
			'Acme Engineering Blog',
			'Acme on LinkedIn',
			'Acme on Twitter',
		]);
		const [page] = service.pages.values();
		expect((await op('pages/get', 'GET', `/v1/pages/${page.id}`)).body.result).toEqual({
			id: page.id,
			display_name: page.name,
			channel: page.platform,
			permalink: page.url,
			created_on: page.created_at,
		});

		const created = await op<EnvPost>('posts/create', 'POST', '/v1/posts', {
			body: 'Hello',
			subject: 'Greeting',
			page: page.id,
			categories: ['news'],
			asset_urls: ['https://cdn.acme.example/a.png'],
			publication: 'future',
			publish_on: '2030-01-01T09:00:00Z',
		});
		expect(created.status).toBe(200);
		const postId = created.body.result.id;
		expect(service.posts.get(postId)).toMatchObject({
			content: 'Hello',
			title: 'Greeting',
			page_id: page.id,
			tags: ['news'],
			status: 'scheduled',
			scheduled_at: '2030-01-01T09:00:00Z',
		});
		await op('posts/create', 'POST', '/v1/posts', { body: 'A draft elsewhere' });
		const listed = await op<EnvPost[]>(
			'posts/list',
			'GET',
			`/v1/posts?publication=future&page.id=${page.id}`,
		);
		expect(listed.body.result).toEqual([created.body.result]);
		expect((await op<EnvPost>('posts/get', 'GET', `/v1/posts/${postId}`)).body).toEqual(
			created.body,
		);
		const patched = await op<EnvPost>('posts/update', 'PATCH', `/v1/posts/${postId}`, {
			body: 'Bye',
			publication: 'draft',
			subject: null,
			page: null,
			categories: null,
		});
		expect(patched.body.result).toMatchObject({
			body: 'Bye',
			publication: 'draft',
			subject: null,
			page: null,
			categories: [],
			asset_urls: ['https://cdn.acme.example/a.png'],
		});
		expect(service.posts.get(postId)).toMatchObject({
			content: 'Bye',
			status: 'draft',
			title: null,
			page_id: null,
			tags: [],
			media_urls: ['https://cdn.acme.example/a.png'],
		});

		const asynchronous: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
			[
				'blog',
				{
					recording_text: 'We shipped the editor. It is fast.',
					subject: 'Editor',
					size: 'short',
					style: 'warm',
					language_code: 'en',
					page: page.id,
				},
				{
					subject: 'Editor',
					abstract: expect.any(String),
					markdown: expect.stringContaining('# Editor'),
				},
			],
			[
				'carousel',
				{ based_on: postId, card_count: 2 },
				{
					cards: [
						{ caption: 'Bye', text: 'Bye', png_url: expect.stringMatching(/\.png$/) },
						{ caption: 'Point 1', text: 'Bye', png_url: expect.any(String) },
					],
				},
			],
			[
				'video',
				{ brief: 'Demo', length_seconds: 15, format: '9:16' },
				{ mp4_url: expect.stringMatching(/\.mp4$/), length_seconds: 15, format: '9:16' },
			],
		];
		for (const [kind, input, response] of asynchronous) {
			const started = await op<null>(
				`generation/create-${kind}`,
				'POST',
				`/v1/generate/${kind}`,
				input,
			);
			expect(started.body.messages).toEqual([
				{ code: 1202, message: 'Accepted; the job is at Location.' },
			]);
			expect(await untilDone(started)).toMatchObject({
				task: `${kind}.generate`,
				state: 'completed',
				response,
				error_code: null,
				error_message: null,
			});
		}
		const linkedin = await op<{ body: string }>(
			'generation/create-linkedin',
			'POST',
			'/v1/generate/linkedin',
			{ brief: 'Announce the editor' },
		);
		expect([linkedin.status, linkedin.headers.get('location'), linkedin.body.result.body]).toEqual([
			200,
			null,
			expect.stringContaining('Announce the editor'),
		]);
		const twitter = await op<{ posts: string[] }>(
			'generation/create-twitter',
			'POST',
			'/v1/generate/twitter',
			{ source_copy: 'One. Two. Three.', post_count: 4 },
		);
		expect(twitter.body.result.posts).toEqual(['1/4 One.', '2/4 Two.', '3/4 Three.', '4/4 One.']);
		expect(
			[...service.jobs.values()]
				.filter((job) => job.type === 'generate.twitter')
				.map((job) => job.status),
		).toEqual(['succeeded']);

		seen.add('jobs/get');
		const published = await untilDone(
			await op('publishing/create-linkedin', 'POST', '/v1/publish/linkedin', { post: postId }),
		);
		expect(published.response).toEqual({
			channel: 'linkedin',
			post: postId,
			permalink: `https://linkedin.example/posts/${postId}`,
			published_on: expect.any(String),
		});
		expect(service.posts.get(postId)?.status).toBe('published');
		const tweeted = (
			await untilDone(
				await op('publishing/create-twitter', 'POST', '/v1/publish/twitter', {
					body: 'Fresh news',
					page: page.id,
				}),
			)
		).response as { post: string };
		expect(service.posts.get(tweeted.post)).toMatchObject({
			content: 'Fresh news',
			page_id: page.id,
			status: 'published',
		});

		service.setJobPlan({
			outcome: 'failed',
			error: { code: 'generation_failed', message: 'No model today' },
		});
		const errored = await untilDone(
			await op('generation/create-blog', 'POST', '/v1/generate/blog', { recording_text: 'Hi.' }),
		);
		expect(errored).toMatchObject({
			state: 'errored',
			response: null,
			error_code: 2001,
			error_message: 'No model today',
		});
		const failedSync = await op('generation/create-linkedin', 'POST', '/v1/generate/linkedin', {
			brief: 'x',
		});
		expect([failedSync.status, failedSync.body.errors]).toEqual([
			400,
			[{ code: 1004, message: 'Generation failed: No model today' }],
		]);

		const hook = await op<EnvWebhook>('webhooks/create', 'POST', '/v1/webhooks', {
			address: 'http://127.0.0.1:9/in',
			triggers: ['task.run.succeeded', 'post.went_public'],
			name: 'Mine',
		});
		const { secret, ...shown } = hook.body.result;
		expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
		expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
		expect(service.webhooks.get(shown.id)).toMatchObject({
			secret,
			url: 'http://127.0.0.1:9/in',
			events: ['job.completed', 'post.published'],
			description: 'Mine',
			active: true,
		});
		const masked = { ...shown, secret: '********' };
		expect((await op('webhooks/list', 'GET', '/v1/webhooks')).body).toMatchObject({
			result: [masked],
			result_info: { has_more: false },
		});
		expect((await op('webhooks/get', 'GET', `/v1/webhooks/${shown.id}`)).body.result).toEqual(
			masked,
		);
		const rewired = await op<EnvWebhook>('webhooks/update', 'PATCH', `/v1/webhooks/${shown.id}`, {
			address: 'http://127.0.0.1:9/other',
			triggers: null,
			name: null,
			disabled: true,
		});
		expect(rewired.body.result).toMatchObject({
			address: 'http://127.0.0.1:9/other',
			triggers: ['task.run.succeeded', 'task.run.failed', 'post.went_public'],
			name: null,
			disabled: true,
			secret: '********',
		});
		expect(service.webhooks.get(shown.id)).toMatchObject({
			events: ['job.completed', 'job.failed', 'post.published'],
			description: null,
			active: false,
			secret,
		});

		expect((await op('webhooks/delete', 'DELETE', `/v1/webhooks/${shown.id}`)).body).toEqual({
			success: true,
			errors: [],
			messages: [],
			result: { id: shown.id },
		});
		expect((await op('posts/delete', 'DELETE', `/v1/posts/${postId}`)).body.result).toEqual({
			id: postId,
		});
		expect([service.webhooks.has(shown.id), service.posts.has(postId)]).toEqual([false, false]);

		expect([...seen].sort()).toEqual([...OPERATION_IDS].sort());
		expect(service.requests.flatMap((request) => request.contractErrors)).toEqual([]);
	});

	it('keeps a publish planned for later `scheduled` until it is finished, and a job not started `pending`', async () => {
		const later = await call(service, 'POST', '/v1/publish/linkedin', {
			body: { body: 'Later', publish_on: '2031-01-01T00:00:00Z' },
		});
		const location = String(later.headers.get('location'));
		for (let poll = 0; poll < 3; poll += 1) {
			const { body, headers } = await call<EnvJob>(service, 'GET', location);
			expect([body.result.state, headers.get('retry-after')]).toEqual(['scheduled', '1']);
		}
		await service.finishJob(location.split('/').at(-1) as string);
		expect((await call<EnvJob>(service, 'GET', location)).body.result).toMatchObject({
			state: 'completed',
			response: { channel: 'linkedin' },
		});

		service.setJobPlan({ outcome: 'succeeded', pollsUntilRunning: 2, pollsUntilDone: 3 });
		const waiting = await call(service, 'POST', '/v1/generate/video', { body: { brief: 'Soon' } });
		expect(
			(await call<EnvJob>(service, 'GET', String(waiting.headers.get('location')))).body.result
				.state,
		).toBe('pending');
	});
});

describe('paging', () => {
	it('walks pages with page and per_page, totals in result_info', async () => {
		const names: string[] = [];
		for (let page = 1; page <= 3; page += 1) {
			const { body } = await call<Array<{ display_name: string }>>(
				service,
				'GET',
				`/v1/pages?page=${page}&per_page=2`,
			);
			expect(body.result_info).toEqual({
				page,
				per_page: 2,
				count: page === 3 ? 1 : 2,
				total_count: 5,
				total_pages: 3,
			});
			names.push(...body.result.map((item) => item.display_name));
		}
		expect(names).toEqual([...service.pages.values()].map((page) => page.name));
	});

	it('walks posts by the Link header alone, filters kept', async () => {
		for (let index = 0; index < 5; index += 1)
			await call(service, 'POST', '/v1/posts', {
				body: { body: `Post ${index}`, publication: index === 2 ? 'draft' : 'publish' },
			});
		const bodies: string[] = [];
		let next: string | undefined = '/v1/posts?publication=publish&per_page=2';
		const links: string[] = [];
		while (next !== undefined) {
			const answer: Answer<EnvPost[]> = await call(service, 'GET', next);
			expect(answer.body).not.toHaveProperty('result_info');
			bodies.push(...answer.body.result.map((post) => post.body));
			links.push(String(answer.headers.get('link')));
			next = /<([^>]+)>; rel="next"/.exec(links.at(-1) ?? '')?.[1];
		}
		expect(bodies).toEqual(['Post 0', 'Post 1', 'Post 3', 'Post 4']);
		const base = `${service.url}/v1/posts?publication=publish`;
		expect(links).toEqual([
			`<${base}&page=2&per_page=2>; rel="next", <${base}&page=2&per_page=2>; rel="last"`,
			`<${base}&page=2&per_page=2>; rel="last"`,
		]);
	});

	it('walks webhooks with limit and starting_after, has_more in result_info', async () => {
		for (let index = 0; index < 5; index += 1)
			await call(service, 'POST', '/v1/webhooks', {
				body: { address: `http://127.0.0.1:9/${index}` },
			});
		const addresses: string[] = [];
		let after = '';
		for (let more = true; more; ) {
			const { body } = await call<EnvWebhook[]>(service, 'GET', `/v1/webhooks?limit=2${after}`);
			addresses.push(...body.result.map((webhook) => webhook.address));
			more = body.result_info?.has_more === true;
			after = `&starting_after=${body.result.at(-1)?.id}`;
		}
		expect(addresses).toEqual([0, 1, 2, 3, 4].map((index) => `http://127.0.0.1:9/${index}`));
		expect(service.requestsTo('webhooks/list')).toHaveLength(3);
	});

	it('caps the page size at maxPageSize', async () => {
		const small = await start({ maxPageSize: 2 });
		expect((await call(small, 'GET', '/v1/pages?per_page=50')).body.result_info).toMatchObject({
			per_page: 2,
			count: 2,
		});
	});
});

describe('errors', () => {
	it('are failure envelopes with numeric codes and pointers; nothing is written', async () => {
		const cases: Array<[string, string, unknown, number, Message[]]> = [
			[
				'POST',
				'/v1/posts',
				{ content: 'primary name' },
				400,
				[
					{ code: 1002, message: 'body is required', source: { pointer: '/body' } },
					{
						code: 1002,
						message: 'content is not a known property',
						source: { pointer: '/content' },
					},
				],
			],
			[
				'POST',
				'/v1/posts',
				{ body: 'x', publication: 'scheduled' },
				400,
				[
					{
						code: 1002,
						message: 'publication must be one of: draft, future, publish',
						source: { pointer: '/publication' },
					},
				],
			],
			[
				'POST',
				'/v1/posts',
				{ body: 'x', publication: 'future' },
				400,
				[
					{
						code: 1002,
						message: 'publish_on is required when publication is "future"',
						source: { pointer: '/publish_on' },
					},
				],
			],
			[
				'POST',
				'/v1/posts',
				{ body: 'x', page: 'page_nope' },
				400,
				[
					{
						code: 1003,
						message: 'page does not name an existing page ("page_nope")',
						source: { pointer: '/page' },
					},
				],
			],
			[
				'POST',
				'/v1/generate/carousel',
				{ based_on: 'post_nope' },
				400,
				[
					{
						code: 1003,
						message: 'based_on does not name an existing post ("post_nope")',
						source: { pointer: '/based_on' },
					},
				],
			],
			[
				'POST',
				'/v1/webhooks',
				{ address: 'http://127.0.0.1:9/a', triggers: ['*'] },
				400,
				[
					{
						code: 1002,
						message:
							'triggers[0] must be one of: task.run.succeeded, task.run.failed, post.went_public',
						source: { pointer: '/triggers/0' },
					},
				],
			],
			[
				'POST',
				'/v1/generate/linkedin',
				{ style: 'dry' },
				400,
				[
					{
						code: 1002,
						message: 'body must include at least one of: brief, source_copy, based_on',
						source: { pointer: '' },
					},
				],
			],
			[
				'GET',
				'/v1/pages?limit=2',
				undefined,
				400,
				[
					{
						code: 1002,
						message: 'query.limit is not a parameter of this operation',
						source: { pointer: '/query/limit' },
					},
				],
			],
		];
		for (const [method, url, body, status, errors] of cases) {
			const answer = await call(service, method, url, { body });
			expect({ url, body, status: answer.status, answer: answer.body }).toEqual({
				url,
				body,
				status,
				answer: { success: false, errors, messages: [], result: null },
			});
		}
		expect([service.posts.size, service.webhooks.size, service.jobs.size]).toEqual([0, 0, 0]);
	});

	it('takes only merge patches on PATCH (415 1415 for application/json)', async () => {
		const post = await call<EnvPost>(service, 'POST', '/v1/posts', { body: { body: 'x' } });
		const json = await call(service, 'PATCH', `/v1/posts/${post.body.result.id}`, {
			body: { body: 'y' },
			headers: { 'Content-Type': 'application/json' },
		});
		expect([json.status, json.body.errors[0].code]).toEqual([415, 1415]);
		expect(service.posts.get(post.body.result.id)?.content).toBe('x');
		const post415 = await call(service, 'POST', '/v1/posts', {
			body: { body: 'x' },
			headers: { 'Content-Type': 'text/plain' },
		});
		expect(post415.status).toBe(415);
	});

	it('answers 1001, 1401, 1404, 1405 and injected faults', async () => {
		const response = await fetch(`${service.url}/v1/posts`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${service.apiKey}`, 'Content-Type': 'application/json' },
			body: '{"body": ',
		});
		expect([response.status, ((await response.json()) as Envelope<null>).errors[0].code]).toEqual([
			400, 1001,
		]);
		const unauthorized = await call(service, 'GET', '/v1/me', { apiKey: 'wrong-key-0123456789' });
		expect([
			unauthorized.status,
			unauthorized.body.errors,
			unauthorized.headers.get('www-authenticate'),
		]).toEqual([401, [{ code: 1401, message: 'Missing or invalid API key' }], 'Bearer']);
		expect((await call(service, 'GET', '/v1/posts/post_missing')).body.errors).toEqual([
			{ code: 1404, message: 'Post "post_missing" was not found' },
		]);
		const notAllowed = await call(service, 'PUT', '/v1/posts/post_x', { body: {} });
		expect([
			notAllowed.status,
			notAllowed.body.errors[0].code,
			notAllowed.headers.get('allow'),
		]).toEqual([405, 1405, 'GET, PATCH, DELETE']);
		service.injectFault({ match: { path: '/v1/me' }, status: 429, retryAfterSeconds: 2 });
		const limited = await call(service, 'GET', '/v1/me');
		expect([limited.body.errors[0].code, limited.headers.get('retry-after')]).toEqual([1429, '2']);
		service.injectFault({ status: 503 });
		expect(await call(service, 'GET', '/v1/me')).toMatchObject({
			status: 503,
			body: { success: false, errors: [{ code: 1500 }] },
		});
	});

	it('answers 403 1403 to the unapproved key on every route but the document', async () => {
		for (const route of profileRoutes(ENVELOPE)) {
			const url = route.path.replace(/\{\w+\}/, 'x_1');
			const answer = await call(service, route.method, url, {
				apiKey: service.unapprovedApiKey,
				body: route.method === 'POST' || route.method === 'PATCH' ? {} : undefined,
			});
			const expected =
				route.operationId === 'meta/openapi'
					? [200, undefined]
					: [
							403,
							[
								{
									code: 1403,
									message: 'Authenticated, but this account is not approved for API access',
								},
							],
						];
			expect({ [url]: [answer.status, answer.body.errors] }).toEqual({ [url]: expected });
		}
		const primary = await startPrimary();
		expect(
			(
				await fetch(`${primary.url}/v1/me`, {
					headers: { Authorization: `Bearer ${primary.unapprovedApiKey}` },
				})
			).status,
		).toBe(401);
	});
});

describe('repeatable requests (OASIS Repeatable Requests 1.0)', () => {
	const firstSent = (msAgo = 0) => new Date(Date.now() - msAgo).toUTCString();

	it('carries a create out once and gives its answer again; Idempotency-Key is ignored', async () => {
		const headers = {
			'Repeatability-Request-ID': '4c6f1d6e-8a3b-4f0e-9c2d-1a2b3c4d5e6f',
			'Repeatability-First-Sent': firstSent(),
		};
		const first = await call<EnvPost>(service, 'POST', '/v1/posts', {
			body: { body: 'Once' },
			headers,
		});
		const again = await call<EnvPost>(service, 'POST', '/v1/posts', {
			body: { body: 'Once' },
			headers,
		});
		expect([
			first.headers.get('repeatability-result'),
			again.headers.get('repeatability-result'),
		]).toEqual(['accepted', 'accepted']);
		expect(again.body).toEqual(first.body);
		const job = await call(service, 'POST', '/v1/generate/video', {
			body: { brief: 'x' },
			headers: { ...headers, 'Repeatability-Request-ID': 'b1' },
		});
		const jobAgain = await call(service, 'POST', '/v1/generate/video', {
			body: { brief: 'x' },
			headers: { ...headers, 'Repeatability-Request-ID': 'b1' },
		});
		expect(jobAgain.headers.get('location')).toBe(job.headers.get('location'));
		expect([service.posts.size, service.jobs.size]).toEqual([1, 1]);

		const idempotency = { 'Idempotency-Key': 'same-key-0001' };
		await call(service, 'POST', '/v1/posts', { body: { body: 'Twice' }, headers: idempotency });
		const second = await call(service, 'POST', '/v1/posts', {
			body: { body: 'Twice' },
			headers: idempotency,
		});
		expect([second.headers.get('repeatability-result'), service.posts.size]).toEqual([null, 3]);
	});

	it('rejects what §5 says to reject, carrying nothing out', async () => {
		const id = 'c2';
		await call(service, 'POST', '/v1/posts', {
			body: { body: 'First' },
			headers: { 'Repeatability-Request-ID': id, 'Repeatability-First-Sent': firstSent() },
		});
		const cases: Array<[Record<string, string>, unknown, number, string]> = [
			[
				{ 'Repeatability-Request-ID': id, 'Repeatability-First-Sent': firstSent() },
				{ body: 'Other body' },
				400,
				'/header/Repeatability-Request-ID',
			],
			[
				{ 'Repeatability-Request-ID': 'c3' },
				{ body: 'x' },
				400,
				'/header/Repeatability-First-Sent',
			],
			[
				{ 'Repeatability-First-Sent': firstSent() },
				{ body: 'x' },
				400,
				'/header/Repeatability-Request-ID',
			],
			[
				{ 'Repeatability-Request-ID': 'c4', 'Repeatability-First-Sent': new Date().toISOString() },
				{ body: 'x' },
				400,
				'/header/Repeatability-First-Sent',
			],
			[
				{ 'Repeatability-Request-ID': 'c5', 'Repeatability-First-Sent': firstSent(6 * 60_000) },
				{ body: 'x' },
				412,
				'',
			],
		];
		for (const [headers, body, status, pointer] of cases) {
			const answer = await call(service, 'POST', '/v1/posts', { body, headers });
			const [error] = answer.body.errors;
			expect({
				headers,
				status: answer.status,
				result: answer.headers.get('repeatability-result'),
				code: error.code,
				pointer: error.source?.pointer ?? '',
			}).toEqual({
				headers,
				status,
				result: 'rejected',
				code: status === 412 ? 1412 : 1002,
				pointer,
			});
		}
		expect(service.posts.size).toBe(1);
	});
});

describe('rate limits', () => {
	it('sends RateLimit fields on every answer and answers 429 past the quota', async () => {
		const limited = await start({ rateLimit: { perSecond: 2 } });
		const answers = [];
		for (let index = 0; index < 3; index += 1)
			answers.push(await call(limited, 'GET', index === 1 ? '/v1/nothing' : '/v1/me'));
		expect(
			answers.map((answer) => [answer.status, answer.headers.get('ratelimit-policy')]),
		).toEqual([
			[200, '"default";q=2;w=1'],
			[404, '"default";q=2;w=1'],
			[429, '"default";q=2;w=1'],
		]);
		expect(
			answers.map((answer) => answer.headers.get('ratelimit')?.replace(/;t=\d+$/, '')),
		).toEqual(['"default";r=1', '"default";r=0', '"default";r=0']);
		expect([answers[2].headers.get('retry-after'), answers[2].body.errors[0].code]).toEqual([
			'1',
			1429,
		]);
		expect((await call(service, 'GET', '/v1/me')).headers.get('ratelimit-policy')).toBe(
			'"default";q=10000;w=10',
		);
	});
});

describe('webhook deliveries', () => {
	it('follow Standard Webhooks with two signatures (and a v1a entry every second time), match the callbacks, and signDelivery signs the same way', async () => {
		const receiver = await startReceiver([500]);
		try {
			const created = await call<EnvWebhook>(service, 'POST', '/v1/webhooks', {
				body: { address: receiver.url },
			});
			const { secret } = created.body.result;
			await untilDone(
				await call(service, 'POST', '/v1/publish/linkedin', { body: { body: 'Live' } }),
			);
			service.setJobPlan({ outcome: 'failed' });
			await untilDone(await call(service, 'POST', '/v1/generate/video', { body: { brief: 'x' } }));
			await service.waitForDeliveries();

			expect(
				service.deliveries.map((delivery) => [delivery.eventType, delivery.delivered]),
			).toEqual([
				['task.run.succeeded', true],
				['post.went_public', true],
				['task.run.failed', true],
			]);
			expect(receiver.received).toHaveLength(4);
			for (const [nth, delivery] of service.deliveries.entries()) {
				const { headers, body } =
					receiver.received.filter((received) => received.body === delivery.body).at(-1) ??
					receiver.received[0];
				const event = JSON.parse(body) as {
					type: string;
					timestamp: string;
					data: Record<string, unknown>;
				};
				expect(Object.keys(event)).toEqual(['type', 'timestamp', 'data']);
				expect(headers['webhook-id']).toBe(delivery.eventId);
				expect(contract.validateWebhookEvent(event.type, event)).toEqual([]);
				const entries = String(headers['webhook-signature']).split(' ');
				expect(entries.map((entry) => entry.split(',')[0])).toEqual(
					nth % 2 === 1 ? ['v1', 'v1a', 'v1'] : ['v1', 'v1'],
				);
				expect(verifies(secret, headers, body)).toBe(true);
				// Neither the rotated-out key's entry nor the v1a entry alone is a valid signature.
				for (const alone of entries.slice(0, -1))
					expect(verifies(secret, { ...headers, 'webhook-signature': alone }, body)).toBe(false);
				expect(verifies(secret, headers, body.replace('"data"', '"data" '))).toBe(false);
				const timestamp = Number(headers['webhook-timestamp']);
				expect(
					service.signDelivery(secret, body, timestamp, { eventId: delivery.eventId, nth }),
				).toEqual({
					'webhook-id': delivery.eventId,
					'webhook-timestamp': String(timestamp),
					'webhook-signature': headers['webhook-signature'],
				});
			}
			const [job, post] = service.deliveries.map(
				(delivery) => JSON.parse(delivery.body) as { data: Record<string, unknown> },
			);
			expect([job.data.task, job.data.state, post.data.publication, post.data.body]).toEqual([
				'linkedin.publish',
				'completed',
				'publish',
				'Live',
			]);

			const signed = service.signDelivery(secret, '{"type":"task.run.succeeded"}');
			expect(verifies(secret, signed, '{"type":"task.run.succeeded"}')).toBe(true);
			const [sent] = service.deliveries;
			const alone = String(sent.headers['webhook-signature']).split(' ')[0];
			expect(
				await service.redeliver(sent, { headers: { ...sent.headers, 'webhook-signature': alone } }),
			).toBe(200);
			expect(receiver.received.at(-1)?.headers['webhook-signature']).toBe(alone);
		} finally {
			await receiver.close();
		}
	});
});

describe('cli', () => {
	it(
		'starts with --profile envelope and prints the unapproved key',
		async () => {
			await withCli(
				['--profile', 'envelope'],
				'cli-envelope-key-0123456789',
				async (output, url) => {
					expect(output).toMatch(/^Profile: envelope$/m);
					const unapproved = /^Unapproved API key \(403\): (\S+)$/m.exec(output)?.[1];
					const me = await fetch(`${url}/v1/me`, {
						headers: { Authorization: 'Bearer cli-envelope-key-0123456789' },
					});
					expect(((await me.json()) as Envelope<{ full_name: string }>).result.full_name).toEqual(
						expect.any(String),
					);
					expect(
						(await fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${unapproved}` } }))
							.status,
					).toBe(403);
				},
			);
		},
		CLI_TIMEOUT_MS,
	);
});
