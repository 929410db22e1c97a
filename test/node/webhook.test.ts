import type { IDataObject } from 'n8n-workflow';

import type { StoredWebhook } from '../fake-service';
import { byId, jsonOf, useFakeService } from '../support/fixtures';

const harness = useFakeService();

const HOOK_URL = 'https://hooks.example.com/content';

async function createWebhook(fields: Record<string, unknown> = {}): Promise<IDataObject> {
	const result = await harness.run({
		resource: 'webhook',
		operation: 'create',
		url: HOOK_URL,
		events: ['job.completed'],
		...fields,
	});
	return jsonOf(result)[0];
}

/** Creates webhooks through the node, one item each, and answers with their ids in creation order. */
async function createWebhooks(count: number): Promise<string[]> {
	const result = await harness.run(
		{ resource: 'webhook', operation: 'create', url: '={{ $json.url }}', events: ['*'] },
		{
			input: Array.from({ length: count }, (_, index) => ({
				json: { url: `https://hooks.example.com/${index}` },
			})),
		},
	);
	return jsonOf(result).map((webhook) => webhook.id as string);
}

/** The webhook as the service answers GET /v1/webhooks/{id}: everything but the secret. */
function publicView(id: string): IDataObject {
	const webhook: Partial<StoredWebhook> = { ...harness.service.webhooks.get(id) };
	delete webhook.secret;
	return webhook as IDataObject;
}

describe('webhook → create', () => {
	it('sends the URL and events only and returns the new webhook with its secret', async () => {
		const result = await harness.run({
			resource: 'webhook',
			operation: 'create',
			url: HOOK_URL,
			events: ['job.completed', 'post.published'],
			additionalFields: { description: '', secret: '  ', extraBody: '{}', extraQuery: '{}' },
		});

		const [webhook] = jsonOf(result);
		const [request] = harness.sent('createWebhook');
		expect(request.body).toEqual({ url: HOOK_URL, events: ['job.completed', 'post.published'] });
		expect(request.query).toEqual({});
		const stored = harness.service.webhooks.get(webhook.id as string);
		expect(stored).toBeDefined();
		expect(webhook).toEqual({ ...stored });
		expect(webhook).toEqual(
			expect.objectContaining({
				url: HOOK_URL,
				events: ['job.completed', 'post.published'],
				description: null,
				active: true,
				secret: expect.stringMatching(/^whsec_[0-9a-f]{48}$/),
			}),
		);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('sends the optional fields that are set, including active false', async () => {
		const webhook = await createWebhook({
			events: ['*'],
			additionalFields: {
				description: 'Ops alerts',
				active: false,
				secret: 'my-own-signing-secret',
			},
		});

		expect(harness.sent('createWebhook')[0].body).toEqual({
			url: HOOK_URL,
			events: ['*'],
			description: 'Ops alerts',
			active: false,
			secret: 'my-own-signing-secret',
		});
		expect(webhook).toEqual(
			expect.objectContaining({
				description: 'Ops alerts',
				active: false,
				secret: 'my-own-signing-secret',
			}),
		);
		expect(harness.service.webhooks.get(webhook.id as string)?.active).toBe(false);
	});

	it('merges the extra body last, so it overrides a field', async () => {
		const webhook = await createWebhook({
			additionalFields: {
				description: 'From the field',
				extraBody: '{"description": "From the extra body"}',
			},
		});

		expect(harness.sent('createWebhook')[0].body).toEqual({
			url: HOOK_URL,
			events: ['job.completed'],
			description: 'From the extra body',
		});
		expect(webhook.description).toBe('From the extra body');
		expect(harness.service.webhooks.get(webhook.id as string)?.description).toBe(
			'From the extra body',
		);
	});

	// Through expressions: n8n itself refuses to start a workflow whose required literal parameters are empty.
	it.each([
		['an empty URL', { url: '   ' }, '"URL" of item 0 is empty'],
		[
			'a URL that is not http(s)',
			{ url: 'ftp://files.example.com/hook' },
			'"URL" of item 0 is not an http(s) URL',
		],
		[
			'a URL that is not a URL',
			{ url: 'hooks.example.com/content' },
			'"URL" of item 0 is not an http(s) URL',
		],
		['no events', { events: [] }, '"Events" of item 0 is empty'],
	])('refuses %s before sending anything', async (_case, fields, message) => {
		const result = await harness.run(
			{
				resource: 'webhook',
				operation: 'create',
				url: '={{ $json.url }}',
				events: '={{ $json.events }}',
			},
			{ input: [{ json: { url: HOOK_URL, events: ['job.completed'], ...fields } }] },
		);

		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(message);
		expect(result.error?.context?.itemIndex).toBe(0);
		expect(result.items).toEqual([]);
		expect(harness.service.requests).toHaveLength(0);
		expect(harness.service.webhooks.size).toBe(0);
	});

	it('says what to do when no event is chosen', async () => {
		const result = await harness.run(
			{ resource: 'webhook', operation: 'create', url: HOOK_URL, events: '={{ $json.events }}' },
			{ input: [{ json: { events: [] } }] },
		);
		expect(result.error?.message).toBe('"Events" of item 0 is empty');
		expect(result.error?.description).toBe('Choose at least one event to deliver.');
		expect(harness.service.requests).toHaveLength(0);
	});

	it('refuses an invalid item before creating the valid ones', async () => {
		const result = await harness.run(
			{ resource: 'webhook', operation: 'create', url: '={{ $json.url }}', events: ['*'] },
			{ input: [{ json: { url: HOOK_URL } }, { json: { url: 'not a url' } }] },
		);
		expect(result.error?.message).toBe('"URL" of item 1 is not an http(s) URL');
		expect(result.error?.context?.itemIndex).toBe(1);
		expect(harness.service.requests).toHaveLength(0);
	});

	it('reports a 422 from the service as a NodeApiError with its message and details', async () => {
		harness.expectContractViolation();
		const result = await harness.run({
			resource: 'webhook',
			operation: 'create',
			url: HOOK_URL,
			events: ['job.completed'],
			additionalFields: { extraBody: '{"events": []}' },
		});

		const [request] = harness.sent('createWebhook');
		expect(request.body).toEqual({ url: HOOK_URL, events: [] });
		expect(request.status).toBe(422);
		expect(request.contractErrors).toEqual([expect.stringMatching(/^events: /)]);

		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('422');
		expect(result.error?.message).toBe(
			`The request does not match the API description: ${request.contractErrors.join('; ')}`,
		);
		expect(result.error?.description).toContain('Error code: validation_error.');
		expect(result.error?.description).toContain(`Details: ${request.contractErrors.join('; ')}.`);
		expect(harness.service.webhooks.size).toBe(0);
	});
});

describe('webhook → get', () => {
	it.each([
		['id', (id: string) => id],
		['list', (id: string) => id],
		['url', (id: string) => `https://api.example.com/v1/webhooks/${id}`],
	] as const)('reads one webhook named by %s, without its secret', async (mode, toValue) => {
		const ids = await createWebhooks(3);
		const result = await harness.run({
			resource: 'webhook',
			operation: 'get',
			webhookId: byId(mode, toValue(ids[1])),
		});

		expect(jsonOf(result)).toEqual([publicView(ids[1])]);
		expect(jsonOf(result)[0]).not.toHaveProperty('secret');
		expect(harness.sent('getWebhook').map((request) => request.path)).toEqual([
			`/v1/webhooks/${ids[1]}`,
		]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('refuses an id that climbs out of its route, even encoded, before anything is sent', async () => {
		await createWebhooks(1);
		const before = harness.service.requests.length;
		// An expression: a literal "../webhooks" is already refused by the By ID mode's validation (below).
		// Encoded as `..%2Fwebhooks` it would stay one segment to the URL, but a proxy decodes and resolves it.
		const result = await harness.run(
			{ resource: 'webhook', operation: 'get', webhookId: byId('id', '={{ $json.id }}') },
			{ input: [{ json: { id: '../webhooks' } }] },
		);

		expect(harness.service.requests.slice(before)).toEqual([]);
		expect(result.error?.message).toBe('"Webhook" of item 0 is not an ID: "../webhooks"');
		expect(result.items).toEqual([]);
	});

	it('has a literal ID with a slash refused by the By ID validation before anything is sent', async () => {
		await expect(
			harness.run({ resource: 'webhook', operation: 'get', webhookId: byId('id', '../webhooks') }),
		).rejects.toThrow(/workflow has issues/);
		expect(harness.service.requests).toHaveLength(0);
	});

	it('fails with a 404 hint for an unknown webhook', async () => {
		const result = await harness.run({
			resource: 'webhook',
			operation: 'get',
			webhookId: byId('id', 'wh_missing'),
		});
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toBe('Webhook "wh_missing" was not found');
		expect(result.error?.description).toMatch(/Error code: not_found\..*Check the ID/);
	});

	it('refuses an empty webhook ID before sending anything', async () => {
		const result = await harness.run(
			{ resource: 'webhook', operation: 'get', webhookId: byId('id', '={{ $json.id }}') },
			{ input: [{ json: { id: ' ' } }] },
		);
		expect(result.error?.message).toBe('"Webhook" of item 0 is empty');
		expect(result.error?.context?.itemIndex).toBe(0);
		expect(harness.service.requests).toHaveLength(0);
	});
});

describe('webhook → getMany', () => {
	it('follows the cursor for Return All and returns every webhook without secrets', async () => {
		const ids = await createWebhooks(5);
		const result = await harness.run({
			resource: 'webhook',
			operation: 'getMany',
			returnAll: true,
		});

		expect(jsonOf(result)).toEqual(ids.map(publicView));
		// Five webhooks, at most two per page of results.
		const requests = harness.sent('listWebhooks');
		expect(requests).toHaveLength(3);
		expect(requests[0].query.cursor).toBeUndefined();
		expect(requests[1].query.cursor).toEqual(expect.any(String));
		expect(requests[2].query.cursor).toEqual(expect.any(String));
		expect(requests[2].query.cursor).not.toBe(requests[1].query.cursor);
		expect(result.items.map((item) => item.pairedItem)).toEqual(ids.map(() => ({ item: 0 })));
	});

	it('stops at the limit, asking only for what is missing', async () => {
		const ids = await createWebhooks(5);
		const result = await harness.run({
			resource: 'webhook',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
		});

		expect(jsonOf(result).map((webhook) => webhook.id)).toEqual(ids.slice(0, 3));
		const requests = harness.sent('listWebhooks');
		expect(requests.map((request) => request.query.limit)).toEqual(['3', '1']);
	});

	it('returns nothing when there are no webhooks', async () => {
		const result = await harness.run({
			resource: 'webhook',
			operation: 'getMany',
			returnAll: true,
		});
		expect(jsonOf(result)).toEqual([]);
		expect(harness.sent('listWebhooks')).toHaveLength(1);
	});
});

describe('webhook → update', () => {
	it('sends only the changed fields and returns the updated webhook', async () => {
		const created = await createWebhook({ additionalFields: { description: 'Before' } });
		const id = created.id as string;

		const result = await harness.run({
			resource: 'webhook',
			operation: 'update',
			webhookId: byId('id', id),
			updateFields: { description: 'After', active: false, events: [], url: '', secret: '' },
		});

		const [request] = harness.sent('updateWebhook');
		expect(request.method).toBe('PATCH');
		expect(request.path).toBe(`/v1/webhooks/${id}`);
		expect(request.body).toEqual({ description: 'After', active: false });
		expect(jsonOf(result)).toEqual([publicView(id)]);
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({
				description: 'After',
				active: false,
				url: HOOK_URL,
				events: ['job.completed'],
			}),
		);
		expect(harness.service.webhooks.get(id)?.secret).toBe(created.secret);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('changes the URL and events', async () => {
		const { id } = await createWebhook();
		const result = await harness.run({
			resource: 'webhook',
			operation: 'update',
			webhookId: byId('url', `https://api.example.com/v1/webhooks/${id as string}`),
			updateFields: {
				url: 'https://hooks.example.com/other',
				events: ['job.failed', 'post.published'],
			},
		});

		expect(harness.sent('updateWebhook')[0].body).toEqual({
			url: 'https://hooks.example.com/other',
			events: ['job.failed', 'post.published'],
		});
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({
				id,
				url: 'https://hooks.example.com/other',
				events: ['job.failed', 'post.published'],
			}),
		);
	});

	it.each([
		['no update field', {}],
		['only empty update fields', { description: '', events: [], url: '  ', extraBody: '{}' }],
	])('refuses %s before sending anything', async (_case, updateFields) => {
		const { id } = await createWebhook();
		const before = harness.service.requests.length;

		const result = await harness.run({
			resource: 'webhook',
			operation: 'update',
			webhookId: byId('id', id as string),
			updateFields,
		});

		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe('Nothing to update in item 0');
		expect(result.error?.description).toBe('Add at least one field under "Update Fields".');
		expect(harness.service.requests).toHaveLength(before);
		expect(harness.sent('updateWebhook')).toHaveLength(0);
	});

	it('fails with 404 for an unknown webhook', async () => {
		const result = await harness.run({
			resource: 'webhook',
			operation: 'update',
			webhookId: byId('id', 'wh_missing'),
			updateFields: { description: 'x' },
		});
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toBe('Webhook "wh_missing" was not found');
	});
});

describe('webhook → delete', () => {
	it('deletes the webhook and confirms it', async () => {
		const [keep, remove] = await createWebhooks(2);
		const result = await harness.run({
			resource: 'webhook',
			operation: 'delete',
			webhookId: byId('id', remove),
		});

		expect(jsonOf(result)).toEqual([{ id: remove, deleted: true }]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		const [request] = harness.sent('deleteWebhook');
		expect(request.method).toBe('DELETE');
		expect(request.path).toBe(`/v1/webhooks/${remove}`);
		expect(request.status).toBe(204);
		expect(harness.service.webhooks.has(remove)).toBe(false);
		expect(harness.service.webhooks.has(keep)).toBe(true);
	});

	it('fails with 404 when deleting the same webhook again', async () => {
		const [id] = await createWebhooks(1);
		expect(
			jsonOf(
				await harness.run({ resource: 'webhook', operation: 'delete', webhookId: byId('id', id) }),
			),
		).toEqual([{ id, deleted: true }]);

		const again = await harness.run({
			resource: 'webhook',
			operation: 'delete',
			webhookId: byId('id', id),
		});
		expect(again.error?.name).toBe('NodeApiError');
		expect(again.error?.httpCode).toBe('404');
		expect(again.error?.message).toBe(`Webhook "${id}" was not found`);
		expect(harness.sent('deleteWebhook').map((request) => request.status)).toEqual([204, 404]);
	});
});

describe('webhook → continue on fail', () => {
	it.each([
		['onError: continueRegularOutput', { onError: 'continueRegularOutput' as const }],
		['continueOnFail: true', { continueOnFail: true }],
	])(
		'gives an error item paired with the failing item while the others succeed (%s)',
		async (_setting, node) => {
			const [first, second] = await createWebhooks(2);
			const result = await harness.run(
				{ resource: 'webhook', operation: 'get', webhookId: byId('id', '={{ $json.id }}') },
				{
					node,
					input: [
						{ json: { id: first } },
						{ json: { id: 'wh_missing' } },
						{ json: { id: second } },
					],
				},
			);

			expect(result.error).toBeUndefined();
			expect(result.items.map((item) => item.json)).toEqual([
				publicView(first),
				{
					error: 'Webhook "wh_missing" was not found',
					httpCode: '404',
					description: expect.stringContaining('Error code: not_found.'),
				},
				publicView(second),
			]);
			expect(result.items.map((item) => item.pairedItem)).toEqual([
				{ item: 0 },
				{ item: 1 },
				{ item: 2 },
			]);
			expect(harness.sent('getWebhook').map((request) => request.path)).toEqual([
				`/v1/webhooks/${first}`,
				'/v1/webhooks/wh_missing',
				`/v1/webhooks/${second}`,
			]);
		},
	);

	it('turns an invalid item into an error item and still creates the valid ones', async () => {
		const result = await harness.run(
			{
				resource: 'webhook',
				operation: 'create',
				url: '={{ $json.url }}',
				events: ['post.published'],
			},
			{
				node: { onError: 'continueRegularOutput' },
				input: [
					{ json: { url: 'https://a.example.com/hook' } },
					{ json: { url: '' } },
					{ json: { url: 'https://b.example.com/hook' } },
				],
			},
		);

		expect(result.items.map((item) => item.json.url ?? item.json.error)).toEqual([
			'https://a.example.com/hook',
			'"URL" of item 1 is empty',
			'https://b.example.com/hook',
		]);
		expect(result.items[1].json).not.toHaveProperty('httpCode');
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(
			harness.sent('createWebhook').map((request) => (request.body as IDataObject).url),
		).toEqual(['https://a.example.com/hook', 'https://b.example.com/hook']);
		expect(harness.service.webhooks.size).toBe(2);
	});
});
