/**
 * The package in n8n's queue mode: PostgreSQL, Redis, a main process, two webhook processors and
 * two workers, in each pinned n8n. The main process registers the trigger; deliveries reach the
 * first webhook processor (the address the trigger registered), and the workers run the
 * executions. The second webhook processor stands for a load balancer sending a request to another
 * one: what it does with a replayed delivery is measured.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { startFakeService, type FakeService } from '../fake-service';
import {
	createN8n,
	ensureN8nInstalled,
	freePort,
	N8N_PINS,
	N8nRestClient,
	pinnedN8n,
	type N8nInstance,
	type N8nPinName,
} from '../../scripts/n8n-instance';
import { startPostgres, startRedis, type Service } from './queue-services';
import {
	chain,
	eventWaitBatch,
	eventWaitWorkflow,
	node,
	sweepTimeLeft,
	until as waitUntil,
	untilActivated,
	untilAsync,
	workflowFile,
} from './workflows';

jest.setTimeout(300_000);

const CREDENTIAL = { id: 'cpQueueMode0001', name: 'Content Publishing (queue mode)' };
const TRIGGER_WEBHOOK_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
/** The trigger followed by n8n's Remove Duplicates, as docs/queue-mode.md advises. */
const DEDUPLICATED_WEBHOOK_ID = '4f3e2d1c-0b9a-4e8d-9c7b-6a5f4e3d2c1b';
const using = { credentials: { contentPublishingApi: CREDENTIAL } };

for (const pin of N8N_PINS) {
	describe(`queue mode in n8n ${pinnedN8n(pin).version} (${pin})`, () => queueSuite(pin));
}

function queueSuite(pin: N8nPinName): void {
	let postgres: Service;
	let redis: Service;
	let service: FakeService;
	let main: N8nInstance;
	let processes: N8nInstance[] = [];
	let webhookUrl: string;
	let otherWebhookUrl: string;

	const explain = () => processes.map((process) => process.log().slice(-2000)).join('\n---\n');
	const until = <T>(probe: () => T | undefined | false, what: string, timeoutMs?: number) =>
		waitUntil(probe, what, explain, timeoutMs);

	const workers = () => processes.slice(2, 4);
	/** How many executions each worker has started or finished, by its log. */
	const onWorkers = (what: 'started' | 'finished') =>
		workers().map(
			(worker) => (worker.log().match(new RegExp(`Worker ${what} execution`, 'g')) ?? []).length,
		);
	const finishedOnWorkers = () => onWorkers('finished');
	/** How often the workers started and finished an execution, by their logs. */
	const workerRuns = (executionId: string) =>
		workers().map((worker) =>
			['started', 'finished'].map(
				(what) =>
					(worker.log().match(new RegExp(`Worker ${what} execution ${executionId} `, 'g')) ?? [])
						.length,
			),
		);

	beforeAll(async () => {
		const pinned = await ensureN8nInstalled(pin);
		[postgres, redis, service] = await Promise.all([
			startPostgres(),
			startRedis(),
			startFakeService({ apiKey: 'queue-key-0123456789', jobMode: 'manual' }),
		]);
		const webhookPort = await freePort();
		webhookUrl = `http://127.0.0.1:${webhookPort}/`;
		const otherWebhookPort = await freePort();
		otherWebhookUrl = `http://127.0.0.1:${otherWebhookPort}/`;
		const env = {
			N8N_ENCRYPTION_KEY: 'queue-mode-encryption-key-0123',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: 'postgres',
			DB_POSTGRESDB_USER: 'n8n',
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			WEBHOOK_URL: webhookUrl,
			// Production webhooks go to the webhook processor only, as in a scaled deployment.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		};
		main = await createN8n(pinned, { env });
		const shared = { userFolder: main.userFolder, env, installPackage: false };
		processes = [
			main,
			await createN8n(pinned, { ...shared, command: 'webhook', port: webhookPort }),
			await createN8n(pinned, { ...shared, command: 'worker' }),
			await createN8n(pinned, { ...shared, command: 'worker' }),
			await createN8n(pinned, { ...shared, command: 'webhook', port: otherWebhookPort }),
		];

		const file = (name: string, content: unknown) => {
			const target = path.join(main.userFolder, name);
			writeFileSync(target, JSON.stringify(content));
			return target;
		};
		await main.cli([
			'import:credentials',
			`--input=${file('credentials.json', [{ ...CREDENTIAL, type: 'contentPublishingApi', data: { baseUrl: service.url, apiKey: service.apiKey } }])}`,
		]);
		const workflows = [
			{
				id: 'cpQueueTrigger',
				name: 'When a job completes (queue mode)',
				nodes: [
					node(
						'Content Publishing Trigger',
						'n8n-nodes-content-publishing.contentPublishingTrigger',
						{ events: ['job.completed'] },
						[0, 0],
						{
							...using,
							webhookId: TRIGGER_WEBHOOK_ID,
						},
					),
					node(
						'Record the event',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'post',
							operation: 'create',
							content: "={{ 'event for ' + $json.job.id }}",
						},
						[220, 0],
						using,
					),
				],
				connections: chain('Content Publishing Trigger', 'Record the event'),
			},
			{
				id: 'cpQueueGenerate',
				name: 'Generate and wait (queue mode)',
				nodes: [
					node(
						'Webhook',
						'n8n-nodes-base.webhook',
						{ httpMethod: 'POST', path: 'generate', responseMode: 'lastNode', options: {} },
						[0, 0],
						{
							typeVersion: 2,
							webhookId: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
						},
					),
					node(
						'Generate LinkedIn post',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'content',
							operation: 'generateLinkedin',
							prompt: '={{ $json.body.prompt }}',
							options: { pollInterval: 0.2, maxWaitTime: 60 },
						},
						[220, 0],
						using,
					),
				],
				connections: chain('Webhook', 'Generate LinkedIn post'),
			},
			{
				// On job.failed, which no other test sends, so its executions are this test's alone.
				id: 'cpQueueDedup',
				name: 'When a job fails, once per event (queue mode)',
				nodes: [
					node(
						'Content Publishing Trigger',
						'n8n-nodes-content-publishing.contentPublishingTrigger',
						{ events: ['job.failed'] },
						[0, 0],
						{ ...using, webhookId: DEDUPLICATED_WEBHOOK_ID },
					),
					node(
						'Remove Duplicates',
						'n8n-nodes-base.removeDuplicates',
						{
							operation: 'removeItemsSeenInPreviousExecutions',
							dedupeValue: '={{ $json.eventId }}',
						},
						[220, 0],
						{ typeVersion: 2 },
					),
					node(
						'Record the failure',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'post',
							operation: 'create',
							content: "={{ 'failure of ' + $json.job.id }}",
						},
						[440, 0],
						using,
					),
				],
				connections: chain('Content Publishing Trigger', 'Remove Duplicates', 'Record the failure'),
			},
			eventWaitWorkflow(
				'cpQueueEventWait',
				'event-wait',
				'c7d8e9f0-a1b2-4c3d-9e4f-5a6b7c8d9e0f',
				using,
			),
		];
		for (const workflow of workflows) {
			await main.cli(['import:workflow', `--input=${workflowFile(main.userFolder, workflow)}`]);
			await main.activate(String(workflow.id));
		}
		for (const process of processes) await process.start();
	}, 900_000);

	afterAll(async () => {
		for (const process of [...processes].reverse()) await process.stop();
		main?.remove();
		await Promise.all([service?.close(), redis?.stop(), postgres?.stop()]);
	});

	it("registers the trigger once, with the webhook processor's address", async () => {
		// Once the main process has activated it, a second registration could only come from an
		// activation that failed, tried again.
		const rest = new N8nRestClient(main.url);
		await rest.setUpOwner('owner@example.com', 'Password123!');
		await untilActivated(rest, 'cpQueueTrigger', 'Content Publishing Trigger', explain);
		await untilActivated(rest, 'cpQueueDedup', 'Content Publishing Trigger', explain);
		const urls = await until(
			() => service.webhooks.size >= 2 && [...service.webhooks.values()].map(({ url }) => url),
			'the registrations',
		);
		expect(urls.sort()).toEqual(
			[TRIGGER_WEBHOOK_ID, DEDUPLICATED_WEBHOOK_ID]
				.map((id) => `${webhookUrl}webhook/${id}/webhook`)
				.sort(),
		);
	});

	it('runs the workflow exactly once per delivery, on the workers', async () => {
		const jobs = Array.from({ length: 4 }, (_, index) =>
			service.startJob('generate.video', { prompt: `Video ${index}` }),
		);
		await Promise.all(jobs.map((job) => service.finishJob(job.id, 'succeeded')));
		expect(service.deliveries.filter((delivery) => delivery.delivered)).toHaveLength(4);

		const recorded = () =>
			[...service.posts.values()]
				.map((post) => post.content)
				.filter((content) => content.startsWith('event for '));
		// Each delivery was answered once its execution was queued; once the workers have finished as
		// many as they started, and at least four, no execution is left to record anything.
		const total = (counts: number[]) => counts.reduce((sum, count) => sum + count, 0);
		await until(
			() =>
				total(onWorkers('finished')) >= 4 &&
				total(onWorkers('finished')) === total(onWorkers('started')),
			'the workers to finish the executions',
		);
		expect(recorded().sort()).toEqual(jobs.map((job) => `event for ${job.id}`).sort());
		expect(finishedOnWorkers().reduce((sum, count) => sum + count, 0)).toBe(4);
		expect(main.log()).not.toMatch(/Worker finished execution/);
	});

	it('refuses a replay at the webhook processor that took the delivery; another webhook processor, whose memory is its own, starts it once more', async () => {
		const finished = () => finishedOnWorkers().reduce((sum, count) => sum + count, 0);
		const finishedBefore = finished();
		const job = service.startJob('generate.video', { prompt: 'Replayed' });
		await service.finishJob(job.id, 'succeeded');
		const executions = () =>
			[...service.posts.values()].filter((post) => post.content === `event for ${job.id}`).length;
		await until(() => executions() === 1, 'the execution of the delivery');
		const delivery = service.deliveries.find((sent) => sent.body.includes(job.id))!;
		const replay = async (base: string) => {
			const response = await fetch(`${base}webhook/${TRIGGER_WEBHOOK_ID}/webhook`, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body,
			});
			// A started execution is answered with n8n's own text, a repeat with the node's JSON.
			const text = await response.text();
			return {
				status: response.status,
				body: text.startsWith('{') ? (JSON.parse(text) as unknown) : text,
			};
		};
		const repeat = { received: true, ignored: 'delivered before' };

		const atSame = await replay(webhookUrl);
		expect(atSame).toEqual({ status: 200, body: repeat });
		const atOther = await replay(otherWebhookUrl);
		expect(atOther.status).toBe(200);
		await until(() => executions() === 2, 'the execution of the replay');
		const atOtherAgain = await replay(otherWebhookUrl);
		expect(atOtherAgain).toEqual({ status: 200, body: repeat });
		// The delivery's execution and the replay's.
		await until(() => finished() === finishedBefore + 2, 'the workers to finish');
		expect(executions()).toBe(2);
		const outcome = (answer: { body: unknown }) =>
			JSON.stringify(answer.body) === JSON.stringify(repeat) ? 'refused' : 'started';
		console.log(
			`queue mode in n8n ${pinnedN8n(pin).version}, 2 webhook processors, one delivery replayed inside the window: at the processor that took it ${outcome(atSame)}; at the other ${outcome(atOther)} (${executions()} executions); again at the other ${outcome(atOtherAgain)}`,
		);
	});

	it('runs the work after Remove Duplicates once for a delivery replayed to another webhook processor', async () => {
		const rest = new N8nRestClient(main.url);
		await rest.login('owner@example.com', 'Password123!');
		const executions = async () =>
			(
				await rest.call(
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: 'cpQueueDedup' }))}`,
				)
			).results as Array<{ status: string }>;
		const ended = async (count: number) => {
			const list = await executions();
			const done = list.filter(({ status }) => !['new', 'running', 'waiting'].includes(status));
			return done.length === count && list.length === count && list.map(({ status }) => status);
		};
		const job = service.startJob('generate.video', { prompt: 'Failing, replayed' });
		await service.finishJob(job.id, 'failed');
		const downstream = () =>
			[...service.posts.values()].filter((post) => post.content === `failure of ${job.id}`).length;
		expect(await untilAsync(() => ended(1), 'the delivery', explain)).toEqual(['success']);
		expect(downstream()).toBe(1);
		const delivery = service.deliveries.find((sent) => sent.body.includes(job.id))!;

		const response = await fetch(`${otherWebhookUrl}webhook/${DEDUPLICATED_WEBHOOK_ID}/webhook`, {
			method: 'POST',
			headers: delivery.headers,
			body: delivery.body,
		});
		// The other processor's memory lacks the delivery: it starts an execution.
		expect(response.status).toBe(200);
		expect(await response.text()).not.toMatch(/delivered before/);
		// Both executions succeeded: Remove Duplicates kept nothing of the replay, it did not fail.
		expect(await untilAsync(() => ended(2), 'the replay', explain)).toEqual(['success', 'success']);
		const ran = downstream();
		console.log(
			`queue mode in n8n ${pinnedN8n(pin).version}, 2 webhook processors, Remove Duplicates (previous executions, {{ $json.eventId }}) after the trigger: replayed to the other processor: downstream ran ${ran} time${ran === 1 ? '' : 's'} (2 executions)`,
		);
		expect(ran).toBe(1);
	});

	it('waits for a job inside an execution that a worker runs', async () => {
		const before = finishedOnWorkers().reduce((sum, count) => sum + count, 0);
		service.jobMode = 'timed';
		const response = await fetch(`${webhookUrl}webhook/generate`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ prompt: 'Queue mode works' }),
		});
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual(
			expect.objectContaining({ type: 'generate.linkedin', status: 'succeeded' }),
		);
		// The generation's own execution, and the trigger's for the job.completed its job sent.
		await until(
			() => finishedOnWorkers().reduce((sum, count) => sum + count, 0) === before + 2,
			'the workers to finish',
		);
		expect(main.log()).not.toMatch(/Worker finished execution/);
	});

	it("sleeps on no worker while it waits for the service's event, and resumes on a worker when the jobs have finished", async () => {
		service.jobMode = 'manual';
		const [registered, started] = [new Set(service.webhooks.keys()), new Set(service.jobs.keys())];
		const response = await fetch(`${webhookUrl}webhook/event-wait`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(eventWaitBatch('queued', 8)),
		});
		expect(response.status).toBe(200);
		const registration = await until(
			() => [...service.webhooks.values()].find((webhook) => !registered.has(webhook.id)),
			'the registration',
		);
		// The resume address is the webhook processor's, which serves waiting executions.
		expect(registration.url.startsWith(`${webhookUrl}webhook-waiting/`)).toBe(true);
		const executionId = new URL(registration.url).pathname.split('/').at(-2) as string;
		const jobs = await until(() => {
			const since = [...service.jobs.values()].filter((job) => !started.has(job.id));
			return since.length === 8 && since;
		}, 'the jobs');
		// The worker that started the execution finished it when it began to wait: no worker holds it.
		const ran = await until(() => {
			const runs = workerRuns(executionId);
			return (
				runs.some(([startedRuns, finishedRuns]) => startedRuns === 1 && finishedRuns === 1) && runs
			);
		}, 'the worker to let go of the execution');
		expect(ran.flat().reduce((sum, count) => sum + count, 0)).toBe(2);
		const busy = () =>
			workers().map(
				(worker) =>
					(worker.log().match(/Worker started execution/g) ?? []).length -
					(worker.log().match(/Worker finished execution/g) ?? []).length,
			);
		expect(busy()).toEqual([0, 0]);

		for (const job of [...jobs].reverse()) await service.finishJob(job.id, 'succeeded');
		const recorded = () =>
			[...service.posts.values()]
				.map((post) => post.content)
				.filter((content) => content.startsWith('queued item '));
		await until(() => recorded().length === 8, 'the resumed execution');
		expect(recorded().sort()).toEqual(
			jobs
				.map((job) => {
					const seconds = (job.result as { duration_seconds: number }).duration_seconds;
					return `queued item ${seconds - 10}: video ${job.id} ${seconds}`;
				})
				.sort(),
		);
		// Resumed on a worker: twice started and finished in all, never on the main process.
		await until(
			() =>
				workerRuns(executionId)
					.flat()
					.reduce((sum, count) => sum + count, 0) === 4,
			'the workers to finish',
		);
		expect(main.log()).not.toMatch(/Worker finished execution/);
		expect(service.webhooks.has(registration.id)).toBe(false);
	});

	it('removes what a wait n8n resumed at its time limit left, from the worker that made it, before any other wait', async () => {
		service.jobMode = 'manual';
		const registered = new Set(service.webhooks.keys());
		const response = await fetch(`${webhookUrl}webhook/event-wait`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(eventWaitBatch('timed out', 1, 3)),
		});
		expect(response.status).toBe(200);
		const { id, url } = await until(
			() => [...service.webhooks.values()].find((webhook) => !registered.has(webhook.id)),
			'the registration',
		);
		const from = service.requests.length;
		// n8n resumes the execution at its next check, a minute at most; the worker sweeps after.
		await until(
			() => !service.webhooks.has(id),
			'the sweep of the timed-out wait',
			sweepTimeLeft(url),
		);
		// No other wait swept it: none started meanwhile.
		expect(
			service.requests
				.slice(from)
				.filter((request) => request.method === 'POST' && request.path !== '/v1/posts')
				.map((request) => request.path),
		).toEqual([]);
	}, 300_000);
}
