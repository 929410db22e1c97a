/**
 * Writes happen once per item: n8n's Retry On Fail, lost answers and repeated runs meet the same
 * Idempotency-Key, and a success never looks like a failure to n8n.
 */
import { recall, remember } from '../../nodes/shared/transport/policy';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startFakeService } from '../fake-service';
import {
	contentPublishingNode,
	runNode,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
} from '../support/n8n-engine';
import { byId, FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';

const harness = useFakeService();

const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const publishText = (text: string) => ({
	resource: 'publication',
	operation: 'publishLinkedin',
	source: 'text',
	text,
	options: FAST_WAIT,
});
const keyOf = (request: { headers: Record<string, string | string[] | undefined> }) =>
	request.headers['idempotency-key'];

describe('Retry On Fail', () => {
	it('publishes once when nothing fails: no success item carries a top-level error key', async () => {
		const result = await harness.run(publishText('Once, not three times'), { node: RETRY_ON_FAIL });

		const [job] = jsonOf(result);
		expect(job).toEqual(expect.objectContaining({ type: 'publish.linkedin', status: 'succeeded' }));
		expect(Object.keys(job)).not.toContain('error');
		expect(harness.sent('publishLinkedin')).toHaveLength(1);
	});

	it('re-sends a write whose answer was lost with the same Idempotency-Key', async () => {
		harness.service.injectFault({
			match: { method: 'POST', path: '/v1/posts' },
			status: 502,
			afterHandling: true,
		});
		const result = await harness.run(
			{ resource: 'post', operation: 'create', content: 'Lost answer' },
			{ node: RETRY_ON_FAIL },
		);

		expect(result.error).toBeUndefined();
		const [lost, retried] = harness.sent('createPost');
		expect(lost.status).toBe(502);
		expect(retried.status).toBe(201);
		expect(keyOf(lost)).toMatch(/^[0-9a-f]{32}$/);
		expect(keyOf(retried)).toBe(keyOf(lost));
	});
});

describe('Idempotency-Key', () => {
	it('is sent on every create, differs per item, and never on reads', async () => {
		const input = [
			{ json: { text: 'one' } },
			{ json: { text: 'two' } },
			{ json: { text: 'three' } },
		];
		await harness.run(
			{ resource: 'post', operation: 'create', content: '={{ $json.text }}' },
			{ input },
		);
		const keys = harness.sent('createPost').map(keyOf);
		expect(keys).toHaveLength(3);
		for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
		expect(new Set(keys).size).toBe(3);

		await harness.run({ resource: 'post', operation: 'getMany', returnAll: true });
		expect(harness.sent('listPosts').map(keyOf)).toEqual([undefined]);
	});

	it('is the same for the same execution and item, and differs between executions', async () => {
		const parameters = {
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A launch video',
			waitForCompletion: false,
		};
		const first = jsonOf(await harness.run(parameters, { executionId: 'execution-a' }));
		// The same execution, node, run and item again (n8n's Retry On Fail): the first answer, nothing sent.
		expect(jsonOf(await harness.run(parameters, { executionId: 'execution-a' }))).toEqual(first);
		await harness.run(parameters, { executionId: 'execution-b' });
		// An execution without an id still gets keys of its own.
		await harness.run(parameters, { executionId: '' });
		await harness.run(parameters, { executionId: '' });
		const [a, b, none1, none2] = harness.sent('generateVideo').map(keyOf);
		expect(harness.sent('generateVideo')).toHaveLength(4);
		expect(new Set([a, b, none1, none2]).size).toBe(4);
	});

	it('is sent when publishing an existing post and creating a webhook', async () => {
		const [post] = jsonOf(
			await harness.run({ resource: 'post', operation: 'create', content: 'Draft' }),
		);
		await harness.run({
			resource: 'publication',
			operation: 'publishTwitter',
			source: 'post',
			postId: byId('id', post.id as string),
			waitForCompletion: false,
		});
		await harness.run({
			resource: 'webhook',
			operation: 'create',
			url: 'https://example.com/hook',
			events: ['job.completed'],
		});
		expect(keyOf(harness.sent('publishTwitter')[0])).toMatch(/^[0-9a-f]{32}$/);
		expect(keyOf(harness.sent('createWebhook')[0])).toMatch(/^[0-9a-f]{32}$/);
	});
});

describe('the trigger when the service answers a registration without an id', () => {
	it('fails the activation and removes the webhook it could not have removed later', async () => {
		harness.service.injectFault({
			match: { method: 'POST', path: '/v1/webhooks' },
			rewriteAnswer: (body) => ({ ...(body as IDataObject), id: undefined }),
		});
		const node = triggerNode({ events: ['job.completed'] } as never);
		const workflow = triggerWorkflow(node);
		const failure = await runWebhookMethod(workflow, node, harness.credentials, 'create').then(
			() => undefined,
			(error: unknown) => error as { message: string; description?: string },
		);
		expect(failure?.message).toBe('The service registered the webhook but answered without its id');
		// What was expected where, what the answer held (names only) and the override that fixes it.
		expect(failure?.description).toMatch(
			/^Expected the registration's id at \/id; the answer held .*\burl\b.*\bevents\b.*"itemId": "\/hook_id"/,
		);
		expect(failure?.description).not.toContain('https://');
		expect(harness.sent('createWebhook')).toHaveLength(1);
		expect(harness.service.webhooks.size).toBe(0);
		const stored = workflow.getStaticData('node', node) as {
			subscriptions?: Record<string, unknown>;
		};
		expect(stored.subscriptions ?? {}).toEqual({});
	});
});

describe('waiting for a job under faults', () => {
	// How long each fault would hold a wait that did not keep its own limit.
	const FAULT_MS = 20_000;
	const overruns: number[] = [];
	afterAll(() =>
		console.log(
			`wait overrun: max ${Math.max(...overruns)} ms past the limit in ${overruns.length} waits`,
		),
	);

	async function timedWait(options: INodeParameters) {
		const started = Date.now();
		const result = await harness.run({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A video',
			options,
		});
		return { result, elapsed: Date.now() - started };
	}

	it('ends at its Maximum Wait Time, not when a poll that never answers would (the overrun is printed)', async () => {
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			delayMs: FAULT_MS,
			times: 100,
		});
		const { result, elapsed } = await timedWait({ pollInterval: 0.1, maxWaitTime: 1 });

		expect(result.error?.message).toMatch(
			/^Job job_\w+ did not finish within 1 seconds \(last status: unknown \(the last poll failed: The service at .* did not answer within 1 seconds\)\)$/,
		);
		overruns.push(elapsed - 1000);
		// Held by the unanswered poll, it would end after the fault's 20 s; the overrun is printed, not asserted.
		expect(elapsed).toBeLessThan(FAULT_MS);
	});

	it('ends at its Maximum Wait Time when a rate limit asks for longer', async () => {
		// A 429 asking for 20 s, then every poll limited again: the wait still ends at its 2 s.
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			status: 429,
			retryAfterSeconds: FAULT_MS / 1000,
			times: 100,
		});
		const { result, elapsed } = await timedWait({ pollInterval: 0.1, maxWaitTime: 2 });

		expect(result.error?.message).toMatch(/did not finish within 2 seconds/);
		overruns.push(elapsed - 2000);
		// Obeying the Retry-After, it would end after 20 s.
		expect(elapsed).toBeLessThan(FAULT_MS);
	});

	it('keeps waiting through a 502 and a rate limit while polling', async () => {
		harness.service.injectFault({ match: { method: 'GET', path: /^\/v1\/jobs\// }, status: 502 });
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			status: 429,
			retryAfterSeconds: 0,
		});
		const { result } = await timedWait(FAST_WAIT);

		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ type: 'generate.video', status: 'succeeded' }),
		);
		expect(
			harness
				.sent('getJob')
				.map((request) => request.status)
				.slice(0, 2),
		).toEqual([502, 429]);
	});

	it('takes a huge Poll Interval as an hour, never as a busy loop', async () => {
		harness.service.jobMode = 'manual';
		const { result, elapsed } = await timedWait({ pollInterval: 1e12, maxWaitTime: 2 });

		expect(result.error?.message).toMatch(/did not finish within 2 seconds/);
		// A check after the first second, one last look at the deadline, then the timeout.
		expect(harness.sent('getJob').length).toBeLessThanOrEqual(2);
		overruns.push(elapsed - 2000);
		// Sleeping the Poll Interval as given, it would not end at all.
		expect(elapsed).toBeLessThan(FAULT_MS);
	});
});

describe('a batch under injected faults', () => {
	it('publishes every item exactly once through lost answers and Retry On Fail', async () => {
		const items = 1000;
		const lostAt = [100, 500, 900];
		// Each lost answer comes after the service has published; n8n's Retry On Fail then runs the
		// whole batch again, every item with the key it had.
		for (const after of lostAt) {
			harness.service.injectFault({
				match: { method: 'POST', path: '/v1/publish/linkedin' },
				status: 502,
				afterHandling: true,
				after,
			});
		}
		const input = Array.from({ length: items }, (_, index) => ({ json: { n: index } }));
		const result = await harness.run(
			{
				resource: 'publication',
				operation: 'publishLinkedin',
				source: 'text',
				text: '=Update {{ $json.n }}',
				waitForCompletion: false,
			},
			{ input, node: { ...RETRY_ON_FAIL, maxTries: 5 } },
		);

		expect(result.error).toBeUndefined();
		expect(jsonOf(result)).toHaveLength(items);
		// The service starts one publish job per publish it carries out.
		const published = new Set(
			[...harness.service.jobs.values()]
				.filter((job) => job.type === 'publish.linkedin')
				.map((job) => job.id),
		);
		const output = new Set(jsonOf(result).map((job) => job.id as string));
		const texts = new Set(
			harness
				.sent('publishLinkedin')
				.map((request) => (request.body as { content: string }).content),
		);
		const duplicates = published.size - items;
		const lost = items - [...output].filter((id) => published.has(id)).length;
		expect(texts.size).toBe(items);
		console.log(
			`publishes under injected faults: ${items} items, ${lostAt.length} lost answers, ${harness.sent('publishLinkedin').length} requests, ${duplicates} duplicates, ${lost} lost`,
		);
		expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
	}, 60_000);
});

describe('writes to a service that declares no idempotency (alternate profile): at most once', () => {
	const alternate = useFakeService({ profile: 'alternate' });

	it('fails a write whose answer was lost as "outcome unknown", and Retry On Fail does not send it again', async () => {
		alternate.service.injectFault({
			match: { method: 'POST', path: '/v1/posts' },
			status: 502,
			afterHandling: true,
		});
		const result = await alternate.run(
			{ resource: 'post', operation: 'create', content: 'Lost answer' },
			{ node: RETRY_ON_FAIL },
		);

		expect(result.error?.message).toMatch(
			/^The service's answer to POST \/v1\/posts was lost( \(.*\))?: it may or may not have been carried out$/,
		);
		expect(result.error?.description).toMatch(/does not declare idempotency keys/);
		expect(alternate.sent('posts.create')).toHaveLength(1);
		expect(alternate.sent('posts.create')[0].headers['idempotency-key']).toBeUndefined();
		// It was carried out once, and never twice.
		expect(alternate.service.posts.size).toBe(1);
	});

	it('returns the first answer of a write that succeeded when Retry On Fail runs the node again for another item', async () => {
		// Item 1 names a page that does not exist: the service refuses it every time, so n8n runs the
		// node three times. Item 0 is written on the first run only.
		const input = [
			{ json: { text: 'First', page: '' } },
			{ json: { text: 'Second', page: 'page_missing' } },
		];
		const result = await alternate.run(
			{
				resource: 'post',
				operation: 'create',
				content: '={{ $json.text }}',
				additionalFields: { pageId: '={{ $json.page }}' },
				requestOptions: { parallel: 1 },
			},
			{ input, node: RETRY_ON_FAIL },
		);
		expect(result.error?.httpCode).toBe('422');
		const first = alternate
			.sent('posts.create')
			.filter((request) => (request.body as { text?: string }).text === 'First');
		const second = alternate
			.sent('posts.create')
			.filter((request) => (request.body as { text?: string }).text === 'Second');
		expect(second).toHaveLength(3);
		expect(first).toHaveLength(1);
		expect([...alternate.service.posts.values()].map((post) => post.content)).toEqual(['First']);
	});
});

describe('writes to a service that declares OASIS repeatable requests (envelope profile): exactly once', () => {
	const envelope = useFakeService({ profile: 'envelope' });

	it('sends Repeatability-Request-ID and -First-Sent, and the same again after a lost answer', async () => {
		envelope.service.injectFault({
			match: { method: 'POST', path: '/v1/posts' },
			status: 502,
			afterHandling: true,
		});
		const result = await envelope.run(
			{ resource: 'post', operation: 'create', content: 'Lost answer' },
			{ node: RETRY_ON_FAIL },
		);

		expect(result.error).toBeUndefined();
		const [lost, repeated] = envelope.sent('posts/create');
		expect([lost.status, repeated.status]).toEqual([502, 200]);
		expect(lost.headers['repeatability-request-id']).toMatch(
			/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
		);
		expect(repeated.headers['repeatability-request-id']).toBe(
			lost.headers['repeatability-request-id'],
		);
		expect(repeated.headers['repeatability-first-sent']).toBe(
			lost.headers['repeatability-first-sent'],
		);
		expect(lost.headers['idempotency-key']).toBeUndefined();
		expect(envelope.service.posts.size).toBe(1);
	});
});

describe('sending under a rate limit (the fake service allows 20 requests a second)', () => {
	const figures: string[] = [];
	afterAll(() => console.log(`rate limit: ${figures.join('; ')}`));

	it.each([
		['without rate-limit fields', false, 10],
		['with X-RateLimit fields', true, 6],
	])(
		'paces itself %s: every item comes back, with few refusals',
		async (name, headers, most) => {
			const service = await startFakeService({
				apiKey: 'test-key-0123456789',
				rateLimit: { perSecond: 20, headers },
			});
			try {
				const input = Array.from({ length: 200 }, () => ({ json: {} }));
				const result = await runNode(
					contentPublishingNode({ resource: 'account', operation: 'get' }),
					{
						credentials: { baseUrl: service.url, apiKey: service.apiKey },
						input,
					},
				);
				expect(jsonOf(result)).toHaveLength(200);
				const asked = service.requests.filter((request) => request.path === '/v1/me');
				const refused = asked.filter((request) => request.status === 429).length;
				figures.push(`${name}, ${refused} refusals in ${asked.length} requests`);
				// Sending 4 at a time regardless, as before pacing, met about 150 refusals per 1,000 here.
				expect(refused).toBeLessThanOrEqual(most);
			} finally {
				await service.close();
			}
		},
		60_000,
	);
});

describe('the memory of succeeded writes is bounded in size as in count', () => {
	it('keeps at most 64 Mi characters of answers, the oldest going first', () => {
		const megabyte = 1024 * 1024;
		const key = (index: number) => `createPost:size-test-${index}`;
		for (let index = 0; index < 70; index++)
			remember(key(index), { answered: { index } }, megabyte);
		expect(recall(key(0))).toBeUndefined();
		expect(recall(key(5))).toBeUndefined();
		expect(recall(key(6))).toEqual({ answered: { index: 6 } });
		expect(recall(key(69))).toEqual({ answered: { index: 69 } });
	});
});
