import type { IDataObject } from 'n8n-workflow';

import { applyOverrides, parseOverrides } from '../../nodes/shared/profile/overrides';
import { readProfile } from '../../nodes/shared/profile/read';
import type { OpenApiDocument } from '../../nodes/shared/profile/read/document';
import { byId } from '../support/fixtures';
import { startHostileService, type HostileService } from '../support/hostile-documents';
import { contentPublishingNode, runNode, shutDownEngine } from '../support/n8n-engine';

/**
 * What a document's operation requires and the profile does not send (issue 34): a required header
 * parameter, a required body member no parameter, constant, kept member or idempotency header
 * fills, is listed as not followed, with the constant an override would send; the override given,
 * it is sent and no longer listed.
 */

const ok = (schema: IDataObject) => ({
	responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } },
});
const POST = {
	type: 'object',
	properties: { id: { type: 'string' }, content: { type: 'string' }, title: { type: 'string' } },
};
const body = (schema: IDataObject, mediaType = 'application/json') => ({
	required: true,
	content: { [mediaType]: { schema } },
});

/**
 * JSON:API 1.1: a create and a conditional update (`If-Match`, 428 without it), whose resource
 * object requires `type`, of one value, and the update's its `id` too, and names its page as a
 * relationship (`{"type": "pages", "id": …}`); a create's `visibility` of two values.
 */
const resourceObject = (required: string[], attributes: IDataObject = {}) =>
	body(
		{
			type: 'object',
			required: ['data'],
			properties: {
				data: {
					type: 'object',
					required,
					properties: {
						type: { $ref: '#/components/schemas/PostType' },
						id: { type: 'string' },
						attributes: {
							type: 'object',
							properties: { content: { type: 'string' }, title: { type: 'string' } },
							...attributes,
						},
						relationships: {
							type: 'object',
							properties: {
								page: {
									type: 'object',
									required: ['data'],
									properties: {
										data: {
											type: 'object',
											required: ['type', 'id'],
											properties: {
												type: { type: 'string', enum: ['pages'] },
												id: { type: 'string' },
											},
										},
									},
								},
							},
						},
					},
				},
			},
		},
		'application/vnd.api+json',
	);
const JSON_API: OpenApiDocument = {
	openapi: '3.1.0',
	paths: {
		'/v1/posts': {
			post: {
				operationId: 'createPost',
				requestBody: resourceObject(['type', 'attributes'], {
					required: ['visibility'],
					properties: {
						content: { type: 'string' },
						visibility: { type: 'string', enum: ['public', 'private'] },
					},
				}),
				...ok(POST),
			},
		},
		'/v1/posts/{id}': {
			get: ok(POST),
			patch: {
				operationId: 'updatePost',
				parameters: [
					{ name: 'id', in: 'path', required: true, schema: { type: 'string' } },
					{ name: 'If-Match', in: 'header', required: true, schema: { type: 'string' } },
					// What the node sends itself is never listed.
					{ name: 'Authorization', in: 'header', required: true, schema: { type: 'string' } },
					{ name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string' } },
					{ name: 'X-Trace', in: 'header', schema: { type: 'string' } },
				],
				// JSON:API's own media type: overrides over a profile of it were refused.
				requestBody: resourceObject(['type', 'id', 'attributes']),
				...ok(POST),
			},
		},
	},
	components: { schemas: { PostType: { type: 'string', enum: ['posts'] } } },
};

const IF_MATCH = 'Post → Update (PATCH /v1/posts/{id}): /headers/if-match';
const VISIBILITY = 'Post → Create (POST /v1/posts): /body/data/attributes/visibility';
const CREATE_FROM = '#/paths/~1v1~1posts/post/requestBody';
const UPDATE_FROM = '#/paths/~1v1~1posts~1{id}/patch/requestBody';

it("sends a required body member of one allowed value, and an update's required id, as the document states; lists the rest", async () => {
	const profile = await readProfile(JSON_API, 'test');
	const { createPost, updatePost } = profile.operations;
	expect(updatePost.fields.content.to).toBe('/body/data/attributes/content');
	expect(createPost.constants).toEqual({ '/body/data/type': 'posts' });
	expect(createPost.fields.pageId).toEqual({
		to: '/body/data/relationships/page/data/id',
		beside: { type: 'pages' },
		from: `${CREATE_FROM}: data.relationships.page`,
	});
	expect(createPost.idAt).toBeUndefined();
	expect(updatePost.constants).toEqual({ '/body/data/type': 'posts' });
	expect(updatePost.idAt).toBe('/body/data/id');
	expect(updatePost.stated).toEqual({
		'/body/data/type': `${UPDATE_FROM}: data.type`,
		'/body/data/id': `${UPDATE_FROM}: data.id`,
	});
	expect(profile.notFollowed).toEqual([
		{
			part: VISIBILITY,
			why: 'the document requires it and no parameter of the node fills it; Profile Overrides can send a fixed value: "createPost": {"constants": {"/body/data/attributes/visibility": …}}',
			operation: 'createPost',
			place: '/body/data/attributes/visibility',
		},
		{
			part: IF_MATCH,
			why: `the document requires it and no parameter of the node fills it; Profile Overrides can send the ETag read first: "updatePost": {"precondition": {"header": "if-match", "from": "/headers/etag"}}`,
			operation: 'updatePost',
			place: '/headers/if-match',
		},
	]);

	// The overrides win: a constant and the id's place they change or remove are theirs, not the document's.
	const overridden = applyOverrides(
		profile,
		parseOverrides(
			'{"operations": {"createPost": {"constants": {"/body/data/type": null, "/body/data/attributes/visibility": "public"}}, "updatePost": {"constants": {"/body/data/type": "articles"}, "idAt": null}}}',
		),
	);
	expect(overridden.notFollowed.map(({ part }) => part)).toEqual([IF_MATCH]);
	expect(overridden.operations.createPost.constants).toEqual({
		'/body/data/attributes/visibility': 'public',
	});
	expect(overridden.operations.createPost.stated).toEqual({});
	expect(overridden.operations.updatePost.constants).toEqual({ '/body/data/type': 'articles' });
	expect(overridden.operations.updatePost.idAt).toBeUndefined();
	expect(overridden.operations.updatePost.stated).toEqual({});
	// The profile as read is left as it was.
	expect(updatePost.stated).toEqual({
		'/body/data/type': `${UPDATE_FROM}: data.type`,
		'/body/data/id': `${UPDATE_FROM}: data.id`,
	});
});

/** The profile of a document whose one operation is a create with this body. */
const readCreate = (schema: IDataObject, components?: IDataObject) =>
	readProfile(
		{
			openapi: '3.1.0',
			paths: {
				'/v1/posts': {
					post: { operationId: 'createPost', requestBody: body(schema), ...ok(POST) },
				},
			},
			...(components ? { components } : {}),
		},
		'test',
	);

it('reads required members through $ref and allOf, and of oneOf/anyOf only those every alternative requires, sending one of a single value', async () => {
	const profile = await readCreate(
		{
			allOf: [
				{ $ref: '#/components/schemas/Base' },
				{
					oneOf: [
						{ type: 'object', required: ['channel', 'kind'], properties: {} },
						{ type: 'object', required: ['channel'], properties: {} },
					],
				},
			],
			anyOf: [
				{ required: ['region', 'shard'], properties: { region: { const: 'eu' } } },
				{ required: ['region'] },
			],
			properties: { content: { type: 'string' } },
		},
		{
			schemas: {
				Base: {
					type: 'object',
					required: ['content', 'owner', 'created'],
					properties: {
						content: { type: 'string' },
						owner: { type: 'integer' },
						created: { type: 'string', readOnly: true },
					},
				},
			},
		},
	);
	expect(profile.notFollowed.map(({ place }) => place)).toEqual(['/body/owner', '/body/channel']);
	// Required by every alternative, of one value in one of them: sent as the document states it.
	expect(profile.operations.createPost.constants).toEqual({ '/body/region': 'eu' });
});

it("counts a reference's members beside its id as sent with it, not as constants of their own", async () => {
	const linkage = {
		type: 'object',
		required: ['type', 'id'],
		properties: { type: { const: 'pages' }, id: { type: 'string' } },
	};
	const profile = await readCreate({
		type: 'object',
		required: ['content', 'page'],
		properties: {
			content: { type: 'string' },
			page: { type: 'object', required: ['data'], properties: { data: linkage } },
		},
	});
	const { createPost } = profile.operations;
	expect(createPost.fields.pageId).toMatchObject({
		to: '/body/page/data/id',
		beside: { type: 'pages' },
	});
	// Sent only with the page: a constant would send `{"page": {"data": {"type": "pages"}}}` without one.
	expect(createPost.constants).toBeUndefined();
	expect(profile.notFollowed).toEqual([]);
});

it("lists a required query parameter nothing fills, and sends one of a single allowed value (Azure's api-version); the key's and the paging's are filled", async () => {
	const list = {
		operationId: 'listPosts',
		parameters: [
			// Azure's REST specifications: api-version, required, of one value per document.
			{
				name: 'api-version',
				in: 'query',
				required: true,
				schema: { type: 'string', enum: ['2024-05-01'] },
			},
			{ name: 'workspace', in: 'query', required: true, schema: { type: 'string' } },
			// Stripe's page size, and a key in the query as the document's security scheme says.
			{ name: 'limit', in: 'query', required: true, schema: { type: 'integer' } },
			{ name: 'starting_after', in: 'query', schema: { type: 'string' } },
			{ name: 'api_key', in: 'query', required: true, schema: { type: 'string' } },
			{ name: 'q', in: 'query', schema: { type: 'string' } },
		],
		...ok({
			type: 'object',
			properties: { data: { type: 'array', items: POST }, has_more: { type: 'boolean' } },
		}),
	};
	const profile = await readProfile(
		{
			openapi: '3.0.3',
			paths: { '/v1/posts': { get: list } },
			components: { securitySchemes: { key: { type: 'apiKey', in: 'query', name: 'api_key' } } },
		},
		'test',
	);
	const { listPosts } = profile.operations;
	expect(listPosts.answer.paging).toMatchObject({ style: 'after', size: 'limit' });
	expect(listPosts.constants).toEqual({ '/query/api-version': '2024-05-01' });
	expect(listPosts.stated).toEqual({
		'/query/api-version': '#/paths/~1v1~1posts/get/parameters: api-version',
	});
	expect(profile.notFollowed).toEqual([
		{
			part: 'Post → Get Many (GET /v1/posts): /query/workspace',
			why: 'the document requires it and no parameter of the node fills it; Profile Overrides can send a fixed value: "listPosts": {"constants": {"/query/workspace": …}}',
			operation: 'listPosts',
			place: '/query/workspace',
		},
	]);
	const overridden = applyOverrides(
		profile,
		parseOverrides('{"operations": {"listPosts": {"constants": {"/query/workspace": "w1"}}}}'),
	);
	expect(overridden.notFollowed).toEqual([]);
});

it("follows a required If-Match as the document states it: the read answers an ETag, sent as the update's precondition", async () => {
	const paths = JSON_API.paths as Record<string, IDataObject>;
	const item = paths['/v1/posts/{id}'];
	// As Azure's and Zalando's guidelines describe it: the read answers the ETag the update requires.
	const read = ok(POST);
	const withEtag = {
		...read,
		responses: {
			'200': {
				...read.responses['200'],
				headers: { ETag: { description: 'The version of the post.', schema: { type: 'string' } } },
			},
		},
	};
	const profile = await readProfile(
		{ ...JSON_API, paths: { ...paths, '/v1/posts/{id}': { ...item, get: withEtag } } },
		'test',
	);
	const { updatePost } = profile.operations;
	expect(updatePost.precondition).toEqual({ header: 'if-match', from: '/headers/etag' });
	expect(updatePost.stated?.['/headers/if-match']).toBe(
		'#/paths/~1v1~1posts~1{id}/get/responses/200/headers: etag',
	);
	expect(profile.notFollowed.map(({ part }) => part)).toEqual([VISIBILITY]);
	// Overrides that change it take where the document says so with it; others keep it.
	const kept = applyOverrides(
		profile,
		parseOverrides('{"operations": {"updatePost": {"constants": {"/headers/x-trace": "t"}}}}'),
	);
	expect(kept.operations.updatePost.stated?.['/headers/if-match']).toBeDefined();
	const changed = applyOverrides(
		profile,
		parseOverrides(
			'{"operations": {"updatePost": {"precondition": {"header": "if-match", "from": "/body/version"}}}}',
		),
	);
	expect(changed.operations.updatePost.stated?.['/headers/if-match']).toBeUndefined();
});

describe('in n8n, against a service that requires them', () => {
	const seen: Array<{ body: unknown; type: unknown; ifMatch: unknown }> = [];
	let service: HostileService;
	// The resource's version, and whether the service requires a precondition yet.
	let version = 1;
	let conditional = false;
	let changeAfterRead = false;
	beforeAll(async () => {
		service = await startHostileService({
			name: 'a conditional JSON:API service',
			document: () => JSON.stringify(JSON_API),
			answers: {
				'POST /v1/posts': ({ body, headers }) => {
					seen.push({ body, type: headers['content-type'], ifMatch: headers['if-match'] });
					return { status: 201, body: { id: 'p4', content: 'Hi' } };
				},
				'GET /v1/posts/{id}': ({ id }) => {
					const etag = `"v${version}"`;
					// Someone else's write lands between the node's read and its own.
					if (changeAfterRead) version += 1;
					return { headers: { etag }, body: { id, content: 'Before' } };
				},
				'PATCH /v1/posts/{id}': ({ id, body, headers }) => {
					seen.push({ body, type: headers['content-type'], ifMatch: headers['if-match'] });
					// RFC 9110: 428 without a precondition, 412 when the resource changed since it was read.
					if (headers['if-match'] === undefined && conditional)
						return { status: 428, body: { errors: [{ title: 'Precondition Required' }] } };
					if (headers['if-match'] !== undefined && headers['if-match'] !== `"v${version}"`)
						return { status: 412, body: { errors: [{ title: 'Precondition Failed' }] } };
					version += 1;
					return { body: { id, content: 'Updated' } };
				},
			},
		});
	});
	afterAll(async () => {
		await service.close();
		shutDownEngine();
	});

	const credentialsWith = (overrides: IDataObject | undefined) => ({
		baseUrl: service.url,
		apiKey: 'required-parts-key-0123456789',
		...(overrides ? { profileOverrides: JSON.stringify(overrides) } : {}),
	});
	const describeOutput = async (overrides?: IDataObject) =>
		(
			await runNode(contentPublishingNode({ resource: 'service', operation: 'describe' }), {
				credentials: credentialsWith(overrides),
			})
		).items[0].json;
	const describeWith = async (overrides?: IDataObject) =>
		(await describeOutput(overrides)).summary as string[];

	const update = (overrides?: IDataObject) =>
		runNode(
			contentPublishingNode({
				resource: 'post',
				operation: 'update',
				postId: byId('id', 'p1'),
				updateFields: { content: 'Updated' },
			}),
			{ credentials: credentialsWith(overrides) },
		);

	it("Describe states the constants and the id's place with where the document says so, lists the rest, and the node sends them with no override", async () => {
		const described = await describeWith();
		expect(described.filter((line) => line.startsWith('Not followed:'))).toEqual([
			`Not followed: ${VISIBILITY}: the document requires it and no parameter of the node fills it; Profile Overrides can send a fixed value: "createPost": {"constants": {"/body/data/attributes/visibility": …}}`,
			`Not followed: ${IF_MATCH}: the document requires it and no parameter of the node fills it; Profile Overrides can send the ETag read first: "updatePost": {"precondition": {"header": "if-match", "from": "/headers/etag"}}`,
		]);
		expect(described).toEqual(
			expect.arrayContaining([
				`  always sends "posts" at /body/data/type (from ${CREATE_FROM}: data.type)`,
				`  always sends "posts" at /body/data/type (from ${UPDATE_FROM}: data.type)`,
				`  sends the resource's id at /body/data/id too (from ${UPDATE_FROM}: data.id)`,
				'  pageId → /body/data/relationships/page/data/id, with type "pages" beside it',
				// Placed where the document has no place for it: said to be a guess.
				'  status → /body/status (a guess, by its built-in name: the request body takes other fields)',
			]),
		);

		// Given back as Profile Overrides, the profile Describe outputs is taken and changes nothing.
		const first = await describeOutput();
		expect(await describeOutput(first.profile as IDataObject)).toEqual(first);

		const created = await runNode(
			contentPublishingNode({
				resource: 'post',
				operation: 'create',
				content: 'Hi',
				additionalFields: { pageId: byId('id', 'page_1') },
			}),
			{ credentials: credentialsWith(undefined) },
		);
		expect(created.error).toBeUndefined();
		expect((await update()).error).toBeUndefined();
		expect(seen).toEqual([
			{
				// Status goes where the body takes other fields: its document places it nowhere.
				body: {
					data: {
						type: 'posts',
						attributes: { content: 'Hi' },
						relationships: { page: { data: { type: 'pages', id: 'page_1' } } },
					},
					status: 'draft',
				},
				type: 'application/vnd.api+json',
				ifMatch: undefined,
			},
			{
				body: { data: { id: 'p1', type: 'posts', attributes: { content: 'Updated' } } },
				type: 'application/vnd.api+json',
				ifMatch: undefined,
			},
		]);
	});

	it("sends the resource's ETag in If-Match once told, and explains 428 and 412", async () => {
		seen.length = 0;
		conditional = true;
		const refused = await update();
		expect(refused.error?.description).toContain('The service requires a precondition');
		expect(refused.error?.description).toContain('"precondition": {"header": "if-match"');

		const overrides = {
			operations: {
				updatePost: { precondition: { header: 'if-match', from: '/headers/etag' } },
			},
		};
		const described = await describeWith(overrides);
		expect(described.filter((line) => line.startsWith('Not followed:'))).toEqual([
			expect.stringContaining(VISIBILITY),
		]);
		expect(described).toEqual(
			expect.arrayContaining([
				'  reads the resource first and sends its /headers/etag in if-match (412 if it changed meanwhile)',
			]),
		);
		seen.length = 0;
		const current = `"v${version}"`;
		expect((await update(overrides)).error).toBeUndefined();
		expect(seen).toEqual([
			{
				body: { data: { id: 'p1', type: 'posts', attributes: { content: 'Updated' } } },
				type: 'application/vnd.api+json',
				ifMatch: current,
			},
		]);

		// Changed by someone else between the node's read and its write: refused, and said so.
		changeAfterRead = true;
		const stale = await update(overrides);
		changeAfterRead = false;
		expect(stale.error?.description).toContain('The resource changed after the node read it');
		conditional = false;
	});

	it('fails before writing where the read answer has no value for the precondition, naming what it held', async () => {
		seen.length = 0;
		const overrides = {
			operations: {
				updatePost: { precondition: { header: 'if-match', from: '/headers/x-version' } },
			},
		};
		const result = await update(overrides);
		expect(result.error?.message).toBe(
			'Post → Get answered without the value its precondition needs',
		);
		expect(result.error?.description).toContain(
			'Expected a value at /headers/x-version to send in if-match',
		);
		expect(seen).toEqual([]);
	});

	it('refuses a precondition where the node reads nothing first, and one in a header it sets itself, before sending', async () => {
		const created = await runNode(
			contentPublishingNode({
				resource: 'post',
				operation: 'create',
				content: 'Hi',
				additionalFields: { pageId: byId('id', 'page_1') },
			}),
			{
				credentials: credentialsWith({
					operations: {
						createPost: { precondition: { header: 'if-match', from: '/headers/etag' } },
					},
				}),
			},
		);
		expect(created.error?.message).toContain('The node sends no precondition with Post → Create');
		const own = await update({
			operations: {
				updatePost: { precondition: { header: 'authorization', from: '/headers/etag' } },
			},
		});
		expect(own.error?.message).toContain(
			'/operations/updatePost/precondition/header: is a header the node sets itself',
		);
	});
});
