import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

import {
	buildOpenApiDocument,
	createContractValidator,
	matchRoute,
	routes,
	startFakeService,
	WEBHOOK_HEADERS,
	type FakeService,
	type FakeServiceOptions,
	type Job,
	type Page,
	type Post,
	type Webhook,
	type WebhookEvent,
} from './index';
import {
	startReceiver,
	validateOpenApiDocument,
	waitFor,
	CLI_TIMEOUT_MS,
	withCli,
	type ReceivedDelivery,
	type Receiver,
} from './test-helpers';

interface ErrorBody {
	error: { code: string; message: string; details?: Array<{ field: string; message: string }> };
}

interface ListBody<T> {
	data: T[];
	next_cursor: string | null;
}

interface ApiResponse<T> {
	status: number;
	headers: Headers;
	text: string;
	body: T;
}

interface CallOptions {
	body?: unknown;
	rawBody?: string;
	/** null sends no Authorization header. */
	apiKey?: string | null;
	headers?: Record<string, string>;
}

const contract = createContractValidator(buildOpenApiDocument());
const startedServices: FakeService[] = [];

async function start(options?: FakeServiceOptions): Promise<FakeService> {
	const service = await startFakeService(options);
	startedServices.push(service);
	return service;
}

/** Calls the fake and checks every JSON response of a known operation against the OpenAPI document. */
async function call<T = ErrorBody>(
	service: FakeService,
	method: string,
	pathAndQuery: string,
	options: CallOptions = {},
): Promise<ApiResponse<T>> {
	const headers: Record<string, string> = { ...options.headers };
	const apiKey = options.apiKey === undefined ? service.apiKey : options.apiKey;
	if (apiKey !== null) headers.Authorization = `Bearer ${apiKey}`;
	let payload = options.rawBody;
	if (options.body !== undefined) payload = JSON.stringify(options.body);
	if (payload !== undefined) headers['Content-Type'] ??= 'application/json';
	const response = await fetch(`${service.url}${pathAndQuery}`, { method, headers, body: payload });
	const text = await response.text();
	const contentType = response.headers.get('content-type') ?? undefined;
	const body = contentType?.startsWith('application/json') ? (JSON.parse(text) as T) : (text as T);
	const match = matchRoute(method, pathAndQuery.split('?')[0]);
	if (match && !contentType?.startsWith('text/html')) {
		const problems = contract.validateResponse({
			operationId: match.route.operationId,
			status: response.status,
			body: text === '' ? undefined : body,
			contentType,
		});
		expect({ [`${method} ${pathAndQuery} → ${response.status}`]: problems }).toEqual({
			[`${method} ${pathAndQuery} → ${response.status}`]: [],
		});
	}
	return { status: response.status, headers: response.headers, text, body };
}

/** Sends the path byte for byte, where fetch would normalize dot segments. */
function rawRequest(
	service: FakeService,
	method: string,
	rawPath: string,
	jsonBody?: string,
): Promise<{ status: number; body: ErrorBody }> {
	const headers = {
		Authorization: `Bearer ${service.apiKey}`,
		// Node frames a GET body only when told its length.
		...(jsonBody
			? {
					'Content-Type': 'application/json',
					'Content-Length': String(Buffer.byteLength(jsonBody)),
				}
			: {}),
	};
	return new Promise((resolve, reject) => {
		const request = http.request(
			`${service.url}/`,
			{ method, path: rawPath, headers, agent: false },
			(response) => {
				let text = '';
				response.setEncoding('utf8');
				response.on('data', (chunk: string) => (text += chunk));
				response.on('end', () => {
					try {
						resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as ErrorBody });
					} catch (error) {
						reject(error);
					}
				});
			},
		);
		request.on('error', reject);
		request.end(jsonBody);
	});
}

function expectValidSignature(secret: string, delivery: ReceivedDelivery): void {
	const timestamp = String(delivery.headers[WEBHOOK_HEADERS.timestamp.toLowerCase()]);
	const signature = String(delivery.headers[WEBHOOK_HEADERS.signature.toLowerCase()]);
	const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`;
	expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
	expect(timingSafeEqual(Buffer.from(signature), Buffer.from(expected))).toBe(true);
	expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(60);
}

let service: FakeService;

beforeAll(async () => {
	service = await start();
});

beforeEach(() => service.reset());

afterAll(async () => {
	await Promise.all(startedServices.map((started) => started.close()));
});

describe('OpenAPI document', () => {
	it('is a valid OpenAPI 3.1 document, also as served with the server URL', async () => {
		const served = await call<Record<string, unknown>>(service, 'GET', '/v1/openapi.json', {
			apiKey: null,
		});
		expect(served.status).toBe(200);
		expect(served.body.servers).toEqual([expect.objectContaining({ url: service.url })]);
		expect(await validateOpenApiDocument(served.body)).toEqual({ valid: true });
		expect(await validateOpenApiDocument(buildOpenApiDocument())).toEqual({ valid: true });
	});

	it('describes exactly the routes the server serves', () => {
		const document = buildOpenApiDocument();
		const documented = Object.entries(document.paths)
			.flatMap(([template, pathItem]) =>
				Object.entries(pathItem).map(
					([method, operation]) => `${method.toUpperCase()} ${template} ${operation.operationId}`,
				),
			)
			.sort();
		const served = routes
			.map((route) => `${route.method} ${route.path} ${route.operationId}`)
			.sort();
		expect(served).toEqual(documented);

		for (const route of routes) {
			const operation = document.paths[route.path][route.method.toLowerCase() as 'get'];
			const expectedSecurity = route.anonymous ? [] : undefined;
			expect({ [route.operationId]: operation?.security }).toEqual({
				[route.operationId]: expectedSecurity,
			});
		}
	});

	it('describes the webhook events and their signature', () => {
		const document = buildOpenApiDocument();
		expect(Object.keys(document.webhooks).sort()).toEqual([
			'job.completed',
			'job.failed',
			'post.published',
		]);
		expect(document.info.description).toContain('HMAC-SHA256');
		expect(document['x-webhook-signature']).toMatchObject({
			signedPayload: '<timestamp>.<raw body>',
		});
	});
});

describe('authentication', () => {
	it('answers 401 with a JSON error for a missing or wrong key, without echoing the key', async () => {
		const missing = await call(service, 'GET', '/v1/me', { apiKey: null });
		const wrong = await call(service, 'GET', '/v1/me', { apiKey: 'wrong-key-1234567890' });
		for (const response of [missing, wrong]) {
			expect(response.status).toBe(401);
			expect(response.headers.get('content-type')).toMatch(/^application\/json/);
			expect(response.body.error.code).toBe('unauthorized');
		}
		expect(wrong.text).not.toContain('wrong-key-1234567890');
		expect(wrong.text).not.toContain(service.apiKey);
	});

	it('accepts the right key', async () => {
		const response = await call<{ plan: string }>(service, 'GET', '/v1/me');
		expect(response.status).toBe(200);
		expect(response.body.plan).toBe('pro');
	});

	it('records every request, including unauthenticated ones', async () => {
		await call(service, 'GET', '/v1/openapi.json', { apiKey: null });
		await call(service, 'GET', '/v1/me', { apiKey: null });
		await call(service, 'GET', '/v1/pages?limit=2&q=acme');
		const summaries = service.requests.map(({ method, path, operationId, status }) => {
			return { method, path, operationId, status };
		});
		expect(summaries).toEqual([
			{ method: 'GET', path: '/v1/openapi.json', operationId: 'getOpenApiDocument', status: 200 },
			{ method: 'GET', path: '/v1/me', operationId: 'getAccount', status: 401 },
			{ method: 'GET', path: '/v1/pages', operationId: 'listPages', status: 200 },
		]);
		expect(service.requestsTo('listPages')[0]).toMatchObject({
			query: { limit: '2', q: 'acme' },
			headers: { authorization: `Bearer ${service.apiKey}` },
			contractErrors: [],
		});
	});
});

describe('pages and pagination', () => {
	it('walks every page with limit and cursor', async () => {
		const seen: string[] = [];
		let cursor: string | null = null;
		let pageCount = 0;
		do {
			const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
			const response: ApiResponse<ListBody<Page>> = await call<ListBody<Page>>(
				service,
				'GET',
				`/v1/pages${query}`,
			);
			expect(response.body.data.length).toBeLessThanOrEqual(2);
			seen.push(...response.body.data.map((page) => page.name));
			cursor = response.body.next_cursor;
			pageCount += 1;
		} while (cursor !== null);
		expect(pageCount).toBe(3);
		expect(seen).toEqual([...service.pages.values()].map((page) => page.name));
		expect(new Set(seen).size).toBe(5);
	});

	it('filters by name, gets one page and 404s an unknown one', async () => {
		const search = await call<ListBody<Page>>(service, 'GET', '/v1/pages?q=ACME%20on');
		expect(search.body.data.map((page) => page.name)).toEqual([
			'Acme on LinkedIn',
			'Acme on Twitter',
		]);
		const [first] = service.pages.values();
		expect((await call<Page>(service, 'GET', `/v1/pages/${first.id}`)).body).toEqual(first);
		const missing = await call(service, 'GET', '/v1/pages/page_missing');
		expect(missing.status).toBe(404);
		expect(missing.body.error).toMatchObject({
			code: 'not_found',
			message: expect.stringContaining('page_missing'),
		});
	});

	it('caps the page size at maxPageSize', async () => {
		const small = await start({ maxPageSize: 2 });
		const response = await call<ListBody<Page>>(small, 'GET', '/v1/pages?limit=100');
		expect(response.body.data).toHaveLength(2);
		expect(response.body.next_cursor).not.toBeNull();
	});

	it('keeps a cursor valid when the last item it saw is deleted', async () => {
		for (const content of ['one', 'two', 'three', 'four'])
			await call(service, 'POST', '/v1/posts', { body: { content } });
		const first = await call<ListBody<Post>>(service, 'GET', '/v1/posts?limit=2');
		await call(service, 'DELETE', `/v1/posts/${first.body.data[1].id}`);
		const second = await call<ListBody<Post>>(
			service,
			'GET',
			`/v1/posts?limit=2&cursor=${first.body.next_cursor}`,
		);
		expect(second.body.data.map((post) => post.content)).toEqual(['three', 'four']);
		expect(second.body.next_cursor).toBeNull();
	});

	it('rejects bad limits and cursors with 422', async () => {
		for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=not-a-cursor', 'page=2']) {
			const response = await call(service, 'GET', `/v1/pages?${query}`);
			expect({ query, status: response.status, code: response.body.error.code }).toEqual({
				query,
				status: 422,
				code: 'validation_error',
			});
			expect(response.body.error.details?.[0].field).toMatch(/^query\./);
		}
	});
});

describe('posts', () => {
	it('creates, reads, lists, updates and deletes a post', async () => {
		const [page] = service.pages.values();
		const created = await call<Post>(service, 'POST', '/v1/posts', {
			body: {
				content: 'Hello',
				title: 'Greeting',
				page_id: page.id,
				tags: ['news'],
				media_urls: ['https://cdn.acme.example/a.png'],
			},
		});
		expect(created.status).toBe(201);
		expect(created.body).toMatchObject({
			content: 'Hello',
			status: 'draft',
			page_id: page.id,
			published_at: null,
			scheduled_at: null,
		});
		const id = created.body.id;
		expect(id).toMatch(/^post_/);

		expect((await call<Post>(service, 'GET', `/v1/posts/${id}`)).body).toEqual(created.body);
		await call(service, 'POST', '/v1/posts', {
			body: { content: 'Elsewhere', status: 'published' },
		});
		const drafts = await call<ListBody<Post>>(
			service,
			'GET',
			`/v1/posts?status=draft&page_id=${page.id}`,
		);
		expect(drafts.body.data.map((post) => post.id)).toEqual([id]);

		const scheduled = await call<Post>(service, 'PATCH', `/v1/posts/${id}`, {
			body: { status: 'scheduled', scheduled_at: '2030-01-01T09:00:00Z' },
		});
		expect(scheduled.body).toMatchObject({
			status: 'scheduled',
			scheduled_at: '2030-01-01T09:00:00Z',
			content: 'Hello',
		});
		const published = await call<Post>(service, 'PATCH', `/v1/posts/${id}`, {
			body: { status: 'published' },
		});
		expect(published.body.published_at).toEqual(expect.any(String));

		const deleted = await call(service, 'DELETE', `/v1/posts/${id}`);
		expect(deleted.status).toBe(204);
		expect(deleted.text).toBe('');
		expect((await call(service, 'GET', `/v1/posts/${id}`)).status).toBe(404);
		expect((await call(service, 'PATCH', `/v1/posts/${id}`, { body: { title: 'x' } })).status).toBe(
			404,
		);
		expect((await call(service, 'DELETE', `/v1/posts/${id}`)).status).toBe(404);
	});

	it('answers 422 for references to unknown pages and for scheduling without a time', async () => {
		const unknownPage = await call(service, 'POST', '/v1/posts', {
			body: { content: 'x', page_id: 'page_nope' },
		});
		expect(unknownPage.status).toBe(422);
		expect(unknownPage.body.error.details).toEqual([
			{ field: 'page_id', message: expect.stringContaining('page_nope') },
		]);
		expect(service.requestsTo('createPost')[0].contractErrors).toEqual([]);

		const unscheduled = await call(service, 'POST', '/v1/posts', {
			body: { content: 'x', status: 'scheduled' },
		});
		expect(unscheduled.status).toBe(422);
		expect(unscheduled.body.error.details).toEqual([
			{ field: 'scheduled_at', message: 'is required when status is "scheduled"' },
		]);

		const draft = await call<Post>(service, 'POST', '/v1/posts', { body: { content: 'x' } });
		const patched = await call(service, 'PATCH', `/v1/posts/${draft.body.id}`, {
			body: { status: 'scheduled' },
		});
		expect(patched.status).toBe(422);
		expect(patched.body.error.details?.[0].field).toBe('scheduled_at');
	});
});

describe('contract enforcement', () => {
	it('answers 422 with details for requests that break the document and records the problems', async () => {
		const response = await call(service, 'POST', '/v1/posts', {
			body: { content: '', colour: 'red', status: 'archived', media_urls: ['not a url'] },
		});
		expect(response.status).toBe(422);
		expect(response.body.error.code).toBe('validation_error');
		const fields = response.body.error.details?.map((detail) => detail.field).sort();
		expect(fields).toEqual(['colour', 'content', 'media_urls[0]', 'status']);
		expect(service.requestsTo('createPost')[0].contractErrors).toEqual(
			expect.arrayContaining([
				'colour: is not a known property',
				'status: must be one of: draft, scheduled, published',
			]),
		);
	});

	it('requires one of the generation sources and the body where one is expected', async () => {
		const noSource = await call(service, 'POST', '/v1/generate/linkedin', {
			body: { tone: 'witty' },
		});
		expect(noSource.body.error.details).toEqual([
			{
				field: 'body',
				message: 'must include at least one of: prompt, source_text, source_post_id',
			},
		]);
		const noBody = await call(service, 'POST', '/v1/webhooks');
		expect(noBody.status).toBe(422);
		expect(noBody.body.error.details).toEqual([{ field: 'body', message: 'is required' }]);
		const emptyPatch = await call(service, 'PATCH', '/v1/posts/post_x', { body: {} });
		expect(emptyPatch.status).toBe(422);
	});

	it('rejects a body that is not declared as JSON and a body on GET', async () => {
		const plainText = await call(service, 'POST', '/v1/posts', {
			rawBody: '{"content":"x"}',
			headers: { 'Content-Type': 'text/plain' },
		});
		expect(plainText.status).toBe(422);
		expect(plainText.body.error.details).toEqual([
			{ field: 'header.content-type', message: expect.stringContaining('application/json') },
		]);

		const getWithBody = await rawRequest(service, 'GET', '/v1/me', '{}');
		expect(getWithBody.status).toBe(422);
		expect(service.requests.at(-1)?.contractErrors).toEqual([
			'body: must be empty: this operation takes no request body',
		]);
	});

	it('answers 400 for a body that is not JSON', async () => {
		const response = await call(service, 'POST', '/v1/posts', { rawBody: '{"content": ' });
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('bad_request');
		expect(service.requests.at(-1)).toMatchObject({
			rawBody: '{"content": ',
			body: undefined,
			contractErrors: ['body: is not valid JSON'],
		});
	});

	it('answers 404 for unknown routes and methods', async () => {
		const unknownRoutes = [
			['GET', '/v1/nothing'],
			['PUT', '/v1/posts'],
			['GET', '/v1/pages/'],
			['GET', '/elsewhere'],
		];
		for (const [method, target] of unknownRoutes) {
			const response = await call(service, method, target);
			const outcome = { target, status: response.status, code: response.body.error.code };
			expect(outcome).toEqual({ target, status: 404, code: 'not_found' });
		}
	});

	it('treats encoded slashes and dots as part of the id, never as routing', async () => {
		await call(service, 'POST', '/v1/webhooks', {
			body: { url: 'http://127.0.0.1:9/x', events: ['*'] },
		});
		const escaped = await rawRequest(service, 'GET', '/v1/webhooks/..%2Fwebhooks');
		expect(escaped.status).toBe(404);
		expect(escaped.body.error.message).toContain('"../webhooks"');
		expect(service.requests.at(-1)).toMatchObject({
			path: '/v1/webhooks/..%2Fwebhooks',
			operationId: 'getWebhook',
		});

		for (const rawPath of [
			'/v1/posts/%2e%2e',
			'/v1/pages/..%2F..%2Fv1%2Fme',
			'/v1/jobs/%2Fv1%2Fme',
		]) {
			const response = await rawRequest(service, 'GET', rawPath);
			expect({ rawPath, status: response.status }).toEqual({ rawPath, status: 404 });
		}
		expect((await rawRequest(service, 'DELETE', '/v1/webhooks/..%2Fwebhooks')).status).toBe(404);
		expect(service.webhooks.size).toBe(1);
		expect((await rawRequest(service, 'GET', '/v1/webhooks/%E0%A4%A')).status).toBe(404);
	});
});

describe('jobs', () => {
	it("advances one step per poll in 'poll' mode and returns the result", async () => {
		const created = await call<Job>(service, 'POST', '/v1/generate/blog', {
			body: {
				transcript: 'We rebuilt the pipeline. It is twice as fast now! Deploys take minutes.',
				length: 'short',
			},
		});
		expect(created.status).toBe(202);
		expect(created.body).toMatchObject({
			type: 'generate.blog',
			status: 'queued',
			progress: 0,
			result: null,
			finished_at: null,
		});

		const first = await call<Job>(service, 'GET', `/v1/jobs/${created.body.id}`);
		expect(first.body.status).toBe('running');
		const second = await call<Job>(service, 'GET', `/v1/jobs/${created.body.id}`);
		expect(second.body).toMatchObject({
			status: 'succeeded',
			progress: 100,
			error: null,
			finished_at: expect.any(String),
		});
		expect(second.body.result).toMatchObject({
			title: 'We rebuilt the pipeline',
			content: expect.stringContaining('# We rebuilt the pipeline'),
		});
		const third = await call<Job>(service, 'GET', `/v1/jobs/${created.body.id}`);
		expect(third.body).toEqual(second.body);
	});

	it('follows the job plan, including failures', async () => {
		service.setJobPlan({ outcome: 'failed', pollsUntilRunning: 2, pollsUntilDone: 3 });
		const created = await call<Job>(service, 'POST', '/v1/generate/twitter', {
			body: { prompt: 'Launch day', thread_length: 4 },
		});
		const statuses: string[] = [];
		for (let poll = 0; poll < 3; poll += 1) {
			statuses.push((await call<Job>(service, 'GET', `/v1/jobs/${created.body.id}`)).body.status);
		}
		expect(statuses).toEqual(['queued', 'running', 'failed']);
		expect(service.jobs.get(created.body.id)?.error).toEqual({
			code: 'generation_failed',
			message: 'The model could not produce content for this input',
		});
	});

	it('produces results for every generation type', async () => {
		service.setJobPlan({ outcome: 'succeeded', pollsUntilDone: 0 });
		const source = await call<Post>(service, 'POST', '/v1/posts', {
			body: { content: 'Our new editor ships today. It is fast.' },
		});
		const cases: Array<[string, unknown, unknown]> = [
			[
				'twitter',
				{ prompt: 'One. Two. Three.', thread_length: 2 },
				{ tweets: ['1/2 One.', '2/2 Two.'] },
			],
			[
				'carousel',
				{ source_post_id: source.body.id, slide_count: 3 },
				{
					slides: [
						expect.objectContaining({ body: 'Our new editor ships today.' }),
						expect.anything(),
						expect.anything(),
					],
				},
			],
			[
				'video',
				{ source_text: 'Clip', aspect_ratio: '9:16' },
				{
					video_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/media\/job_\w+\.mp4$/),
					duration_seconds: 30,
					aspect_ratio: '9:16',
				},
			],
			['linkedin', { source_text: 'We hired!' }, { content: expect.stringContaining('We hired!') }],
		];
		for (const [kind, body, result] of cases) {
			const job = await call<Job>(service, 'POST', `/v1/generate/${kind}`, { body });
			expect({ kind, status: job.body.status, result: job.body.result }).toEqual({
				kind,
				status: 'succeeded',
				result,
			});
		}
		const unknownSource = await call(service, 'POST', '/v1/generate/linkedin', {
			body: { source_post_id: 'post_gone' },
		});
		expect(unknownSource.body.error.details?.[0].field).toBe('source_post_id');
	});

	it("keeps jobs unfinished in 'manual' mode until finishJob", async () => {
		service.jobMode = 'manual';
		const created = await call<Job>(service, 'POST', '/v1/generate/carousel', {
			body: { prompt: 'Tips' },
		});
		for (let poll = 0; poll < 5; poll += 1)
			await call(service, 'GET', `/v1/jobs/${created.body.id}`);
		expect(service.jobs.get(created.body.id)?.status).toBe('running');

		await service.finishJob(created.body.id, 'failed', {
			code: 'quota_exceeded',
			message: 'No credits left',
		});
		const finished = await call<Job>(service, 'GET', `/v1/jobs/${created.body.id}`);
		expect(finished.body).toMatchObject({
			status: 'failed',
			error: { code: 'quota_exceeded', message: 'No credits left' },
		});
		await expect(service.finishJob(created.body.id)).rejects.toThrow('already finished');
	});

	it("moves jobs on timers in 'timed' mode", async () => {
		const timed = await start({ jobMode: 'timed', timedJobDelaysMs: { running: 30, done: 120 } });
		const created = await call<Job>(timed, 'POST', '/v1/generate/video', {
			body: { prompt: 'Teaser', duration_seconds: 15 },
		});
		expect(created.body.status).toBe('queued');
		await waitFor(() => timed.jobs.get(created.body.id)?.status === 'running');
		await waitFor(() => timed.jobs.get(created.body.id)?.status === 'succeeded');
		const finished = await call<Job>(timed, 'GET', `/v1/jobs/${created.body.id}`);
		expect(finished.body.result).toMatchObject({ duration_seconds: 15, aspect_ratio: '16:9' });
	});

	it('publishes an existing post or new content', async () => {
		const draft = await call<Post>(service, 'POST', '/v1/posts', { body: { content: 'Ship it' } });
		service.setJobPlan({ outcome: 'succeeded', pollsUntilDone: 1 });
		const job = await call<Job>(service, 'POST', '/v1/publish/linkedin', {
			body: { post_id: draft.body.id },
		});
		const done = await call<Job>(service, 'GET', `/v1/jobs/${job.body.id}`);
		expect(done.body.result).toMatchObject({
			platform: 'linkedin',
			post_id: draft.body.id,
			url: expect.stringMatching(/^https:/),
		});
		expect(service.posts.get(draft.body.id)).toMatchObject({
			status: 'published',
			published_at: expect.any(String),
		});

		const fresh = await call<Job>(service, 'POST', '/v1/publish/twitter', {
			body: { content: 'Brand new' },
		});
		const freshDone = await call<Job>(service, 'GET', `/v1/jobs/${fresh.body.id}`);
		const newPostId = (freshDone.body.result as { post_id: string }).post_id;
		expect(service.posts.get(newPostId)).toMatchObject({
			content: 'Brand new',
			status: 'published',
		});

		const unknown = await call(service, 'POST', '/v1/publish/twitter', {
			body: { post_id: 'post_unknown' },
		});
		expect(unknown.status).toBe(422);
		expect((await call(service, 'GET', '/v1/jobs/job_unknown')).status).toBe(404);
	});

	it('publishes a thread to Twitter, one tweet per part, and only to Twitter', async () => {
		service.setJobPlan({ outcome: 'succeeded', pollsUntilDone: 1 });
		const job = await call<Job>(service, 'POST', '/v1/publish/twitter', {
			body: { thread: ['First.', 'Second.', 'Third.'] },
		});
		const { result } = (await call<Job>(service, 'GET', `/v1/jobs/${job.body.id}`)).body;
		const {
			post_id: postId,
			url,
			thread_urls: urls,
		} = result as { post_id: string; url: string; thread_urls: string[] };
		expect(urls).toEqual([url, `${url}/2`, `${url}/3`]);
		expect(service.posts.get(postId)).toMatchObject({
			content: 'First.\n\nSecond.\n\nThird.',
			status: 'published',
		});

		const both = await call(service, 'POST', '/v1/publish/twitter', {
			body: { thread: ['One.'], content: 'Two' },
		});
		expect(both.status).toBe(422);
		expect(both.body.error.details).toEqual([
			{ field: 'thread', message: 'takes the place of content and post_id: send one of the three' },
		]);
		expect(
			(await call(service, 'POST', '/v1/publish/linkedin', { body: { thread: ['One.'] } })).status,
		).toBe(422);
		expect(
			(await call(service, 'POST', '/v1/publish/twitter', { body: { thread: ['x'.repeat(281)] } }))
				.status,
		).toBe(422);
	});
});

describe('fault injection', () => {
	it('answers 429 with Retry-After, also before authentication', async () => {
		service.injectFault({
			match: { method: 'GET', path: '/v1/me' },
			status: 429,
			retryAfterSeconds: 7,
		});
		const limited = await call(service, 'GET', '/v1/me', { apiKey: null });
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('7');
		expect(limited.body.error.code).toBe('rate_limited');
		expect((await call(service, 'GET', '/v1/me')).status).toBe(200);
	});

	it('limits requests with a token bucket when asked to, with X-RateLimit fields on request', async () => {
		const limited = await start({ rateLimit: { perSecond: 3, headers: true } });
		const answers = [];
		for (let index = 0; index < 4; index += 1) answers.push(await call(limited, 'GET', '/v1/me'));
		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
		expect(answers.map((answer) => answer.headers.get('x-ratelimit-remaining'))).toEqual([
			'2',
			'1',
			'0',
			'0',
		]);
		expect(answers[3].headers.get('retry-after')).toBe('1');
		expect(answers[3].body.error.code).toBe('rate_limited');
		expect(answers[0].headers.get('x-ratelimit-limit')).toBe('3');
		expect(Number(answers[0].headers.get('x-ratelimit-reset')) - Date.now() / 1000).toBeGreaterThan(
			0,
		);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect((await call(limited, 'GET', '/v1/me')).status).toBe(200);
		limited.reset();
		expect((await call(limited, 'GET', '/v1/me')).headers.get('x-ratelimit-remaining')).toBe('2');
		expect((await call(service, 'GET', '/v1/me')).headers.get('x-ratelimit-limit')).toBeNull();
	});

	it('answers 500 the given number of times, matched by RegExp', async () => {
		service.injectFault({ match: { path: /^\/v1\/pages/ }, status: 500, times: 2 });
		const statuses = [];
		for (let attempt = 0; attempt < 3; attempt += 1)
			statuses.push((await call(service, 'GET', '/v1/pages')).status);
		expect(statuses).toEqual([500, 500, 200]);
		expect((await call(service, 'GET', '/v1/me')).status).toBe(200);
	});

	it('delays and then answers normally', async () => {
		service.injectFault({ delayMs: 150 });
		const startedAt = Date.now();
		const response = await call(service, 'GET', '/v1/me');
		expect(response.status).toBe(200);
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(140);
	});

	it('answers an HTML login page instead of JSON', async () => {
		service.injectFault({ match: { method: 'post' }, nonJsonBody: true });
		const response = await call(service, 'POST', '/v1/posts', { body: { content: 'x' } });
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toMatch(/^text\/html/);
		expect(response.text).toContain('<html>');
		expect(service.posts.size).toBe(0);
	});

	it('forgets faults on clearFaults', async () => {
		service.injectFault({ status: 500, times: 5 });
		service.clearFaults();
		expect((await call(service, 'GET', '/v1/me')).status).toBe(200);
	});
});

describe('webhooks', () => {
	const secret = 'whsec_test_0123456789abcdef';
	let receiver: Receiver;

	afterEach(async () => {
		await receiver?.close();
	});

	async function subscribe(
		body: Record<string, unknown>,
	): Promise<ApiResponse<Webhook & { secret: string }>> {
		const response = await call<Webhook & { secret: string }>(service, 'POST', '/v1/webhooks', {
			body,
		});
		expect(response.status).toBe(201);
		return response;
	}

	it('manages webhooks and only shows the secret on creation', async () => {
		const created = await subscribe({ url: 'http://127.0.0.1:9/hooks', events: ['job.completed'] });
		expect(created.body.secret.length).toBeGreaterThanOrEqual(32);
		expect(created.body).toMatchObject({ active: true, description: null });
		const fetched = await call<Webhook>(service, 'GET', `/v1/webhooks/${created.body.id}`);
		expect(fetched.body).not.toHaveProperty('secret');
		const listed = await call<ListBody<Webhook>>(service, 'GET', '/v1/webhooks');
		expect(listed.body.data).toEqual([fetched.body]);
		const updated = await call<Webhook>(service, 'PATCH', `/v1/webhooks/${created.body.id}`, {
			body: { active: false, description: 'Paused', secret },
		});
		expect(updated.body).toMatchObject({ active: false, description: 'Paused' });
		expect(updated.body).not.toHaveProperty('secret');
		expect(service.webhooks.get(created.body.id)?.secret).toBe(secret);
		expect((await call(service, 'DELETE', `/v1/webhooks/${created.body.id}`)).status).toBe(204);
		expect((await call(service, 'GET', `/v1/webhooks/${created.body.id}`)).status).toBe(404);
		const duplicateEvents = await call(service, 'POST', '/v1/webhooks', {
			body: { url: 'http://127.0.0.1:9', events: ['*', '*'] },
		});
		expect(duplicateEvents.status).toBe(422);
	});

	it('delivers signed events to matching active webhooks', async () => {
		receiver = await startReceiver();
		service.jobMode = 'manual';
		const webhook = await subscribe({ url: receiver.url, events: ['job.completed'], secret });
		await subscribe({ url: receiver.url, events: ['job.failed'] });
		await subscribe({ url: receiver.url, events: ['*'], active: false });
		const job = await call<Job>(service, 'POST', '/v1/generate/linkedin', {
			body: { prompt: 'Hiring' },
		});

		await service.finishJob(job.body.id);
		expect(receiver.received).toHaveLength(1);
		const [delivery] = receiver.received;
		const event = JSON.parse(delivery.body) as WebhookEvent;
		expect(contract.validateWebhookEvent(event.type, event)).toEqual([]);
		expect(event).toMatchObject({
			type: 'job.completed',
			data: { job: { id: job.body.id, status: 'succeeded' } },
		});
		expect(delivery.headers).toMatchObject({
			'content-type': 'application/json',
			'x-content-publishing-event': 'job.completed',
			'x-content-publishing-delivery': event.id,
		});
		expectValidSignature(secret, delivery);
		expect(service.deliveries).toEqual([
			expect.objectContaining({
				webhookId: webhook.body.id,
				eventId: event.id,
				attempts: 1,
				lastStatus: 200,
				delivered: true,
				body: delivery.body,
			}),
		]);
	});

	it('sends post.published for publish jobs and delivers jobs finished by polling', async () => {
		receiver = await startReceiver();
		await subscribe({ url: receiver.url, events: ['*'], secret });
		const job = await call<Job>(service, 'POST', '/v1/publish/linkedin', {
			body: { content: 'We are live' },
		});
		await call(service, 'GET', `/v1/jobs/${job.body.id}`);
		await call(service, 'GET', `/v1/jobs/${job.body.id}`);
		await service.waitForDeliveries();
		const events = receiver.received.map((delivery) => JSON.parse(delivery.body) as WebhookEvent);
		expect(events.map((event) => event.type).sort()).toEqual(['job.completed', 'post.published']);
		for (const [index, event] of events.entries()) {
			expect(contract.validateWebhookEvent(event.type, event)).toEqual([]);
			expectValidSignature(secret, receiver.received[index]);
		}
	});

	it('sends post.published once when a post is created or updated as published', async () => {
		receiver = await startReceiver();
		await subscribe({ url: receiver.url, events: ['post.published'], secret });
		const direct = await call<Post>(service, 'POST', '/v1/posts', {
			body: { content: 'Live now', status: 'published' },
		});
		const draft = await call<Post>(service, 'POST', '/v1/posts', { body: { content: 'Later' } });
		await call(service, 'PATCH', `/v1/posts/${draft.body.id}`, { body: { status: 'published' } });
		await call(service, 'PATCH', `/v1/posts/${draft.body.id}`, {
			body: { title: 'Still published' },
		});
		await service.waitForDeliveries();
		const events = receiver.received.map((delivery) => JSON.parse(delivery.body) as WebhookEvent);
		expect(events.map((event) => (event.data as { post: Post }).post.id)).toEqual([
			direct.body.id,
			draft.body.id,
		]);
		for (const [index, event] of events.entries()) {
			expect(contract.validateWebhookEvent(event.type, event)).toEqual([]);
			expectValidSignature(secret, receiver.received[index]);
		}
	});

	it('retries failed deliveries up to three attempts', async () => {
		receiver = await startReceiver([500, 503]);
		service.jobMode = 'manual';
		await subscribe({ url: receiver.url, events: ['job.failed'], secret });
		const job = await call<Job>(service, 'POST', '/v1/generate/blog', {
			body: { transcript: 'Hi.' },
		});
		const startedAt = Date.now();
		await service.finishJob(job.body.id, 'failed');
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(180);
		expect(receiver.received).toHaveLength(3);
		expect(new Set(receiver.received.map((delivery) => delivery.body)).size).toBe(1);
		expect(service.deliveries[0]).toMatchObject({ attempts: 3, lastStatus: 200, delivered: true });
	});

	it('gives up after three failed attempts and on network errors', async () => {
		receiver = await startReceiver([500, 500, 500, 500]);
		const closedPort = await startReceiver();
		await closedPort.close();
		service.jobMode = 'manual';
		await subscribe({ url: receiver.url, events: ['job.completed'] });
		await subscribe({ url: closedPort.url, events: ['job.completed'] });
		const job = await call<Job>(service, 'POST', '/v1/generate/blog', {
			body: { transcript: 'Hi.' },
		});
		await service.finishJob(job.body.id);
		expect(receiver.received).toHaveLength(3);
		expect(service.deliveries).toEqual([
			expect.objectContaining({
				url: receiver.url,
				attempts: 3,
				lastStatus: 500,
				delivered: false,
			}),
			expect.objectContaining({
				url: closedPort.url,
				attempts: 3,
				lastStatus: undefined,
				delivered: false,
			}),
		]);
	});

	it('never sends to hosts outside the loopback range', async () => {
		service.jobMode = 'manual';
		for (const url of [
			'https://hooks.example.com/in',
			'http://10.0.0.1/in',
			'http://localhost.example/in',
		]) {
			await subscribe({ url, events: ['*'] });
		}
		const job = await call<Job>(service, 'POST', '/v1/generate/blog', {
			body: { transcript: 'Hi.' },
		});
		await service.finishJob(job.body.id);
		expect(service.deliveries).toHaveLength(3);
		for (const delivery of service.deliveries)
			expect(delivery).toMatchObject({ attempts: 0, delivered: false });
	});
});

describe('reset', () => {
	it('returns to the seed state', async () => {
		const oldPageIds = [...service.pages.keys()];
		service.jobMode = 'manual';
		service.setJobPlan({ outcome: 'failed' });
		await call(service, 'POST', '/v1/posts', { body: { content: 'x' } });
		await subscribe();
		service.injectFault({ status: 500 });
		service.reset();
		expect(service.requests).toEqual([]);
		expect([
			service.posts.size,
			service.jobs.size,
			service.webhooks.size,
			service.deliveries.length,
		]).toEqual([0, 0, 0, 0]);
		expect(service.pages.size).toBe(5);
		expect([...service.pages.keys()]).not.toEqual(oldPageIds);
		expect(service.jobMode).toBe('poll');
		const job = await call<Job>(service, 'POST', '/v1/generate/blog', {
			body: { transcript: 'Hi.' },
		});
		expect(job.status).toBe(202);
		await call(service, 'GET', `/v1/jobs/${job.body.id}`);
		expect((await call<Job>(service, 'GET', `/v1/jobs/${job.body.id}`)).body.status).toBe(
			'succeeded',
		);

		async function subscribe() {
			await call(service, 'POST', '/v1/webhooks', {
				body: { url: 'http://127.0.0.1:9/x', events: ['*'] },
			});
		}
	});
});

describe('cli', () => {
	it(
		'prints the URL and API key, serves requests and stops on SIGTERM',
		async () => {
			await withCli([], 'cli-test-key-0123456789', async (output, url) => {
				expect(output).toMatch(/^API key: cli-test-key-0123456789$/m);
				const response = await fetch(`${url}/v1/me`, {
					headers: { Authorization: 'Bearer cli-test-key-0123456789' },
				});
				expect(response.status).toBe(200);
			});
		},
		CLI_TIMEOUT_MS,
	);
});
