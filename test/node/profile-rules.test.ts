import type { IDataObject } from 'n8n-workflow';

import { readProfile } from '../../nodes/shared/profile/read';
import type { Profile } from '../../nodes/shared/profile/types';

/**
 * Each reading rule on a small document of its own: what the rule decides is shown as data (the
 * profile's part it sets), so a change of a rule shows up here as a changed expectation.
 */

const json = (schema: IDataObject) => ({ content: { 'application/json': { schema } } });
const ok = (schema: IDataObject, extra: IDataObject = {}) => ({
	responses: { '200': { description: 'OK', ...json(schema), ...extra } },
});
const object = (properties: IDataObject, more: IDataObject = {}) => ({
	type: 'object',
	properties,
	...more,
});
const text = (description?: string, more: IDataObject = {}) => ({
	type: 'string',
	...(description ? { description } : {}),
	...more,
});

async function read(paths: IDataObject, extra: IDataObject = {}): Promise<Profile> {
	return await readProfile({ openapi: '3.1.0', paths, ...extra }, 'test');
}

/** A document whose job (GET /v1/jobs/{id}) is this schema. */
async function job(schema: IDataObject): Promise<Profile['jobs']> {
	return (await read({ '/v1/jobs/{id}': { get: ok(schema) } })).jobs;
}

/** A document whose post creation takes this body. */
async function createPost(
	body: IDataObject,
): Promise<Profile['operations']['createPost']['fields']> {
	const post = object({ id: text() });
	return (await read({ '/v1/posts': { post: { requestBody: json(body), ...ok(post) } } }))
		.operations.createPost.fields;
}

describe('which operation is each of the node’s', () => {
	const post = object({ id: text(), text: text() });

	it('is the built-in method on the built-in path', async () => {
		const { operations } = await read({
			'/v1/posts/{post_id}': { patch: ok(post), get: ok(post) },
		});
		expect(operations.updatePost).toMatchObject({
			method: 'PATCH',
			path: '/v1/posts/{id}',
			from: '#/paths/~1v1~1posts~1{post_id}/patch',
		});
	});

	it("is another method on that path where the document says it updates (Stripe's POST)", async () => {
		const update = { operationId: 'PostPostsPost', summary: 'Update a post', ...ok(post) };
		const { operations } = await read({
			'/v1/posts/{post}': { get: ok(post), post: update, delete: ok(post) },
		});
		expect(operations.updatePost).toMatchObject({ method: 'POST', path: '/v1/posts/{id}' });
	});

	it('is the one PUT on that path, which replaces the object where its body has required fields', async () => {
		const body = object({ text: text(), id: text('', { readOnly: true }) }, { required: ['text'] });
		const { operations } = await read({
			'/v1/posts/{id}': { get: ok(post), put: { requestBody: json(body), ...ok(post) } },
		});
		expect(operations.updatePost).toMatchObject({ method: 'PUT', replaces: { keep: ['text'] } });
	});

	it('is an operation elsewhere that says what it does, one of its kind', async () => {
		const { operations } = await read({
			'/v1/posts/{id}': { get: ok(post) },
			'/v1/posts/{id}/edit': { post: { operationId: 'posts.edit', ...ok(post) } },
		});
		expect(operations.updatePost).toMatchObject({ method: 'POST', path: '/v1/posts/{id}/edit' });
	});

	it('is the built-in one where two could be', async () => {
		const edit = { summary: 'Edit a post', ...ok(post) };
		const { operations } = await read({
			'/v1/posts/{id}/edit': { post: edit },
			'/v1/posts/{id}/change': { post: edit },
		});
		expect(operations.updatePost).toMatchObject({
			method: 'PATCH',
			path: '/v1/posts/{id}',
			from: 'built-in',
		});
	});
});

describe("where each parameter goes in a request's body", () => {
	it('is the property of its name, in the same or another case style', async () => {
		const fields = await createPost(
			object({ content: text(), pageId: text(), scheduled_at: text() }),
		);
		expect([fields.content.to, fields.pageId.to, fields.scheduledAt.to]).toEqual([
			'/body/content',
			'/body/pageId',
			'/body/scheduled_at',
		]);
	});

	it("is an object's id where the reference is an object (Box's parent: {id})", async () => {
		const fields = await createPost(
			object({ content: text(), page: object({ type: text(), id: text() }) }),
		);
		expect(fields.pageId).toMatchObject({
			to: '/body/page/id',
			from: '#/paths/~1v1~1posts/post/requestBody: page',
		});
	});

	it('is a property whose name holds its words, else whose first sentence does, two levels down', async () => {
		const fields = await createPost(
			object({
				body: text(),
				meta: object({
					labels: { type: 'array', items: text() },
					when: text('Schedule for publishing.'),
				}),
			}),
		);
		expect([fields.content.to, fields.tags.to, fields.scheduledAt.to]).toEqual([
			'/body/body',
			'/body/meta/labels',
			'/body/meta/when',
		]);
	});

	it("is inside an input object where the document's words say so (Replicate's input)", async () => {
		const input = object(
			{ text: text('The transcript to write the blog post from.'), tone: text() },
			{ additionalProperties: false },
		);
		const blog = object({ input, title: text() }, { additionalProperties: false });
		const { fields } = (
			await read({
				'/v1/generate/blog': { post: { requestBody: json(blog), ...ok(object({ id: text() })) } },
			})
		).operations.generateBlog;
		expect([fields.transcript.to, fields.tone.to, fields.title.to, fields.language.to]).toEqual([
			'/body/input/text',
			'/body/input/tone',
			'/body/title',
			null,
		]);
		expect(fields.language.why).toBe('Its OpenAPI document lists: input, title.');
	});

	it('is each entry of an array of objects, as its one text (X API v2 tweets)', async () => {
		const body = object({ tweets: { type: 'array', items: object({ text: text() }) } });
		const { fields } = (
			await read({
				'/v1/publish/twitter': { post: { requestBody: json(body), ...ok(object({ id: text() })) } },
			})
		).operations.publishTwitter;
		expect(fields.thread.to).toBe('/body/tweets/-/text');
	});

	it('is the property whose values are the parameter’s, in the service’s spelling', async () => {
		const state = text('', {
			enum: ['DRAFT', 'publish', 'future'],
			description: 'DRAFT, publish, or future: scheduled to go out later.',
		});
		const fields = await createPost(object({ content: text(), phase: state }));
		expect(fields.status).toMatchObject({
			to: '/body/phase',
			values: { draft: 'DRAFT', published: 'publish', scheduled: 'future' },
		});
	});

	it("is a yes/no named by its opposite, sent negated (Stripe's disabled)", async () => {
		const body = object({
			url: text(),
			events: { type: 'array', items: text() },
			disabled: { type: 'boolean' },
		});
		const { fields } = (
			await read({
				'/v1/webhooks': { post: { requestBody: json(body), ...ok(object({ id: text() })) } },
			})
		).operations.createWebhook;
		expect(fields.active).toMatchObject({ to: '/body/disabled', negate: true });
	});

	it('is its built-in place in a body that takes other fields, and none in a closed one', async () => {
		expect((await createPost(object({ content: text() }))).tags).toMatchObject({
			to: '/body/tags',
			from: 'built-in (the request body takes other fields)',
		});
		expect(
			(await createPost(object({ content: text() }, { additionalProperties: false }))).tags,
		).toMatchObject({ to: null });
	});
});

describe("a job's completion", () => {
	const status = (values: string[], more: IDataObject = {}) =>
		job(object({ id: text(), status: { type: 'string', enum: values, ...more } }));

	it('reads a sequence as pending until its last step, whose values say the rest (queued -> running -> succeeded | failed)', async () => {
		expect(
			(
				await status(['queued', 'running', 'succeeded', 'failed'], {
					description: 'queued -> running -> succeeded | failed',
				})
			).completion,
		).toEqual({
			by: 'status',
			status: ['/status'],
			states: { queued: 'pending', running: 'pending', succeeded: 'succeeded', failed: 'failed' },
		});
		expect(
			(
				await status(['pending', 'processing', 'completed', 'error'], {
					description: 'pending → processing → completed or error',
				})
			).completion,
		).toMatchObject({
			states: {
				pending: 'pending',
				processing: 'pending',
				completed: 'succeeded',
				error: 'failed',
			},
		});
	});

	it("reads each value's own explanation, per value or in prose, else its own word", async () => {
		const explained = await status(['WAITING', 'RENDERING', 'READY', 'BROKEN'], {
			'x-enum-descriptions': ['Not started yet.', 'In progress.', 'Done.', 'It failed.'],
		});
		expect(explained.completion).toMatchObject({
			states: { WAITING: 'pending', RENDERING: 'pending', READY: 'succeeded', BROKEN: 'failed' },
		});
		const prose = await status(['new', 'ok', 'dead'], {
			description: '`new` (accepted, not started), `ok` when finished, `dead` if it crashed.',
		});
		expect(prose.completion).toMatchObject({
			states: { new: 'pending', ok: 'succeeded', dead: 'failed' },
		});
		const words = await status(['in-progress', 'completed', 'errored', 'scheduled']);
		expect(words.completion).toMatchObject({
			states: {
				'in-progress': 'pending',
				completed: 'succeeded',
				errored: 'failed',
				scheduled: 'scheduled',
			},
		});
	});

	it("is a done flag with a response or an error beside it, where no status has values (Google's operations)", async () => {
		const operation = object({
			id: text(),
			done: {
				type: 'boolean',
				description: 'If the value is false, the operation is still in progress.',
			},
			metadata: object({ type: text() }),
			response: object({ video_url: text('Address of the video.', { format: 'uri' }) }),
			error: object({ code: { type: 'integer' }, message: text() }),
		});
		expect(await job(operation)).toMatchObject({
			completion: { by: 'flag', done: ['/done'] },
			result: ['/response'],
			error: ['/error'],
			kind: ['/metadata/type'],
			media: ['videourl'],
		});
	});
});

describe("the service's events", () => {
	async function webhooks(
		events: IDataObject,
		extra: IDataObject = {},
	): Promise<Profile['webhooks']> {
		const body = object({
			url: text(),
			events: { type: 'array', items: { type: 'string', ...events }, ...extra },
		});
		return (
			await read({
				'/v1/webhooks': { post: { requestBody: json(body), ...ok(object({ id: text() })) } },
			})
		).webhooks;
	}
	const NAMES = ['generation.succeeded', 'generation.failed', 'post.published'];

	it("are each explained up to the next one, however the explanations run on (one line, 'value: text')", async () => {
		const description =
			'generation.succeeded: a generation job (blog, linkedin, twitter, carousel, video) succeeded, data is the Job. generation.failed: a generation job failed, data is the Job. post.published: a post was published, data is the Post.';
		expect((await webhooks({ enum: NAMES, description })).meanings).toEqual({
			'job.completed': ['generation.succeeded'],
			'job.failed': ['generation.failed'],
			'post.published': ['post.published'],
		});
	});

	it("are read from the events field's prose (GitHub's way) and from their own names", async () => {
		const prose =
			'Which events trigger deliveries. `render.ok` is sent when a video job finishes successfully; `render.crashed` when one fails; `post.live` once a post is live.';
		expect(
			(
				await webhooks(
					{ enum: ['render.ok', 'render.crashed', 'post.live'] },
					{ description: prose },
				)
			).meanings,
		).toEqual({
			'job.completed': ['render.ok'],
			'job.failed': ['render.crashed'],
			'post.published': ['post.live'],
		});
		expect((await webhooks({ enum: ['JOB_READY', 'task.run.failed', '*'] })).meanings).toEqual({
			'job.completed': ['JOB_READY'],
			'job.failed': ['task.run.failed'],
			'post.published': [],
		});
	});
});

describe('how a list is read', () => {
	const page = object({ id: text(), name: text() });
	async function list(
		parameters: IDataObject[],
		answer: IDataObject,
		headers?: IDataObject,
	): Promise<Profile['operations']['listPages']['answer']> {
		const get = {
			parameters: parameters.map((parameter) => ({ in: 'query', schema: text(), ...parameter })),
			...ok(answer, headers ? { headers } : {}),
		};
		return (await read({ '/v1/pages': { get } })).operations.listPages.answer;
	}
	const items = { type: 'array', items: page };

	it('finds the items beside errors and messages, and each paging style', async () => {
		const cursor = await list(
			[{ name: 'limit', schema: { type: 'integer', maximum: 200 } }, { name: 'cursor' }],
			object({
				ok: { type: 'boolean' },
				pages: items,
				response_metadata: object({ next_cursor: text() }),
			}),
		);
		expect(cursor).toMatchObject({
			items: ['/body/pages'],
			itemId: '/id',
			paging: {
				style: 'cursor',
				cursor: 'cursor',
				next: ['/body/response_metadata/next_cursor'],
				size: 'limit',
				max: 200,
			},
		});
		const after = await list(
			[{ name: 'starting_after' }],
			object({ data: items, has_more: { type: 'boolean' } }),
		);
		expect(after.paging).toMatchObject({
			style: 'after',
			cursor: 'starting_after',
			more: '/body/has_more',
		});
		const numbered = await list(
			[{ name: 'page', schema: { type: 'integer', minimum: 1 } }, { name: 'per_page' }],
			object({ result: items, errors: { type: 'array', items: object({ code: text() }) } }),
		);
		expect(numbered).toMatchObject({
			items: ['/body/result'],
			paging: { style: 'page', page: 'page', first: 1, size: 'per_page' },
		});
		const offset = await list(
			[{ name: 'offset' }],
			object({ results: items, total: { type: 'integer' } }),
		);
		expect(offset.paging).toMatchObject({
			style: 'offset',
			offset: 'offset',
		});
		const linked = await list(
			[],
			object({ data: items, links: object({ next: text('', { format: 'uri' }) }) }),
		);
		expect(linked.paging).toMatchObject({ style: 'link', next: ['/body/links/next'] });
		const header = await list([{ name: 'per_page' }], items, { Link: { schema: text() } });
		expect(header).toMatchObject({
			items: ['/body'],
			paging: { style: 'link', next: ['/headers/link'] },
		});
	});
});

describe('deliveries', () => {
	async function delivery(headers: IDataObject[], body: IDataObject): Promise<Profile['webhooks']> {
		const callback = {
			'{$request.body#/url}': {
				post: {
					parameters: headers.map((header) => ({ in: 'header', schema: text(), ...header })),
					requestBody: json(body),
					responses: { '200': { description: 'OK' } },
				},
			},
		};
		const register = {
			requestBody: json(object({ url: text(), events: { type: 'array', items: text() } })),
			callbacks: { event: callback },
			...ok(object({ id: text() })),
		};
		return (await read({ '/v1/webhooks': { post: register } })).webhooks;
	}

	it('are signed over the raw body with no timestamp (GitHub), the event and id in headers', async () => {
		const { signature, delivery: reading } = await delivery(
			[
				{
					name: 'X-GitHub-Event',
					description: 'The name of the event that triggered the delivery.',
				},
				{
					name: 'X-GitHub-Delivery',
					description: 'A globally unique identifier (GUID) to identify the delivery.',
				},
				{
					name: 'X-Hub-Signature-256',
					description:
						'The HMAC hex digest of the request body, using SHA-256 and the secret as the key.',
				},
			],
			object({ action: text(), operation: object({ id: text() }) }),
		);
		expect(signature).toMatchObject({
			header: 'x-hub-signature-256',
			signed: ['body'],
			algorithm: 'sha256',
			encoding: 'hex',
			idHeader: 'x-github-delivery',
		});
		expect(reading).toMatchObject({
			type: ['/headers/x-github-event'],
			id: ['/headers/x-github-delivery'],
			data: ['/body'],
		});
	});

	it('are signed as Standard Webhooks say, where its three headers are documented', async () => {
		const { signature } = await delivery(
			[{ name: 'webhook-id' }, { name: 'webhook-timestamp' }, { name: 'webhook-signature' }],
			object({ type: text(), data: object({}) }),
		);
		expect(signature).toMatchObject({
			format: 'standard',
			signed: ['id', 'timestamp', 'body'],
			encoding: 'base64',
			secretEncoding: 'whsec',
		});
	});
});
