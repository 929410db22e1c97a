import { createHmac } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import {
	describeError,
	findJob,
	mediaAddresses,
	readDelivery,
	readJob,
	readListPage,
	readResource,
} from '../../nodes/shared/executor/answers';
import { heldBy } from '../../nodes/shared/executor/errors';
import { eventsToSend } from '../../nodes/shared/executor/events';
import { placeFields } from '../../nodes/shared/executor/request';
import { verifyDelivery } from '../../nodes/shared/executor/signatures';
import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { readProfile } from '../../nodes/shared/profile/read';
import type { OpenApiDocument } from '../../nodes/shared/profile/read/document';
import type { Profile } from '../../nodes/shared/profile/types';
import { buildOpenApiDocument } from '../fake-service/openapi';

/**
 * Each reading rule on a small document of its own, most of them written the way a widely used
 * public API writes it (named beside each): what the rule decides is shown as data (the profile's
 * part it sets), so a change of a rule shows up here as a changed expectation; where the decision
 * is how an answer, a job, an error or a delivery is read, the executor reads one by it.
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

	it('is read from the description where there is no summary (Stripe\'s "Updates the specified customer…"), an operationId\'s leading Post being the method', async () => {
		const update = {
			operationId: 'PostPostsPost',
			description:
				'<p>Updates the specified post by setting the values of the parameters passed.</p>',
			...ok(post),
		};
		const { operations } = await read({ '/v1/posts/{post}': { get: ok(post), post: update } });
		expect(operations.updatePost).toMatchObject({
			method: 'POST',
			path: '/v1/posts/{id}',
			from: '#/paths/~1v1~1posts~1{post}/post',
		});
		// A POST to another resource, whose operationId starts with the method, is no post's.
		const customer = { ...update, operationId: 'PostCustomersCustomer' };
		const elsewhere = await read({
			'/v1/customers/{customer}': {
				get: ok(post),
				post: { ...customer, description: '<p>Updates the specified customer.</p>' },
			},
		});
		expect(elsewhere.operations.updatePost.from).toBe('built-in');
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

	it("is named below the path of the document's server (Cloudflare, Box)", async () => {
		const body = object({ body: text() }, { required: ['body'] });
		const { operations } = await read(
			{ '/posts/{post_id}': { put: { requestBody: json(body), ...ok(object({ id: text() })) } } },
			{ servers: [{ url: 'https://api.example.com/v1' }] },
		);
		expect(operations.updatePost).toMatchObject({
			method: 'PUT',
			path: '/v1/posts/{id}',
			replaces: { keep: ['body'] },
		});
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

	it('is never a property of a type that cannot take its value', async () => {
		const fields = await createPost(
			object({ content: text(), title: { type: 'integer' }, heading: text('Title shown above.') }),
		);
		expect(fields.title.to).toBe('/body/heading');
	});

	it('is sent as the media type the document declares, in the spelling its enum explains (merge-patch)', async () => {
		const publication = text('Where the post stands.', {
			enum: ['draft', 'future', 'publish'],
			'x-enumDescriptions': {
				draft: 'Not visible.',
				future: 'Scheduled: goes out at publish_on.',
				publish: 'Published and visible.',
			},
		});
		const categories = { type: 'array', items: text(), description: 'Tags of the post.' };
		const body = object(
			{ body: text('What the post says.'), publication, categories },
			{ additionalProperties: false },
		);
		const patch = {
			requestBody: { content: { 'application/merge-patch+json': { schema: body } } },
			...ok(object({ id: text() })),
		};
		const update = (await read({ '/v1/posts/{post_id}': { patch } })).operations.updatePost;
		expect(update).toMatchObject({
			mediaType: 'application/merge-patch+json',
			fields: { status: { values: { published: 'publish', scheduled: 'future' } } },
		});
		expect(placeFields(update, { content: 'Hi', status: 'scheduled', tags: ['a', 'b'] })).toEqual({
			body: { body: 'Hi', publication: 'future', categories: ['a', 'b'] },
			query: {},
			headers: {},
		});
		expect(() => placeFields(update, { title: 'Hi' })).toThrow(
			'The service takes no "title" in PATCH /v1/posts/{id}',
		);
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

/** A status's states: the document's, over the built-in words a value beyond its list is read by. */
function withBuiltIn(states: Record<string, string>): Record<string, string> {
	const { completion } = BUILT_IN_PROFILE.jobs;
	return { ...(completion.by === 'status' ? completion.states : {}), ...states };
}

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
			states: withBuiltIn({
				queued: 'pending',
				running: 'pending',
				succeeded: 'succeeded',
				failed: 'failed',
			}),
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
		// A value the service reports beyond its list is read by the built-in words.
		expect(prose.completion).toMatchObject({
			states: { failed: 'failed', succeeded: 'succeeded' },
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
	it("is among a JSON:API resource object's attributes, its id the object's own and its type no kind (Lemon Squeezy)", async () => {
		const resource = object({
			type: { type: 'string', enum: ['jobs'] },
			id: text(),
			attributes: object({
				kind: text(),
				status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'] },
				result: object({ video_url: text('Address of the video.', { format: 'uri' }) }),
				error: object({ code: text(), message: text() }),
			}),
		});
		const { jobs, notFollowed } = await read({
			'/v1/jobs/{id}': { get: ok(object({ data: resource })) },
		});
		expect(notFollowed).toEqual([]);
		expect(jobs).toMatchObject({
			id: ['/id'],
			completion: { by: 'status', status: ['/attributes/status'] },
			result: ['/attributes/result'],
			error: ['/attributes/error'],
			kind: ['/attributes/kind'],
			media: ['videourl'],
			from: '#/paths/~1v1~1jobs~1{id}/get: attributes',
		});
		const job = {
			type: 'jobs',
			id: 'job_1',
			attributes: { kind: 'generate.video', status: 'succeeded', result: { video_url: 'x' } },
		};
		expect(readJob(jobs, job)).toMatchObject({
			id: 'job_1',
			state: 'succeeded',
			kind: 'video',
			result: { video_url: 'x' },
		});
	});

	it('reads explanations as Azure (x-ms-enum) and JSON Schema (oneOf of consts) write them, and the job by its words', async () => {
		const values = [
			{ value: 'A', description: 'Still running.' },
			{ value: 'B', description: 'Accepted, will run at its scheduled time.' },
			{ value: 'C', description: 'Cancelled by a user.' },
		];
		const azure = await job(
			object({
				uid: text(),
				state: text('', { enum: ['A', 'B', 'C'], 'x-ms-enum': { values } }),
				outcome: object({}, { description: 'The result of a finished job.' }),
				problem: object({}, { description: 'Why the job failed.' }),
			}),
		);
		expect(azure).toMatchObject({
			id: ['/uid'],
			completion: { status: ['/state'], states: { A: 'pending', B: 'scheduled', C: 'failed' } },
			result: ['/outcome'],
			error: ['/problem'],
		});
		const phase = {
			oneOf: [
				{ const: 'x', description: 'Waiting.' },
				{ const: 'y', description: 'Broke down.' },
			],
		};
		expect((await job(object({ id: text(), phase }))).completion).toEqual({
			by: 'status',
			status: ['/phase'],
			states: withBuiltIn({ x: 'pending', y: 'failed' }),
		});
	});

	it("finds media addresses where its result's properties are said to be files, at most as many as asked", async () => {
		const response = object(
			{
				mp4: text('The video file.', { format: 'uri' }),
				permalink: text('Where the post is.', { format: 'uri' }),
			},
			{ description: 'The result of the job.' },
		);
		const jobs = await job(object({ id: text(), status: text(), response }));
		expect(jobs.media).toEqual(['mp4']);
		const result = { mp4: 'https://cdn.example.com/v.mp4', permalink: 'https://x.example/p/1' };
		expect(mediaAddresses(jobs, result, 10)).toEqual(['https://cdn.example.com/v.mp4']);
		expect(mediaAddresses(jobs, { mp4: [result.mp4, `${result.mp4}?2`] }, 1)).toHaveLength(1);
	});
});

describe("a job's id", () => {
	/** The jobs part and what the reading says it did not follow of its id and status, for a job at this path. */
	async function jobAt(path: string, schema: IDataObject) {
		const profile = await read({ [path]: { get: ok(schema) } });
		return {
			id: profile.jobs.id,
			notFollowed: profile.notFollowed.filter(({ of }) =>
				['/jobs/id', '/jobs/completion/status'].includes(of ?? ''),
			),
		};
	}

	it('is the property the path names it by (Twilio-style `{Sid}`, here `{jobToken}`)', async () => {
		expect(
			await jobAt('/v1/jobs/{jobToken}', object({ jobToken: text(), status: text() })),
		).toEqual({ id: ['/jobToken'], notFollowed: [] });
	});

	it('is the read-only property described as its identifier (Google AIP-122 `name`)', async () => {
		const name = text('The server-assigned unique identifier of the operation.', {
			readOnly: true,
		});
		expect(await jobAt('/v1/jobs/{job}', object({ name, done: { type: 'boolean' } }))).toEqual({
			id: ['/name'],
			notFollowed: [],
		});
	});

	it('is said not followed where the job has none, and the built-in place stands in', async () => {
		const found = await jobAt('/v1/jobs/{id}', object({ token: text(), progress: text() }));
		expect(found.id).toEqual(['/id']);
		expect(found.notFollowed).toEqual([
			{
				part: "its jobs' id",
				of: '/jobs/id',
				why: "the job at #/paths/~1v1~1jobs~1{id}/get has no property named id, job_id, uid, uuid, gid, nor one it describes as the job's identifier (it has token, progress); the built-in /id stands in",
			},
			{
				part: "its jobs' status",
				of: '/jobs/completion/status',
				why: 'the job at #/paths/~1v1~1jobs~1{id}/get has no status, state or phase with values, nor a yes/no that says it is done (it has token, progress); the built-in /status stands in',
			},
		]);
	});
});

describe('the job an answer starts', () => {
	it('is pointed at by a 202 with a Location (Azure), or held in an envelope', async () => {
		const envelope = object({
			success: { type: 'boolean' },
			errors: { type: 'array', items: object({ code: { type: 'integer' } }) },
			result: object({ id: text(), state: text('', { enum: ['pending', 'completed'] }) }),
		});
		const accepted = { description: 'Accepted.', headers: { Location: { schema: text() } } };
		const { jobs, operations } = await read({
			'/v1/jobs/{job_id}': { get: ok(envelope) },
			'/v1/generate/video': { post: { responses: { '202': accepted } } },
		});
		const { generateVideo, getJob } = operations;
		expect(generateVideo.answer.jobs).toEqual([{ address: '/headers/location' }]);
		const location = 'https://api.example.com/v1/jobs/job%201';
		expect(
			findJob(jobs, generateVideo.answer.jobs, { body: '', headers: { location } }, getJob.path),
		).toEqual({ id: 'job 1', via: 'address' });
		const job = { id: 'j1', state: 'completed' };
		const answer = { body: { success: true, errors: [], result: job } };
		expect(findJob(jobs, getJob.answer.jobs, answer, getJob.path)).toEqual({
			id: 'j1',
			job,
			via: 'job',
		});
		expect(readJob(jobs, job).state).toBe('succeeded');
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
		const page = (body: unknown, headers = {}) => readListPage(after, { body, headers }, undefined);
		expect(page({ data: [{ id: 'we_1' }, { id: 'we_2' }], has_more: true }).next).toEqual({
			after: 'we_2',
		});
		expect(page({ data: [{ id: 'we_3' }], has_more: false }).next).toBeUndefined();
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
		// GitHub's Link header: the `rel="next"` address, and none on the last page.
		const link = (value: string) =>
			readListPage(header, { body: [{ id: 1 }], headers: { link: value } }, undefined).next;
		expect(
			link(
				'<https://api.example.com/v1/pages?page=3>; rel="next", <https://x/?page=9>; rel="last"',
			),
		).toEqual({ url: 'https://api.example.com/v1/pages?page=3' });
		expect(link('<https://api.example.com/v1/pages?page=1>; rel="prev"')).toBeUndefined();
	});

	it("reads a page token (Google), and a page number from the parameter's minimum beside a total in a meta object (which the node does not read: a total never ends a list)", async () => {
		const tokens = await list(
			[{ name: 'pageSize', schema: { type: 'integer', maximum: 50 } }, { name: 'pageToken' }],
			object({ posts: items, nextPageToken: text() }),
		);
		expect(tokens).toMatchObject({
			items: ['/body/posts'],
			paging: {
				style: 'cursor',
				size: 'pageSize',
				max: 50,
				cursor: 'pageToken',
				next: ['/body/nextPageToken'],
			},
		});
		const numbered = await list(
			[{ name: 'page', schema: { type: 'integer', minimum: 0 } }, { name: 'size' }],
			object({ data: items, meta: object({ total_count: { type: 'integer' } }) }),
		);
		expect(numbered.paging).toMatchObject({
			style: 'page',
			page: 'page',
			first: 0,
			size: 'size',
			max: 100,
		});
	});
});

describe('where an answer holds the resource', () => {
	it('is the one property holding an object with an id, beside status fields in an allOf envelope (Cloudflare)', async () => {
		const common = object({
			success: { type: 'boolean' },
			errors: { type: 'array', items: object({ code: { type: 'integer' }, message: text() }) },
			messages: { type: 'array', items: object({ message: text() }) },
		});
		const post = object({ id: text(), body: text() });
		const { answer } = (
			await read({ '/v1/posts/{id}': { get: ok({ allOf: [common, object({ result: post })] }) } })
		).operations.getPost;
		expect(answer.resource).toEqual(['/body/result']);
		const envelope = { success: true, errors: [], messages: [], result: { id: 'p1' } };
		expect(readResource(answer, envelope)).toEqual({ id: 'p1' });
	});

	it('is read by own properties only: an envelope named __proto__ never yields Object.prototype', async () => {
		const { answer } = (
			await read({
				'/v1/posts/{id}': { get: ok(object({ ['__proto__']: object({ id: text() }) })) },
			})
		).operations.getPost;
		expect(answer.resource).toEqual(['/body/__proto__']);
		expect(readResource(answer, JSON.parse('{"other": 1}'))).toEqual({ other: 1 });
		const held = readResource(answer, JSON.parse('{"__proto__": {"id": "p1"}}'));
		expect([held, Object.getPrototypeOf(held)]).toEqual([{ id: 'p1' }, Object.prototype]);
	});
});

describe("the service's errors", () => {
	it('say the first entry of an errors list in the main text, its numeric code as the code (Cloudflare)', async () => {
		const failure = object({
			success: { type: 'boolean' },
			errors: { type: 'array', items: object({ code: { type: 'integer' }, message: text() }) },
			result: { nullable: true },
		});
		const { errors } = await read({
			'/v1/me': {
				get: { responses: { '200': json(object({ id: text() })), '403': json(failure) } },
			},
		});
		const message = 'This account is not approved for API access';
		expect(
			describeError(errors, { success: false, errors: [{ code: 1403, message }], result: null }),
		).toEqual({ message, code: '1403', details: message });
	});

	it("say the first JSON:API error object's detail, else its title, and its code (Lemon Squeezy)", async () => {
		const failure = object({
			jsonapi: object({ version: text() }),
			errors: {
				type: 'array',
				items: object({ status: text(), code: text(), title: text(), detail: text() }),
			},
		});
		const { errors } = await read({
			'/v1/me': {
				get: { responses: { '200': json(object({ id: text() })), '404': json(failure) } },
			},
		});
		expect([errors.message, errors.code]).toEqual([
			['/body/errors/0/detail', '/body/errors/0/title'],
			['/body/errors/0/code'],
		]);
		const refusal = { status: '404', code: 'not_found', title: 'Not Found' };
		expect(describeError(errors, { errors: [refusal] })).toMatchObject({
			message: 'Not Found',
			code: 'not_found',
		});
		expect(
			describeError(errors, { errors: [{ ...refusal, detail: 'No post p_1.' }] }),
		).toMatchObject({ message: 'No post p_1.', code: 'not_found' });
	});

	it('name what an answer held by its members, with … only where there are more than they show', () => {
		const members = (count: number) =>
			Object.fromEntries(Array.from({ length: count }, (_, index) => [`m${index}`, index]));
		expect(heldBy(members(30))).toMatch(/^the members "m0", .*, "m29"$/);
		expect(heldBy(members(31))).toMatch(/, "m29", …$/);
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

	it('are signed over the raw body with no timestamp (GitHub), the event in a header, repeats known by the body: the id header is unsigned', async () => {
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
			id: [],
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

	it('take a delivery id only from where the document says: never an X-Delivery-Attempt header', async () => {
		const { delivery: reading, signature } = await delivery(
			[
				{ name: 'X-Signature', description: 'sha256=<hex> of the body' },
				{ name: 'X-Delivery-Attempt', description: 'How many times this was sent.' },
			],
			object({ type: text(), data: object({}) }),
		);
		expect(reading.id).toEqual([]);
		expect(signature).toMatchObject({ header: 'x-signature', prefix: 'sha256=', signed: ['body'] });
	});

	it("are signed with the node's secret where the registration takes one, never with a hint at the service's", async () => {
		const register = async (body: IDataObject, answer: IDataObject) =>
			await read({ '/v1/webhooks': { post: { requestBody: json(body), ...ok(answer) } } });
		const own = await register(
			object({ url: text(), signing_secret: text() }),
			object({ id: text(), signing_secret: text() }),
		);
		expect(own.operations.createWebhook.fields.secret.to).toBe('/body/signing_secret');
		expect(own.webhooks.secret).toEqual({ by: 'node' });
		const hint = await register(
			object({ url: text() }, { additionalProperties: false }),
			object({ id: text(), secret_last4: text('Last digits of the signing secret.') }),
		);
		expect(hint.webhooks.secret).toEqual({ by: 'none' });
		// An open body takes a `secret` only as the built-in guess: the service's documented one counts.
		const service = await register(
			object({ url: text() }),
			object({
				id: text(),
				secret: text('The secret deliveries are signed with.', { readOnly: true }),
			}),
		);
		expect(service.webhooks.secret).toEqual({ by: 'service', at: '/secret' });
	});

	it("are not read with the service's secret where the registration's address is: the built-in webhooks stand in, and why", async () => {
		const register = {
			requestBody: json(
				object(
					{ url: text('', { format: 'uri' }), events: { type: 'array', items: text() } },
					{ additionalProperties: false },
				),
			),
			...ok(object({ id: text(), url: text('The secret deliveries are signed with.') })),
		};
		const profile = await read({ '/v1/webhooks': { post: register } });
		expect(profile.webhooks).toEqual(BUILT_IN_PROFILE.webhooks);
		expect(profile.notFollowed).toEqual([
			{
				part: 'its webhooks',
				why: expect.stringMatching(
					/^its reading's \/secret\/at must not be where the registration's address/,
				),
			},
		]);
	});

	it("described as 3.0 callbacks (Standard Webhooks): the service's secret, its events by their explanations, any one of several signatures", async () => {
		const events = text('', {
			enum: ['task.run.succeeded', 'task.run.failed', 'post.went_public'],
			'x-enumDescriptions': {
				'task.run.succeeded': 'A content task finished successfully.',
				'task.run.failed': 'A content task failed.',
				'post.went_public': 'A post was published.',
			},
		});
		const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
		const callback = {
			parameters: headers.map((name) => ({ name, in: 'header', schema: text() })),
			requestBody: json(object({ type: text(), data: object({}) })),
			responses: { '200': { description: 'OK' } },
		};
		const register = {
			requestBody: json(
				object(
					{ address: text('', { format: 'uri' }), triggers: { type: 'array', items: events } },
					{ additionalProperties: false },
				),
			),
			callbacks: { succeeded: { '{$request.body#/address}': { post: callback } } },
			...ok(
				object({
					id: text(),
					secret_last4: text(),
					secret: text('The signing secret; shown in full only here.', { readOnly: true }),
				}),
			),
		};
		const { webhooks } = await read({ '/v1/webhooks': { post: register } });
		expect(webhooks).toMatchObject({
			meanings: {
				'job.completed': ['task.run.succeeded'],
				'job.failed': ['task.run.failed'],
				'post.published': ['post.went_public'],
			},
			secret: { by: 'service', at: '/secret' },
			delivery: { id: ['/headers/webhook-id'] },
		});
		expect(eventsToSend(webhooks, ['job.completed'])).toEqual(['task.run.succeeded']);

		const key = '0123456789abcdef0123456789abcdef';
		const secret = `whsec_${Buffer.from(key).toString('base64')}`;
		const body = Buffer.from('{"type":"task.run.succeeded","data":{}}');
		const timestamp = String(Math.floor(Date.now() / 1000));
		const sign = (keyText: string) =>
			createHmac('sha256', keyText).update(`msg_1.${timestamp}.`).update(body).digest('base64');
		const sent = {
			'webhook-id': 'msg_1',
			'webhook-timestamp': timestamp,
			// A rotated key, another version: one matching v1 entry suffices.
			'webhook-signature': `v1a,AAAA v1,${sign('old key')} v1,${sign(key)}`,
		};
		expect(verifyDelivery(sent, body, secret, webhooks.signature)).toEqual({ valid: true });
		const replayed = { ...sent, 'webhook-id': 'msg_2' };
		expect(verifyDelivery(replayed, body, secret, webhooks.signature).valid).toBe(false);
		expect(
			readDelivery(webhooks.delivery, { body: JSON.parse(body.toString()), headers: sent }),
		).toMatchObject({ type: 'task.run.succeeded', id: 'msg_1' });
	});
});

describe("the primary fake service's document", () => {
	it('reads back as the built-in conventions it writes out', async () => {
		const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as OpenApiDocument;
		const primary = await readProfile(document, 'primary');
		for (const profile of [BUILT_IN_PROFILE, primary]) {
			expect(profile.operations.updatePost).toMatchObject({
				method: 'PATCH',
				path: '/v1/posts/{id}',
				mediaType: 'application/json',
			});
			expect(profile.operations.updatePost.replaces).toBeUndefined();
			expect(profile.operations.listPosts.answer.paging).toMatchObject({
				style: 'cursor',
				size: 'limit',
				max: 100,
				cursor: 'cursor',
				next: ['/body/next_cursor'],
			});
			expect(profile.webhooks).toMatchObject({
				events: ['job.completed', 'job.failed', 'post.published', '*'],
				wildcard: true,
				secret: { by: 'node' },
				signature: BUILT_IN_PROFILE.webhooks.signature,
			});
			expect(profile.errors.message[0]).toBe('/body/error/message');
			expect(profile.notFollowed).toEqual([]);
		}
	});
});
