import { createHmac } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import {
	builtInContract,
	describeError,
	findField,
	findJob,
	isChosenEvent,
	eventsToSend,
	mediaAddresses,
	readDelivery,
	readJob,
	readListPage,
	readResource,
	requestBody,
	resolveContract,
	verifyDelivery,
	type Contract,
	type OpenApiDocument,
} from '../../nodes/shared/contract';
import { buildOpenApiDocument } from '../fake-service/openapi';

/**
 * How the contract reads documents that say things the fake services do not: each case is a
 * small document of its own, written the way a widely used public API writes it (named beside
 * each), so that every way of saying something is read, not only the profiles' ways.
 */
function documentWith(paths: Record<string, object>, extra: object = {}): OpenApiDocument {
	return { openapi: '3.0.3', paths, ...extra } as OpenApiDocument;
}

const json = (schema: object, more: object = {}) => ({
	description: '',
	content: { 'application/json': { schema } },
	...more,
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const query = (name: string, schema: object = { type: 'integer' }) => ({
	name,
	in: 'query',
	schema,
});

async function read(paths: Record<string, object>, extra: object = {}): Promise<Contract> {
	return await resolveContract(documentWith(paths, extra));
}

// Cloudflare's v4 envelope: every answer is `allOf` of a common part and the resource under `result`.
const cloudflare = {
	components: {
		schemas: {
			Message: {
				type: 'object',
				properties: { code: { type: 'integer', minimum: 1000 }, message: { type: 'string' } },
			},
			Common: {
				type: 'object',
				properties: {
					success: { type: 'boolean' },
					errors: { type: 'array', items: ref('Message') },
					messages: { type: 'array', items: ref('Message') },
				},
			},
			Post: {
				type: 'object',
				properties: {
					id: { type: 'string' },
					body: { type: 'string' },
					subject: { type: 'string' },
				},
			},
			PostResponse: {
				allOf: [ref('Common'), { type: 'object', properties: { result: ref('Post') } }],
			},
			PostList: {
				allOf: [
					ref('Common'),
					{
						type: 'object',
						properties: {
							result: { type: 'array', items: ref('Post') },
							result_info: { type: 'object', properties: { total_count: { type: 'integer' } } },
						},
					},
				],
			},
			Failure: {
				allOf: [ref('Common'), { type: 'object', properties: { result: { nullable: true } } }],
			},
		},
	},
};

describe('answers: the resource, wherever the document puts it', () => {
	it('finds the resource beside status fields in an allOf envelope (Cloudflare), and the list beside an errors array', async () => {
		const contract = await read(
			{
				'/v1/posts/{post_id}': {
					get: { responses: { '200': json(ref('PostResponse')), '4XX': json(ref('Failure')) } },
				},
				'/v1/posts': {
					get: {
						parameters: [query('page'), query('per_page', { type: 'integer', maximum: 50 })],
						responses: { '200': json(ref('PostList')) },
					},
				},
			},
			cloudflare,
		);
		const post = { id: 'p1', body: 'Hi' };
		expect(
			readResource(contract.endpoints.getPost, {
				success: true,
				errors: [],
				messages: [],
				result: post,
			}),
		).toEqual(post);
		const page = readListPage(
			contract.endpoints.listPosts,
			{
				success: true,
				errors: [{ code: 1, message: 'x' }],
				messages: [],
				result: [post],
				result_info: { total_count: 1 },
			},
			{},
			undefined,
		);
		expect(page.items).toEqual([post]);
		expect(page.total).toBe(1);
		expect(contract.endpoints.listPosts.paging).toMatchObject({
			style: 'page',
			page: 'page',
			size: 'per_page',
			max: 50,
		});
	});

	it('reads only own properties: an envelope named __proto__ never yields Object.prototype', async () => {
		const contract = await read({
			'/v1/posts/{id}': {
				get: {
					responses: {
						'200': json({
							type: 'object',
							properties: {
								['__proto__']: { type: 'object', properties: { id: { type: 'string' } } },
							},
						}),
					},
				},
			},
		});
		expect(readResource(contract.endpoints.getPost, JSON.parse('{"other": 1}'))).toEqual({
			other: 1,
		});
		const item = JSON.parse('{"__proto__": {"id": "p1"}}') as object;
		expect(Object.getPrototypeOf(readResource(contract.endpoints.getPost, item))).toBe(
			Object.prototype,
		);
	});
});

describe('paging, read from parameters, answers and response headers', () => {
	it('follows a next link given only in a documented Link response header (GitHub)', async () => {
		const contract = await read({
			'/v1/pages': {
				get: {
					parameters: [query('page'), query('per_page')],
					responses: {
						'200': json(
							{ type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } },
							{ headers: { Link: { schema: { type: 'string' } } } },
						),
					},
				},
			},
		});
		const endpoint = contract.endpoints.listPages;
		expect(endpoint.paging.style).toBe('link');
		const link =
			'<https://api.example.com/v1/pages?page=3&per_page=2>; rel="next", <https://api.example.com/v1/pages?page=9>; rel="last"';
		expect(readListPage(endpoint, [{ id: 1 }], { link }, undefined).next).toEqual({
			url: 'https://api.example.com/v1/pages?page=3&per_page=2',
		});
		expect(
			readListPage(
				endpoint,
				[{ id: 1 }],
				{ link: '<https://api.example.com/v1/pages?page=1>; rel="prev"' },
				undefined,
			).next,
		).toBeUndefined();
	});

	it('reads has_more with the last id as the cursor (Stripe)', async () => {
		const contract = await read({
			'/v1/webhooks': {
				get: {
					parameters: [query('limit'), query('starting_after', { type: 'string' })],
					responses: {
						'200': json({
							type: 'object',
							properties: {
								data: {
									type: 'array',
									items: { type: 'object', properties: { id: { type: 'string' } } },
								},
								has_more: { type: 'boolean' },
							},
						}),
					},
				},
			},
		});
		const endpoint = contract.endpoints.listWebhooks;
		expect(endpoint.paging).toMatchObject({
			style: 'after',
			cursor: 'starting_after',
			more: ['has_more'],
		});
		expect(
			readListPage(
				endpoint,
				{ data: [{ id: 'we_1' }, { id: 'we_2' }], has_more: true },
				{},
				undefined,
			).next,
		).toEqual({ after: 'we_2' });
		expect(
			readListPage(endpoint, { data: [{ id: 'we_3' }], has_more: false }, {}, undefined).next,
		).toBeUndefined();
	});

	it('reads a page token (Google), and a page number from its minimum with a total inside a meta object', async () => {
		const tokens = await read({
			'/v1/posts': {
				get: {
					parameters: [
						query('pageSize', { type: 'integer', maximum: 50 }),
						query('pageToken', { type: 'string' }),
					],
					responses: {
						'200': json({
							type: 'object',
							properties: {
								posts: {
									type: 'array',
									items: {
										type: 'object',
										properties: { name: { type: 'string' }, id: { type: 'string' } },
									},
								},
								nextPageToken: { type: 'string' },
							},
						}),
					},
				},
			},
		});
		expect(tokens.endpoints.listPosts.paging).toEqual({
			style: 'cursor',
			size: 'pageSize',
			max: 50,
			cursor: 'pageToken',
			next: [{ in: 'body', path: ['nextPageToken'] }],
		});
		expect(tokens.endpoints.listPosts.answer.items).toEqual([['posts']]);
		const pages = await read({
			'/v1/pages': {
				get: {
					parameters: [query('page', { type: 'integer', minimum: 0 }), query('size')],
					responses: {
						'200': json({
							type: 'object',
							properties: {
								data: { type: 'array', items: {} },
								meta: { type: 'object', properties: { total_count: { type: 'integer' } } },
							},
						}),
					},
				},
			},
		});
		expect(pages.endpoints.listPages.paging).toEqual({
			style: 'page',
			size: 'size',
			page: 'page',
			first: 0,
			total: ['meta', 'total_count'],
			max: 100,
		});
	});
});

describe('requests', () => {
	it('sends the request media type the document declares (merge-patch), and spells values as explained', async () => {
		const contract = await read({
			'/v1/posts/{post_id}': {
				patch: {
					requestBody: {
						content: {
							'application/merge-patch+json': {
								schema: {
									type: 'object',
									additionalProperties: false,
									properties: {
										body: { type: 'string', description: 'What the post says.' },
										publication: {
											type: 'string',
											description: 'Where the post stands.',
											enum: ['draft', 'future', 'publish'],
											'x-enumDescriptions': {
												draft: 'Not visible.',
												future: 'Scheduled: goes out at publish_on.',
												publish: 'Published and visible.',
											},
										},
										categories: {
											type: 'array',
											items: { type: 'string' },
											description: 'Tags of the post.',
										},
									},
								},
							},
						},
					},
					responses: { '200': json({ type: 'object', properties: { id: { type: 'string' } } }) },
				},
			},
		});
		expect(contract.endpoints.updatePost).toMatchObject({
			method: 'PATCH',
			mediaType: 'application/merge-patch+json',
		});
		expect(
			requestBody(contract, 'updatePost', { content: 'Hi', status: 'scheduled', tags: 'a, b' }),
		).toEqual({ body: 'Hi', publication: 'future', categories: ['a', 'b'] });
		expect(requestBody(contract, 'updatePost', { status: 'published' })).toEqual({
			publication: 'publish',
		});
	});

	it('finds a field by name, by case style, by the words of its name or description, and only of a fitting type', () => {
		const shape = {
			properties: new Map<string, IDataObject>([
				['body', { type: 'string', description: 'What the post says.' }],
				['heading', { type: 'string', description: 'Title shown above the post.' }],
				[
					'publish_on',
					{ type: 'string', format: 'date-time', description: 'When a scheduled post goes out.' },
				],
				['count', { type: 'integer' }],
			]),
		};
		expect(findField(shape, 'content', 'text')).toBe('body');
		expect(findField(shape, 'title', 'text')).toBe('heading');
		expect(findField(shape, 'scheduledAt', '2026-01-01T00:00:00Z')).toBe('publish_on');
		expect(
			findField({ properties: new Map<string, IDataObject>([['pageId', {}]]) }, 'pageId', 'p1'),
		).toBe('pageId');
		expect(findField(shape, 'title', 3)).toBeUndefined();
	});

	it('fails a field a closed schema has no place for, naming the fields it lists', async () => {
		const contract = await read({
			'/v1/posts': {
				post: {
					requestBody: json({
						type: 'object',
						additionalProperties: false,
						properties: { text: { type: 'string' } },
					}),
					responses: { '201': json({}) },
				},
			},
		});
		expect(() => requestBody(contract, 'createPost', { content: 'Hi', tags: ['a'] })).toThrow(
			'The service takes no "tags" in POST /v1/posts',
		);
	});

	it('names its paths relative to the servers URL (Cloudflare, Box)', async () => {
		const contract = await resolveContract({
			openapi: '3.0.3',
			servers: [{ url: 'https://api.example.com/v1' }],
			paths: {
				'/posts/{post_id}': {
					put: {
						requestBody: json({
							type: 'object',
							required: ['body'],
							properties: { body: { type: 'string' } },
						}),
						responses: { '200': json({}) },
					},
				},
			},
		} as OpenApiDocument);
		expect(contract.endpoints.updatePost).toMatchObject({
			method: 'PUT',
			documented: true,
			replaces: true,
		});
	});
});

describe('jobs', () => {
	async function jobsOf(job: object) {
		return (await read({ '/v1/jobs/{job}': { get: { responses: { '200': json(job) } } } })).jobs;
	}

	it('reads what each status means wherever the document explains it: x-enum-descriptions, x-ms-enum, oneOf of consts, a description', async () => {
		const explained = await jobsOf({
			type: 'object',
			properties: {
				uid: { type: 'string' },
				state: {
					type: 'string',
					enum: ['NEW', 'BUSY', 'OK', 'KO', 'STOPPED', 'LATER'],
					'x-enum-descriptions': [
						'Accepted, not started yet',
						'In progress',
						'Finished successfully',
						'The job failed',
						'Cancelled by a user',
						'Accepted, will run at its scheduled time',
					],
				},
				outcome: { type: 'object', description: 'The result of a finished job.' },
				problem: { type: 'object', description: 'Why the job failed.' },
			},
		});
		expect(explained).toMatchObject({
			id: [['uid']],
			status: [['state']],
			result: [['outcome']],
			error: [['problem']],
			states: {
				NEW: 'pending',
				BUSY: 'pending',
				OK: 'succeeded',
				KO: 'failed',
				STOPPED: 'failed',
				LATER: 'scheduled',
			},
		});
		const azure = await jobsOf({
			type: 'object',
			properties: {
				id: { type: 'string' },
				status: {
					type: 'string',
					enum: ['A', 'B'],
					'x-ms-enum': {
						values: [
							{ value: 'A', description: 'Still running.' },
							{ value: 'B', description: 'Done.' },
						],
					},
				},
			},
		});
		expect(azure.states).toEqual({ A: 'pending', B: 'succeeded' });
		const consts = await jobsOf({
			type: 'object',
			properties: {
				id: { type: 'string' },
				phase: {
					oneOf: [
						{ const: 'x', description: 'Waiting.' },
						{ const: 'y', description: 'Broke down.' },
					],
				},
			},
		});
		expect(consts.states).toEqual({ x: 'pending', y: 'failed' });
		const prose = await jobsOf({
			type: 'object',
			properties: {
				id: { type: 'string' },
				status: {
					type: 'string',
					enum: ['w', 'r'],
					description: '`w`: waiting to start\n`r`: ready',
				},
			},
		});
		expect(prose.states).toEqual({ w: 'pending', r: 'succeeded' });
	});

	it('finds a job started by 202 with only a Location (Azure), and one held in an envelope', async () => {
		const contract = await read(
			{
				'/v1/jobs/{job_id}': {
					get: {
						responses: {
							'200': json({
								allOf: [ref('Common'), { type: 'object', properties: { result: ref('Job') } }],
							}),
						},
					},
				},
				'/v1/generate/video': {
					post: {
						responses: {
							'202': {
								description: 'Accepted.',
								headers: { Location: { schema: { type: 'string' } } },
							},
						},
					},
				},
			},
			{
				components: {
					schemas: {
						...cloudflare.components.schemas,
						Job: {
							type: 'object',
							properties: {
								id: { type: 'string' },
								state: { type: 'string', enum: ['pending', 'completed'] },
							},
						},
					},
				},
			},
		);
		expect(
			findJob(contract.jobs, contract.endpoints.generateVideo.answer.jobs, undefined, {
				location: 'https://api.example.com/v1/jobs/job%201',
			}),
		).toEqual({ id: 'job 1', via: 'location' });
		const job = { id: 'j1', state: 'completed' };
		expect(
			findJob(contract.jobs, contract.endpoints.getJob.answer.jobs, {
				success: true,
				errors: [],
				messages: [],
				result: job,
			}),
		).toEqual({ id: 'j1', job, via: 'job' });
		expect(readJob(contract.jobs, job).state).toBe('succeeded');
	});

	it('finds media addresses where the result schema says they are, within a bound', async () => {
		const contract = await read({
			'/v1/jobs/{id}': {
				get: {
					responses: {
						'200': json({
							type: 'object',
							properties: {
								id: { type: 'string' },
								status: { type: 'string' },
								response: {
									type: 'object',
									description: 'The result of the job.',
									properties: {
										mp4: { type: 'string', format: 'uri', description: 'The video file.' },
										permalink: { type: 'string', format: 'uri', description: 'Where the post is.' },
									},
								},
							},
						}),
					},
				},
			},
		});
		const result = {
			mp4: 'https://cdn.example.com/v.mp4',
			permalink: 'https://social.example.com/p/1',
		};
		expect(mediaAddresses(contract.jobs, result, 10)).toEqual(['https://cdn.example.com/v.mp4']);
	});
});

describe('errors', () => {
	it('says the first entry of an errors array with a numeric code in the main text (Cloudflare)', async () => {
		const contract = await read(
			{
				'/v1/me': {
					get: {
						responses: {
							'200': json({}),
							'403': json(ref('Failure')),
							'404': json(ref('Failure')),
						},
					},
				},
			},
			cloudflare,
		);
		expect(
			describeError(contract.errors, {
				success: false,
				errors: [{ code: 1403, message: 'This account is not approved for API access' }],
				messages: [],
				result: null,
			}),
		).toEqual({
			message: 'This account is not approved for API access',
			code: '1403',
			details: 'This account is not approved for API access',
		});
	});
});

describe('webhooks', () => {
	// Standard Webhooks, described the OpenAPI 3.0 way: as callbacks of the operation that registers one.
	const standard = {
		'/v1/webhooks': {
			post: {
				requestBody: json({
					type: 'object',
					properties: {
						address: { type: 'string', format: 'uri' },
						triggers: {
							type: 'array',
							items: {
								type: 'string',
								enum: ['task.run.succeeded', 'task.run.failed', 'post.went_public'],
								'x-enumDescriptions': {
									'task.run.succeeded': 'A content task finished successfully.',
									'task.run.failed': 'A content task failed.',
									'post.went_public': 'A post was published.',
								},
							},
						},
					},
				}),
				responses: {
					'200': json({
						type: 'object',
						properties: {
							id: { type: 'string' },
							secret: {
								type: 'string',
								readOnly: true,
								description: 'The signing secret; shown in full only here.',
							},
							secret_last4: { type: 'string' },
						},
					}),
				},
				callbacks: {
					succeeded: {
						'{$request.body#/address}': {
							post: {
								parameters: [
									{ name: 'webhook-id', in: 'header', schema: { type: 'string' } },
									{ name: 'webhook-timestamp', in: 'header', schema: { type: 'string' } },
									{ name: 'webhook-signature', in: 'header', schema: { type: 'string' } },
								],
								requestBody: json({
									type: 'object',
									properties: {
										type: { type: 'string' },
										timestamp: { type: 'string', format: 'date-time' },
										data: { type: 'object' },
									},
								}),
								responses: { '200': { description: 'ok' } },
							},
						},
					},
				},
			},
		},
	};

	it('reads 3.0 callbacks: events, who makes the secret, and the Standard Webhooks signature', async () => {
		const { webhooks } = await read(standard);
		expect(webhooks.events).toEqual(['task.run.succeeded', 'task.run.failed', 'post.went_public']);
		expect(webhooks.meanings).toEqual({
			'job.completed': ['task.run.succeeded'],
			'job.failed': ['task.run.failed'],
			'post.published': ['post.went_public'],
		});
		expect(eventsToSend(webhooks, ['job.completed'])).toEqual(['task.run.succeeded']);
		expect(isChosenEvent(webhooks, ['job.completed'], 'task.run.succeeded')).toBe(true);
		expect(webhooks.secret).toEqual({ answered: { path: ['secret'], pattern: undefined } });
		expect(webhooks.signature).toMatchObject({
			format: 'standard',
			encoding: 'base64',
			signed: ['id', 'timestamp', 'body'],
			secretEncoding: 'whsec',
		});
		expect(webhooks.delivery.id).toEqual([{ in: 'header', name: 'webhook-id' }]);

		const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
		const body = Buffer.from('{"type":"task.run.succeeded","data":{}}');
		const timestamp = String(Math.floor(Date.now() / 1000));
		const sign = (key: Buffer) =>
			createHmac('sha256', key).update(`msg_1.${timestamp}.`).update(body).digest('base64');
		const headers = {
			'webhook-id': 'msg_1',
			'webhook-timestamp': timestamp,
			// Several signatures (a rotated key, another version): one matching v1 entry suffices.
			'webhook-signature': `v1a,AAAA v1,${sign(Buffer.from('old key'))} v1,${sign(Buffer.from('0123456789abcdef0123456789abcdef'))}`,
		};
		expect(verifyDelivery(headers, body, secret, webhooks.signature)).toEqual({ valid: true });
		expect(
			verifyDelivery({ ...headers, 'webhook-id': 'msg_2' }, body, secret, webhooks.signature).valid,
		).toBe(false);
		expect(readDelivery(webhooks.delivery, JSON.parse(body.toString()), headers)).toMatchObject({
			type: 'task.run.succeeded',
			id: 'msg_1',
		});
	});

	it('takes a delivery id header only where the document names one: never X-Delivery-Attempt', async () => {
		const delivery = (headers: object[]) => ({
			webhooks: {
				'job.completed': {
					post: {
						parameters: headers,
						requestBody: json({
							type: 'object',
							properties: { type: { type: 'string' }, data: { type: 'object' } },
						}),
						responses: { '200': { description: '' } },
					},
				},
			},
			openapi: '3.1.0',
		});
		const signature = {
			name: 'X-Signature',
			in: 'header',
			description: 'sha256=<hex> of the body',
			schema: { type: 'string' },
		};
		const attempt = await read(
			{},
			delivery([
				signature,
				{
					name: 'X-Delivery-Attempt',
					in: 'header',
					description: 'How many times this was sent.',
					schema: { type: 'integer' },
				},
			]),
		);
		expect(attempt.webhooks.delivery.id).toEqual([]);
		const github = await read(
			{},
			delivery([
				signature,
				{
					name: 'X-GitHub-Delivery',
					in: 'header',
					description: 'A globally unique identifier (GUID) to identify the event.',
					schema: { type: 'string' },
				},
			]),
		);
		expect(github.webhooks.delivery.id).toEqual([{ in: 'header', name: 'x-github-delivery' }]);
		expect(github.webhooks.signature).toMatchObject({
			header: 'x-signature',
			format: 'prefixed',
			prefix: 'sha256=',
			signed: ['body'],
		});
	});

	it('makes its own secret wherever the registration takes one, and never takes a hint at the secret for it', async () => {
		const hint = await read({
			'/v1/webhooks': {
				post: {
					requestBody: json({ type: 'object', properties: { url: { type: 'string' } } }),
					responses: {
						'201': json({
							type: 'object',
							properties: {
								id: { type: 'string' },
								secret_last4: { type: 'string', description: 'Last digits of the signing secret.' },
							},
						}),
					},
				},
			},
		});
		expect(hint.webhooks.secret).toEqual({});
		const own = await read({
			'/v1/webhooks': {
				post: {
					requestBody: json({
						type: 'object',
						properties: { url: { type: 'string' }, signing_secret: { type: 'string' } },
					}),
					responses: {
						'201': json({
							type: 'object',
							properties: { id: { type: 'string' }, signing_secret: { type: 'string' } },
						}),
					},
				},
			},
		});
		expect(own.webhooks.secret).toEqual({ sent: 'signing_secret' });
	});
});

describe("the built-in document and the primary fake service's", () => {
	it("read today's conventions back", async () => {
		for (const contract of [
			await builtInContract(),
			await resolveContract(
				buildOpenApiDocument('http://127.0.0.1:1') as unknown as OpenApiDocument,
			),
		]) {
			expect(contract.endpoints.updatePost).toMatchObject({
				method: 'PATCH',
				path: '/v1/posts/{id}',
				replaces: false,
				mediaType: 'application/json',
			});
			expect(contract.endpoints.listPosts.paging).toEqual({
				style: 'cursor',
				size: 'limit',
				cursor: 'cursor',
				next: [{ in: 'body', path: ['next_cursor'] }],
				max: 100,
			});
			expect(contract.webhooks).toMatchObject({
				events: ['job.completed', 'job.failed', 'post.published', '*'],
				wildcard: true,
				secret: { sent: 'secret' },
				signature: {
					format: 'prefixed',
					prefix: 'sha256=',
					header: 'x-content-publishing-signature',
					timestampHeader: 'x-content-publishing-timestamp',
					signed: ['timestamp', 'body'],
				},
			});
			expect(contract.errors.message[0]).toEqual(['error', 'message']);
			expect(contract.notice).toBeUndefined();
		}
	});
});
