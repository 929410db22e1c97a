/**
 * Services whose documents explain their values in words, as real documents do: a job's status as
 * a sequence of states (`queued -> running -> succeeded | failed`), and events in their enum's
 * description, one `value: text` sentence each. The fake services serve their documents rewritten
 * so (and, where the words differ, report their jobs in the document's words); the node in n8n's
 * engine must wait for jobs while they run and activate its trigger on the events that mean its own.
 */
import type { INodeParameters } from 'n8n-workflow';

import { startFakeService, type FakeService, type FakeServiceOptions } from '../fake-service';
import { FAST_WAIT } from '../support/fixtures';
import {
	contentPublishingNode,
	deliver,
	runNode,
	runWebhookMethod,
	shutDownEngine,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
	type TestCredentials,
} from '../support/n8n-engine';

type Json = { [key: string]: unknown };
const isJson = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A fake service for one describe block whose document `rewrite` changes as it is served, and whose
 * jobs report each status by the `words` given for it.
 */
function useRewrittenService(
	options: FakeServiceOptions,
	rewrite: (document: Json) => void,
	words: Record<string, string> = {},
) {
	const harness = {
		service: undefined as unknown as FakeService,
		credentials: { baseUrl: '', apiKey: '' } as TestCredentials,
	};
	beforeAll(async () => {
		const service = await startFakeService({ apiKey: 'test-key-0123456789', ...options });
		service.injectFault({
			match: { path: '/v1/openapi.json' },
			times: Infinity,
			rewriteAnswer: (document) => {
				rewrite(document as Json);
				return document;
			},
		});
		service.injectFault({
			match: { path: /^\/v1\/(generate|publish|jobs)\// },
			times: Infinity,
			rewriteAnswer: (job) =>
				isJson(job) ? { ...job, status: words[String(job.status)] ?? job.status } : job,
		});
		harness.service = service;
		harness.credentials = { baseUrl: service.url, apiKey: service.apiKey };
	});
	afterEach(() => {
		const violations = harness.service.requests.filter(
			({ contractErrors }) => contractErrors.length,
		);
		expect(
			violations.map(({ method, path, contractErrors }) => [method, path, contractErrors]),
		).toEqual([]);
	});
	afterAll(async () => {
		await harness.service.close();
		shutDownEngine();
	});
	return harness;
}

const GENERATIONS: Array<[string, INodeParameters]> = [
	[
		'Generate Blog Post',
		{ resource: 'content', operation: 'generateBlog', transcript: 'We shipped.' },
	],
	[
		'Generate Twitter Thread',
		{ resource: 'content', operation: 'generateTwitter', prompt: 'Ship it.' },
	],
	['Generate Carousel', { resource: 'content', operation: 'generateCarousel', prompt: 'Ship it.' }],
	[
		'Publish to Twitter',
		{ resource: 'publication', operation: 'publishTwitter', source: 'text', text: 'Out now' },
	],
];

describe.each([
	['queued -> running -> succeeded | failed', {}],
	[
		'pending -> processing -> completed | error',
		{ queued: 'pending', running: 'processing', succeeded: 'completed', failed: 'error' },
	],
])('a job status documented as `%s`', (sequence, words: Record<string, string>) => {
	const states = sequence.split(/ -> | \| /);
	const harness = useRewrittenService(
		{},
		(document) => {
			const job = ((document.components as Json).schemas as Json).Job as Json;
			(job.properties as Json).status = { type: 'string', enum: states, description: sequence };
		},
		words,
	);

	it.each(GENERATIONS)('%s waits while the job runs, until it succeeded', async (_, parameters) => {
		const result = await runNode(contentPublishingNode({ ...parameters, options: FAST_WAIT }), {
			credentials: harness.credentials,
		});
		expect(result.error?.message).toBeUndefined();
		const output = result.items[0].json;
		expect(output.status).toBe(states[2]);
		// The node polled the job while the service reported it queued, then running.
		const job = harness.service.jobs.get(String(output.id));
		expect(job?.status).toBe('succeeded');
		expect(
			harness.service.requests.filter(({ path }) => path === `/v1/jobs/${job?.id}`).length,
		).toBeGreaterThanOrEqual(2);
	});
});

describe("events explained in their enum's description, one sentence each", () => {
	const explained =
		'generation.succeeded: a generation job (blog, linkedin, twitter, carousel, video) succeeded, data is the Job. generation.failed: a generation job failed, data is the Job. post.published: a post was published, data is the Post.';
	const events = ['generation.succeeded', 'generation.failed', 'post.published'];
	// The nested profile lists these events and explains them in the prose of its events field; here
	// the explanation moves into the enum's description, as the service writes it.
	const move = (node: unknown): void => {
		if (Array.isArray(node)) node.forEach(move);
		if (!isJson(node)) return;
		const items = node.items;
		if (isJson(items) && JSON.stringify(items.enum) === JSON.stringify(events)) {
			delete node.description;
			node.items = { ...items, description: explained };
		}
		Object.values(node).forEach(move);
	};
	const harness = useRewrittenService({ profile: 'nested' }, move);

	it('activates the trigger on job.completed as generation.succeeded, and runs the workflow on its delivery', async () => {
		const node = triggerNode({ events: ['job.completed'] });
		const workflow = triggerWorkflow(node);
		const { credentials } = harness;
		await runWebhookMethod(workflow, node, credentials, 'create');
		const [registration] = harness.service.requests.filter(
			({ method, path }) => method === 'POST' && path === '/v1/webhooks',
		);
		expect(registration?.body).toMatchObject({ events: ['generation.succeeded'] });
		expect([...harness.service.webhooks.values()]).toEqual([
			expect.objectContaining({ url: webhookUrl(node) }),
		]);

		harness.service.jobMode = 'manual';
		const job = harness.service.startJob('generate.video', { prompt: 'Ready soon' });
		await harness.service.finishJob(job.id, 'succeeded');
		const [sent] = harness.service.deliveries;
		const delivered = await deliver(workflow, node, credentials, {
			headers: sent.headers,
			rawBody: sent.body,
		});
		expect(delivered.response.workflowData?.[0]?.[0]?.json).toMatchObject({
			event: 'generation.succeeded',
		});
		await runWebhookMethod(workflow, node, credentials, 'delete');
		expect(harness.service.webhooks.size).toBe(0);
	});
});
