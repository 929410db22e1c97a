import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { NESTED } from './nested';
import { buildNestedDocument } from './nested-document';
import {
	createContractValidator,
	profileRoutes,
	startFakeService,
	type FakeService,
	type JsonSchema,
} from './index';
import {
	checkedCall,
	operationWalk,
	serviceStarter,
	startReceiver,
	validateOpenApiDocument,
	CLI_TIMEOUT_MS,
	withCli,
	type CheckedAnswer as Answer,
	type ReceivedDelivery,
} from './test-helpers';

/** The nested profile: every operation on the wire, checked against its own 3.0 document; state in canonical terms. */

interface GoogleError {
	error: {
		code: number;
		message: string;
		status: string;
		details: Array<{
			'@type': string;
			reason?: string;
			fieldViolations?: Array<{ field: string; description: string }>;
		}>;
	};
}
interface Mini {
	type: string;
	id: string;
}
interface NestedPost {
	type: 'post';
	id: string;
	page: Mini | null;
	title: string | null;
	content: string;
	status: string;
	tags: string[];
	media_urls: string[];
	scheduled_at: string | null;
}
interface Operation {
	id: string;
	done: boolean;
	metadata: { type: string; progress: number; end_time?: string };
	response?: Record<string, unknown>;
	error?: { code: number; message: string; details: Array<{ reason: string }> };
}
interface NestedWebhook {
	id: string;
	active: boolean;
	events: string[];
	description: string | null;
	config: { url: string; content_type: string; secret?: string };
}
type List<K extends string, T> = { ok: true; response_metadata: { next_cursor: string } } & Record<
	K,
	T[]
>;

const document = buildNestedDocument();
const contract = createContractValidator(document);
const components = (document as unknown as { components: { schemas: Record<string, JsonSchema> } })
	.components;
const schemaOf = (name: string) =>
	components.schemas[name] as { properties: Record<string, JsonSchema>; required?: string[] };
const OPERATION_IDS = [
	'GetOpenapiJson',
	'GetMe',
	'GetPages',
	'GetPagesPage',
	'PostPosts',
	'GetPosts',
	'GetPostsPost',
	'PostPostsPost',
	'DeletePostsPost',
	'PostGenerateBlog',
	'PostGenerateLinkedin',
	'PostGenerateTwitter',
	'PostGenerateCarousel',
	'PostGenerateVideo',
	'PostPublishLinkedin',
	'PostPublishTwitter',
	'GetJobsJob',
	'PostWebhooks',
	'GetWebhooks',
	'GetWebhooksWebhook',
	'PostWebhooksWebhook',
	'DeleteWebhooksWebhook',
];
const EVENTS = ['generation.succeeded', 'generation.failed', 'post.published'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const start = serviceStarter('nested');
/** An answer to a documented operation must match the nested document (errors included). */
const call = <T = GoogleError>(
	service: FakeService,
	method: string,
	url: string,
	options?: Parameters<typeof checkedCall>[4],
) => checkedCall<T>(contract, service, method, url, options);

/** GitHub's check: `sha256=` + the hex HMAC-SHA256 of the raw body under the secret, compared in constant time. */
function verifies(secret: string, { headers, body }: ReceivedDelivery): boolean {
	const given = Buffer.from(String(headers['x-hub-signature-256'] ?? ''));
	const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
	return given.length === expected.length && timingSafeEqual(given, expected);
}

let service: FakeService;

beforeAll(async () => {
	service = await start();
});

beforeEach(() => service.reset());

async function untilDone(operation: Answer<Operation>): Promise<Operation> {
	expect([operation.status, operation.body.done]).toEqual([200, false]);
	for (let poll = 0; poll < 5; poll += 1) {
		const { body, operationId } = await call<Operation>(
			service,
			'GET',
			`/v1/jobs/${operation.body.id}`,
		);
		expect(operationId).toBe('GetJobsJob');
		if (body.done) return body;
	}
	throw new Error(`Operation ${operation.body.id} is not done`);
}

const violations = (answer: Answer<GoogleError>) =>
	answer.body.error.details.flatMap((detail) => detail.fieldViolations ?? []);

describe('the nested document', () => {
	it('is a valid OpenAPI 3.0.3 document, as served (anonymously) and as built, its paths below servers[0]', async () => {
		const served = await call<Record<string, unknown>>(service, 'GET', '/v1/openapi.json', {
			apiKey: null,
		});
		expect(served).toMatchObject({ status: 200, operationId: 'GetOpenapiJson' });
		expect([served.body.openapi, served.body.servers]).toEqual([
			'3.0.3',
			[{ url: `${service.url}/v1` }],
		]);
		expect(await validateOpenApiDocument(served.body)).toEqual({ valid: true });
		expect(await validateOpenApiDocument(document)).toEqual({ valid: true });
		// No status enum for jobs, no per-value explanations, no 3.1 webhooks, no idempotency.
		expect(document).not.toHaveProperty('webhooks');
		expect(JSON.stringify(document)).not.toMatch(/x-enum|Idempotency-Key|"(patch|put)":|queued/i);
	});

	it('describes exactly the routes the nested profile serves, with Stripe operation ids, and updates as POSTs', () => {
		const documented = Object.entries(document.paths).flatMap(([template, pathItem]) =>
			Object.entries(pathItem).map(
				([method, operation]) => `${method.toUpperCase()} /v1${template} ${operation.operationId}`,
			),
		);
		const routes = profileRoutes(NESTED);
		expect(
			routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort(),
		).toEqual(documented.sort());
		expect(routes.map((route) => route.operationId).sort()).toEqual([...OPERATION_IDS].sort());
		for (const [resource, name] of [
			['posts', 'post'],
			['webhooks', 'webhook'],
		]) {
			const item = document.paths[`/${resource}/{${name}}`];
			expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'post']);
			expect([item.post?.summary, item.post?.description]).toEqual([
				`Update a ${name}`,
				`<p>Updates the specified ${name} by setting the values of the parameters passed. Any parameters not provided will be left unchanged.</p>`,
			]);
		}
		expect(document.paths['/posts/{post}'].post?.operationId).toBe('PostPostsPost');
	});

	it('states each convention as the API it comes from does', () => {
		// Replicate: the content in a closed `input`, options beside it, closed too.
		const blog = schemaOf('BlogRequest');
		const input = blog.properties.input as {
			properties: Record<string, JsonSchema>;
			additionalProperties: boolean;
			required: string[];
		};
		expect([blog.required, Object.keys(blog.properties)]).toEqual([
			['input'],
			['input', 'title', 'length', 'page'],
		]);
		expect([input.additionalProperties, input.required, input.properties.text.description]).toEqual(
			[false, ['text'], 'The transcript to write the blog post from.'],
		);
		expect(Object.keys(schemaOf('VideoRequest').properties)).toEqual([
			'input',
			'duration_seconds',
			'aspect_ratio',
			'page',
		]);
		// Box: references `{id}` in requests, mini objects `{type, id}` in answers.
		expect(schemaOf('PostCreate').properties.page).toMatchObject({
			type: 'object',
			required: ['id'],
			description: 'The page to create the post within.',
		});
		expect(schemaOf('Post--Mini').required).toEqual(['type', 'id']);
		// GitHub: the config and its secret, the events' prose.
		const hook = schemaOf('WebhookCreate');
		const config = hook.properties.config as { properties: Record<string, JsonSchema> };
		expect(config.properties.secret.description).toBe(
			'If provided, the `secret` will be used as the `key` to generate the HMAC hex digest value for delivery signature headers.',
		);
		const events = hook.properties.events as { items: JsonSchema; description: string };
		expect(events.items).toEqual({ type: 'string', enum: EVENTS });
		expect(events.description).not.toMatch(/\n/);
		for (const event of EVENTS)
			expect(events.description).toMatch(new RegExp(`\`${event}\` is sent [^;.]+[,;] `));
		// Google: an Operation has `done`, no status; errors are AIP-193's.
		expect(Object.keys(schemaOf('Operation').properties)).toEqual([
			'id',
			'metadata',
			'done',
			'error',
			'response',
		]);
		expect(schemaOf('Error').required).toEqual(['error']);
		// Slack: limit up to 200 and a cursor.
		const listPages = document.paths['/pages'].get;
		expect(listPages?.parameters).toEqual([
			{ $ref: '#/components/parameters/limit' },
			{ $ref: '#/components/parameters/cursor' },
		]);
		expect(
			(document as unknown as { components: { parameters: Record<string, JsonSchema> } }).components
				.parameters.limit.schema,
		).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 100 });
		// X: a thread of tweet objects.
		expect(schemaOf('PublishTwitterRequest').properties.tweets).toMatchObject({
			items: { type: 'object', required: ['text'] },
		});
		// OAS 3.0: deliveries as callbacks of the registration, with GitHub's headers.
		const callbacks = document.paths['/webhooks'].post?.callbacks ?? {};
		expect(Object.keys(callbacks)).toEqual(EVENTS);
		const delivery = callbacks['generation.succeeded']['{$request.body#/config/url}'].post;
		expect(delivery?.parameters?.map((parameter) => [parameter.name, parameter.required])).toEqual([
			['X-GitHub-Hook-ID', true],
			['X-GitHub-Event', true],
			['X-GitHub-Delivery', true],
			['X-Hub-Signature-256', false],
			['User-Agent', true],
		]);
	});
});

describe('every operation', () => {
	it('answers as its document says, with state kept in canonical terms', async () => {
		const { op, seen } = operationWalk(contract, service);
		await op('GetOpenapiJson', 'GET', '/v1/openapi.json');
		expect((await op('GetMe', 'GET', '/v1/me')).body).toEqual(service.account);
		const pages = await op<List<'pages', { type: string; name: string }>>(
			'GetPages',
			'GET',
			'/v1/pages',
		);
		expect(pages.body.pages.map((page) => [page.type, page.name])).toEqual(
			[...service.pages.values()].map((page) => ['page', page.name]),
		);
		const [page, otherPage] = service.pages.values();
		expect((await op('GetPagesPage', 'GET', `/v1/pages/${page.id}`)).body).toEqual({
			type: 'page',
			...page,
		});

		const created = await op<NestedPost>('PostPosts', 'POST', '/v1/posts', {
			content: 'Hello',
			title: 'Greeting',
			page: { id: page.id },
			tags: ['news'],
			status: 'scheduled',
			scheduled_at: '2030-01-01T09:00:00Z',
		});
		expect(created.status).toBe(201);
		expect(created.body).toMatchObject({
			type: 'post',
			page: { type: 'page', id: page.id },
			status: 'scheduled',
		});
		const postId = created.body.id;
		expect(service.posts.get(postId)).toMatchObject({
			content: 'Hello',
			title: 'Greeting',
			page_id: page.id,
			tags: ['news'],
			scheduled_at: '2030-01-01T09:00:00Z',
		});
		await op('PostPosts', 'POST', '/v1/posts', { content: 'A draft elsewhere' });
		const listed = await op<List<'posts', NestedPost>>(
			'GetPosts',
			'GET',
			`/v1/posts?page=${page.id}&status=scheduled`,
		);
		expect(listed.body).toEqual({
			ok: true,
			posts: [created.body],
			response_metadata: { next_cursor: '' },
		});
		expect((await op('GetPostsPost', 'GET', `/v1/posts/${postId}`)).body).toEqual(created.body);
		// Stripe: only the parameters given change; an empty string unsets.
		const updated = await op<NestedPost>('PostPostsPost', 'POST', `/v1/posts/${postId}`, {
			content: 'Bye',
			title: '',
			scheduled_at: '',
			status: 'draft',
		});
		expect(updated.body).toMatchObject({
			content: 'Bye',
			title: null,
			scheduled_at: null,
			status: 'draft',
			page: { type: 'page', id: page.id },
			tags: ['news'],
		});
		const moved = await op<NestedPost>('PostPostsPost', 'POST', `/v1/posts/${postId}`, {
			page: { type: 'page', id: otherPage.id },
		});
		expect(moved.body.page).toEqual({ type: 'page', id: otherPage.id });
		expect(
			(await op<NestedPost>('PostPostsPost', 'POST', `/v1/posts/${postId}`, { page: '' })).body
				.page,
		).toBeNull();
		expect(service.posts.get(postId)).toMatchObject({ page_id: null, title: null });

		const generations: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
			[
				'Blog',
				{
					input: { text: 'We shipped the editor. It is fast.', tone: 'warm', language: 'en' },
					title: 'Editor',
					length: 'short',
					page: { id: page.id },
				},
				{
					'@type': 'type.googleapis.com/contentpublishing.v1.GenerateBlogResponse',
					title: 'Editor',
					summary: expect.any(String),
					content: expect.stringContaining('# Editor'),
				},
			],
			[
				'Linkedin',
				{ input: { prompt: 'Announce the editor' } },
				{ content: expect.stringContaining('Announce the editor') },
			],
			[
				'Twitter',
				{ input: { source_text: 'One. Two. Three.' }, thread_length: 4 },
				{
					tweets: [
						{ text: '1/4 One.' },
						{ text: '2/4 Two.' },
						{ text: '3/4 Three.' },
						{ text: '4/4 One.' },
					],
				},
			],
			[
				'Carousel',
				{ input: { source_post: { id: postId } }, slide_count: 2 },
				{
					slides: [
						{ title: 'Bye', body: 'Bye', image_url: expect.stringMatching(/-1\.png$/) },
						{ title: 'Point 1', body: 'Bye', image_url: expect.stringMatching(/-2\.png$/) },
					],
				},
			],
			[
				'Video',
				{ input: { prompt: 'Demo' }, duration_seconds: 15, aspect_ratio: '9:16' },
				{ video_url: expect.stringMatching(/\.mp4$/), duration_seconds: 15, aspect_ratio: '9:16' },
			],
		];
		for (const [kind, body, response] of generations) {
			const started = await op<Operation>(
				`PostGenerate${kind}`,
				'POST',
				`/v1/generate/${kind.toLowerCase()}`,
				body,
			);
			const done = await untilDone(started);
			expect(done.metadata.type).toBe(`generate.${kind.toLowerCase()}`);
			expect(done.response).toMatchObject(response);
			expect(done).not.toHaveProperty('error');
		}
		seen.add('GetJobsJob');
		expect(service.jobs.size).toBe(5);

		const published = await untilDone(
			await op('PostPublishLinkedin', 'POST', '/v1/publish/linkedin', { post: { id: postId } }),
		);
		expect(published.response).toEqual({
			'@type': 'type.googleapis.com/contentpublishing.v1.PublishLinkedinResponse',
			platform: 'linkedin',
			post: { type: 'post', id: postId },
			url: `https://linkedin.example/posts/${postId}`,
			published_at: expect.any(String),
		});
		expect(service.posts.get(postId)?.status).toBe('published');
		const thread = (
			await untilDone(
				await op('PostPublishTwitter', 'POST', '/v1/publish/twitter', {
					tweets: [{ text: 'First' }, { text: 'Second' }],
					page: { id: page.id },
				}),
			)
		).response as { post: Mini; thread_urls: string[] };
		expect(service.posts.get(thread.post.id)).toMatchObject({
			content: 'First\n\nSecond',
			page_id: page.id,
			status: 'published',
		});
		expect(thread.thread_urls).toHaveLength(2);
		const single = (
			await untilDone(
				await op('PostPublishTwitter', 'POST', '/v1/publish/twitter', { text: 'Just one' }),
			)
		).response as { post: Mini };
		expect(service.posts.get(single.post.id)?.content).toBe('Just one');

		const hook = await op<NestedWebhook>('PostWebhooks', 'POST', '/v1/webhooks', {
			active: true,
			events: ['generation.succeeded', 'post.published'],
			description: 'Mine',
			config: { url: 'http://127.0.0.1:9/in', content_type: 'json', secret: 'node-chosen-secret' },
		});
		expect(hook.status).toBe(201);
		expect(hook.body).toMatchObject({
			active: true,
			events: ['generation.succeeded', 'post.published'],
			description: 'Mine',
			config: { url: 'http://127.0.0.1:9/in', content_type: 'json', secret: '********' },
		});
		const hookId = hook.body.id;
		expect(service.webhooks.get(hookId)).toMatchObject({
			url: 'http://127.0.0.1:9/in',
			events: ['job.completed', 'post.published'],
			secret: 'node-chosen-secret',
		});
		expect((await op('GetWebhooks', 'GET', '/v1/webhooks')).body).toEqual({
			ok: true,
			webhooks: [hook.body],
			response_metadata: { next_cursor: '' },
		});
		expect((await op('GetWebhooksWebhook', 'GET', `/v1/webhooks/${hookId}`)).body).toEqual(
			hook.body,
		);
		const rewired = await op<NestedWebhook>(
			'PostWebhooksWebhook',
			'POST',
			`/v1/webhooks/${hookId}`,
			{
				active: false,
				description: '',
				config: { url: 'http://127.0.0.1:9/other' },
			},
		);
		expect(rewired.body).toMatchObject({
			active: false,
			description: null,
			events: ['generation.succeeded', 'post.published'],
			config: { url: 'http://127.0.0.1:9/other', secret: '********' },
		});
		expect(service.webhooks.get(hookId)?.secret).toBe('node-chosen-secret');

		const gone = await op('DeleteWebhooksWebhook', 'DELETE', `/v1/webhooks/${hookId}`);
		const deleted = await op('DeletePostsPost', 'DELETE', `/v1/posts/${postId}`);
		expect([gone.status, gone.body, deleted.status, deleted.body]).toEqual([
			204,
			undefined,
			204,
			undefined,
		]);
		expect([service.webhooks.has(hookId), service.posts.has(postId)]).toEqual([false, false]);

		expect([...seen].sort()).toEqual([...OPERATION_IDS].sort());
		expect(service.requests.flatMap((request) => request.contractErrors)).toEqual([]);
	});
});

describe('long-running operations (AIP-151)', () => {
	it('go from done: false to done: true with a response, or with a google.rpc.Status error and no response', async () => {
		service.setJobPlan({ outcome: 'succeeded', pollsUntilRunning: 1, pollsUntilDone: 2 });
		const started = await call<Operation>(service, 'POST', '/v1/generate/video', {
			body: { input: { prompt: 'Soon' } },
		});
		const states = [started.body];
		for (let poll = 0; poll < 2; poll += 1)
			states.push((await call<Operation>(service, 'GET', `/v1/jobs/${started.body.id}`)).body);
		expect(
			states.map(({ done, metadata, response, error }) => [
				done,
				metadata.progress,
				metadata.end_time !== undefined,
				response !== undefined,
				error !== undefined,
			]),
		).toEqual([
			[false, 0, false, false, false],
			[false, 50, false, false, false],
			[true, 100, true, true, false],
		]);

		service.setJobPlan({
			outcome: 'failed',
			error: { code: 'generation_failed', message: 'No model today' },
		});
		const failed = await untilDone(
			await call<Operation>(service, 'POST', '/v1/generate/blog', {
				body: { input: { text: 'Hi.' } },
			}),
		);
		expect(failed).not.toHaveProperty('response');
		expect(failed.error).toEqual({
			code: 13,
			message: 'No model today',
			details: [
				{
					'@type': 'type.googleapis.com/google.rpc.ErrorInfo',
					reason: 'GENERATION_FAILED',
					domain: 'content-publishing.example',
				},
			],
		});

		service.setJobPlan({ outcome: 'succeeded' });
		const post = await call<NestedPost>(service, 'POST', '/v1/posts', { body: { content: 'x' } });
		const publishing = await call<Operation>(service, 'POST', '/v1/publish/linkedin', {
			body: { post: { id: post.body.id } },
		});
		service.posts.delete(post.body.id);
		expect((await untilDone(publishing)).error?.code).toBe(5);
		expect(service.requests.flatMap((request) => request.contractErrors)).toEqual([]);
	});
});

describe('paging (Slack cursors)', () => {
	it('walks every list to an empty next_cursor, filters kept', async () => {
		for (let index = 0; index < 5; index += 1) {
			await call(service, 'POST', '/v1/posts', {
				body: { content: `Post ${index}`, status: index === 2 ? 'draft' : 'published' },
			});
			await call(service, 'POST', '/v1/webhooks', {
				body: { events: ['post.published'], config: { url: `http://127.0.0.1:9/${index}` } },
			});
		}
		const walk = async <T>(list: string, plural: string, filters = '') => {
			const items: T[] = [];
			let cursor = '';
			for (let portion = 0; portion < 10; portion += 1) {
				const { body }: Answer<List<string, T>> = await call(
					service,
					'GET',
					`/v1/${list}?limit=2${filters}${cursor === '' ? '' : `&cursor=${cursor}`}`,
				);
				expect(body.ok).toBe(true);
				items.push(...body[plural]);
				cursor = body.response_metadata.next_cursor;
				if (cursor === '') return items;
			}
			throw new Error(`${list} did not end`);
		};
		expect((await walk<{ name: string }>('pages', 'pages')).map((page) => page.name)).toEqual(
			[...service.pages.values()].map((page) => page.name),
		);
		expect(
			(await walk<NestedPost>('posts', 'posts', '&status=published')).map((post) => post.content),
		).toEqual(['Post 0', 'Post 1', 'Post 3', 'Post 4']);
		expect(
			(await walk<NestedWebhook>('webhooks', 'webhooks')).map((hook) => hook.config.url),
		).toEqual([0, 1, 2, 3, 4].map((index) => `http://127.0.0.1:9/${index}`));
		expect(service.requestsTo('GetPages')).toHaveLength(3);
	});

	it('gives fewer than asked for below the page-size cap, takes an empty cursor as none, and refuses limit 201 and a cursor it did not make', async () => {
		const small = await start({ maxPageSize: 2 });
		const capped = await call<List<'pages', unknown>>(small, 'GET', '/v1/pages?limit=200&cursor=');
		expect([capped.body.pages.length, capped.body.response_metadata.next_cursor]).toEqual([
			2,
			expect.stringMatching(/.+/),
		]);
		const tooMany = await call(service, 'GET', '/v1/pages?limit=201');
		const bogus = await call(service, 'GET', '/v1/posts?cursor=nonsense');
		expect([tooMany.status, violations(tooMany), bogus.status, violations(bogus)]).toEqual([
			400,
			[{ field: 'limit', description: 'must be <= 200' }],
			400,
			[{ field: 'cursor', description: 'is not a cursor returned by this API' }],
		]);
	});
});

describe('errors (AIP-193)', () => {
	it('refuse requests in the primary shape, and any field the document does not have, at every level; nothing is written', async () => {
		const cases: Array<[string, unknown, Array<{ field: string; description: string }>]> = [
			[
				'/v1/posts',
				{ content: 'x', page_id: 'page_1' },
				[{ field: 'page_id', description: 'is not a known property' }],
			],
			[
				'/v1/generate/blog',
				{ transcript: 'x' },
				[
					{ field: 'input', description: 'is required' },
					{ field: 'transcript', description: 'is not a known property' },
				],
			],
			[
				'/v1/generate/linkedin',
				{ input: { prompt: 'x', thread_length: 3 } },
				[{ field: 'input.thread_length', description: 'is not a known property' }],
			],
			[
				'/v1/generate/linkedin',
				{ prompt: 'x', input: { tone: 'dry' } },
				[
					{
						field: 'input',
						description: 'must include at least one of: prompt, source_text, source_post',
					},
					{ field: 'prompt', description: 'is not a known property' },
				],
			],
			[
				'/v1/generate/carousel',
				{ input: { source_post_id: 'post_1' } },
				[
					{ field: 'input.source_post_id', description: 'is not a known property' },
					{
						field: 'input',
						description: 'must include at least one of: prompt, source_text, source_post',
					},
				],
			],
			[
				'/v1/publish/twitter',
				{ thread: ['a', 'b'] },
				[
					{ field: 'thread', description: 'is not a known property' },
					{ field: '', description: 'must include at least one of: post, text, tweets' },
				],
			],
			[
				'/v1/publish/twitter',
				{ tweets: ['a'] },
				[{ field: 'tweets[0]', description: 'must be object' }],
			],
			[
				'/v1/webhooks',
				{ url: 'http://127.0.0.1:9/a', events: ['job.completed'], secret: 'abc' },
				[
					{ field: 'config', description: 'is required' },
					{ field: 'url', description: 'is not a known property' },
					{ field: 'secret', description: 'is not a known property' },
					{
						field: 'events[0]',
						description: 'must be one of: generation.succeeded, generation.failed, post.published',
					},
				],
			],
			[
				'/v1/webhooks',
				{
					events: ['post.published'],
					config: { url: 'http://127.0.0.1:9/a', content_type: 'form' },
				},
				[{ field: 'config.content_type', description: 'must be one of: json' }],
			],
		];
		for (const [url, body, expected] of cases) {
			const answer = await call(service, 'POST', url, { body });
			expect({ url, body, status: answer.status, error: answer.body.error.status }).toEqual({
				url,
				body,
				status: 400,
				error: 'INVALID_ARGUMENT',
			});
			expect({ url, violations: violations(answer) }).toEqual({
				url,
				violations: expect.arrayContaining(expected),
			});
			expect(violations(answer)).toHaveLength(expected.length);
		}
		expect([service.posts.size, service.webhooks.size, service.jobs.size]).toEqual([0, 0, 0]);
	});

	it('name the field by its nested path when a reference names nothing or a rule of the service is broken', async () => {
		const cases: Array<[string, unknown, string]> = [
			[
				'/v1/posts',
				{ content: 'x', page: { id: 'page_nope' } },
				'page.id does not name an existing page ("page_nope")',
			],
			[
				'/v1/posts',
				{ content: 'x', status: 'scheduled' },
				'scheduled_at is required when status is "scheduled"',
			],
			[
				'/v1/generate/carousel',
				{ input: { source_post: { id: 'post_nope' } } },
				'input.source_post.id does not name an existing post ("post_nope")',
			],
			[
				'/v1/publish/linkedin',
				{ post: { id: 'post_nope' } },
				'post.id does not name an existing post ("post_nope")',
			],
			[
				'/v1/publish/twitter',
				{ text: 'x', tweets: [{ text: 'y' }] },
				'tweets takes the place of text and post: send one of the three',
			],
		];
		for (const [url, body, message] of cases) {
			const answer = await call(service, 'POST', url, { body });
			const [field] = message.split(' ');
			expect({ url, status: answer.status, body: answer.body }).toEqual({
				url,
				status: 400,
				body: {
					error: {
						code: 400,
						message,
						status: 'INVALID_ARGUMENT',
						details: [
							{
								'@type': 'type.googleapis.com/google.rpc.ErrorInfo',
								reason: 'VALIDATION_ERROR',
								domain: 'content-publishing.example',
							},
							{
								'@type': 'type.googleapis.com/google.rpc.BadRequest',
								fieldViolations: [{ field, description: message.slice(field.length + 1) }],
							},
						],
					},
				},
			});
		}
		expect([service.posts.size, service.jobs.size]).toEqual([0, 0]);
	});

	it('answer PATCH and PUT on a resource with 405 and an Allow header: updates are POSTs', async () => {
		const post = await call<NestedPost>(service, 'POST', '/v1/posts', { body: { content: 'x' } });
		const hook = await call<NestedWebhook>(service, 'POST', '/v1/webhooks', {
			body: { events: ['post.published'], config: { url: 'http://127.0.0.1:9/a' } },
		});
		for (const [url, operationId] of [
			[`/v1/posts/${post.body.id}`, 'PostPostsPost'],
			[`/v1/webhooks/${hook.body.id}`, 'PostWebhooksWebhook'],
		]) {
			for (const method of ['PATCH', 'PUT']) {
				const answer = await call(service, method, url, { body: { content: 'y' } });
				expect([answer.status, answer.headers.get('allow'), answer.body.error.status]).toEqual([
					405,
					'GET, POST, DELETE',
					'UNIMPLEMENTED',
				]);
				expect(
					contract.validateResponse({
						operationId,
						status: 405,
						body: answer.body,
						contentType: answer.headers.get('content-type') ?? undefined,
					}),
				).toEqual([]);
			}
		}
		expect(service.posts.get(post.body.id)?.content).toBe('x');
	});

	it('answer 401, 404 (ids URL-encoded), injected faults and a body that is not JSON in the same shape; Idempotency-Key is ignored', async () => {
		const unauthorized = await call(service, 'GET', '/v1/me', { apiKey: 'wrong-key-0123456789' });
		expect([
			unauthorized.status,
			unauthorized.headers.get('www-authenticate'),
			unauthorized.body,
		]).toEqual([
			401,
			'Bearer',
			{
				error: {
					code: 401,
					message: 'Missing or invalid API key',
					status: 'UNAUTHENTICATED',
					details: [
						{
							'@type': 'type.googleapis.com/google.rpc.ErrorInfo',
							reason: 'UNAUTHORIZED',
							domain: 'content-publishing.example',
						},
					],
				},
			},
		]);
		const missing = await call(service, 'GET', `/v1/posts/${encodeURIComponent('../webhooks')}`);
		expect([missing.status, missing.body.error.status, missing.body.error.message]).toEqual([
			404,
			'NOT_FOUND',
			'Post "../webhooks" was not found',
		]);
		expect((await call(service, 'GET', '/v1/jobs/job_missing')).status).toBe(404);

		service.injectFault({ match: { path: '/v1/me' }, status: 429, retryAfterSeconds: 2 });
		const limited = await call(service, 'GET', '/v1/me');
		expect([limited.body.error.status, limited.headers.get('retry-after')]).toEqual([
			'RESOURCE_EXHAUSTED',
			'2',
		]);
		service.injectFault({ status: 503 });
		expect((await call(service, 'GET', '/v1/me')).body.error).toMatchObject({
			code: 503,
			status: 'UNAVAILABLE',
		});
		const notJson = await fetch(`${service.url}/v1/posts`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${service.apiKey}`, 'Content-Type': 'application/json' },
			body: '{"content": ',
		});
		expect([notJson.status, ((await notJson.json()) as GoogleError).error.status]).toEqual([
			400,
			'INVALID_ARGUMENT',
		]);

		const headers = { 'Idempotency-Key': 'same-key-0001' };
		const first = await call<NestedPost>(service, 'POST', '/v1/posts', {
			body: { content: 'Once?' },
			headers,
		});
		const second = await call<NestedPost>(service, 'POST', '/v1/posts', {
			body: { content: 'Once?' },
			headers,
		});
		expect(second.body.id).not.toBe(first.body.id);
	});
});

describe('webhook deliveries (GitHub)', () => {
	it('are signed X-Hub-Signature-256 over the raw body, carry GitHub headers and a body with an action, match the callbacks, keep their GUID on a retry and a redelivery', async () => {
		const receiver = await startReceiver([500]);
		try {
			const secret = 'the-node-chose-this-secret';
			const created = await call<NestedWebhook>(service, 'POST', '/v1/webhooks', {
				body: { events: EVENTS, config: { url: receiver.url, secret } },
			});
			await untilDone(
				await call<Operation>(service, 'POST', '/v1/publish/linkedin', {
					body: { text: 'Live' },
				}),
			);
			service.setJobPlan({ outcome: 'failed' });
			await untilDone(
				await call<Operation>(service, 'POST', '/v1/generate/video', {
					body: { input: { prompt: 'x' } },
				}),
			);
			await service.waitForDeliveries();

			expect(service.deliveries.map((delivery) => [delivery.eventType, delivery.attempts])).toEqual(
				[
					['generation.succeeded', 2],
					['post.published', 1],
					['generation.failed', 1],
				],
			);
			// The first delivery failed once and was retried with the same GUID; each has its own.
			expect(receiver.received).toHaveLength(4);
			const received = service.deliveries.map((delivery) =>
				receiver.received.filter((copy) => copy.body === delivery.body),
			);
			expect(received.map((copies) => copies.length)).toEqual([2, 1, 1]);
			expect(new Set(received[0].map(({ headers }) => headers['x-github-delivery'])).size).toBe(1);
			expect(new Set(received.map(([{ headers }]) => headers['x-github-delivery'])).size).toBe(3);
			for (const [index, [delivery]] of received.entries()) {
				const { headers, body } = delivery;
				const event = service.deliveries[index].eventType;
				expect(headers).toMatchObject({
					'content-type': 'application/json',
					'x-github-event': event,
					'x-github-hook-id': created.body.id,
					'x-github-delivery': expect.stringMatching(UUID),
					'user-agent': expect.stringMatching(/^Content-Publishing-Hookshot\/[0-9a-f]{7}$/),
					'x-hub-signature-256': expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
				});
				expect(verifies(secret, delivery)).toBe(true);
				expect(verifies(secret, { headers, body: body.replace('"action"', '"action" ') })).toBe(
					false,
				);
				expect(verifies('another-secret', delivery)).toBe(false);
				const payload = JSON.parse(body) as Record<string, unknown>;
				expect(Object.keys(payload)).toEqual(
					event === 'post.published' ? ['action', 'post'] : ['action', 'operation'],
				);
				expect(body).not.toContain(event);
				expect(contract.validateWebhookEvent(event, payload)).toEqual([]);
				expect(service.signDelivery(secret, body)).toEqual({
					'X-Hub-Signature-256': headers['x-hub-signature-256'],
				});
			}
			expect(
				received.map(([{ body }]) => {
					const payload = JSON.parse(body) as { action: string; operation?: Operation };
					return [payload.action, payload.operation?.done, payload.operation?.metadata.type];
				}),
			).toEqual([
				['succeeded', true, 'publish.linkedin'],
				['published', undefined, undefined],
				['failed', true, 'generate.video'],
			]);

			const [first] = service.deliveries;
			expect(await service.redeliver(first)).toBe(200);
			expect(receiver.received.at(-1)?.headers['x-github-delivery']).toBe(
				received[0][0].headers['x-github-delivery'],
			);
		} finally {
			await receiver.close();
		}
	});

	it('go unsigned to a webhook without a secret, only for the events it subscribed to', async () => {
		const receiver = await startReceiver();
		try {
			const created = await call<NestedWebhook>(service, 'POST', '/v1/webhooks', {
				body: { events: ['post.published'], config: { url: receiver.url } },
			});
			expect(created.body.config).toEqual({ url: receiver.url, content_type: 'json' });
			await call(service, 'POST', '/v1/posts', { body: { content: 'Live', status: 'published' } });
			await service.waitForDeliveries();
			expect(receiver.received.map(({ headers }) => headers['x-github-event'])).toEqual([
				'post.published',
			]);
			expect(receiver.received[0].headers).not.toHaveProperty('x-hub-signature-256');
			expect(service.signDelivery('', receiver.received[0].body)).toEqual({});
		} finally {
			await receiver.close();
		}
	});
});

describe('a state file', () => {
	it('keeps posts, webhooks and their secrets (or none) across a restart, answered the same', async () => {
		const folder = mkdtempSync(path.join(tmpdir(), 'cp-fake-nested-'));
		const stateFile = path.join(folder, 'fake-service.json');
		const receiver = await startReceiver();
		const started: FakeService[] = [];
		try {
			const first = await startFakeService({ profile: 'nested', stateFile });
			started.push(first);
			const [page] = first.pages.values();
			const post = await call<NestedPost>(first, 'POST', '/v1/posts', {
				body: { content: 'Kept', page: { id: page.id } },
			});
			const signed = await call<NestedWebhook>(first, 'POST', '/v1/webhooks', {
				body: { events: ['post.published'], config: { url: receiver.url, secret: 'kept-secret' } },
			});
			const unsigned = await call<NestedWebhook>(first, 'POST', '/v1/webhooks', {
				body: { events: ['post.published'], config: { url: receiver.url } },
			});
			await first.close();

			const second = await startFakeService({ profile: 'nested', stateFile, apiKey: first.apiKey });
			started.push(second);
			for (const answer of [post, signed, unsigned]) {
				const url = `/v1/${answer === post ? 'posts' : 'webhooks'}/${answer.body.id}`;
				expect((await call(second, 'GET', url)).body).toEqual(answer.body);
			}
			await call(second, 'POST', `/v1/posts/${post.body.id}`, { body: { status: 'published' } });
			await second.waitForDeliveries();
			const byHook = Object.fromEntries(
				receiver.received.map((delivery) => [delivery.headers['x-github-hook-id'], delivery]),
			);
			expect(verifies('kept-secret', byHook[signed.body.id])).toBe(true);
			expect(byHook[unsigned.body.id].headers).not.toHaveProperty('x-hub-signature-256');
		} finally {
			// Closed before the folder goes, since closing writes the state file.
			await Promise.all(started.map((running) => running.close()));
			await receiver.close();
			rmSync(folder, { recursive: true, force: true });
		}
	});
});

describe('cli', () => {
	it(
		'starts with --profile nested',
		async () => {
			await withCli(['--profile', 'nested'], 'cli-nested-key-0123456789', async (output, url) => {
				expect(output).toMatch(/^Profile: nested$/m);
				const headers = { Authorization: 'Bearer cli-nested-key-0123456789' };
				const pages = await fetch(`${url}/v1/pages?limit=1`, { headers });
				expect(
					((await pages.json()) as List<'pages', unknown>).response_metadata.next_cursor,
				).not.toBe('');
				const patch = await fetch(`${url}/v1/posts/post_x`, { method: 'PATCH', headers });
				expect([patch.status, patch.headers.get('allow')]).toEqual([405, 'GET, POST, DELETE']);
			});
		},
		CLI_TIMEOUT_MS,
	);
});
