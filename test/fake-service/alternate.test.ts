import { createHmac, timingSafeEqual } from 'node:crypto';

import { ALTERNATE } from './alternate';
import { buildAlternateDocument } from './alternate-document';
import { createContractValidator, profileRoutes, type FakeService } from './index';
import {
	checkedCall,
	operationWalk,
	serviceStarter,
	startReceiver,
	validateOpenApiDocument,
	CLI_TIMEOUT_MS,
	withCli,
	type CheckedAnswer as Answer,
} from './test-helpers';

/** The alternate profile: every operation on the wire, checked against its own document; state in canonical terms. */

interface Problem {
	type: string;
	title: string;
	status: number;
	detail: string;
	errors?: Array<{ pointer: string; detail: string }>;
}
interface Data<T> {
	data: T;
}
interface AltPost {
	id: string;
	pageId: string | null;
	headline: string | null;
	text: string;
	state: string;
	labels: string[];
	publishAt: string | null;
}
interface AltJob {
	jobId: string;
	kind: string;
	phase: string;
	output: Record<string, unknown> | null;
	failure: { code: string; reason: string } | null;
}
interface AltWebhook {
	id: string;
	callbackUrl: string;
	topics: string[];
	label: string | null;
	enabled: boolean;
	signingSecret?: string;
}
interface Results<T> {
	results: T[];
	[paging: string]: unknown;
}

const document = buildAlternateDocument();
const contract = createContractValidator(document);
const OPERATION_IDS = [
	'meta.openapi',
	'account.get',
	'pages.list',
	'pages.get',
	'posts.create',
	'posts.list',
	'posts.get',
	'posts.replace',
	'posts.remove',
	'content.blog',
	'content.linkedin',
	'content.twitter',
	'content.carousel',
	'content.video',
	'publishing.linkedin',
	'publishing.twitter',
	'jobs.get',
	'hooks.create',
	'hooks.list',
	'hooks.get',
	'hooks.replace',
	'hooks.remove',
];

const start = serviceStarter('alternate');
const startPrimary = serviceStarter('primary');
/** An answer to a documented operation must match the alternate document (problems included). */
const call = <T = Problem>(
	service: FakeService,
	method: string,
	url: string,
	options?: Parameters<typeof checkedCall>[4],
) => checkedCall<T>(contract, service, method, url, options);

let service: FakeService;

beforeAll(async () => {
	service = await start();
});

beforeEach(() => service.reset());

async function untilDone(jobId: string): Promise<AltJob> {
	for (let poll = 0; poll < 5; poll += 1) {
		const { body, operationId } = await call<Data<AltJob>>(service, 'GET', `/v1/jobs/${jobId}`);
		expect(operationId).toBe('jobs.get');
		if (body.data.phase === 'READY' || body.data.phase === 'BROKEN') return body.data;
	}
	throw new Error(`Job ${jobId} did not finish`);
}

describe('the alternate document', () => {
	it('is a valid OpenAPI 3.1 document, as served (anonymously) and as built', async () => {
		const served = await call<Record<string, unknown>>(service, 'GET', '/v1/openapi.json', {
			apiKey: null,
		});
		expect(served).toMatchObject({ status: 200, operationId: 'meta.openapi' });
		expect(served.body.servers).toEqual([{ url: service.url }]);
		expect(served.body.openapi).toBe('3.1.0');
		expect(await validateOpenApiDocument(served.body)).toEqual({ valid: true });
		expect(await validateOpenApiDocument(document)).toEqual({ valid: true });
	});

	it('describes exactly the routes the alternate profile serves', () => {
		const documented = Object.entries(document.paths).flatMap(([template, pathItem]) =>
			Object.entries(pathItem).map(
				([method, operation]) => `${method.toUpperCase()} ${template} ${operation.operationId}`,
			),
		);
		const routes = profileRoutes(ALTERNATE);
		expect(
			routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort(),
		).toEqual(documented.sort());
		expect(routes.map((route) => route.operationId).sort()).toEqual([...OPERATION_IDS].sort());
		expect(document.paths['/v1/openapi.json'].get?.security).toEqual([]);
		expect(Object.keys(document.paths['/v1/posts/{postId}']).sort()).toEqual([
			'delete',
			'get',
			'put',
		]);
		expect(JSON.stringify(document)).not.toMatch(/Idempotency-Key|x-webhook-signature/i);
	});

	it('documents the events, their signature, job phases and the field descriptions a client matches on', () => {
		expect(Object.keys(document.webhooks).sort()).toEqual(['JOB_BROKEN', 'JOB_READY', 'POST_LIVE']);
		const headers = document.webhooks.JOB_READY.post?.parameters as Array<{
			name: string;
			description: string;
			schema: { pattern?: string };
		}>;
		const signature = headers.find((header) => header.name === 'Webhook-Signature');
		expect(signature?.schema.pattern).toBe('^t=[0-9]+,v1=[0-9a-f]{64}$');
		expect(signature?.description).toContain('<t>.<raw body>');
		expect(headers.map((header) => header.name).sort()).toEqual([
			'Webhook-Id',
			'Webhook-Signature',
		]);
		const schemas = document.components.schemas as Record<
			string,
			{ properties: Record<string, { description?: string }> }
		>;
		expect(schemas.Job.properties.phase.description).toBe(
			'`WAITING`: accepted, not started yet. `RENDERING`: in progress. `READY`: finished successfully; `output` holds the result. `BROKEN`: failed; `failure` says why.',
		);
		expect(schemas.NewPost.properties.publishAt.description).toBe(
			'When a scheduled post goes out (required when state is SCHEDULED).',
		);
		expect(schemas.BlogRequest.properties.transcriptText.description).toBe(
			'Transcript to turn into a blog post.',
		);
		expect(schemas.TwitterRequest.properties.tweetCount.description).toBe(
			'Number of tweets in the thread (thread length).',
		);
		const errorAnswer = document.paths['/v1/me'].get?.responses['404'] as {
			content: Record<string, unknown>;
		};
		expect(Object.keys(errorAnswer.content)).toEqual(['application/problem+json']);
	});
});

describe('every operation', () => {
	it('answers as its document says, with state kept in canonical terms', async () => {
		const { op, seen } = operationWalk(contract, service);
		await op('meta.openapi', 'GET', '/v1/openapi.json');
		const { account } = service;
		expect((await op('account.get', 'GET', '/v1/me')).body).toEqual({
			data: {
				id: account.id,
				displayName: account.name,
				email: account.email,
				plan: account.plan,
				createdAt: account.created_at,
			},
		});
		const pages = await op<Results<{ title: string }>>('pages.list', 'GET', '/v1/pages');
		expect(pages.body).toMatchObject({ page: 1, per_page: 20, total: 5 });
		expect(pages.body.results.map((page) => page.title)).toEqual(
			[...service.pages.values()].map((page) => page.name),
		);
		const [page] = service.pages.values();
		expect((await op('pages.get', 'GET', `/v1/pages/${page.id}`)).body).toEqual({
			data: {
				id: page.id,
				title: page.name,
				network: page.platform,
				link: page.url,
				createdAt: page.created_at,
			},
		});

		const created = await op<Data<AltPost>>('posts.create', 'POST', '/v1/posts', {
			text: 'Hello',
			headline: 'Greeting',
			pageId: page.id,
			labels: ['news'],
			mediaUrls: ['https://cdn.acme.example/a.png'],
			state: 'SCHEDULED',
			publishAt: '2030-01-01T09:00:00Z',
		});
		expect(created.status).toBe(201);
		const postId = created.body.data.id;
		expect(service.posts.get(postId)).toMatchObject({
			content: 'Hello',
			title: 'Greeting',
			page_id: page.id,
			tags: ['news'],
			media_urls: ['https://cdn.acme.example/a.png'],
			status: 'scheduled',
			scheduled_at: '2030-01-01T09:00:00Z',
		});
		await op('posts.create', 'POST', '/v1/posts', { text: 'A draft elsewhere' });
		const listed = await op<Results<AltPost>>(
			'posts.list',
			'GET',
			`/v1/posts?state=SCHEDULED&pageId=${page.id}`,
		);
		expect(listed.body).toMatchObject({
			offset: 0,
			limit: 20,
			total: 1,
			results: [created.body.data],
		});
		expect((await op('posts.get', 'GET', `/v1/posts/${postId}`)).body).toEqual(created.body);
		const replaced = await op<Data<AltPost>>('posts.replace', 'PUT', `/v1/posts/${postId}`, {
			text: 'Bye',
			state: 'DRAFT',
		});
		expect(replaced.body.data).toMatchObject({
			text: 'Bye',
			state: 'DRAFT',
			headline: null,
			pageId: null,
			labels: [],
			publishAt: null,
		});
		expect(service.posts.get(postId)).toMatchObject({
			content: 'Bye',
			status: 'draft',
			title: null,
			page_id: null,
			tags: [],
			media_urls: [],
		});

		const generations: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
			[
				'blog',
				{
					transcriptText: 'We shipped the editor. It is fast.',
					headline: 'Editor',
					length: 'SHORT',
					voice: 'warm',
					locale: 'en',
					pageId: page.id,
				},
				{
					headline: 'Editor',
					summary: expect.any(String),
					body: expect.stringContaining('# Editor'),
				},
			],
			[
				'linkedin',
				{ instructions: 'Announce the editor' },
				{ text: expect.stringContaining('Announce the editor') },
			],
			[
				'twitter',
				{ sourceText: 'One. Two. Three.', tweetCount: 4 },
				{ tweets: expect.arrayContaining([expect.stringMatching(/^1\/4 /)]) },
			],
			[
				'carousel',
				{ sourcePostId: postId, slideCount: 3 },
				{
					slides: [
						{ heading: 'Bye', body: 'Bye' },
						{ heading: 'Point 1', body: 'Bye' },
						{ heading: 'Point 2', body: 'Bye' },
					],
				},
			],
			[
				'video',
				{ instructions: 'Demo', durationSeconds: 15, aspectRatio: '9:16' },
				{ videoUrl: expect.any(String), durationSeconds: 15, aspectRatio: '9:16' },
			],
		];
		for (const [kind, input, output] of generations) {
			const started = await op<Data<AltJob>>(
				`content.${kind}`,
				'POST',
				`/v1/generate/${kind}`,
				input,
			);
			expect(started).toMatchObject({
				status: 202,
				body: { data: { kind: `generate/${kind}`, phase: 'WAITING', output: null, failure: null } },
			});
			expect(await untilDone(started.body.data.jobId)).toMatchObject({
				phase: 'READY',
				output,
				failure: null,
			});
			expect(service.jobs.get(started.body.data.jobId)).toMatchObject({
				type: `generate.${kind}`,
				status: 'succeeded',
			});
		}

		const linkedin = await op<Data<AltJob>>('publishing.linkedin', 'POST', '/v1/publish/linkedin', {
			postId,
		});
		expect((await untilDone(linkedin.body.data.jobId)).output).toEqual({
			network: 'linkedin',
			postId,
			link: `https://linkedin.example/posts/${postId}`,
			publishedAt: expect.any(String),
		});
		expect(service.posts.get(postId)?.status).toBe('published');
		const twitter = await op<Data<AltJob>>('publishing.twitter', 'POST', '/v1/publish/twitter', {
			text: 'Fresh news',
			pageId: page.id,
		});
		const tweeted = (await untilDone(twitter.body.data.jobId)).output as {
			postId: string;
			network: string;
		};
		expect(tweeted.network).toBe('twitter');
		expect(service.posts.get(tweeted.postId)).toMatchObject({
			content: 'Fresh news',
			page_id: page.id,
			status: 'published',
		});

		service.setJobPlan({
			outcome: 'failed',
			error: { code: 'model_down', message: 'No model today' },
		});
		const broken = await op<Data<AltJob>>('content.blog', 'POST', '/v1/generate/blog', {
			transcriptText: 'Hi.',
		});
		expect(await untilDone(broken.body.data.jobId)).toMatchObject({
			phase: 'BROKEN',
			output: null,
			failure: { code: 'model_down', reason: 'No model today' },
		});
		expect(service.jobs.get(broken.body.data.jobId)?.status).toBe('failed');

		const hook = await op<Data<AltWebhook>>('hooks.create', 'POST', '/v1/webhooks', {
			callbackUrl: 'http://127.0.0.1:9/in',
			topics: ['JOB_READY', 'POST_LIVE'],
			label: 'Mine',
		});
		expect(hook.status).toBe(201);
		const { signingSecret, ...shown } = hook.body.data;
		expect(signingSecret).toMatch(/^whsec_/);
		expect(service.webhooks.get(shown.id)).toMatchObject({
			secret: signingSecret,
			url: 'http://127.0.0.1:9/in',
			events: ['job.completed', 'post.published'],
			description: 'Mine',
			active: true,
		});
		expect((await op<Results<AltWebhook>>('hooks.list', 'GET', '/v1/webhooks')).body).toEqual({
			results: [shown],
			links: { next: null },
		});
		expect((await op('hooks.get', 'GET', `/v1/webhooks/${shown.id}`)).body).toEqual({
			data: shown,
		});
		const rewired = await op<Data<AltWebhook>>('hooks.replace', 'PUT', `/v1/webhooks/${shown.id}`, {
			callbackUrl: 'http://127.0.0.1:9/other',
			topics: ['JOB_BROKEN'],
			enabled: false,
		});
		expect(rewired.body.data).toMatchObject({
			callbackUrl: 'http://127.0.0.1:9/other',
			topics: ['JOB_BROKEN'],
			label: null,
			enabled: false,
		});
		expect(rewired.body.data).not.toHaveProperty('signingSecret');
		expect(service.webhooks.get(shown.id)).toMatchObject({
			url: 'http://127.0.0.1:9/other',
			events: ['job.failed'],
			description: null,
			active: false,
			secret: signingSecret,
		});

		expect(await op('hooks.remove', 'DELETE', `/v1/webhooks/${shown.id}`)).toMatchObject({
			status: 200,
			body: { data: { id: shown.id, deleted: true } },
		});
		expect(service.webhooks.has(shown.id)).toBe(false);
		expect(await op('posts.remove', 'DELETE', `/v1/posts/${postId}`)).toMatchObject({
			status: 200,
			body: { data: { id: postId, deleted: true } },
		});
		expect(service.posts.has(postId)).toBe(false);

		seen.add('jobs.get');
		expect([...seen].sort()).toEqual([...OPERATION_IDS].sort());
		expect(service.requests.flatMap((request) => request.contractErrors)).toEqual([]);
		expect(service.requestsTo('jobs.get').length).toBeGreaterThanOrEqual(8 * 2);
	});
});

describe('paging', () => {
	it('walks pages with page and per_page', async () => {
		const titles: string[] = [];
		for (let page = 1; ; page += 1) {
			const { body } = await call<Results<{ title: string }>>(
				service,
				'GET',
				`/v1/pages?page=${page}&per_page=2`,
			);
			expect(body).toMatchObject({ page, per_page: 2, total: 5 });
			titles.push(...body.results.map((item) => item.title));
			if (page * 2 >= Number(body.total)) break;
		}
		expect(titles).toEqual([...service.pages.values()].map((page) => page.name));
		expect(service.requestsTo('pages.list')).toHaveLength(3);
	});

	it('walks posts with offset and limit', async () => {
		for (let index = 0; index < 5; index += 1)
			await call(service, 'POST', '/v1/posts', { body: { text: `Post ${index}` } });
		const texts: string[] = [];
		for (let offset = 0; ; offset += 2) {
			const { body } = await call<Results<AltPost>>(
				service,
				'GET',
				`/v1/posts?offset=${offset}&limit=2`,
			);
			expect(body).toMatchObject({ offset, limit: 2, total: 5 });
			texts.push(...body.results.map((post) => post.text));
			if (offset + 2 >= Number(body.total)) break;
		}
		expect(texts).toEqual(['Post 0', 'Post 1', 'Post 2', 'Post 3', 'Post 4']);
	});

	it('walks webhooks with limit and the next link', async () => {
		for (let index = 0; index < 5; index += 1) {
			await call(service, 'POST', '/v1/webhooks', {
				body: { callbackUrl: `http://127.0.0.1:9/${index}`, topics: ['JOB_READY'] },
			});
		}
		const urls: string[] = [];
		let next: string | null = '/v1/webhooks?limit=2';
		while (next !== null) {
			const answer: Answer<Results<AltWebhook> & { links: { next: string | null } }> = await call(
				service,
				'GET',
				next,
			);
			urls.push(...answer.body.results.map((webhook) => webhook.callbackUrl));
			next = answer.body.links.next;
			if (next !== null)
				expect(next.startsWith(`${service.url}/v1/webhooks?limit=2&after=`)).toBe(true);
		}
		expect(urls).toEqual([0, 1, 2, 3, 4].map((index) => `http://127.0.0.1:9/${index}`));
		expect(service.requestsTo('hooks.list')).toHaveLength(3);
		expect((await call(service, 'GET', '/v1/webhooks?after=not-a-position')).body.errors).toEqual([
			{ pointer: '/query/after', detail: 'is not a cursor returned by this API' },
		]);
	});

	it('caps the page size at maxPageSize', async () => {
		const small = await start({ maxPageSize: 2 });
		expect((await call(small, 'GET', '/v1/pages?per_page=50')).body).toMatchObject({
			per_page: 2,
			results: [{}, {}],
		});
	});
});

describe('errors', () => {
	it('answers PATCH with 405 and an Allow header, as a problem', async () => {
		for (const url of ['/v1/posts/post_x', '/v1/webhooks/wh_x']) {
			const answer = await call(service, 'PATCH', url, { body: { text: 'x' } });
			expect(answer).toMatchObject({
				status: 405,
				body: {
					status: 405,
					type: 'https://problems.content-publishing.example/method-not-allowed',
				},
			});
			expect(answer.headers.get('allow')).toBe('GET, PUT, DELETE');
			const contentType = answer.headers.get('content-type') ?? undefined;
			expect(
				contract.validateResponse({
					operationId: 'posts.replace',
					status: 405,
					body: answer.body,
					contentType,
				}),
			).toEqual([]);
		}
	});

	it('checks every request strictly against its document: 422 problems with pointers, nothing written', async () => {
		const cases: Array<[string, string, unknown, Problem['errors']]> = [
			[
				'POST',
				'/v1/posts',
				{ content: 'primary name' },
				[
					{ pointer: '/text', detail: 'is required' },
					{ pointer: '/content', detail: 'is not a known property' },
				],
			],
			[
				'POST',
				'/v1/posts',
				{ text: 'x', state: 'draft' },
				[{ pointer: '/state', detail: 'must be one of: DRAFT, SCHEDULED, PUBLISHED' }],
			],
			[
				'POST',
				'/v1/posts',
				{ text: 'x', state: 'SCHEDULED' },
				[{ pointer: '/publishAt', detail: 'is required when state is "SCHEDULED"' }],
			],
			[
				'POST',
				'/v1/posts',
				{ text: 'x', labels: [1] },
				[{ pointer: '/labels/0', detail: 'must be string' }],
			],
			[
				'POST',
				'/v1/posts',
				{ text: 'x', pageId: 'page_nope' },
				[{ pointer: '/pageId', detail: 'does not name an existing page ("page_nope")' }],
			],
			[
				'POST',
				'/v1/webhooks',
				{
					callbackUrl: 'http://127.0.0.1:9/a',
					topics: ['JOB_READY'],
					secret: 'mine-0123456789abcdef',
				},
				[{ pointer: '/secret', detail: 'is not a known property' }],
			],
			[
				'POST',
				'/v1/webhooks',
				{ callbackUrl: 'http://127.0.0.1:9/a', topics: ['*'] },
				[{ pointer: '/topics/0', detail: 'must be one of: JOB_READY, JOB_BROKEN, POST_LIVE' }],
			],
			[
				'POST',
				'/v1/generate/linkedin',
				{ voice: 'dry' },
				[
					{
						pointer: '',
						detail: 'must include at least one of: instructions, sourceText, sourcePostId',
					},
				],
			],
			[
				'GET',
				'/v1/pages?limit=2',
				undefined,
				[{ pointer: '/query/limit', detail: 'is not a parameter of this operation' }],
			],
		];
		for (const [method, url, body, errors] of cases) {
			const answer = await call(service, method, url, { body });
			expect({
				url,
				body,
				status: answer.status,
				type: answer.body.type,
				errors: answer.body.errors,
			}).toEqual({
				url,
				body,
				status: 422,
				type: 'https://problems.content-publishing.example/validation-failed',
				errors,
			});
			expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
		}
		const post = await call<Data<AltPost>>(service, 'POST', '/v1/posts', { body: { text: 'x' } });
		expect(
			(await call(service, 'PUT', `/v1/posts/${post.body.data.id}`, { body: { text: 'y' } })).body
				.errors,
		).toEqual([{ pointer: '/state', detail: 'is required' }]);
		expect([service.posts.size, service.webhooks.size, service.jobs.size]).toEqual([1, 0, 0]);
	});

	it('answers 401, 404 and injected faults as problems', async () => {
		const unauthorized = await call(service, 'GET', '/v1/me', { apiKey: 'wrong-key-0123456789' });
		expect(unauthorized.body).toEqual({
			type: 'https://problems.content-publishing.example/unauthorized',
			title: 'Unauthorized',
			status: 401,
			detail: 'Missing or invalid API key',
		});
		expect(unauthorized.headers.get('www-authenticate')).toBe('Bearer');
		expect((await call(service, 'GET', '/v1/posts/post_missing')).body).toMatchObject({
			status: 404,
			detail: 'Post "post_missing" was not found',
		});

		service.injectFault({ match: { path: '/v1/me' }, status: 429, retryAfterSeconds: 2 });
		const limited = await call(service, 'GET', '/v1/me');
		expect(limited.body).toMatchObject({
			status: 429,
			type: 'https://problems.content-publishing.example/rate-limited',
		});
		expect(limited.headers.get('retry-after')).toBe('2');
		service.injectFault({ status: 503 });
		expect((await call(service, 'GET', '/v1/me')).body).toMatchObject({
			status: 503,
			type: 'https://problems.content-publishing.example/internal-error',
		});
		service.injectFault({ match: { method: 'POST' }, status: 500, afterHandling: true });
		expect(
			(await call(service, 'POST', '/v1/posts', { body: { text: 'Written anyway' } })).status,
		).toBe(500);
		expect([...service.posts.values()].map((post) => post.content)).toEqual(['Written anyway']);

		let rewritten: unknown;
		service.injectFault({ delayMs: 50, rewriteAnswer: (body) => (rewritten = body) });
		const startedAt = Date.now();
		expect((await call(service, 'GET', '/v1/me')).status).toBe(200);
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
		expect(rewritten).toEqual({
			data: expect.objectContaining({ displayName: service.account.name }),
		});
	});

	it('ignores Idempotency-Key: a repeated create creates again', async () => {
		const headers = { 'Idempotency-Key': 'same-key-0001' };
		const first = await call<Data<AltPost>>(service, 'POST', '/v1/posts', {
			body: { text: 'Once?' },
			headers,
		});
		const second = await call<Data<AltPost>>(service, 'POST', '/v1/posts', {
			body: { text: 'Once?' },
			headers,
		});
		expect(second.body.data.id).not.toBe(first.body.data.id);
		expect(service.posts.size).toBe(2);
	});
});

describe('webhook deliveries', () => {
	it('are signed t=…,v1=…, retried, described by the document, and signDelivery signs the same way', async () => {
		const receiver = await startReceiver([500]);
		try {
			const created = await call<Data<AltWebhook>>(service, 'POST', '/v1/webhooks', {
				body: { callbackUrl: receiver.url, topics: ['JOB_READY', 'POST_LIVE'] },
			});
			const secret = String(created.body.data.signingSecret);
			const job = await call<Data<AltJob>>(service, 'POST', '/v1/publish/linkedin', {
				body: { text: 'Live' },
			});
			await untilDone(job.body.data.jobId);
			await service.waitForDeliveries();

			expect(receiver.received).toHaveLength(3);
			expect(service.deliveries.map((delivery) => delivery.eventType).sort()).toEqual([
				'JOB_READY',
				'POST_LIVE',
			]);
			expect(service.deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0)).toBe(3);
			const pattern = new RegExp('^t=[0-9]+,v1=[0-9a-f]{64}$');
			for (const delivery of service.deliveries) {
				expect(delivery.delivered).toBe(true);
				const { headers, body } =
					receiver.received.filter((received) => received.body === delivery.body).at(-1) ??
					receiver.received[0];
				const event = JSON.parse(body) as {
					eventId: string;
					eventType: string;
					payload: Record<string, unknown>;
				};
				expect(
					Object.keys(headers)
						.filter((name) => /^(webhook-|x-)/.test(name))
						.sort(),
				).toEqual(['webhook-id', 'webhook-signature']);
				expect(headers).toMatchObject({
					'content-type': 'application/json',
					'webhook-id': event.eventId,
				});
				const signature = String(headers['webhook-signature']);
				expect(signature).toMatch(pattern);
				const [, timestamp, digest] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
				const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
				expect(timingSafeEqual(Buffer.from(digest), Buffer.from(expected))).toBe(true);
				expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(60);
				expect(contract.validateWebhookEvent(event.eventType, event)).toEqual([]);
				expect(service.signDelivery(secret, body, Number(timestamp))).toEqual({
					'Webhook-Signature': signature,
				});
				expect(delivery.headers['Webhook-Signature']).toBe(signature);
				expect(event.payload).toMatchObject(
					event.eventType === 'JOB_READY'
						? { phase: 'READY', kind: 'publish/linkedin' }
						: { state: 'PUBLISHED', text: 'Live' },
				);
			}
			expect(service.signDelivery(secret, '{}')['Webhook-Signature']).toMatch(pattern);
		} finally {
			await receiver.close();
		}
	});
});

describe('a service without a document', () => {
	it('answers 404 for /v1/openapi.json in its error format, with a key or without, in both profiles; the rest works', async () => {
		for (const profile of ['primary', 'alternate'] as const) {
			const bare = await (profile === 'alternate' ? start : startPrimary)({
				openApiDocument: false,
			});
			expect([bare.profile, bare.servesDocument]).toEqual([profile, false]);
			for (const headers of [{}, { Authorization: `Bearer ${bare.apiKey}` }] as Array<
				Record<string, string>
			>) {
				const response = await fetch(`${bare.url}/v1/openapi.json`, { headers });
				expect(response.status).toBe(404);
				const body = (await response.json()) as Record<string, unknown>;
				if (profile === 'alternate') {
					expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
					expect(body).toMatchObject({
						status: 404,
						type: 'https://problems.content-publishing.example/not-found',
					});
				} else {
					expect(body).toMatchObject({ error: { code: 'not_found' } });
				}
			}
			const me = await fetch(`${bare.url}/v1/me`, {
				headers: { Authorization: `Bearer ${bare.apiKey}` },
			});
			expect(me.status).toBe(200);
			expect(Object.keys((await me.json()) as object)).toEqual(
				profile === 'alternate' ? ['data'] : ['id', 'email', 'name', 'plan', 'created_at'],
			);
		}
	});
});

describe('cli', () => {
	it(
		'starts with --profile alternate and --no-openapi',
		async () => {
			await withCli(
				['--profile', 'alternate', '--no-openapi'],
				'cli-alternate-key-0123456789',
				async (output, url) => {
					expect(output).toMatch(/^Profile: alternate$/m);
					expect(output).toMatch(/^OpenAPI document: none \(404\)$/m);
					const headers = { Authorization: 'Bearer cli-alternate-key-0123456789' };
					const me = await fetch(`${url}/v1/me`, { headers });
					expect(((await me.json()) as { data: { displayName: string } }).data.displayName).toEqual(
						expect.any(String),
					);
					const missing = await fetch(`${url}/v1/openapi.json`, { headers });
					expect([missing.status, missing.headers.get('content-type')]).toEqual([
						404,
						'application/problem+json; charset=utf-8',
					]);
				},
			);
		},
		CLI_TIMEOUT_MS,
	);
});
