import { createHmac } from 'node:crypto';

import { buildJsonApiDocument, JSONAPI_MEDIA_TYPE } from './jsonapi-document';
import { createContractValidator } from './index';
import {
	checkedCall,
	serviceStarter,
	startReceiver,
	validateOpenApiDocument,
	waitFor,
} from './test-helpers';

/**
 * The jsonapi profile on the wire: JSON:API 1.1 as Lemon Squeezy's API, its refusals and paging, and
 * per-resource deliveries; every answer checked against its own document. The operations themselves
 * run through the node in test/node/profiles.test.ts.
 */

interface Resource {
	type: string;
	id: string;
	attributes: Record<string, unknown>;
	relationships?: Record<string, { data: { type: string; id: string } | null }>;
	links: { self: string };
}
interface Errors {
	errors: Array<{ status: string; title: string; detail: string; source?: { pointer?: string } }>;
}

const start = serviceStarter('jsonapi');
const contract = createContractValidator(buildJsonApiDocument());
const headers = { 'Content-Type': JSONAPI_MEDIA_TYPE };

it('serves a valid OpenAPI 3.1 document', async () => {
	expect(await validateOpenApiDocument(buildJsonApiDocument('http://127.0.0.1:1'))).toEqual({
		valid: true,
	});
});

it('creates and updates a post as JSON:API resource objects, its page a relationship', async () => {
	const service = await start();
	const [pageId] = [...service.pages.keys()];
	const created = await checkedCall<{ data: Resource }>(contract, service, 'POST', '/v1/posts', {
		headers,
		body: {
			data: {
				type: 'posts',
				attributes: { content: 'Hello' },
				relationships: { page: { data: { type: 'pages', id: pageId } } },
			},
		},
	});
	expect(created.status).toBe(201);
	expect(created.headers.get('content-type')).toMatch(/^application\/vnd\.api\+json/);
	const { id } = created.body.data;
	expect(created.body.data).toMatchObject({
		type: 'posts',
		attributes: { content: 'Hello', status: 'draft' },
		relationships: { page: { data: { type: 'pages', id: pageId } } },
		links: { self: `${service.url}/v1/posts/${id}` },
	});
	const updated = await checkedCall<{ data: Resource }>(
		contract,
		service,
		'PATCH',
		`/v1/posts/${id}`,
		{ headers, body: { data: { type: 'posts', id, attributes: { title: 'Launch' } } } },
	);
	expect(updated.body.data.attributes).toMatchObject({ title: 'Launch', content: 'Hello' });
	expect(service.posts.get(id)).toMatchObject({ title: 'Launch', page_id: pageId });
});

it('refuses what JSON:API 1.1 refuses: no type (400), another type or id (409), another media type (415)', async () => {
	const service = await start();
	const [postId] = [...service.posts.keys()];
	const refusal = async (
		method: string,
		path: string,
		body: unknown,
		type = JSONAPI_MEDIA_TYPE,
	) => {
		const answer = await checkedCall<Errors>(contract, service, method, path, {
			headers: { 'Content-Type': type },
			body,
		});
		return [answer.status, answer.body.errors[0].status, answer.body.errors[0].source?.pointer];
	};
	const attributes = { content: 'Hello' };
	expect(await refusal('POST', '/v1/posts', { data: { attributes } })).toEqual([
		400,
		'400',
		'/data/type',
	]);
	expect(await refusal('POST', '/v1/posts', { data: { type: 'pages', attributes } })).toEqual([
		409,
		'409',
		'/data/type',
	]);
	expect(
		await refusal('PATCH', `/v1/posts/${postId}`, { data: { type: 'posts', id: 'post_other' } }),
	).toEqual([409, '409', '/data/id']);
	expect(
		await refusal('POST', '/v1/posts', { data: { type: 'posts', attributes } }, 'application/json'),
	).toEqual([415, '415', undefined]);
	expect(service.posts.has('post_other')).toBe(false);
});

it('pages lists by page[number] and page[size], with meta.page and links', async () => {
	const service = await start();
	const total = service.pages.size;
	const first = await checkedCall<{
		data: Resource[];
		meta: { page: Record<string, number> };
		links: { next?: string };
	}>(contract, service, 'GET', '/v1/pages?page%5Bsize%5D=2');
	expect(first.body.data.map((page) => page.id)).toEqual([...service.pages.keys()].slice(0, 2));
	expect(first.body.meta.page).toEqual({
		currentPage: 1,
		from: 1,
		lastPage: Math.ceil(total / 2),
		perPage: 2,
		to: 2,
		total,
	});
	const second = await checkedCall<{ data: Resource[] }>(
		contract,
		service,
		'GET',
		first.body.links.next!,
	);
	expect(second.body.data.map((page) => page.id)).toEqual([...service.pages.keys()].slice(2, 4));
});

it('delivers per-resource events in X-Event-Name, the job a resource object, signed in X-Signature', async () => {
	const service = await start({ jobMode: 'manual' });
	const receiver = await startReceiver();
	try {
		const secret = 'a-secret-of-sixteen-or-more';
		service.webhooks.clear();
		await checkedCall(contract, service, 'POST', '/v1/webhooks', {
			headers,
			body: {
				data: { type: 'webhooks', attributes: { url: receiver.url, events: ['job'], secret } },
			},
		});
		const job = service.startJob('generate.video', { prompt: 'Soon' });
		await service.finishJob(job.id, 'succeeded');
		await waitFor(() => receiver.received.length === 1, 20_000);
		const [delivery] = receiver.received;
		expect(delivery.headers['x-event-name']).toBe('job');
		expect(delivery.headers['x-signature']).toBe(
			createHmac('sha256', secret).update(delivery.body).digest('hex'),
		);
		expect(JSON.parse(delivery.body)).toMatchObject({
			action: 'completed',
			job: {
				type: 'jobs',
				id: job.id,
				attributes: { kind: 'generate.video', status: 'succeeded' },
			},
		});
		expect(contract.validateWebhookEvent('job', JSON.parse(delivery.body))).toEqual([]);
	} finally {
		await receiver.close();
	}
});
