import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ALTERNATE } from './alternate';
import { buildAlternateDocument } from './alternate-document';
import { ENVELOPE } from './envelope';
import { buildEnvelopeDocument } from './envelope-document';
import {
	buildOpenApiDocument,
	createContractValidator,
	profileRoutes,
	startFakeService,
	type ContractDocument,
	type FakeService,
	type JsonSchema,
	type Profile,
	type ProfileAdapter,
} from './index';
import { JSONAPI } from './jsonapi';
import { buildJsonApiDocument, JSONAPI_MEDIA_TYPE } from './jsonapi-document';
import { NESTED } from './nested';
import { buildNestedDocument } from './nested-document';
import {
	checkedCall,
	operationWalk,
	serviceStarter,
	startReceiver,
	validateOpenApiDocument,
	waitFor,
	CLI_TIMEOUT_MS,
	withCli,
	type CheckedAnswer,
	type ReceivedDelivery,
} from './test-helpers';

/**
 * The translated profiles on the wire, each answer checked against the profile's own document; state
 * in canonical terms. What every profile has (its document, its routes, the page-size cap, the command
 * line) is one parameterised suite over PROFILES; what one profile decides is checked in its own block.
 */

interface ProfileCase {
	profile: Profile;
	adapter: ProfileAdapter;
	document: ContractDocument;
	contract: ReturnType<typeof createContractValidator>;
	/** The document's own answer: its operation, OpenAPI version and servers. */
	documentOperation: string;
	openapi: string;
	servers: (url: string) => unknown;
	/** What the document must not say. */
	absent?: RegExp;
	/** Before each path template, as the routes have it (the document's paths are below servers[0]). */
	prefix: string;
	operationIds: string[];
	/** The profile's own checks of its routes in the document. */
	routes?: (document: ContractDocument) => void;
	/** A list asked for more than the cap of 2, and what its answer holds. */
	capped: [url: string, expected: object];
	/** Checked of every answer, besides the document. */
	everyAnswer?: (answer: CheckedAnswer<unknown>) => void;
	cli: { args: string[]; check: (output: string, url: string, apiKey: string) => Promise<void> };
}

const RATE_LIMIT = /^"default";r=\d+;t=\d+$/;
const bearer = (apiKey: string) => ({ Authorization: `Bearer ${apiKey}` });
const alternateDocument = buildAlternateDocument();
const envelopeDocument = buildEnvelopeDocument();
const nestedDocument = buildNestedDocument();
const jsonApiDocument = buildJsonApiDocument();

const PROFILES = {
	alternate: {
		profile: 'alternate',
		adapter: ALTERNATE,
		document: alternateDocument,
		contract: createContractValidator(alternateDocument),
		documentOperation: 'meta.openapi',
		openapi: '3.1.0',
		servers: (url) => [{ url }],
		absent: /Idempotency-Key|x-webhook-signature/i,
		prefix: '',
		operationIds: [
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
		],
		routes: (document) => {
			expect(document.paths['/v1/openapi.json'].get?.security).toEqual([]);
			expect(Object.keys(document.paths['/v1/posts/{postId}']).sort()).toEqual([
				'delete',
				'get',
				'put',
			]);
		},
		capped: ['/v1/pages?per_page=50', { per_page: 2, results: [{}, {}] }],
		cli: {
			args: ['--no-openapi'],
			check: async (output, url, apiKey) => {
				expect(output).toMatch(/^OpenAPI document: none \(404\)$/m);
				const me = await fetch(`${url}/v1/me`, { headers: bearer(apiKey) });
				expect(((await me.json()) as { data: { displayName: string } }).data.displayName).toEqual(
					expect.any(String),
				);
				const missing = await fetch(`${url}/v1/openapi.json`, { headers: bearer(apiKey) });
				expect([missing.status, missing.headers.get('content-type')]).toEqual([
					404,
					'application/problem+json; charset=utf-8',
				]);
			},
		},
	},
	envelope: {
		profile: 'envelope',
		adapter: ENVELOPE,
		document: envelopeDocument,
		contract: createContractValidator(envelopeDocument),
		documentOperation: 'meta/openapi',
		openapi: '3.0.3',
		servers: (url) => [{ url: `${url}/v1` }],
		absent: /Idempotency-Key|"webhooks":\{"|"type":\[|"const"/,
		prefix: '/v1',
		operationIds: [
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
		],
		// Rate-limit fields on every answer; updates are merge patches; creates are repeatable.
		routes: (document) => {
			const components = (
				document as unknown as {
					components: { responses: Record<string, { headers: Record<string, unknown> }> };
				}
			).components;
			for (const operation of Object.values(document.paths).flatMap((pathItem) =>
				Object.values(pathItem),
			)) {
				for (const [status, response] of Object.entries(operation.responses)) {
					const headers = (response.$ref ? components.responses[status] : response)
						.headers as Record<string, unknown>;
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
		},
		capped: ['/v1/pages?per_page=50', { result_info: { per_page: 2, count: 2 } }],
		everyAnswer: (answer) => expect(answer.headers.get('ratelimit')).toMatch(RATE_LIMIT),
		cli: {
			args: [],
			check: async (output, url, apiKey) => {
				const unapproved = /^Unapproved API key \(403\): (\S+)$/m.exec(output)?.[1];
				const me = await fetch(`${url}/v1/me`, { headers: bearer(apiKey) });
				expect(((await me.json()) as { result: { full_name: string } }).result.full_name).toEqual(
					expect.any(String),
				);
				expect((await fetch(`${url}/v1/me`, { headers: bearer(String(unapproved)) })).status).toBe(
					403,
				);
			},
		},
	},
	nested: {
		profile: 'nested',
		adapter: NESTED,
		document: nestedDocument,
		contract: createContractValidator(nestedDocument),
		documentOperation: 'GetOpenapiJson',
		openapi: '3.0.3',
		servers: (url) => [{ url: `${url}/v1` }],
		// No status enum for jobs, no per-value explanations, no 3.1 webhooks, no idempotency.
		absent: /x-enum|Idempotency-Key|"(patch|put)":|queued/i,
		prefix: '/v1',
		operationIds: [
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
		],
		// Stripe's operation ids, and updates as POSTs.
		routes: (document) => {
			expect(document).not.toHaveProperty('webhooks');
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
		},
		capped: ['/v1/pages?limit=50', { pages: [{}, {}] }],
		cli: {
			args: [],
			check: async (_output, url, apiKey) => {
				const pages = await fetch(`${url}/v1/pages?limit=1`, { headers: bearer(apiKey) });
				expect(
					((await pages.json()) as { response_metadata: { next_cursor: string } }).response_metadata
						.next_cursor,
				).not.toBe('');
				const patch = await fetch(`${url}/v1/posts/post_x`, {
					method: 'PATCH',
					headers: bearer(apiKey),
				});
				expect([patch.status, patch.headers.get('allow')]).toEqual([405, 'GET, POST, DELETE']);
			},
		},
	},
	jsonapi: {
		profile: 'jsonapi',
		adapter: JSONAPI,
		document: jsonApiDocument,
		contract: createContractValidator(jsonApiDocument),
		documentOperation: 'getOpenApiDocument',
		openapi: '3.1.0',
		servers: (url) => [{ url, description: 'Fake service on the loopback interface' }],
		prefix: '',
		// The primary's operations.
		operationIds: Object.values(buildOpenApiDocument().paths).flatMap((pathItem) =>
			Object.values(pathItem).map((operation) => String(operation.operationId)),
		),
		capped: [
			'/v1/pages?page%5Bsize%5D=50',
			{ data: [{}, {}], meta: { page: { perPage: 2, lastPage: 3 } } },
		],
		cli: {
			args: [],
			check: async (_output, url, apiKey) => {
				const me = await fetch(`${url}/v1/me`, { headers: bearer(apiKey) });
				expect([
					me.headers.get('content-type'),
					((await me.json()) as { data: object }).data,
				]).toEqual([
					expect.stringMatching(/^application\/vnd\.api\+json/),
					expect.objectContaining({ type: 'accounts' }),
				]);
			},
		},
	},
} satisfies Record<string, ProfileCase>;

describe.each(Object.values(PROFILES) as ProfileCase[])('the $profile profile', (row) => {
	const start = serviceStarter(row.profile);
	const call = async <T>(service: FakeService, url: string, options = {}) => {
		const answer = await checkedCall<T>(row.contract, service, 'GET', url, options);
		row.everyAnswer?.(answer);
		return answer;
	};

	it('serves a valid OpenAPI document, as served (anonymously) and as built', async () => {
		const service = await start();
		const served = await call<Record<string, unknown>>(service, '/v1/openapi.json', {
			apiKey: null,
		});
		expect(served).toMatchObject({ status: 200, operationId: row.documentOperation });
		expect([served.body.openapi, served.body.servers]).toEqual([
			row.openapi,
			row.servers(service.url),
		]);
		expect(await validateOpenApiDocument(served.body)).toEqual({ valid: true });
		expect(await validateOpenApiDocument(row.document)).toEqual({ valid: true });
		if (row.absent) expect(JSON.stringify(row.document)).not.toMatch(row.absent);
	});

	it('describes exactly the routes it serves', () => {
		const documented = Object.entries(row.document.paths).flatMap(([template, pathItem]) =>
			Object.entries(pathItem).map(
				([method, operation]) =>
					`${method.toUpperCase()} ${row.prefix}${template} ${operation.operationId}`,
			),
		);
		const routes = profileRoutes(row.adapter);
		expect(
			routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort(),
		).toEqual(documented.sort());
		expect(routes.map((route) => route.operationId).sort()).toEqual([...row.operationIds].sort());
		row.routes?.(row.document);
	});

	it('caps the page size at maxPageSize', async () => {
		const [url, expected] = row.capped;
		expect((await call(await start({ maxPageSize: 2 }), url)).body).toMatchObject(expected);
	});

	it(
		'starts from the command line with --profile',
		async () => {
			const apiKey = `cli-${row.profile}-key-0123456789`;
			await withCli(['--profile', row.profile, ...row.cli.args], apiKey, async (output, url) => {
				expect(output).toMatch(new RegExp(`^Profile: ${row.profile}$`, 'm'));
				await row.cli.check(output, url, apiKey);
			});
		},
		CLI_TIMEOUT_MS,
	);
});

describe('the alternate profile only', () => {
	/** The alternate profile: every operation on the wire, checked against its own document; state in canonical terms. */

	type Answer<T> = CheckedAnswer<T>;

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

	const { document, contract } = PROFILES.alternate;
	const OPERATION_IDS = PROFILES.alternate.operationIds;

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
		it('documents the events, their signature, job phases and the field descriptions a client matches on', () => {
			expect(Object.keys(document.webhooks).sort()).toEqual([
				'JOB_BROKEN',
				'JOB_READY',
				'POST_LIVE',
			]);
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
			const seen = new Set<string>();
			const op = operationWalk(seen, <T>(method: string, url: string, body?: unknown) =>
				call<T>(service, method, url, { body }),
			);
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
					body: {
						data: { kind: `generate/${kind}`, phase: 'WAITING', output: null, failure: null },
					},
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

			const linkedin = await op<Data<AltJob>>(
				'publishing.linkedin',
				'POST',
				'/v1/publish/linkedin',
				{
					postId,
				},
			);
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
			const rewired = await op<Data<AltWebhook>>(
				'hooks.replace',
				'PUT',
				`/v1/webhooks/${shown.id}`,
				{
					callbackUrl: 'http://127.0.0.1:9/other',
					topics: ['JOB_BROKEN'],
					enabled: false,
				},
			);
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
			expect((await call(service, 'GET', '/v1/webhooks?after=not-a-position')).body.errors).toEqual(
				[{ pointer: '/query/after', detail: 'is not a cursor returned by this API' }],
			);
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
					const expected = createHmac('sha256', secret)
						.update(`${timestamp}.${body}`)
						.digest('hex');
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
});

describe('the envelope profile only', () => {
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

	const { document, contract } = PROFILES.envelope;
	const OPERATION_IDS = PROFILES.envelope.operationIds;

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
			return (
				version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
			);
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
			const op = operationWalk(seen, <T>(method: string, url: string, body?: unknown) =>
				call<T>(service, method, url, { body }),
			);
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
			expect([
				linkedin.status,
				linkedin.headers.get('location'),
				linkedin.body.result.body,
			]).toEqual([200, null, expect.stringContaining('Announce the editor')]);
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
			const waiting = await call(service, 'POST', '/v1/generate/video', {
				body: { brief: 'Soon' },
			});
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
			expect([response.status, ((await response.json()) as Envelope<null>).errors[0].code]).toEqual(
				[400, 1001],
			);
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
			expect([limited.body.errors[0].code, limited.headers.get('retry-after')]).toEqual([
				1429,
				'2',
			]);
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
					{
						'Repeatability-Request-ID': 'c4',
						'Repeatability-First-Sent': new Date().toISOString(),
					},
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
				await untilDone(
					await call(service, 'POST', '/v1/generate/video', { body: { brief: 'x' } }),
				);
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
					await service.redeliver(sent, {
						headers: { ...sent.headers, 'webhook-signature': alone },
					}),
				).toBe(200);
				expect(receiver.received.at(-1)?.headers['webhook-signature']).toBe(alone);
			} finally {
				await receiver.close();
			}
		});
	});
});

describe('the nested profile only', () => {
	/** The nested profile: every operation on the wire, checked against its own 3.0 document; state in canonical terms. */

	type Answer<T> = CheckedAnswer<T>;

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
	type List<K extends string, T> = {
		ok: true;
		response_metadata: { next_cursor: string };
	} & Record<K, T[]>;

	const { document, contract } = PROFILES.nested;
	const components = (
		document as unknown as { components: { schemas: Record<string, JsonSchema> } }
	).components;
	const schemaOf = (name: string) =>
		components.schemas[name] as { properties: Record<string, JsonSchema>; required?: string[] };
	const OPERATION_IDS = PROFILES.nested.operationIds;
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
		const expected = Buffer.from(
			`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
		);
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
			expect([
				input.additionalProperties,
				input.required,
				input.properties.text.description,
			]).toEqual([false, ['text'], 'The transcript to write the blog post from.']);
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
				(document as unknown as { components: { parameters: Record<string, JsonSchema> } })
					.components.parameters.limit.schema,
			).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 100 });
			// X: a thread of tweet objects.
			expect(schemaOf('PublishTwitterRequest').properties.tweets).toMatchObject({
				items: { type: 'object', required: ['text'] },
			});
			// OAS 3.0: deliveries as callbacks of the registration, with GitHub's headers.
			const callbacks = document.paths['/webhooks'].post?.callbacks ?? {};
			expect(Object.keys(callbacks)).toEqual(EVENTS);
			const delivery = callbacks['generation.succeeded']['{$request.body#/config/url}'].post;
			expect(
				delivery?.parameters?.map((parameter) => [parameter.name, parameter.required]),
			).toEqual([
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
			const seen = new Set<string>();
			const op = operationWalk(seen, <T>(method: string, url: string, body?: unknown) =>
				call<T>(service, method, url, { body }),
			);
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
					{
						video_url: expect.stringMatching(/\.mp4$/),
						duration_seconds: 15,
						aspect_ratio: '9:16',
					},
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
				config: {
					url: 'http://127.0.0.1:9/in',
					content_type: 'json',
					secret: 'node-chosen-secret',
				},
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
			const capped = await call<List<'pages', unknown>>(
				small,
				'GET',
				'/v1/pages?limit=200&cursor=',
			);
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
							description:
								'must be one of: generation.succeeded, generation.failed, post.published',
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

				expect(
					service.deliveries.map((delivery) => [delivery.eventType, delivery.attempts]),
				).toEqual([
					['generation.succeeded', 2],
					['post.published', 1],
					['generation.failed', 1],
				]);
				// The first delivery failed once and was retried with the same GUID; each has its own.
				expect(receiver.received).toHaveLength(4);
				const received = service.deliveries.map((delivery) =>
					receiver.received.filter((copy) => copy.body === delivery.body),
				);
				expect(received.map((copies) => copies.length)).toEqual([2, 1, 1]);
				expect(new Set(received[0].map(({ headers }) => headers['x-github-delivery'])).size).toBe(
					1,
				);
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
				await call(service, 'POST', '/v1/posts', {
					body: { content: 'Live', status: 'published' },
				});
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
					body: {
						events: ['post.published'],
						config: { url: receiver.url, secret: 'kept-secret' },
					},
				});
				const unsigned = await call<NestedWebhook>(first, 'POST', '/v1/webhooks', {
					body: { events: ['post.published'], config: { url: receiver.url } },
				});
				await first.close();

				const second = await startFakeService({
					profile: 'nested',
					stateFile,
					apiKey: first.apiKey,
				});
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
});

describe('the jsonapi profile only', () => {
	/**
	 * The jsonapi profile on the wire: JSON:API 1.1 as Lemon Squeezy's API, its refusals and paging, and
	 * per-resource deliveries; every answer checked against its own document. The operations themselves
	 * run through the node in test/node/profiles.test.ts.
	 */

	interface Resource {
		type: string;
		id: string;
		attributes: Record<string, unknown>;
		relationships?: Record<string, { data: { type: string; id: string } | null }>;
		links: { self: string };
	}
	interface Errors {
		errors: Array<{ status: string; title: string; detail: string; source?: { pointer?: string } }>;
	}

	const start = serviceStarter('jsonapi');
	const { contract } = PROFILES.jsonapi;
	const headers = { 'Content-Type': JSONAPI_MEDIA_TYPE };

	it('creates and updates a post as JSON:API resource objects, its page a relationship', async () => {
		const service = await start();
		const [pageId] = [...service.pages.keys()];
		const created = await checkedCall<{ data: Resource }>(contract, service, 'POST', '/v1/posts', {
			headers,
			body: {
				data: {
					type: 'posts',
					attributes: { content: 'Hello' },
					relationships: { page: { data: { type: 'pages', id: pageId } } },
				},
			},
		});
		expect(created.status).toBe(201);
		expect(created.headers.get('content-type')).toMatch(/^application\/vnd\.api\+json/);
		const { id } = created.body.data;
		expect(created.body.data).toMatchObject({
			type: 'posts',
			attributes: { content: 'Hello', status: 'draft' },
			relationships: { page: { data: { type: 'pages', id: pageId } } },
			links: { self: `${service.url}/v1/posts/${id}` },
		});
		const updated = await checkedCall<{ data: Resource }>(
			contract,
			service,
			'PATCH',
			`/v1/posts/${id}`,
			{ headers, body: { data: { type: 'posts', id, attributes: { title: 'Launch' } } } },
		);
		expect(updated.body.data.attributes).toMatchObject({ title: 'Launch', content: 'Hello' });
		expect(service.posts.get(id)).toMatchObject({ title: 'Launch', page_id: pageId });
	});

	it('refuses what JSON:API 1.1 refuses: no type (400), another type or id (409), another media type (415)', async () => {
		const service = await start();
		const [postId] = [...service.posts.keys()];
		const refusal = async (
			method: string,
			path: string,
			body: unknown,
			type = JSONAPI_MEDIA_TYPE,
		) => {
			const answer = await checkedCall<Errors>(contract, service, method, path, {
				headers: { 'Content-Type': type },
				body,
			});
			return [answer.status, answer.body.errors[0].status, answer.body.errors[0].source?.pointer];
		};
		const attributes = { content: 'Hello' };
		expect(await refusal('POST', '/v1/posts', { data: { attributes } })).toEqual([
			400,
			'400',
			'/data/type',
		]);
		expect(await refusal('POST', '/v1/posts', { data: { type: 'pages', attributes } })).toEqual([
			409,
			'409',
			'/data/type',
		]);
		expect(
			await refusal('PATCH', `/v1/posts/${postId}`, { data: { type: 'posts', id: 'post_other' } }),
		).toEqual([409, '409', '/data/id']);
		expect(
			await refusal(
				'POST',
				'/v1/posts',
				{ data: { type: 'posts', attributes } },
				'application/json',
			),
		).toEqual([415, '415', undefined]);
		expect(service.posts.has('post_other')).toBe(false);
	});

	it('pages lists by page[number] and page[size], with meta.page and links', async () => {
		const service = await start();
		const total = service.pages.size;
		const first = await checkedCall<{
			data: Resource[];
			meta: { page: Record<string, number> };
			links: { next?: string };
		}>(contract, service, 'GET', '/v1/pages?page%5Bsize%5D=2');
		expect(first.body.data.map((page) => page.id)).toEqual([...service.pages.keys()].slice(0, 2));
		expect(first.body.meta.page).toEqual({
			currentPage: 1,
			from: 1,
			lastPage: Math.ceil(total / 2),
			perPage: 2,
			to: 2,
			total,
		});
		const second = await checkedCall<{ data: Resource[] }>(
			contract,
			service,
			'GET',
			first.body.links.next!,
		);
		expect(second.body.data.map((page) => page.id)).toEqual([...service.pages.keys()].slice(2, 4));
	});

	it('delivers per-resource events in X-Event-Name, the job a resource object, signed in X-Signature', async () => {
		const service = await start({ jobMode: 'manual' });
		const receiver = await startReceiver();
		try {
			const secret = 'a-secret-of-sixteen-or-more';
			service.webhooks.clear();
			await checkedCall(contract, service, 'POST', '/v1/webhooks', {
				headers,
				body: {
					data: { type: 'webhooks', attributes: { url: receiver.url, events: ['job'], secret } },
				},
			});
			const job = service.startJob('generate.video', { prompt: 'Soon' });
			await service.finishJob(job.id, 'succeeded');
			await waitFor(() => receiver.received.length === 1, 20_000);
			const [delivery] = receiver.received;
			expect(delivery.headers['x-event-name']).toBe('job');
			expect(delivery.headers['x-signature']).toBe(
				createHmac('sha256', secret).update(delivery.body).digest('hex'),
			);
			expect(JSON.parse(delivery.body)).toMatchObject({
				action: 'completed',
				job: {
					type: 'jobs',
					id: job.id,
					attributes: { kind: 'generate.video', status: 'succeeded' },
				},
			});
			expect(contract.validateWebhookEvent('job', JSON.parse(delivery.body))).toEqual([]);
		} finally {
			await receiver.close();
		}
	});
});
