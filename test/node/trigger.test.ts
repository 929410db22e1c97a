import type { INode } from 'n8n-workflow';

import { signWebhookPayload } from '../fake-service';
import { useFakeService, type Harness } from '../support/fixtures';
import {
	deliver,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
	type TestCredentials,
} from '../support/n8n-engine';

const harness = useFakeService();

function setUp(
	parameters: Record<string, unknown> = { events: ['job.completed'] },
	on: Harness = harness,
	nodeChanges: Partial<INode> = {},
) {
	const node = { ...triggerNode(parameters as never), ...nodeChanges };
	const workflow = triggerWorkflow(node);
	const lifecycle = (
		method: 'checkExists' | 'create' | 'delete',
		options: { isTest?: boolean; credentials?: Partial<TestCredentials> } = {},
	) =>
		runWebhookMethod(
			workflow,
			node,
			{ ...on.credentials, ...options.credentials },
			method,
			options,
		);
	const activate = async (options: { isTest?: boolean } = {}) => {
		if (!(await lifecycle('checkExists', options))) await lifecycle('create', options);
	};
	const stored = () =>
		workflow.getStaticData('node', node) as
			| { subscriptions?: Record<string, { id: string; secret: string }> }
			| undefined;
	return { node, workflow, lifecycle, activate, stored };
}

function signed(secret: string, event: object, timestamp = Math.floor(Date.now() / 1000)) {
	const rawBody = JSON.stringify(event);
	return {
		rawBody,
		headers: {
			'Content-Type': 'application/json',
			'X-Content-Publishing-Timestamp': String(timestamp),
			'X-Content-Publishing-Signature': signWebhookPayload(secret, String(timestamp), rawBody),
			'X-Content-Publishing-Event': (event as { type: string }).type,
		},
	};
}

function jobEvent(type = 'job.completed', job: object = {}) {
	return {
		id: 'evt_1',
		type,
		created_at: '2026-11-22T10:00:00.000Z',
		data: {
			job: {
				id: 'job_1',
				type: 'generate.video',
				status: 'succeeded',
				result: { video_url: 'https://v/1.mp4' },
				...job,
			},
		},
	};
}

describe('trigger lifecycle', () => {
	it('subscribes the production URL once, keeps it while it matches, and unsubscribes', async () => {
		const { node, lifecycle, activate, stored } = setUp({
			events: ['job.completed', 'post.published'],
		});

		await activate();
		expect([...harness.service.webhooks.values()]).toEqual([
			expect.objectContaining({
				url: webhookUrl(node),
				events: ['job.completed', 'post.published'],
				active: true,
			}),
		]);
		const [webhook] = harness.service.webhooks.values();
		expect(stored()?.subscriptions?.[webhookUrl(node)]).toEqual(
			expect.objectContaining({ id: webhook.id, secret: webhook.secret }),
		);

		await activate();
		expect(harness.sent('createWebhook')).toHaveLength(1);

		await expect(lifecycle('delete')).resolves.toBe(true);
		expect(harness.service.webhooks.size).toBe(0);
		expect(stored()?.subscriptions).toEqual({});
	});

	it('sends a secret of its own and keeps the one the service returns', async () => {
		const { node, activate, stored } = setUp();
		await activate();
		const body = harness.sent('createWebhook')[0].body as { secret: string };
		expect(body.secret).toMatch(/^[0-9a-f]{64}$/);
		expect(stored()?.subscriptions?.[webhookUrl(node)].secret).toBe(
			[...harness.service.webhooks.values()][0].secret,
		);
	});

	it('recreates a webhook deleted on the service, without a duplicate', async () => {
		const { lifecycle, activate } = setUp();
		await activate();
		harness.service.webhooks.clear();

		await expect(lifecycle('checkExists')).resolves.toBe(false);
		await lifecycle('create');
		expect(harness.service.webhooks.size).toBe(1);
	});

	it('replaces a webhook whose events no longer match the node', async () => {
		const { node, workflow, activate } = setUp();
		await activate();
		const [old] = harness.service.webhooks.keys();
		node.parameters.events = ['job.failed'];

		await runWebhookMethod(workflow, node, harness.credentials, 'checkExists').then(
			async (exists) => {
				expect(exists).toBe(false);
				await runWebhookMethod(workflow, node, harness.credentials, 'create');
			},
		);
		expect([...harness.service.webhooks.values()]).toEqual([
			expect.objectContaining({ events: ['job.failed'] }),
		]);
		expect(harness.service.webhooks.has(old)).toBe(false);
	});

	it('removes a registration left behind for its URL before subscribing', async () => {
		const { node, activate } = setUp();
		harness.service.webhooks.clear();
		await fetch(`${harness.service.url}/v1/webhooks`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${harness.service.apiKey}`,
				'content-type': 'application/json',
			},
			body: JSON.stringify({ url: webhookUrl(node), events: ['job.completed'] }),
		});

		await activate();
		expect(
			[...harness.service.webhooks.values()].filter((webhook) => webhook.url === webhookUrl(node)),
		).toHaveLength(1);
	});

	it('keeps test and production subscriptions apart', async () => {
		const { node, lifecycle, activate } = setUp();
		await activate();
		await activate({ isTest: true });
		expect([...harness.service.webhooks.values()].map((webhook) => webhook.url).sort()).toEqual(
			[webhookUrl(node), webhookUrl(node, { isTest: true })].sort(),
		);

		await lifecycle('delete', { isTest: true });
		expect([...harness.service.webhooks.values()].map((webhook) => webhook.url)).toEqual([
			webhookUrl(node),
		]);
	});

	it('counts a webhook already deleted on the service as deleted', async () => {
		const { lifecycle, activate, stored } = setUp();
		await activate();
		harness.service.webhooks.clear();
		await expect(lifecycle('delete')).resolves.toBe(true);
		expect(stored()?.subscriptions).toEqual({});
	});

	it('reports a failed deletion and keeps what it needs to retry', async () => {
		const { node, lifecycle, activate, stored } = setUp();
		await activate();
		harness.service.injectFault({ match: { method: 'DELETE' }, status: 500 });

		await expect(lifecycle('delete')).rejects.toThrow();
		expect(stored()?.subscriptions?.[webhookUrl(node)]).toBeDefined();
		await expect(lifecycle('delete')).resolves.toBe(true);
		expect(harness.service.webhooks.size).toBe(0);
	});
});

describe('trigger deliveries', () => {
	async function activated(parameters?: Record<string, unknown>, nodeChanges?: Partial<INode>) {
		const setup = setUp(parameters, harness, nodeChanges);
		await setup.activate();
		const secret = [...harness.service.webhooks.values()].find(
			(webhook) => webhook.url === webhookUrl(setup.node),
		)!.secret;
		const post = (request: { headers: Record<string, string>; rawBody: string }) =>
			deliver(setup.workflow, setup.node, harness.credentials, request);
		return { ...setup, secret, post };
	}

	it('starts the workflow with the event, the job and its result', async () => {
		const { secret, post } = await activated();
		const result = await post(signed(secret, jobEvent()));

		expect(result.response.workflowData).toEqual([
			[
				{
					json: {
						event: 'job.completed',
						eventId: 'evt_1',
						createdAt: '2026-11-22T10:00:00.000Z',
						job: expect.objectContaining({ id: 'job_1', status: 'succeeded' }),
						result: { video_url: 'https://v/1.mp4' },
					},
				},
			],
		]);
	});

	it.each([
		['a wrong secret', (secret: string) => signed(`${secret}x`, jobEvent())],
		[
			'no signature',
			(secret: string) => ({
				...signed(secret, jobEvent()),
				headers: { 'Content-Type': 'application/json' },
			}),
		],
		[
			'an old timestamp (a replay)',
			(secret: string) => signed(secret, jobEvent(), Math.floor(Date.now() / 1000) - 3600),
		],
		[
			'a changed body',
			(secret: string) => {
				const request = signed(secret, jobEvent());
				return { ...request, rawBody: request.rawBody.replace('job_1', 'job_2') };
			},
		],
	])('answers 401 and starts nothing for %s', async (_case, forge) => {
		const { secret, post } = await activated();
		const result = await post(forge(secret));
		expect(result.status).toBe(401);
		expect(result.response).toEqual({ noWebhookResponse: true });
	});

	it('starts one execution for a delivery the service sends twice', async () => {
		const { secret, post } = await activated();
		const first = await post(signed(secret, { ...jobEvent(), id: 'evt_twice' }));
		const again = await post(signed(secret, { ...jobEvent(), id: 'evt_twice' }));
		const other = await post(signed(secret, { ...jobEvent(), id: 'evt_other' }));

		expect(first.response.workflowData).toHaveLength(1);
		expect(again.status).toBe(200);
		expect(again.response).toEqual({
			webhookResponse: { received: true, ignored: 'delivered before' },
		});
		expect(other.response.workflowData).toHaveLength(1);
	});

	it('refuses a replay of a delivery without an id, by its body', async () => {
		const { secret, post } = await activated();
		const withoutId: Partial<ReturnType<typeof jobEvent>> = jobEvent();
		delete withoutId.id;
		const delivery = signed(secret, withoutId);

		expect((await post(delivery)).response.workflowData).toHaveLength(1);
		expect((await post(delivery)).response).toEqual({
			webhookResponse: { received: true, ignored: 'delivered before' },
		});
	});

	describe('replays', () => {
		const figures: string[] = [];
		afterAll(() => console.log(`replays: ${figures.join('; ')}`));
		const OTHER_TRIGGER = {
			id: 'other-trigger-node',
			webhookId: '5e0c1b7a-2f4d-4e8b-9c6a-3d2e1f0a9b8c',
		};
		const repeat = { webhookResponse: { received: true, ignored: 'delivered before' } };

		it("are refused for the whole window whatever else arrives: another trigger's 10,000 deliveries push nothing out, and a trigger full of deliveries inside their window answers 503 with Retry-After", async () => {
			const first = await activated();
			const other = await activated(undefined, OTHER_TRIGGER);
			const captured = signed(first.secret, { ...jobEvent(), id: 'evt_captured' });
			expect((await first.post(captured)).response.workflowData).toHaveLength(1);

			// The 10,000: as many as one trigger remembers, all inside the window.
			let started = 0;
			for (let index = 0; index < 10_000; index++) {
				const result = await other.post(
					signed(other.secret, { ...jobEvent(), id: `evt_other_${index}` }),
				);
				if (result.response.workflowData !== undefined) started++;
			}
			expect(started).toBe(10_000);
			const replayed = await first.post(captured);
			expect(replayed.response).toEqual(repeat);
			figures.push(
				`${started.toLocaleString('en')} deliveries, then a replay inside the window: ${replayed.response.workflowData === undefined ? 'refused' : 'started'}`,
			);

			// The other trigger is full: a new delivery waits, forgetting nothing, and its first replay is still refused.
			const waiting = await other.post(
				signed(other.secret, { ...jobEvent(), id: 'evt_other_new' }),
			);
			expect(waiting.status).toBe(503);
			expect(waiting.response).toEqual({ noWebhookResponse: true });
			const retryAfter = Number(waiting.headers['retry-after']);
			expect(retryAfter).toBeGreaterThanOrEqual(1);
			expect(retryAfter).toBeLessThanOrEqual(601);
			const oldest = await other.post(signed(other.secret, { ...jobEvent(), id: 'evt_other_0' }));
			expect(oldest.response).toEqual(repeat);
			// The first trigger's memory is its own: it goes on taking new deliveries.
			const fresh = await first.post(signed(first.secret, { ...jobEvent(), id: 'evt_fresh' }));
			expect(fresh.response.workflowData).toHaveLength(1);
			figures.push(
				`a trigger holding 10,000 deliveries inside the window: the next answered ${waiting.status} with Retry-After ${retryAfter} s, a replay of its oldest refused, the other trigger unaffected`,
			);
		}, 300_000);
	});

	it('ignores events the node did not select', async () => {
		const { secret, post } = await activated({ events: ['job.completed'] });
		const result = await post(signed(secret, jobEvent('job.failed')));
		expect(result.status).toBe(200);
		expect(result.response.workflowData).toBeUndefined();
	});

	it('keeps only the selected content kinds', async () => {
		const { secret, post } = await activated({
			events: ['*'],
			options: { contentKinds: ['blog'] },
		});
		expect((await post(signed(secret, jobEvent()))).response.workflowData).toBeUndefined();
		const blog = await post(
			signed(secret, { ...jobEvent('job.completed', { type: 'generate.blog' }), id: 'evt_2' }),
		);
		expect(blog.response.workflowData?.[0]).toHaveLength(1);
	});

	it('adds the delivery headers when asked', async () => {
		const { secret, post } = await activated({
			events: ['job.completed'],
			options: { includeHeaders: true },
		});
		const result = await post(signed(secret, jobEvent()));
		expect(result.response.workflowData?.[0][0].json.headers).toEqual(
			expect.objectContaining({ 'x-content-publishing-event': 'job.completed' }),
		);
	});

	it('passes post events on with the post', async () => {
		const { secret, post } = await activated({ events: ['post.published'] });
		const result = await post(
			signed(secret, {
				id: 'evt_3',
				type: 'post.published',
				created_at: 'now',
				data: { post: { id: 'post_1', status: 'published' } },
			}),
		);
		expect(result.response.workflowData?.[0][0].json).toEqual({
			event: 'post.published',
			eventId: 'evt_3',
			createdAt: 'now',
			post: { id: 'post_1', status: 'published' },
		});
	});
});

describe('trigger deliveries that name only the job (read by the built-in conventions of a service without a document)', () => {
	const bare = useFakeService({ openApiDocument: false });

	async function activated() {
		const setup = setUp(undefined, bare);
		await setup.activate();
		const secret = [...bare.service.webhooks.values()][0].secret;
		const post = (request: { headers: Record<string, string>; rawBody: string }) =>
			deliver(setup.workflow, setup.node, bare.credentials, request);
		return { secret, post };
	}

	async function finishedCarousel() {
		const job = bare.service.startJob('generate.carousel', { prompt: 'Slides' });
		bare.service.jobMode = 'manual';
		await bare.service.finishJob(job.id, 'succeeded');
		bare.service.requests.length = 0;
		return job;
	}

	/** A finished carousel, and a delivery of its event that names only the job. */
	async function namingOnlyTheJob(eventId: string) {
		const { secret, post } = await activated();
		const job = await finishedCarousel();
		const delivery = signed(secret, {
			id: eventId,
			type: 'job.completed',
			created_at: 'now',
			data: { job_id: job.id },
		});
		return { post, job, delivery };
	}

	it('reads the job from the service when the event names only its id', async () => {
		const { secret, post } = await activated();
		const job = await finishedCarousel();
		const result = await post(
			signed(secret, {
				id: 'evt_2',
				type: 'job.completed',
				created_at: 'now',
				data: { job_id: job.id },
			}),
		);
		expect(result.response.workflowData?.[0][0].json).toEqual(
			expect.objectContaining({
				job: expect.objectContaining({ id: job.id, status: 'succeeded' }),
				result: expect.objectContaining({ slides: expect.any(Array) }),
			}),
		);
		expect(bare.sent('getJob')).toHaveLength(1);
	});

	it("loses no event: a delivery whose job lookup fails is not remembered, so the service's retry runs the workflow", async () => {
		const { post, job, delivery } = await namingOnlyTheJob('evt_lost');
		bare.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			status: 503,
			retryAfterSeconds: 0,
		});
		await expect(post(delivery)).rejects.toThrow();
		const retried = await post(delivery);
		expect(retried.response.workflowData?.[0][0].json).toEqual(
			expect.objectContaining({
				eventId: 'evt_lost',
				job: expect.objectContaining({ id: job.id }),
			}),
		);
		// Once started, the same delivery again is a repeat.
		expect((await post(delivery)).response).toEqual({
			webhookResponse: { received: true, ignored: 'delivered before' },
		});
	});

	it('starts one execution for two copies of a delivery that arrive while its job is looked up', async () => {
		const { post, delivery } = await namingOnlyTheJob('evt_copied');
		bare.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			delayMs: 200,
			times: 2,
		});
		const answers = await Promise.all([post(delivery), post(delivery)]);
		expect(answers.filter((answer) => answer.response.workflowData !== undefined)).toHaveLength(1);
		expect(answers.map((answer) => answer.response)).toContainEqual({
			webhookResponse: { received: true, ignored: 'delivered before' },
		});
	});
});
