import type { IDataObject } from 'n8n-workflow';

import { describeOutput } from '../../nodes/ContentPublishing/actions/service';
import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { describeGroups } from '../../nodes/shared/profile/describe';
import {
	applyOverrides,
	checkOverrides,
	parseOverrides,
} from '../../nodes/shared/profile/overrides';
import { readProfile } from '../../nodes/shared/profile/read';
import type { Profile } from '../../nodes/shared/profile/types';
import { overrideExamples } from '../support/docs';
import { jsonOf, useFakeService } from '../support/fixtures';
import { startHostileService, type HostileService } from '../support/hostile-documents';
import { contentPublishingNode, runNode } from '../support/n8n-engine';

/**
 * The credential's Profile Overrides: the worked examples of docs/service.md as they are written
 * there, what `*` spreads where, and every wrong override refused before any request with the
 * JSON path it is wrong at.
 */

/** The built-in status words, which a document's profile keeps for values beyond its list. */
const BUILT_IN_STATES =
	BUILT_IN_PROFILE.jobs.completion.by === 'status' ? BUILT_IN_PROFILE.jobs.completion.states : {};

const ok = (schema: IDataObject) => ({
	responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } },
});

it("corrects a service the node misreads, as the documentation's first example does", async () => {
	const post = { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } };
	const job = {
		type: 'object',
		properties: {
			id: { type: 'string' },
			status: { type: 'string', enum: ['new', 'doing', 'shipped', 'gone'] },
		},
	};
	const read = await readProfile(
		{
			openapi: '3.1.0',
			paths: {
				'/v1/posts/{id}': { get: ok(post) },
				'/v1/posts/{id}/save': {
					post: { operationId: 'savePost', summary: 'Save a post', ...ok(post) },
				},
				'/v1/jobs/{id}': { get: ok(job) },
			},
		},
		'test',
	);
	expect([
		read.operations.updatePost.method,
		read.operations.updatePost.path,
		read.jobs.completion,
	]).toEqual([
		'PATCH',
		'/v1/posts/{id}',
		{ by: 'status', status: ['/status'], states: { new: 'pending', ...BUILT_IN_STATES } },
	]);
	const corrected = applyOverrides(read, parseOverrides(overrideExamples()[0]));
	expect([
		corrected.operations.updatePost.method,
		corrected.operations.updatePost.path,
		corrected.jobs.completion,
	]).toEqual([
		'POST',
		'/v1/posts/{id}/save',
		{
			by: 'status',
			status: ['/status'],
			states: {
				new: 'pending',
				...BUILT_IN_STATES,
				doing: 'pending',
				shipped: 'succeeded',
				gone: 'failed',
			},
		},
	]);
	// `new` was read as pending already: what the overrides set as it was is not listed.
	expect(corrected.overridden).toEqual([
		'/operations/updatePost/method',
		'/operations/updatePost/path',
		'/jobs/completion/states/doing',
		'/jobs/completion/states/shipped',
		'/jobs/completion/states/gone',
	]);
});

it('takes a part the overrides set off what Describe says was not followed: a job status the document has none of', async () => {
	const job = {
		type: 'object',
		properties: {
			id: { type: 'string' },
			progress: { type: 'integer' },
			type: { type: 'string' },
			result: { type: 'object' },
			error: { type: 'object' },
		},
	};
	const read = await readProfile(
		{ openapi: '3.1.0', paths: { '/v1/jobs/{id}': { get: ok(job) } } },
		'test',
	);
	const notFollowed = (overrides: string) =>
		describeGroups(applyOverrides(read, parseOverrides(overrides)))
			.flatMap(([, lines]) => lines)
			.filter((line) => line.startsWith('Not followed: its jobs'));
	expect(notFollowed('{}')).toEqual([
		expect.stringMatching(/^Not followed: its jobs' status: the job at .* has no status/),
	]);
	// Where the status is, even where the built-in conventions would have looked; or no status at all.
	expect(notFollowed('{"jobs": {"completion": {"status": "/phase"}}}')).toEqual([]);
	expect(notFollowed('{"jobs": {"completion": {"status": "/status"}}}')).toEqual([]);
	expect(notFollowed('{"jobs": {"completion": {"by": "flag", "done": "/done"}}}')).toEqual([]);
	// What a value means says nothing of where the status is.
	expect(notFollowed('{"jobs": {"completion": {"states": {"gone": "failed"}}}}')).toHaveLength(1);
});

it('spreads "*" to what each operation has, a body field never into a query', () => {
	const profile = applyOverrides(
		BUILT_IN_PROFILE,
		parseOverrides(
			'{"operations": {"*": {"fields": {"pageId": "/body/page/id", "secret": null}, "answer": {"resource": "/body/data"}}}}',
		),
	);
	const { createPost, listPosts, generateBlog, listPages, createWebhook } = profile.operations;
	expect([
		createPost.fields.pageId.to,
		generateBlog.fields.pageId.to,
		listPosts.fields.pageId.to,
	]).toEqual(['/body/page/id', '/body/page/id', '/query/page_id']);
	expect([
		createWebhook.fields.secret.to,
		createPost.answer.resource,
		listPages.answer.resource,
	]).toEqual([null, ['/body/data'], undefined]);
});

it.each([
	['not JSON', '{"operations":', '/: must be JSON'],
	[
		'not a part of the profile',
		'{"paths": {}}',
		'/paths: is not a part of the profile that can be set',
	],
	[
		'an operation the node does not have',
		'{"operations": {"listComments": {}}}',
		'/operations/listComments: is not an operation of the node',
	],
	[
		'a method',
		'{"operations": {"updatePost": {"method": "FETCH"}}}',
		'/operations/updatePost/method: must be one of GET, POST, PUT, PATCH, DELETE',
	],
	[
		'a path above the Base URL',
		'{"operations": {"updatePost": {"path": "/v1/../admin/{id}"}}}',
		'/operations/updatePost/path: must be a path below the Base URL',
	],
	[
		'an address of another host',
		'{"operations": {"getPost": {"path": "//evil.example/{id}"}}}',
		'/operations/getPost/path: must be a path below the Base URL',
	],
	[
		'a path without the id',
		'{"operations": {"deletePost": {"path": "/v1/posts"}}}',
		'/operations/deletePost/path: must hold "{id}"',
	],
	[
		'a place outside the request',
		'{"operations": {"createPost": {"fields": {"content": "/headers/authorization"}}}}',
		'/operations/createPost/fields/content/to: must be a place in the request',
	],
	[
		'a state that is none',
		'{"jobs": {"completion": {"states": {"new": "waiting"}}}}',
		'/jobs/completion: must be {"by": "status"',
	],
	[
		'a page size beyond its bound',
		'{"operations": {"listPages": {"answer": {"paging": {"max": 100000}}}}}',
		'/operations/listPages/answer/paging/max: must be a whole number from 1 to 1000',
	],
	[
		'a secret scheme of its own',
		'{"webhooks": {"signature": {"algorithm": "md5"}}}',
		'/webhooks/signature/algorithm: must be one of sha256, sha512, sha1',
	],
	[
		'"*" setting a method',
		'{"operations": {"*": {"method": "GET"}}}',
		'/operations/*/method: is not shared by every operation',
	],
	[
		"a constant in the key's header",
		'{"operations": {"getAccount": {"constants": {"/headers/authorization": "Basic x"}}}}',
		'/operations/getAccount/constants/~1headers~1authorization: is a header the node sets itself',
	],
	[
		'a constant outside the request',
		'{"operations": {"getAccount": {"constants": {"/answer/x": "y"}}}}',
		'/operations/getAccount/constants/~1answer~1x: must be a place in the request',
	],
	[
		'a constant that is an object',
		'{"operations": {"createPost": {"constants": {"/body/data": {"type": "posts"}}}}}',
		'/operations/createPost/constants/~1body~1data: must be a text, a number, or true or false',
	],
	[
		'a body constant under "*"',
		'{"operations": {"*": {"constants": {"/body/data/type": "posts"}}}}',
		'/operations/*/constants/~1body~1data~1type: must be a header',
	],
	[
		'null for a part every profile has',
		'{"operations": {"updatePost": {"method": null}}}',
		'/operations/updatePost/method: is required here: null cannot remove it',
	],
	['null for a whole part', '{"jobs": null}', '/jobs: is required here: null cannot remove it'],
	[
		'null for a list of places',
		'{"jobs": {"completion": {"status": null}}}',
		'/jobs/completion: must be {"by": "status"',
	],
	[
		'a misspelt part',
		'{"webhook": {"events": []}}',
		'/webhook: is not a part of the profile that can be set; known: operations, jobs, errors, webhooks',
	],
	[
		'a misspelt part of the jobs',
		'{"jobs": {"results": "/output"}}',
		'/jobs/results: is not a part of the profile here; known: id, completion, result, error, errorMessage, errorCode, kind, media, from',
	],
	[
		'a misspelt parameter',
		'{"operations": {"createPost": {"fields": {"contnet": "/body/text"}}}}',
		'/operations/createPost/fields/contnet: is not a parameter of this operation; known: content, title, status, scheduledAt, pageId, tags, mediaUrls',
	],
	[
		'a misspelt parameter under "*"',
		'{"operations": {"*": {"fields": {"pageID": "/body/page"}}}}',
		'/operations/*/fields/pageID: is not a parameter of any operation; known: search, content, title',
	],
	[
		'a parameter of an operation that sends none',
		'{"operations": {"getPost": {"fields": {"content": null}}}}',
		'/operations/getPost/fields/content: is not a parameter of this operation: it sends none',
	],
	[
		"a misspelt part of a parameter's place",
		'{"operations": {"createPost": {"fields": {"status": {"to": "/body/state", "valeus": {}}}}}}',
		'/operations/createPost/fields/status/valeus: is not a part of the profile here; known: to, why, values, negate, beside, from',
	],
	[
		"a misspelt value in a parameter's spellings",
		'{"operations": {"createPost": {"fields": {"status": {"to": "/body/state", "values": {"drfat": "DRAFT"}}}}}}',
		'/operations/createPost/fields/status/values/drfat: is not a value of "status"; known: draft, published, scheduled',
	],
	[
		'a misspelt part of the paging',
		'{"operations": {"listPosts": {"answer": {"paging": {"sise": "per_page"}}}}}',
		'/operations/listPosts/answer/paging/sise: is not a part of the profile here; known: style, size, max',
	],
	[
		'a paging style without its own parts',
		'{"operations": {"listPosts": {"answer": {"paging": {"style": "page"}}}}}',
		'/operations/listPosts/answer/paging/page: is missing: a style "page" needs it',
	],
	[
		'a list Describe shortened',
		'{"webhooks": {"events": ["a.done", "… and 3 more"]}}',
		'/webhooks/events/1: is where Describe shortened a long list',
	],
	[
		'an object Describe shortened',
		'{"jobs": {"completion": {"states": {"new": "pending", "…": "and 3 more"}}}}',
		'/jobs/completion/states/…: is where Describe shortened a long list',
	],
	[
		'nesting deeper than the profile',
		`{"jobs": {"media": ${'['.repeat(40)}${']'.repeat(40)}}}`,
		'/jobs/media/0/0/0/0/0/0/0/0/0/0/0: is deeper than any part of the profile',
	],
])('refuses %s, naming the JSON path', (_what, overrides, message) => {
	expect(checkOverrides(overrides, BUILT_IN_PROFILE).problem?.message).toContain(
		`Profile Overrides ${message}`,
	);
});

describe('null in Profile Overrides', () => {
	const base = {
		...BUILT_IN_PROFILE,
		operations: {
			...BUILT_IN_PROFILE.operations,
			updatePost: {
				...BUILT_IN_PROFILE.operations.updatePost,
				idempotency: { header: 'idempotency-key', from: '#/paths/~1v1~1posts~1{id}/patch' },
				constants: { '/headers/x-api-version': '2', '/body/kind': 'post' },
				fields: {
					...BUILT_IN_PROFILE.operations.updatePost.fields,
					status: { to: '/body/status', values: { draft: 'DRAFT', published: 'LIVE' }, from: 'x' },
				},
			},
		},
	};

	it('removes a part the profile may be without, and lists it as overridden', () => {
		const overrides = parseOverrides(
			JSON.stringify({
				operations: {
					updatePost: {
						idempotency: null,
						mediaType: null,
						constants: { '/headers/x-api-version': null },
						fields: { status: { values: { published: null } } },
					},
				},
				jobs: { completion: { states: { queued: null } } },
				webhooks: { events: null, registration: { active: null } },
			}),
		);
		const profile = applyOverrides(base, overrides);
		const { updatePost } = profile.operations;
		expect([
			'idempotency' in updatePost,
			'mediaType' in updatePost,
			updatePost.constants,
			updatePost.fields.status,
			'queued' in (profile.jobs.completion as { states: object }).states,
			'events' in profile.webhooks,
			profile.webhooks.registration,
		]).toEqual([
			false,
			false,
			{ '/body/kind': 'post' },
			{
				to: '/body/status',
				values: { draft: 'DRAFT' },
				from: "the credential's Profile Overrides",
			},
			false,
			false,
			{ url: '/url', events: '/events' },
		]);
		expect(profile.overridden).toEqual([
			'/operations/updatePost/idempotency',
			'/operations/updatePost/mediaType',
			'/operations/updatePost/constants/~1headers~1x-api-version',
			'/operations/updatePost/fields/status/from',
			'/operations/updatePost/fields/status/values/published',
			'/jobs/completion/states/queued',
			'/webhooks/events',
			'/webhooks/registration/active',
		]);
		// The parsed overrides are kept per credential and applied again: removing edits none of them.
		expect(applyOverrides(base, overrides)).toEqual(profile);
	});

	it('changes nothing where the part is absent, and keeps "null" as no place for a parameter', () => {
		const profile = applyOverrides(
			BUILT_IN_PROFILE,
			parseOverrides(
				'{"operations": {"createPost": {"idempotency": null, "fields": {"title": null, "tags": {"to": null}}}}}',
			),
		);
		expect('idempotency' in profile.operations.createPost).toBe(false);
		expect(profile.operations.createPost.fields.title).toMatchObject({ to: null });
		expect(profile.operations.createPost.fields.tags).toMatchObject({ to: null });
		expect(profile.overridden).toEqual([
			'/operations/createPost/fields/title/to',
			'/operations/createPost/fields/title/why',
			'/operations/createPost/fields/title/from',
			'/operations/createPost/fields/tags/from',
			'/operations/createPost/fields/tags/to',
		]);
	});

	it('replaces an object of another kind whole: a completion by a flag, another paging style', () => {
		const profile = applyOverrides(
			BUILT_IN_PROFILE,
			parseOverrides(
				'{"jobs": {"completion": {"by": "flag", "done": "/done"}}, "operations": {"listPosts": {"answer": {"paging": {"style": "page", "page": "p", "first": 1}}}}}',
			),
		);
		expect(profile.jobs.completion).toEqual({ by: 'flag', done: ['/done'] });
		expect(profile.operations.listPosts.answer.paging).toEqual({
			style: 'page',
			page: 'p',
			first: 1,
		});
	});

	it("takes what Describe's profile says of its reading, and leaves it as read", () => {
		const profile = applyOverrides(
			BUILT_IN_PROFILE,
			parseOverrides(
				'{"source": "https://elsewhere.example/openapi.json", "notFollowed": [{"part": "x", "why": "y"}], "overridden": ["/jobs"]}',
			),
		);
		expect(profile).toEqual(BUILT_IN_PROFILE);
	});

	it("is in Describe's profile for each optional part the built-in one has and it lacks: given back, the profile is the same", () => {
		const profile = structuredClone(BUILT_IN_PROFILE);
		delete profile.operations.createPost.mediaType;
		delete profile.operations.listPosts.answer.paging?.size;
		profile.operations.listPages.answer.paging = { style: 'page', page: 'p', first: 1 };
		delete profile.webhooks.events;
		delete profile.webhooks.registration.active;
		delete profile.webhooks.signature.idHeader;
		const described = describeOutput(profile).profile as Profile;
		// A paging of another style replaces the built-in one whole: none of its parts needs a null.
		expect(described.operations.listPages.answer.paging).toEqual({
			style: 'page',
			page: 'p',
			first: 1,
		});
		expect(applyOverrides(BUILT_IN_PROFILE, parseOverrides(JSON.stringify(described)))).toEqual({
			...profile,
			overridden: expect.any(Array) as unknown,
		});
	});
});

describe('a credential with wrong Profile Overrides', () => {
	const harness = useFakeService();

	it('fails the item before any request, naming the path', async () => {
		const run = await harness.run(
			{ resource: 'account', operation: 'get' },
			{
				credentials: {
					profileOverrides: '{"operations": {"getAccount": {"path": "https://evil.example/me"}}}',
				},
			},
		);
		expect(run.error?.message).toMatch(
			/^The credential's Profile Overrides \/operations\/getAccount\/path: must be a path below the Base URL/,
		);
		// The README's one example is another service's: the worked examples are in docs/service.md.
		expect(run.error?.description).toContain(
			'docs/service.md, "Correcting it: Profile Overrides", has worked examples',
		);
		expect(harness.service.requests).toEqual([]);
	});

	it('sends no idempotency key where null removed it', async () => {
		const create = { resource: 'post', operation: 'create', content: 'Hi', status: 'draft' };
		const profileOverrides = '{"operations": {"createPost": {"idempotency": null}}}';
		expect((await harness.run(create)).error).toBeUndefined();
		expect(
			(await harness.run(create, { credentials: { profileOverrides } })).error,
		).toBeUndefined();
		expect(
			harness.sent('createPost').map((request) => 'idempotency-key' in request.headers),
		).toEqual([true, false]);
	});

	it('reads as corrected with good ones, in Describe too', async () => {
		const [described] = jsonOf(
			await harness.run(
				{ resource: 'service', operation: 'describe' },
				{ credentials: { profileOverrides: '{"operations": {"updatePost": {"method": "PUT"}}}' } },
			),
		);
		expect(described.summary).toEqual(
			expect.arrayContaining([
				'Post → Update: PUT /v1/posts/{id}',
				"Set by the credential's Profile Overrides: /operations/updatePost/method",
			]),
		);
	});
});

describe('constants in Profile Overrides (JSON:API 1.1: a resource object must have a "type")', () => {
	const seen: Array<{ body: unknown; version: unknown; mediaType: unknown }> = [];
	let service: HostileService;
	beforeAll(async () => {
		service = await startHostileService({
			name: 'a service that wants data.type and a version header',
			document: () => (response) => response.writeHead(404).end(),
			answers: {
				'POST /v1/posts': ({ body, headers }) => {
					seen.push({
						body,
						version: headers['x-api-version'],
						mediaType: headers['content-type'],
					});
					return { status: 201, body: { id: 'p1' } };
				},
			},
		});
	});
	afterAll(async () => await service.close());

	it("takes the documentation's example", () => {
		expect(checkOverrides(overrideExamples()[2], BUILT_IN_PROFILE).problem).toBeUndefined();
	});

	it('takes back the media type a JSON:API document declares, and refuses one that is not JSON or a form', async () => {
		const read = await readProfile(
			{
				openapi: '3.1.0',
				paths: {
					'/v1/posts': {
						post: {
							requestBody: {
								content: { 'application/vnd.api+json': { schema: { type: 'object' } } },
							},
							...ok({ type: 'object' }),
						},
					},
				},
			},
			'test',
		);
		const { mediaType } = read.operations.createPost;
		expect(mediaType).toBe('application/vnd.api+json');
		const given = (type: string) =>
			checkOverrides(JSON.stringify({ operations: { createPost: { mediaType: type } } }), read)
				.problem;
		expect(given(mediaType ?? '')).toBeUndefined();
		expect(given('text/xml')?.message).toMatch(
			/\/operations\/createPost\/mediaType: must be application\/json/,
		);
	});

	it("sends each at its place, after the parameters, a reference as a relationship, and Describe states them: the documentation's example", async () => {
		const profileOverrides = overrideExamples()[2];
		const credentials = {
			baseUrl: service.url,
			apiKey: 'constants-key-0123456789',
			profileOverrides,
		};
		const created = await runNode(
			contentPublishingNode({
				resource: 'post',
				operation: 'create',
				content: 'Hello',
				status: 'draft',
				additionalFields: { pageId: { __rl: true, mode: 'id', value: 'page_1' } },
			}),
			{ credentials },
		);
		expect(created.error).toBeUndefined();
		expect(seen).toEqual([
			{
				body: {
					data: {
						type: 'posts',
						attributes: { content: 'Hello', status: 'draft' },
						relationships: { page: { data: { type: 'pages', id: 'page_1' } } },
					},
				},
				version: '2024-10-01',
				mediaType: 'application/vnd.api+json',
			},
		]);
		const described = await runNode(
			contentPublishingNode({ resource: 'service', operation: 'describe' }),
			{ credentials },
		);
		expect(described.items[0].json.summary).toEqual(
			expect.arrayContaining([
				'  always sends "posts" at /body/data/type',
				'  always sends "2024-10-01" at /headers/x-api-version',
				'  pageId → /body/data/relationships/page/data/id, with type "pages" beside it',
			]),
		);
	});
});
