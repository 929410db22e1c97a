import type { IDataObject } from 'n8n-workflow';

import { describeGroups } from '../../nodes/shared/profile/describe';
import { applyOverrides, parseOverrides } from '../../nodes/shared/profile/overrides';
import { readProfile } from '../../nodes/shared/profile/read';
import type { Profile } from '../../nodes/shared/profile/types';

/**
 * Every place a profile states for an answer is one the document's schema for that answer has:
 * where the rules find none, the built-in place stands in and the part is listed as not followed,
 * naming the place and what the schema has; Profile Overrides that give the place take it off.
 */

const json = (schema: IDataObject) => ({ content: { 'application/json': { schema } } });
const ok = (schema: IDataObject) => ({
	responses: { '200': { description: 'OK', ...json(schema) } },
});
const object = (properties: IDataObject) => ({ type: 'object', properties });
const text = { type: 'string' };

async function read(paths: IDataObject, extra: IDataObject = {}): Promise<Profile> {
	return await readProfile({ openapi: '3.1.0', paths, ...extra }, 'test');
}

/** What is listed as not followed, with the overrides over the reading. */
const notFollowed = (profile: Profile, overrides = '{}') =>
	applyOverrides(profile, parseOverrides(overrides)).notFollowed;

it("lists a job's result the job has under a name no rule knows, until the overrides give it", async () => {
	const job = object({
		id: text,
		status: { type: 'string', enum: ['running', 'succeeded', 'failed'] },
		outcome: object({ url: text }),
		error: object({ message: text }),
		kind: text,
	});
	const profile = await read({ '/v1/jobs/{id}': { get: ok(job) } });
	expect(profile.jobs.result).toEqual(['/result']);
	expect(profile.notFollowed).toEqual([
		{
			part: "its jobs' result",
			of: '/jobs/result',
			why: 'the job at #/paths/~1v1~1jobs~1{id}/get has no /result (it has id, status, outcome, error, kind)',
		},
	]);
	expect(describeGroups(profile)[0]).toEqual([
		'Not followed',
		[
			"Not followed: its jobs' result: the job at #/paths/~1v1~1jobs~1{id}/get has no /result (it has id, status, outcome, error, kind); the built-in conventions stand in",
		],
	]);
	expect(notFollowed(profile, '{"jobs": {"result": "/outcome"}}')).toEqual([]);
});

it('lists a list whose answer holds no list, and items without an id, until the overrides give their places', async () => {
	const profile = await read({
		'/v1/posts': {
			get: ok(object({ entries: object({ first: text }), count: { type: 'integer' } })),
		},
		'/v1/webhooks': { get: ok(object({ data: { type: 'array', items: object({ url: text }) } })) },
		// No schema for its answer: nothing to check its places against.
		'/v1/pages': { get: { responses: { '200': { description: 'OK' } } } },
	});
	const { listPosts, listWebhooks } = profile.operations;
	// A list read as empty would say nothing: the built-in places, which such an answer fails.
	expect(listPosts.answer.items).toEqual(['/body/data', '/body/items', '/body/results']);
	expect([listWebhooks.answer.items, listWebhooks.answer.itemId]).toEqual([['/body/data'], '/id']);
	expect(profile.notFollowed).toEqual([
		{
			part: 'Post → Get Many (GET /v1/posts): its items',
			of: '/operations/listPosts/answer/items',
			operation: 'listPosts',
			why: 'its answer (#/paths/~1v1~1posts/get/responses) has no /body/data or /body/items or /body/results (it has entries, count)',
		},
		{
			part: "Webhook → Get Many (GET /v1/webhooks): its items' id",
			of: '/operations/listWebhooks/answer/itemId',
			operation: 'listWebhooks',
			why: 'an item of /body/data in its answer (#/paths/~1v1~1webhooks/get/responses) has no /id (it has url)',
		},
	]);
	expect(
		notFollowed(
			profile,
			'{"operations": {"listPosts": {"answer": {"items": "/body/entries"}}, "listWebhooks": {"answer": {"itemId": "/url"}}}}',
		),
	).toEqual([]);
});

it('lists a list that takes a cursor its answer names no next one of, until the overrides give the paging', async () => {
	const profile = await read({
		'/v1/posts': {
			get: {
				parameters: [
					{ name: 'cursor', in: 'query', schema: text },
					{ name: 'limit', in: 'query', schema: { type: 'integer' } },
				],
				...ok({
					...object({ data: { type: 'array', items: object({ id: text }) } }),
					additionalProperties: false,
				}),
			},
		},
	});
	// Read as one page: Return All would end there as if the list were complete.
	expect(profile.operations.listPosts.answer.paging?.style).toBe('none');
	expect(profile.notFollowed).toEqual([
		{
			part: 'Post → Get Many (GET /v1/posts): its next page',
			of: '/operations/listPosts/answer/paging',
			operation: 'listPosts',
			why: 'it takes a cursor (cursor) but its answer names no next one, so a list would end after its first page; Profile Overrides can say where: "listPosts": {"answer": {"paging": {"style": "cursor", "cursor": "cursor", "next": "/body/…"}}}',
		},
	]);
	expect(
		notFollowed(
			profile,
			'{"operations": {"listPosts": {"answer": {"paging": {"style": "cursor", "cursor": "cursor", "next": "/headers/x-next-cursor"}}}}}',
		),
	).toEqual([]);
});

describe('webhooks', () => {
	const webhook = (registration: IDataObject, delivery: IDataObject, headers: IDataObject[] = []) =>
		read(
			{
				'/v1/webhooks': {
					post: {
						requestBody: json(object({ url: text, events: { type: 'array', items: text } })),
						...ok(registration),
					},
				},
			},
			{
				webhooks: {
					'job.completed': { post: { parameters: headers, requestBody: json(delivery) } },
				},
			},
		);

	it('lists where a registration holds its address when its answer has no such member', async () => {
		const profile = await webhook(
			object({ id: text, callback: text, events: { type: 'array', items: text } }),
			object({ type: text, job: object({ id: text }) }),
		);
		expect(profile.webhooks.registration).toMatchObject({ url: '/url', events: '/events' });
		expect(profile.notFollowed).toEqual([
			{
				part: "its registrations' address",
				of: '/webhooks/registration/url',
				why: 'the webhook #/paths/~1v1~1webhooks/post/responses answers with has no /url (it has id, callback, events)',
			},
		]);
		expect(notFollowed(profile, '{"webhooks": {"registration": {"url": "/callback"}}}')).toEqual(
			[],
		);
	});

	it("reads a delivery's event from X-Event-Name (Lemon Squeezy's), and lists a built-in place the deliveries lack", async () => {
		const registration = object({ id: text, url: text, events: { type: 'array', items: text } });
		const delivery = object({ action: text, job: object({ id: text }) });
		const header = { name: 'X-Event-Name', in: 'header', required: true, schema: text };
		const named = await webhook(registration, delivery, [header]);
		expect([named.webhooks.delivery.type, named.notFollowed]).toEqual([
			['/headers/x-event-name'],
			[],
		]);

		const unnamed = await webhook(registration, delivery);
		expect(unnamed.webhooks.delivery.type).toEqual(['/body/type']);
		expect(unnamed.notFollowed).toEqual([
			{
				part: "its deliveries' event",
				of: '/webhooks/delivery/type',
				why: 'the delivery of job.completed, which names its event in no header either, has no /body/type (it has action, job)',
			},
		]);
		expect(
			notFollowed(unnamed, '{"webhooks": {"delivery": {"type": "/headers/x-event"}}}'),
		).toEqual([]);
	});
});
