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

/** A conditional JSON:API update: `If-Match` (428 without it) and `data.type` of one value. */
const JSON_API_UPDATE: OpenApiDocument = {
	openapi: '3.1.0',
	paths: {
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
				requestBody: body(
					{
						type: 'object',
						required: ['data'],
						properties: {
							data: {
								type: 'object',
								required: ['type', 'attributes'],
								properties: {
									type: { type: 'string', enum: ['posts'] },
									attributes: {
										type: 'object',
										properties: { content: { type: 'string' }, title: { type: 'string' } },
									},
								},
							},
						},
						// JSON:API's own media type: overrides over a profile of it were refused.
					},
					'application/vnd.api+json',
				),
				...ok(POST),
			},
		},
	},
};

const IF_MATCH = 'Post → Update (PATCH /v1/posts/{id}): /headers/if-match';
const DATA_TYPE = 'Post → Update (PATCH /v1/posts/{id}): /body/data/type';

it('lists a required header and a required body member the profile does not send', async () => {
	const profile = await readProfile(JSON_API_UPDATE, 'test');
	expect(profile.operations.updatePost.fields.content.to).toBe('/body/data/attributes/content');
	expect(profile.notFollowed).toEqual([
		{
			part: IF_MATCH,
			why: `the document requires it and no parameter of the node fills it; Profile Overrides can send the ETag read first: "updatePost": {"precondition": {"header": "if-match", "from": "/headers/etag"}}`,
			operation: 'updatePost',
			place: '/headers/if-match',
		},
		{
			part: DATA_TYPE,
			why: 'the document requires it and no parameter of the node fills it; Profile Overrides can send it: "updatePost": {"constants": {"/body/data/type": "posts"}}',
			operation: 'updatePost',
			place: '/body/data/type',
		},
	]);
	const overridden = applyOverrides(
		profile,
		parseOverrides('{"operations": {"updatePost": {"constants": {"/body/data/type": "posts"}}}}'),
	);
	expect(overridden.notFollowed.map(({ part }) => part)).toEqual([IF_MATCH]);
});

it('reads required members through $ref and allOf, and of oneOf/anyOf only those every alternative requires', async () => {
	const profile = await readProfile(
		{
			openapi: '3.1.0',
			paths: {
				'/v1/posts': {
					post: {
						operationId: 'createPost',
						requestBody: body({
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
						}),
						...ok(POST),
					},
				},
			},
			components: {
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
		},
		'test',
	);
	expect(profile.notFollowed.map(({ place }) => place)).toEqual([
		'/body/owner',
		'/body/channel',
		'/body/region',
	]);
	expect(profile.notFollowed[2].why).toContain('{"/body/region": "eu"}');
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
			name: 'a conditional JSON:API update',
			document: () => JSON.stringify(JSON_API_UPDATE),
			answers: {
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
	const describeWith = async (overrides?: IDataObject) =>
		(
			await runNode(contentPublishingNode({ resource: 'service', operation: 'describe' }), {
				credentials: credentialsWith(overrides),
			})
		).items[0].json.summary as string[];

	const update = (overrides: IDataObject) =>
		runNode(
			contentPublishingNode({
				resource: 'post',
				operation: 'update',
				postId: byId('id', 'p1'),
				updateFields: { content: 'Updated' },
			}),
			{ credentials: credentialsWith(overrides) },
		);

	it('Describe lists both, and the constant given, sends it and no longer lists it', async () => {
		const notFollowed = (summary: string[]) =>
			summary.filter((line) => line.startsWith('Not followed:'));
		expect(notFollowed(await describeWith())).toEqual([
			`Not followed: ${IF_MATCH}: the document requires it and no parameter of the node fills it; Profile Overrides can send the ETag read first: "updatePost": {"precondition": {"header": "if-match", "from": "/headers/etag"}}`,
			`Not followed: ${DATA_TYPE}: the document requires it and no parameter of the node fills it; Profile Overrides can send it: "updatePost": {"constants": {"/body/data/type": "posts"}}`,
		]);

		const overrides = { operations: { updatePost: { constants: { '/body/data/type': 'posts' } } } };
		expect(notFollowed(await describeWith(overrides))).toEqual([expect.stringContaining(IF_MATCH)]);
		const updated = await update(overrides);
		expect(updated.error).toBeUndefined();
		expect(seen).toEqual([
			{
				body: { data: { type: 'posts', attributes: { content: 'Updated' } } },
				type: 'application/vnd.api+json',
				ifMatch: undefined,
			},
		]);
	});

	it("sends the resource's ETag in If-Match and its id in the body once told, and explains 428 and 412", async () => {
		seen.length = 0;
		conditional = true;
		const constant = { constants: { '/body/data/type': 'posts' } };
		const refused = await update({ operations: { updatePost: constant } });
		expect(refused.error?.description).toContain('The service requires a precondition');
		expect(refused.error?.description).toContain('"precondition": {"header": "if-match"');

		const overrides = {
			operations: {
				updatePost: {
					...constant,
					idAt: '/body/data/id',
					precondition: { header: 'if-match', from: '/headers/etag' },
				},
			},
		};
		const described = await describeWith(overrides);
		expect(described.filter((line) => line.startsWith('Not followed:'))).toEqual([]);
		expect(described).toEqual(
			expect.arrayContaining([
				"  sends the resource's id at /body/data/id too",
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
			contentPublishingNode({ resource: 'post', operation: 'create', content: 'Hi' }),
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
