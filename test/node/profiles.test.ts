import type { IDataObject } from 'n8n-workflow';

import type { FakeServiceOptions } from '../fake-service';
import { overrideExamples } from '../support/docs';
import { byId, FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';
import {
	contentPublishingNode,
	deliver,
	listSearch,
	loadOptions,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
} from '../support/n8n-engine';

/**
 * Every operation against services that follow the spec with different conventions: the primary
 * profile, the alternate one (enveloped camelCase answers, PUT updates, page/offset/link paging,
 * problem+json errors, other job states and events, t=/v1= signatures), and a service without an
 * OpenAPI document. The node knows neither profile; it reads the alternate's conventions from its
 * document. The service's state is checked in its own (canonical) terms, the output in the
 * profile's.
 */
interface Case {
	options: Pick<FakeServiceOptions, 'profile' | 'openApiDocument'>;
	/** The service's names, as the node outputs them. */
	names: {
		text: string;
		title: string;
		jobId: string;
		jobStatus: string;
		result: string;
		url: string;
		events: string;
	};
	/** `offered`: the events the service lists, where they are not what `*` subscribes to (per resource). */
	events: { completed: string; all: string[]; offered?: string[] };
	/** The job's state when it succeeded: its status, or a completion flag's value. */
	succeeded: string | boolean;
	/** The text-search parameter of the pages list, where the document names one. */
	search?: string;
	/** Generations the service answers at once, with no job. */
	sync?: string[];
	/** The credential's Profile Overrides. */
	overrides?: string;
	/** A part of the document the node cannot follow (the overrides say it instead), as its hint names it. */
	notFollowed?: string;
	errorCode: RegExp;
}

const primary: Case = {
	options: { profile: 'primary' },
	names: {
		text: 'content',
		title: 'title',
		jobId: 'id',
		jobStatus: 'status',
		result: 'result',
		url: 'url',
		events: 'events',
	},
	events: { completed: 'job.completed', all: ['*'] },
	succeeded: 'succeeded',
	search: 'q',
	errorCode: /^Error code: not_found\./,
};

const alternate: Case = {
	options: { profile: 'alternate' },
	names: {
		text: 'text',
		title: 'headline',
		jobId: 'jobId',
		jobStatus: 'phase',
		result: 'output',
		url: 'callbackUrl',
		events: 'topics',
	},
	events: { completed: 'JOB_READY', all: ['JOB_READY', 'JOB_BROKEN', 'POST_LIVE'] },
	succeeded: 'READY',
	errorCode: /^Error code: not-found\./,
};

// JSON:API 1.1 as Lemon Squeezy's API, events per resource as GitHub's: see jsonapi-document.ts.
const jsonapi: Case = {
	options: { profile: 'jsonapi' },
	names: {
		text: 'attributes.content',
		title: 'attributes.title',
		jobId: 'id',
		jobStatus: 'attributes.status',
		result: 'attributes.result',
		url: 'attributes.url',
		events: 'attributes.events',
	},
	events: { completed: 'job', all: ['*'], offered: ['job', 'post'] },
	succeeded: 'succeeded',
	search: 'filter[name]',
	// docs/service.md's JSON:API example: the constants, relationships and job places it needs.
	overrides: overrideExamples()[2],
	errorCode: /^Error code: not_found\./,
};

const cases: Array<[string, Case]> = [
	['primary profile', primary],
	['alternate profile', alternate],
	[
		// Cloudflare's envelope, GitHub's Link paging, Stripe's has_more, Azure's 202 + Location, Standard Webhooks: see envelope.ts.
		'envelope profile (OpenAPI 3.0, conventions of real APIs)',
		{
			options: { profile: 'envelope' },
			names: {
				text: 'body',
				title: 'subject',
				jobId: 'id',
				jobStatus: 'state',
				result: 'response',
				url: 'address',
				events: 'triggers',
			},
			events: {
				completed: 'task.run.succeeded',
				all: ['task.run.succeeded', 'task.run.failed', 'post.went_public'],
			},
			succeeded: 'completed',
			search: 'search',
			sync: ['generateLinkedin', 'generateTwitter'],
			errorCode: /^Error code: 1404\./,
		},
	],
	[
		// Replicate's input, Box references, Stripe's update by POST, Google's operations, Slack's cursors, GitHub's webhooks: see nested.ts.
		'nested profile (OpenAPI 3.0, nested fields and other conventions of real APIs)',
		{
			options: { profile: 'nested' },
			names: {
				text: 'content',
				title: 'title',
				jobId: 'id',
				jobStatus: 'done',
				result: 'response',
				url: 'config.url',
				events: 'events',
			},
			events: {
				completed: 'generation.succeeded',
				all: ['generation.succeeded', 'generation.failed', 'post.published'],
			},
			succeeded: true,
			errorCode: /^Error code: 404\./,
		},
	],
	[
		// The second worked example of docs/service.md, as written there.
		"alternate profile without its document, with the documentation's Profile Overrides",
		{
			...alternate,
			options: { profile: 'alternate', openApiDocument: false },
			overrides: overrideExamples()[1],
		},
	],
	[
		"jsonapi profile (JSON:API 1.1 as Lemon Squeezy's), with the documentation's Profile Overrides",
		jsonapi,
	],
	[
		// Its document says all the overrides of docs/service.md do: the node needs none of them.
		'jsonapi profile, with its document and no Profile Overrides',
		{ ...jsonapi, overrides: undefined },
	],
	[
		"jsonapi profile without its document, with the documentation's Profile Overrides",
		{
			...jsonapi,
			search: undefined,
			options: { profile: 'jsonapi', openApiDocument: false },
		},
	],
	[
		'service without a document (built-in conventions)',
		{ ...primary, search: undefined, options: { profile: 'primary', openApiDocument: false } },
	],
];

/** A value at a dotted path of an output (`config.url`). */
function at(value: IDataObject, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>((current, key) => (current as IDataObject | undefined)?.[key], value);
}

describe.each(cases)(
	'%s',
	(
		_name,
		{ options, names, events, succeeded, search, sync = [], errorCode, overrides, notFollowed },
	) => {
		const harness = useFakeService(options);
		beforeAll(() => {
			harness.credentials.profileOverrides = overrides;
		});
		const wait = { options: FAST_WAIT };

		/** The reads of a list, whichever operation id the profile gives it. */
		function listReads(resource: string) {
			return harness.service.requests.filter(
				(request) =>
					request.method === 'GET' && new RegExp(`^/v1/${resource}(\\?|$)`).test(request.path),
			);
		}

		async function createPost(fields: IDataObject = {}): Promise<IDataObject> {
			const [post] = jsonOf(
				await harness.run({
					resource: 'post',
					operation: 'create',
					content: 'Hello from n8n',
					status: 'draft',
					...fields,
				}),
			);
			return post;
		}

		it('gets the account and pages, with Return All and Limit across pages', async () => {
			const result = await harness.run({ resource: 'account', operation: 'get' });
			expect(jsonOf(result)[0].id).toBe(harness.service.account.id);
			// Where the built-in conventions stand in for a document, the output panel says so.
			const hints = Object.values(result.run.data.resultData.runData)[0][0].hints ?? [];
			expect(hints.map((hint) => hint.message)).toEqual(
				options.openApiDocument === false
					? [
							'The service has no OpenAPI document at /v1/openapi.json (HTTP 404), so the node used its built-in conventions. Service → Describe shows the profile in use.',
						]
					: notFollowed === undefined
						? []
						: [expect.stringContaining(notFollowed)],
			);

			const all = jsonOf(
				await harness.run({ resource: 'page', operation: 'getMany', returnAll: true }),
			);
			expect(all.map((page) => page.id)).toEqual([...harness.service.pages.keys()]);
			const some = jsonOf(
				await harness.run({ resource: 'page', operation: 'getMany', returnAll: false, limit: 3 }),
			);
			expect(some.map((page) => page.id)).toEqual([...harness.service.pages.keys()].slice(0, 3));

			const pageId = [...harness.service.pages.keys()][1];
			const [page] = jsonOf(
				await harness.run({ resource: 'page', operation: 'get', pageId: byId('id', pageId) }),
			);
			expect(page.id).toBe(pageId);

			// What the document says of its jobs is followed, or the overrides say it.
			const [described] = jsonOf(await harness.run({ resource: 'service', operation: 'describe' }));
			expect(JSON.stringify(described.notFollowed)).not.toContain("its jobs'");
		});

		it('creates, gets, updates, lists and deletes posts', async () => {
			const pageId = [...harness.service.pages.keys()][0];
			const created = await createPost({
				additionalFields: { title: 'Launch', tags: 'a, b', pageId },
			});
			const stored = harness.service.posts.get(String(created.id));
			expect(stored).toMatchObject({
				content: 'Hello from n8n',
				title: 'Launch',
				tags: ['a', 'b'],
				page_id: pageId,
				status: 'draft',
			});
			expect(at(created, names.text)).toBe('Hello from n8n');

			const [got] = jsonOf(
				await harness.run({
					resource: 'post',
					operation: 'get',
					postId: byId('id', String(created.id)),
				}),
			);
			expect(at(got, names.title)).toBe('Launch');

			// Only the title changes; a service that updates by replacing keeps the rest as it was.
			const [updated] = jsonOf(
				await harness.run({
					resource: 'post',
					operation: 'update',
					postId: byId('id', String(created.id)),
					updateFields: { title: 'Launch day' },
				}),
			);
			expect(at(updated, names.title)).toBe('Launch day');
			expect(harness.service.posts.get(String(created.id))).toMatchObject({
				title: 'Launch day',
				content: 'Hello from n8n',
				tags: ['a', 'b'],
				page_id: pageId,
			});

			for (let index = 0; index < 4; index++)
				await createPost({ status: index % 2 === 0 ? 'published' : 'draft' });
			const drafts = jsonOf(
				await harness.run({
					resource: 'post',
					operation: 'getMany',
					returnAll: true,
					filters: { status: 'draft' },
				}),
			);
			const draftIds = [...harness.service.posts.values()]
				.filter((post) => post.status === 'draft')
				.map((post) => post.id);
			expect(drafts.map((post) => post.id)).toEqual(draftIds);
			const three = jsonOf(
				await harness.run({ resource: 'post', operation: 'getMany', returnAll: false, limit: 3 }),
			);
			expect(three.map((post) => post.id)).toEqual([...harness.service.posts.keys()].slice(0, 3));

			const [deleted] = jsonOf(
				await harness.run({
					resource: 'post',
					operation: 'delete',
					postId: byId('id', String(created.id)),
				}),
			);
			expect(deleted).toMatchObject({ id: created.id, deleted: true });
			expect(harness.service.posts.has(String(created.id))).toBe(false);
		});

		it("finds posts, pages and webhooks by list search beyond the first page, labelled in the service's fields", async () => {
			// Pages of 2: the one match is on the fourth page.
			for (const filler of ['One', 'Two', 'Three', 'Four', 'Five', 'Six'])
				await createPost({ content: `Filler ${filler}` });
			const target = await createPost({
				content: 'The needle in the haystack',
				additionalFields: { title: 'Needle' },
			});
			const node = contentPublishingNode({ resource: 'post', operation: 'get' });
			const found = await listSearch(node, 'searchPosts', harness.credentials, 'needle');
			expect(found.results).toEqual([
				{ name: `Needle (${names.text === 'text' ? 'DRAFT' : 'draft'})`, value: String(target.id) },
			]);
			expect(listReads('posts').length).toBeGreaterThanOrEqual(4);

			// Pages: the primary profile documents a search parameter (`q`), so the service searches.
			const last = [...harness.service.pages.values()].at(-1)!;
			const before = listReads('pages').length;
			const pages = await listSearch(node, 'searchPages', harness.credentials, last.name.slice(-5));
			expect(pages.results.map((entry) => entry.value)).toContain(last.id);
			const searched = listReads('pages').slice(before);
			// Where the document names a search parameter (`q`, `search`), the service searches; else the node filters pages.
			expect(searched.map((request) => request.query[search ?? 'q'])).toEqual(
				search ? [last.name.slice(-5)] : searched.map(() => undefined),
			);

			await harness.run({
				resource: 'webhook',
				operation: 'create',
				url: 'https://hooks.example.com/needle',
				events: [events.completed],
			});
			const hooks = await listSearch(node, 'searchWebhooks', harness.credentials, 'needle');
			expect(hooks.results).toEqual([
				expect.objectContaining({ name: `https://hooks.example.com/needle (${events.completed})` }),
			]);
		});

		it('generates every kind of content and waits for the jobs', async () => {
			const [blog] = jsonOf(
				await harness.run({
					resource: 'content',
					operation: 'generateBlog',
					transcript: 'We shipped the new editor. It is fast. Users love it.',
					additionalFields: { title: 'Editor', length: 'short', tone: 'friendly', language: 'en' },
					...wait,
				}),
			);
			expect(at(blog, names.jobStatus)).toBe(succeeded);
			const blogJob = harness.service.jobs.get(String(at(blog, names.jobId)));
			expect(blogJob).toMatchObject({
				type: 'generate.blog',
				status: 'succeeded',
				result: expect.objectContaining({ title: 'Editor' }),
			});

			const kinds: Array<[string, Record<string, string | number>, (result: IDataObject) => void]> =
				[
					[
						'generateLinkedin',
						{},
						(result) => expect(String(result.content)).toContain('Announce'),
					],
					[
						'generateTwitter',
						{ threadLength: 4 },
						(result) => expect(result.tweets).toHaveLength(4),
					],
					[
						'generateCarousel',
						{ slideCount: 3 },
						(result) => expect(result.slides).toHaveLength(3),
					],
					[
						'generateVideo',
						{ durationSeconds: 15, aspectRatio: '9:16' },
						(result) =>
							expect(result).toMatchObject({ duration_seconds: 15, aspect_ratio: '9:16' }),
					],
				];
			for (const [operation, additionalFields, check] of kinds) {
				const [output] = jsonOf(
					await harness.run({
						resource: 'content',
						operation,
						prompt: 'Announce the editor.',
						additionalFields,
						...wait,
					}),
				);
				if (sync.includes(operation)) {
					// A generation the service answers at once: its content is the output, with no job to wait for.
					expect({ operation, status: at(output, names.jobStatus) }).toEqual({
						operation,
						status: undefined,
					});
					check([...harness.service.jobs.values()].at(-1)?.result as IDataObject);
					continue;
				}
				expect({ operation, status: at(output, names.jobStatus) }).toEqual({
					operation,
					status: succeeded,
				});
				expect(at(output, names.result)).toEqual(expect.any(Object));
				check(harness.service.jobs.get(String(at(output, names.jobId)))?.result as IDataObject);
			}
		});

		it('publishes a post and a text, and gets and waits for jobs', async () => {
			const post = await createPost();
			const [fromPost] = jsonOf(
				await harness.run({
					resource: 'publication',
					operation: 'publishLinkedin',
					source: 'post',
					postId: byId('id', String(post.id)),
					...wait,
				}),
			);
			expect(at(fromPost, names.jobStatus)).toBe(succeeded);
			expect(harness.service.posts.get(String(post.id))?.status).toBe('published');
			const [fromText] = jsonOf(
				await harness.run({
					resource: 'publication',
					operation: 'publishTwitter',
					source: 'text',
					text: 'Straight out',
					...wait,
				}),
			);
			expect(harness.service.jobs.get(String(at(fromText, names.jobId)))?.status).toBe('succeeded');

			const job = harness.service.startJob('generate.linkedin', { prompt: 'Later' });
			const [got] = jsonOf(await harness.run({ resource: 'job', operation: 'get', jobId: job.id }));
			expect(at(got, names.jobId)).toBe(job.id);
			const [waited] = jsonOf(
				await harness.run({ resource: 'job', operation: 'wait', jobId: job.id, ...wait }),
			);
			expect(at(waited, names.jobStatus)).toBe(succeeded);

			harness.service.setJobPlan({ outcome: 'failed' });
			const failing = harness.service.startJob('generate.video', { prompt: 'Doomed' });
			const result = await harness.run({
				resource: 'job',
				operation: 'wait',
				jobId: failing.id,
				...wait,
			});
			expect(result.error?.message).toBe(
				`Job ${failing.id} failed: The model could not produce content for this input`,
			);
		});

		it('creates, gets, updates, lists and deletes webhooks', async () => {
			const [created] = jsonOf(
				await harness.run({
					resource: 'webhook',
					operation: 'create',
					url: 'http://127.0.0.1:9/hook',
					events: [events.completed],
				}),
			);
			expect(harness.service.webhooks.get(String(created.id))).toMatchObject({
				url: 'http://127.0.0.1:9/hook',
				active: true,
			});
			expect(at(created, names.url)).toBe('http://127.0.0.1:9/hook');

			const [updated] = jsonOf(
				await harness.run({
					resource: 'webhook',
					operation: 'update',
					webhookId: byId('id', String(created.id)),
					updateFields: { active: false },
				}),
			);
			expect(harness.service.webhooks.get(String(created.id))).toMatchObject({
				url: 'http://127.0.0.1:9/hook',
				active: false,
			});
			expect(at(updated, names.events)).toEqual([events.completed]);

			const [everything] = jsonOf(
				await harness.run({
					resource: 'webhook',
					operation: 'create',
					url: 'http://127.0.0.1:9/all',
					events: ['*'],
				}),
			);
			expect(at(everything, names.events)).toEqual(events.all);
			const listed = jsonOf(
				await harness.run({ resource: 'webhook', operation: 'getMany', returnAll: true }),
			);
			expect(listed.map((webhook) => webhook.id)).toEqual([created.id, everything.id]);
			const [got] = jsonOf(
				await harness.run({
					resource: 'webhook',
					operation: 'get',
					webhookId: byId('id', String(everything.id)),
				}),
			);
			expect(got.id).toBe(everything.id);

			await harness.run({
				resource: 'webhook',
				operation: 'delete',
				webhookId: byId('id', String(created.id)),
			});
			expect([...harness.service.webhooks.keys()]).toEqual([everything.id]);
		});

		it("reports the service's own error message and code", async () => {
			const result = await harness.run({
				resource: 'post',
				operation: 'get',
				postId: byId('id', 'post_missing'),
			});
			expect(result.error?.message).toBe('Post "post_missing" was not found');
			expect(result.error).toMatchObject({ httpCode: '404' });
			expect((result.error as { description?: string }).description).toMatch(errorCode);
		});

		it("offers the service's events in the trigger and the webhook operations", async () => {
			const offered = (await loadOptions(triggerNode({}), 'getEvents', harness.credentials)).map(
				(option) => option.value,
			);
			// The service's own events, then the node's own that mean some of them (the trigger's default stays a value of the list).
			const builtIn = ['job.completed', 'job.failed', 'post.published'];
			const listed = events.offered ?? (events.all.length > 1 ? events.all : []);
			expect(offered).toEqual([
				'*',
				...listed,
				...builtIn.filter((event) => !listed.includes(event)),
			]);
			const node = contentPublishingNode({ resource: 'webhook', operation: 'create' });
			expect(
				(await loadOptions(node, 'getEvents', harness.credentials)).map((option) => option.value),
			).toEqual(offered);
		});

		it('registers the trigger, runs the workflow on a signed delivery and refuses a forged one', async () => {
			const node = triggerNode({ events: [events.completed] });
			const workflow = triggerWorkflow(node);
			const lifecycle = (method: 'checkExists' | 'create' | 'delete') =>
				runWebhookMethod(workflow, node, harness.credentials, method);
			expect(await lifecycle('checkExists')).toBe(false);
			await lifecycle('create');
			expect([...harness.service.webhooks.values()]).toEqual([
				expect.objectContaining({ url: webhookUrl(node) }),
			]);
			expect(await lifecycle('checkExists')).toBe(true);

			harness.service.jobMode = 'manual';
			const job = harness.service.startJob('generate.video', { prompt: 'Ready soon' });
			await harness.service.finishJob(job.id, 'succeeded');
			const [sent] = harness.service.deliveries;
			const delivered = await deliver(workflow, node, harness.credentials, {
				headers: sent.headers,
				rawBody: sent.body,
			});
			const output = delivered.response.workflowData?.[0]?.[0]?.json as IDataObject;
			expect(output).toMatchObject({
				event: events.completed,
			});
			expect(at(output, `job.${names.jobId}`)).toBe(job.id);
			expect(at(output, `job.${names.jobStatus}`)).toBe(succeeded);
			expect(output.result).toEqual(expect.objectContaining({}));

			const forged = await deliver(workflow, node, harness.credentials, {
				headers: sent.headers,
				rawBody: sent.body.replace(job.id, 'job_forged'),
			});
			expect(forged.status).toBe(401);
			expect(forged.response.workflowData).toBeUndefined();

			await lifecycle('delete');
			expect(harness.service.webhooks.size).toBe(0);
		});
	},
);

describe('a service whose conventions the node reads from its document', () => {
	const harness = useFakeService({ profile: 'alternate' });

	it("fails a field the service has no place for before sending, naming the service's fields", async () => {
		const result = await harness.run({
			resource: 'webhook',
			operation: 'create',
			url: 'http://127.0.0.1:9/hook',
			events: ['JOB_READY'],
			additionalFields: { secret: 'a-secret-of-our-own-0123' },
		});
		expect(result.error?.message).toBe(
			'Item 0: The service takes no "secret" in POST /v1/webhooks',
		);
		expect((result.error as { description?: string }).description).toContain('callbackUrl, topics');
		expect(harness.sent('hooks.create')).toEqual([]);
	});

	it("sends the node's own events as the service's events that mean them, as its document explains them", async () => {
		const [created] = jsonOf(
			await harness.run({
				resource: 'webhook',
				operation: 'create',
				url: 'http://127.0.0.1:9/hook',
				events: ['job.completed', 'post.published'],
			}),
		);
		expect(created.topics).toEqual(['JOB_READY', 'POST_LIVE']);
	});

	it('fails an event the service does not offer, listing the ones it does', async () => {
		const result = await harness.run({
			resource: 'webhook',
			operation: 'create',
			url: 'http://127.0.0.1:9/hook',
			events: ['post.deleted'],
		});
		expect(result.error?.message).toBe(
			'"Events" of item 0: The service offers no event "post.deleted"',
		);
		expect((result.error as { description?: string }).description).toContain(
			'JOB_READY, JOB_BROKEN, POST_LIVE',
		);
		expect(harness.sent('hooks.create')).toEqual([]);
	});
});

describe('reading the document', () => {
	const harness = useFakeService();
	const documentReads = () =>
		harness.service.requests.filter((request) => request.path === '/v1/openapi.json').length;

	it('reads it once for many items and executions', async () => {
		// Another spelling of the same address is another base URL, whose contract is not cached yet.
		const credentials = { baseUrl: harness.service.url.replace('127.0.0.1', 'localhost') };
		const input = Array.from({ length: 50 }, () => ({ json: {} }));
		for (let run = 0; run < 3; run++) {
			expect(
				jsonOf(
					await harness.run({ resource: 'account', operation: 'get' }, { input, credentials }),
				),
			).toHaveLength(50);
		}
		expect(documentReads()).toBe(1);
	});

	it("reads it for each key: a wrong key's Describe never shows what another key's reading found", async () => {
		// A fresh spelling of the address: nothing is cached for it yet.
		const baseUrl = harness.service.url.replace('127.0.0.1', '[::ffff:127.0.0.1]');
		const describe = { resource: 'service', operation: 'describe' };
		const [right] = jsonOf(await harness.run(describe, { credentials: { baseUrl } }));
		expect(right.notFollowed).toEqual([]);
		// The service describes itself to known keys only (the fake serves its document to anyone).
		harness.service.injectFault({ match: { path: '/v1/openapi.json' }, status: 401, times: 1 });
		const [wrong] = jsonOf(
			await harness.run(describe, {
				credentials: { baseUrl, apiKey: 'a-wrong-key-0123456789' },
			}),
		);
		expect(wrong.notFollowed).toEqual([
			{
				part: 'the whole document',
				why: expect.stringMatching(/could not be read \(HTTP 401\)/) as unknown,
			},
		]);
		expect(documentReads()).toBe(2);
	});

	it('reads it again when the service stops allowing a documented method, and sends the request its new way', async () => {
		const post = jsonOf(
			await harness.run({
				resource: 'post',
				operation: 'create',
				content: 'Before',
				status: 'draft',
			}),
		)[0];
		harness.service.profile = 'alternate';
		// The document read a moment ago is read again only once it is a second old: the clock moves on
		// for the node rather than the test waiting for it.
		const now = Date.now.bind(Date);
		const aged = jest.spyOn(Date, 'now').mockImplementation(() => now() + 1_100);

		const [updated] = jsonOf(
			await harness.run({
				resource: 'post',
				operation: 'update',
				postId: byId('id', String(post.id)),
				updateFields: { content: 'After' },
			}),
		);
		expect(updated).toMatchObject({ id: post.id, text: 'After', state: 'DRAFT' });
		expect(
			harness.service.requests.map((request) => `${request.method} ${request.status}`),
		).toEqual(['POST 201', 'PATCH 405', 'GET 200', 'GET 200', 'PUT 200']);
		expect(documentReads()).toBe(1);
		aged.mockRestore();
		harness.service.profile = 'primary';
	});
});

describe("a job the service accepts to run later (the envelope profile's scheduled publication)", () => {
	const harness = useFakeService({ profile: 'envelope' });

	it('ends Wait for Completion at once with the scheduled job, instead of polling until Maximum Wait Time', async () => {
		const started = Date.now();
		const [job] = jsonOf(
			await harness.run({
				resource: 'publication',
				operation: 'publishLinkedin',
				source: 'text',
				text: 'Tomorrow morning',
				additionalFields: { scheduledAt: '2099-12-01T09:00:00Z' },
				options: { pollInterval: 0.1, maxWaitTime: 20 },
			}),
		);
		expect(job).toMatchObject({ state: 'scheduled' });
		// Polling until the Maximum Wait Time would take its 20 s.
		expect(Date.now() - started).toBeLessThan(20_000);
		expect(harness.sent('jobs/get').length).toBeLessThanOrEqual(2);
	});
});

describe("one credential's failed read of the document", () => {
	const harness = useFakeService({ profile: 'alternate' });

	it('changes nothing for another credential on the same Base URL', async () => {
		// A fresh spelling of the address: nothing is cached for it yet.
		const baseUrl = harness.service.url.replace('127.0.0.1', 'localhost');
		// The document does not answer this credential's read (three 503s), and its key is wrong too.
		harness.service.injectFault({
			match: { path: '/v1/openapi.json' },
			status: 503,
			retryAfterSeconds: 0,
			times: 3,
		});
		const wrong = await harness.run(
			{ resource: 'account', operation: 'get' },
			{ credentials: { baseUrl, apiKey: 'a-wrong-key-0123456789' } },
		);
		expect(wrong.error?.httpCode).toBe('401');
		// The other credential reads the document itself and follows it: PUT replacements, camelCase fields.
		const [post] = jsonOf(
			await harness.run(
				{ resource: 'post', operation: 'create', content: 'Mine', status: 'draft' },
				{ credentials: { baseUrl } },
			),
		);
		expect(post.text).toBe('Mine');
		expect(
			harness.service.requests
				.filter((request) => request.path === '/v1/openapi.json')
				.map((request) => request.status),
		).toEqual([503, 503, 503, 200]);
	});
});

describe('the document read under a rate limit or a gateway error', () => {
	const harness = useFakeService();
	/** Service → Describe at a fresh spelling of the address (nothing cached for it yet), the document first refused. */
	const describeRefused = async (host: string, status: number, retryAfterSeconds: number) => {
		const baseUrl = harness.service.url.replace('127.0.0.1', host);
		harness.service.injectFault({ match: { path: '/v1/openapi.json' }, status, retryAfterSeconds });
		const started = Date.now();
		const [profile] = jsonOf(
			await harness.run(
				{ resource: 'service', operation: 'describe' },
				{ credentials: { baseUrl } },
			),
		);
		const statuses = harness.service.requests
			.filter((request) => request.path === '/v1/openapi.json')
			.map((request) => request.status);
		return { notFollowed: profile.notFollowed, statuses, waited: Date.now() - started };
	};

	it.each([
		[429, 'localhost'],
		[503, '[::ffff:127.0.0.1]'],
	])(
		'waits out a %i by its Retry-After, as every read does, then follows the document',
		async (status, host) => {
			const { notFollowed, statuses, waited } = await describeRefused(host, status, 2);
			expect(notFollowed).toEqual([]);
			expect(statuses).toEqual([status, 200]);
			// Asked again only after the Retry-After: a busy machine can only make this longer.
			expect(waited).toBeGreaterThanOrEqual(2000);
		},
	);

	it('does not wait for a Retry-After beyond 30 seconds: the built-in conventions stand in', async () => {
		const { notFollowed, statuses } = await describeRefused('127.1', 429, 60);
		expect(notFollowed).toEqual([
			{
				part: 'the whole document',
				why: expect.stringMatching(/could not be read \(HTTP 429\)/) as unknown,
			},
		]);
		expect(statuses).toEqual([429]);
	});
});

describe('a key the service knows but has not approved (the envelope profile)', () => {
	const harness = useFakeService({ profile: 'envelope' });

	it("says the service's own words in the error's main text, and what a 403 may mean", async () => {
		const result = await harness.run(
			{ resource: 'account', operation: 'get' },
			{ credentials: { apiKey: harness.service.unapprovedApiKey } },
		);
		expect(result.error?.httpCode).toBe('403');
		expect(result.error?.message).toBe(
			'Authenticated, but this account is not approved for API access',
		);
		expect(result.error?.description).toMatch(
			/^Error code: 1403\. .*refused this request for this API key/,
		);
		expect(result.error?.description).not.toMatch(/key is valid/);
	});
});
