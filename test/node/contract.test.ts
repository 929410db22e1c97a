import { findField, mapFields, resolveContract, type Contract } from '../../nodes/ContentPublishing/transport/contract';
import type { OpenApiDocument } from '../../nodes/ContentPublishing/transport/openapi';
import { buildOpenApiDocument } from '../fake-service/openapi';

/**
 * How the contract reads documents that say things the fake services do not: each case is a
 * small document of its own, so that every way of saying something is read, not only the two
 * profiles' ways.
 */
function documentWith(paths: Record<string, object>, extra: object = {}): OpenApiDocument {
	return { openapi: '3.1.0', paths, ...extra } as OpenApiDocument;
}

const json = (schema: object) => ({ content: { 'application/json': { schema } } });

function listAt(path: string, parameters: object[], answer: object): Contract {
	return resolveContract(documentWith({ [path]: { get: { parameters, responses: { '200': json(answer) } } } }));
}

describe('paging styles, read from parameters and answers', () => {
	const query = (name: string, schema: object = { type: 'integer' }) => ({ name, in: 'query', schema });

	it('reads a cursor with its next cursor', () => {
		const contract = listAt('/v1/posts', [query('page_size', { type: 'integer', maximum: 50 }), query('page_token', { type: 'string' })], {
			type: 'object',
			properties: { posts: { type: 'array', items: {} }, nextPageToken: { type: 'string' } },
		});
		expect(contract.endpoints.listPosts).toMatchObject({
			items: 'posts',
			paging: { style: 'cursor', size: 'page_size', cursor: 'page_token', next: ['nextPageToken'], max: 50 },
		});
	});

	it('reads a page number from its minimum, and a total inside a meta object', () => {
		const contract = listAt('/v1/pages', [query('page', { type: 'integer', minimum: 0 }), query('size')], {
			type: 'object',
			properties: { data: { type: 'array' }, meta: { type: 'object', properties: { total_count: { type: 'integer' } } } },
		});
		expect(contract.endpoints.listPages.paging).toEqual({ style: 'page', size: 'size', page: 'page', first: 0, total: ['meta', 'total_count'], max: 100 });
	});

	it('reads an offset, and a next link before anything else', () => {
		expect(listAt('/v1/webhooks', [query('skip'), query('limit')], { type: 'object', properties: { items: { type: 'array' } } }).endpoints.listWebhooks.paging).toEqual({
			style: 'offset',
			size: 'limit',
			offset: 'skip',
			total: undefined,
			max: 100,
		});
		const linked = listAt('/v1/webhooks', [query('offset'), query('limit')], {
			type: 'object',
			properties: { items: { type: 'array' }, next: { type: ['string', 'null'], format: 'uri' } },
		});
		expect(linked.endpoints.listWebhooks.paging).toMatchObject({ style: 'link', next: ['next'] });
	});

	it('reads a list without paging as one page, and a bare array', () => {
		expect(listAt('/v1/pages', [], { type: 'array', items: {} }).endpoints.listPages).toMatchObject({ items: undefined, paging: { style: 'none' } });
	});
});

describe('jobs', () => {
	function jobsOf(job: object) {
		return resolveContract(documentWith({ '/v1/jobs/{job}': { get: { responses: { '200': json(job) } } } })).jobs;
	}

	it('reads what each status means from x-enum-descriptions, in any order of words', () => {
		const jobs = jobsOf({
			type: 'object',
			properties: {
				uid: { type: 'string' },
				state: {
					type: 'string',
					enum: ['NEW', 'BUSY', 'OK', 'KO', 'STOPPED'],
					'x-enum-descriptions': ['Accepted, not started yet', 'In progress', 'Finished successfully', 'The job failed', 'Cancelled by a user'],
				},
				outcome: { type: 'object', description: 'The result of a finished job.' },
				problem: { type: 'object', description: 'Why the job failed.' },
			},
		});
		expect(jobs).toEqual({
			id: ['uid'],
			status: ['state'],
			result: ['outcome'],
			error: ['problem'],
			states: { NEW: 'pending', BUSY: 'pending', OK: 'succeeded', KO: 'failed', STOPPED: 'failed' },
		});
	});

	it('falls back to the usual names where the document explains nothing', () => {
		expect(jobsOf({ type: 'object', properties: { id: { type: 'string' }, status: { enum: ['queued', 'done'] } } })).toMatchObject({
			id: ['id'],
			status: ['status'],
			states: {},
		});
	});
});

describe('fields', () => {
	const shape = {
		properties: {
			body: { type: 'string', description: 'What the post says.' },
			heading: { type: 'string', description: 'Title shown above the post.' },
			publish_on: { type: 'string', format: 'date-time', description: 'When a scheduled post goes out.' },
			state: { type: 'string', enum: ['DRAFT', 'LIVE'] },
			count: { type: 'integer' },
		},
		closed: true,
	};

	it('finds a field by name, by case style, by the words of its name or description, and only of a fitting type', () => {
		expect(findField(shape, 'content', 'text')).toBe('body');
		expect(findField(shape, 'title', 'text')).toBe('heading');
		expect(findField(shape, 'scheduled_at', '2026-01-01T00:00:00Z')).toBe('publish_on');
		expect(findField({ properties: { pageId: {} } }, 'page_id', 'p1')).toBe('pageId');
		expect(findField(shape, 'title', 3)).toBeUndefined();
	});

	it('spells enum values the service\'s way, and fails a field a closed schema has no place for', () => {
		const document = documentWith({});
		expect(mapFields(document, shape, { content: 'Hi', status: 'draft' }, 'POST /v1/posts')).toEqual({ body: 'Hi', state: 'DRAFT' });
		expect(() => mapFields(document, shape, { tags: ['a'] }, 'POST /v1/posts')).toThrow('The service takes no "tags" in POST /v1/posts');
		expect(mapFields(document, { ...shape, closed: false }, { tags: ['a'] }, 'POST /v1/posts')).toEqual({ tags: ['a'] });
	});
});

describe('the primary fake service\'s document', () => {
	const contract = resolveContract(buildOpenApiDocument('http://127.0.0.1:1') as unknown as OpenApiDocument);

	it('reads today\'s conventions back from it', () => {
		expect(contract.endpoints.updatePost).toMatchObject({ method: 'PATCH', path: '/v1/posts/{id}', replaces: false, envelope: undefined });
		expect(contract.endpoints.listPosts.paging).toEqual({ style: 'cursor', size: 'limit', cursor: 'cursor', next: ['next_cursor'], max: 100 });
		expect(contract.webhooks).toMatchObject({
			events: ['job.completed', 'job.failed', 'post.published', '*'],
			wildcard: true,
			secretField: 'secret',
			secretAnswerField: 'secret',
			delivery: { type: 'type', id: 'id', time: 'created_at', data: 'data' },
			signature: { format: 'sha256', header: 'x-content-publishing-signature', timestampHeader: 'x-content-publishing-timestamp' },
		});
		expect(contract.errors.message[0]).toEqual(['error', 'message']);
	});
});
