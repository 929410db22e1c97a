import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

import type { FakeServiceOptions } from '../fake-service';
import { useFakeService } from '../support/fixtures';
import { contentPublishingNode, runNode, type RunResult } from '../support/n8n-engine';
import { WaitingN8n } from '../support/waiting-n8n';
import { isLoopbackHost } from '../../nodes/shared/transport/hosts';
import {
	LEFTOVER_GRACE_MS,
	MAX_LIST_PAGES,
	MAX_SWEEP_DELETES,
	SWEEP_GIVE_UP_MS,
	SWEEP_INTERVAL_MS,
	SWEEP_RETRY_MS,
} from '../../nodes/ContentPublishing/waiting/registrations';
import { UNSIGNED_READS_PER_MINUTE } from '../../nodes/ContentPublishing/waiting/resume';

/**
 * Wait Method "Service Event" in n8n's engine: the execution is kept as n8n keeps a waiting one and
 * resumed through the node's webhook as n8n's waiting-webhooks.ts does (test/support/waiting-n8n.ts);
 * the fake service sends its signed job events to the resume address. The end-to-end tests check
 * the same in real n8n versions and in queue mode.
 */

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

const NODE_ID = 'content-publishing-node';

/** The reads the node's own call 2 s into a wait made (one while the execution still waited): a slow run may see it. */
function ownReads(n8n: WaitingN8n, executionId: string): number {
	return n8n.calls.filter(
		(call) => call.executionId === executionId && call.own && call.status === 200,
	).length;
}

/** Until the deadline a registered address names (in whole seconds) has passed. */
async function pastDeadline(address: string): Promise<void> {
	const until = Number(new URL(address).searchParams.get('cp_until')) * 1000;
	while (Date.now() < until) await sleep(20);
}

function videoNode(parameters: IDataObject = {}, options: IDataObject = {}) {
	return contentPublishingNode({
		resource: 'content',
		operation: 'generateVideo',
		prompt: '={{ $json.prompt }}',
		waitMethod: 'event',
		additionalFields: { durationSeconds: '={{ $json.seconds }}' },
		options: { maxWaitTime: 60, ...options },
		...parameters,
	});
}

function inputs(count: number): INodeExecutionData[] {
	return Array.from({ length: count }, (_, index) => ({
		json: { prompt: `Video ${index}`, seconds: 10 + index },
	}));
}

interface ProfileCase {
	options: Pick<FakeServiceOptions, 'profile' | 'openApiDocument' | 'eventsPerResource'>;
	/** How the node outputs the job's id, state and result on this service. */
	names: { id: string; status: string; result: string; duration: string; events: string };
	succeeded: string;
	/** The events the registration asks for, in the service's names. */
	events: string[];
}

const primary: ProfileCase = {
	options: { profile: 'primary' },
	names: {
		id: 'id',
		status: 'status',
		result: 'result',
		duration: 'duration_seconds',
		events: 'events',
	},
	succeeded: 'succeeded',
	events: ['job.completed', 'job.failed'],
};

const profiles: Array<[string, ProfileCase]> = [
	['primary profile', primary],
	[
		'alternate profile (the service chooses the secret)',
		{
			options: { profile: 'alternate' },
			names: {
				id: 'jobId',
				status: 'phase',
				result: 'output',
				duration: 'durationSeconds',
				events: 'topics',
			},
			succeeded: 'READY',
			events: ['JOB_READY', 'JOB_BROKEN'],
		},
	],
	['service without a document', { ...primary, options: { openApiDocument: false } }],
	[
		"service with events per resource (GitHub's action in the body)",
		{ ...primary, options: { eventsPerResource: true }, events: ['job'] },
	],
];

// One n8n for the file, up until the node's own call after the last wait has come.
let n8n: WaitingN8n;
beforeAll(async () => {
	n8n = await WaitingN8n.start();
});
afterAll(async () => {
	await n8n.close();
});

/**
 * A fake service whose jobs finish when a test says, and the file's n8n, which after every test
 * has handled every call and never resumed an execution wrongly.
 */
function useServiceAndN8n(options: ProfileCase['options'] = {}) {
	const harness = useFakeService(options);
	beforeEach(() => {
		harness.service.jobMode = 'manual';
	});
	afterEach(async () => {
		await n8n.settled();
		// n8n resumes an execution whose webhook throws, with its data replaced by the error.
		expect(n8n.thrown).toEqual([]);
		expect(n8n.refusedResumes).toBe(0);
	});
	return {
		harness,
		run: (node: INode, input: INodeExecutionData[], options?: { timeLimitFirst?: boolean }) =>
			n8n.run(node, harness.credentials, input, options),
	};
}

describe.each(profiles)(
	'Wait Method "Service Event" on the %s',
	(_name, { options, names, succeeded, events }) => {
		const { harness, run } = useServiceAndN8n(options);

		const reads = () =>
			harness.service.requests.filter(
				(request) => request.method === 'GET' && request.path.startsWith('/v1/jobs/'),
			).length;

		it('sleeps while 8 jobs run, and resumes every item with its own job once all have finished', async () => {
			const { executionId, first, ended } = await run(videoNode(), inputs(8));
			expect(first.error).toBeUndefined();
			expect(n8n.status(executionId)).toBe('waiting');
			expect(first.run.waitTill?.getTime()).toBeGreaterThan(Date.now() + 50_000);
			// While it waits, the node's output is its input, as n8n's Wait node's is.
			expect(first.items.map((item) => item.json)).toEqual(inputs(8).map((item) => item.json));

			// One registration, on the job events, with this execution's resume address for the node.
			const webhooks = [...harness.service.webhooks.values()];
			expect(webhooks).toHaveLength(1);
			expect(webhooks[0].url.startsWith(`${n8n.resumeUrl(executionId)}/${NODE_ID}?`)).toBe(true);
			expect(
				(
					harness.service.requests.find(
						(request) => request.method === 'POST' && request.path === '/v1/webhooks',
					)?.body as IDataObject
				)[names.events],
			).toEqual(events);

			const jobs = [...harness.service.jobs.values()];
			expect(jobs).toHaveLength(8);
			const readsBefore = reads();
			const order = [3, 0, 7, 5, 1, 6, 2, 4];
			for (const [step, index] of order.entries()) {
				await harness.service.finishJob(jobs[index].id, 'succeeded');
				if (step < order.length - 1) expect(n8n.status(executionId)).toBe('waiting');
			}
			const result = await ended;
			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(8);
			result.items.forEach((item, index) => {
				expect(item.pairedItem).toEqual({ item: index });
				expect(item.json).toEqual(
					expect.objectContaining({
						[names.status]: succeeded,
						[names.result]: expect.objectContaining({ [names.duration]: 10 + index }),
					}),
				);
				expect(item.json).not.toHaveProperty('error');
			});
			expect(new Set(result.items.map((item) => item.json[names.id])).size).toBe(8);
			// Each event reads from the item after its job on, round to it, up to the first job still
			// running: 20 reads here, where reading every job for each event would take 64.
			let expected = 0;
			const done = new Set<number>();
			for (const index of order) {
				done.add(index);
				const round = [...Array(8).keys()].map((offset) => (index + 1 + offset) % 8);
				const firstPending = round.findIndex((item) => !done.has(item));
				expected += firstPending === -1 ? 8 : firstPending + 1;
			}
			expect(expected).toBe(20);
			expect(reads() - readsBefore).toBe(expected + ownReads(n8n, executionId));
			expect(harness.service.webhooks.size).toBe(0);
			expect(
				harness.service.requests.filter(
					(request) => request.method === 'DELETE' && request.path.startsWith('/v1/webhooks/'),
				),
			).toHaveLength(1);
		});

		it('makes a failed job an error item, the others resume with their results', async () => {
			const { executionId, ended } = await run(videoNode(), inputs(3));
			const jobs = [...harness.service.jobs.values()];
			await harness.service.finishJob(jobs[1].id, 'failed', {
				code: 'render_failed',
				message: 'The renderer ran out of frames',
			});
			expect(n8n.status(executionId)).toBe('waiting');
			await harness.service.finishJob(jobs[0].id, 'succeeded');
			await harness.service.finishJob(jobs[2].id, 'succeeded');
			const { items } = await ended;
			expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			expect(items[1].json).toEqual({
				error: expect.stringMatching(/^Job .+ failed: The renderer ran out of frames$/),
				description: 'Error code: render_failed',
			});
			expect(items[0].json[names.status]).toBe(succeeded);
			expect(items[2].json[names.status]).toBe(succeeded);
			expect(harness.service.webhooks.size).toBe(0);
		});

		it('with Simplify on, resumes every item as {id, status, serviceStatus, result}', async () => {
			const { ended } = await run(videoNode({ simplify: true }), inputs(2));
			for (const job of [...harness.service.jobs.values()])
				await harness.service.finishJob(job.id, 'succeeded');
			const { items } = await ended;
			expect(items.map((item) => item.json)).toEqual(
				[...harness.service.jobs.values()].map((job, index) => ({
					id: job.id,
					status: 'succeeded',
					serviceStatus: succeeded,
					result: expect.objectContaining({ [names.duration]: 10 + index }),
				})),
			);
		});

		it('reads nothing for a signed event about another job, and nothing at all for a forged address', async () => {
			const { executionId, ended } = await run(videoNode(), inputs(2));
			const [registration] = [...harness.service.webhooks.values()];
			const mine = [...harness.service.jobs.values()];
			// The reads calls made, leaving out those of the node's own call 2 s into the wait.
			const callReads = () => reads() - ownReads(n8n, executionId);
			const readsBefore = callReads();

			// Another job of the account finishes: its event reaches every registration, this one too.
			const other = harness.service.startJob('generate.blog', { transcript: 'x' });
			await harness.service.finishJob(other.id, 'succeeded');
			expect(n8n.calls.filter((call) => call.executionId === executionId).at(-1)).toEqual(
				expect.objectContaining({
					status: 200,
					body: { received: true, ignored: 'not a job of this wait' },
				}),
			);
			expect(callReads()).toBe(readsBefore);

			// The address without the wait's sealed state, with the state changed, or with another
			// execution's state in it, reads nothing. Nothing in it names a job.
			const address = new URL(registration.url);
			expect(
				[...harness.service.jobs.keys()].filter((id) => registration.url.includes(id)),
			).toEqual([]);
			const otherWait = await run(videoNode(), inputs(1));
			const otherAddress = new URL(
				[...harness.service.webhooks.values()].find((webhook) =>
					webhook.url.includes(`/${otherWait.executionId}/`),
				)!.url,
			);
			const readsNow = callReads();
			const changed = new URL(address.toString());
			const sealed = address.searchParams.get('cp_wait') as string;
			changed.searchParams.set(
				'cp_wait',
				`${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`,
			);
			const moved = new URL(address.toString());
			for (const param of ['cp_wait', 'cp_until', 'cp_run'])
				moved.searchParams.set(param, otherAddress.searchParams.get(param) as string);
			for (const url of [
				`${address.origin}${address.pathname}`,
				changed.toString(),
				moved.toString(),
			]) {
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				});
				expect(response.status).toBe(401);
			}
			expect(callReads()).toBe(readsNow);
			await harness.service.finishJob([...harness.service.jobs.values()].at(-1)!.id, 'succeeded');
			await otherWait.ended;
			const readsBeforeForged = callReads();

			// The registered address with a made-up event: one read, and the execution goes on waiting.
			const forged = JSON.stringify({
				id: 'evt_forged',
				type: 'job.completed',
				data: { job: { id: 'job_forged', status: 'succeeded' } },
			});
			const response = await fetch(registration.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: forged,
			});
			expect(response.status).toBe(200);
			expect(await response.json()).toEqual({ received: true, waiting: true });
			expect(callReads()).toBe(readsBeforeForged + 1);
			expect(n8n.status(executionId)).toBe('waiting');
			expect(n8n.runsOf(executionId)).toHaveLength(1);

			for (const job of mine) await harness.service.finishJob(job.id, 'succeeded');
			expect((await ended).items).toHaveLength(2);
		});
	},
);

describe('Wait Method "Service Event" in n8n\'s engine', () => {
	const { harness, run } = useServiceAndN8n();

	it('resumes once when two events come at the same moment', async () => {
		const { executionId, ended } = await run(videoNode(), inputs(2));
		// Slow reads, so that both calls are reading at once.
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			delayMs: 150,
			times: 4,
		});
		await Promise.all(
			[...harness.service.jobs.values()].map((job) =>
				harness.service.finishJob(job.id, 'succeeded'),
			),
		);
		expect((await ended).items).toHaveLength(2);
		await n8n.settled();
		const calls = n8n.calls.filter((call) => call.executionId === executionId && !call.own);
		expect(calls.map((call) => call.body)).toEqual([
			{ received: true, resumed: true },
			{ received: true, resumed: true },
		]);
		expect(calls.filter((call) => call.resumed)).toHaveLength(1);
	});

	it('notices a job that finished while n8n saved the wait, by its own call to the resume address', async () => {
		// A delivery before n8n has saved the wait gets 409; the fake service tries three times within 300 ms.
		n8n.saveDelayMs = 600;
		try {
			const started = run(videoNode(), inputs(1));
			while (
				!harness.service.requests.some(
					(request) => request.method === 'GET' && request.path.startsWith('/v1/jobs/'),
				)
			)
				await sleep(10);
			const [job] = [...harness.service.jobs.values()];
			await harness.service.finishJob(job.id, 'succeeded');
			expect(
				harness.service.deliveries.map((delivery) => [delivery.attempts, delivery.lastStatus]),
			).toEqual([[3, 409]]);
			const { executionId, ended } = await started;
			expect(n8n.status(executionId)).toBe('waiting');
			expect((await ended).items[0].json.status).toBe('succeeded');
		} finally {
			n8n.saveDelayMs = 0;
		}
	});

	it('refuses the address of another run of the node', async () => {
		const { executionId, ended } = await run(videoNode(), inputs(1));
		const [registration] = [...harness.service.webhooks.values()];
		const other = new URL(registration.url);
		other.searchParams.set('cp_run', 'A'.repeat(43));
		expect(
			(
				await fetch(other, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				})
			).status,
		).toBe(401);
		expect(
			harness.service.requests.filter((request) => request.path.startsWith('/v1/jobs/')),
		).toHaveLength(1 + ownReads(n8n, executionId));
		expect(n8n.status(executionId)).toBe('waiting');
		await harness.service.finishJob([...harness.service.jobs.values()][0].id, 'succeeded');
		await ended;
	});

	it('does not wait when every job has finished by the time it is read, and leaves no registration', async () => {
		const jobs = [0, 1].map((index) =>
			harness.service.startJob('generate.video', { prompt: `Done ${index}` }),
		);
		for (const job of jobs) await harness.service.finishJob(job.id, 'succeeded');
		const { executionId, first } = await run(
			contentPublishingNode({
				resource: 'job',
				operation: 'wait',
				jobId: '={{ $json.id }}',
				waitMethod: 'event',
			}),
			jobs.map((job) => ({ json: { id: job.id } })),
		);
		expect(n8n.status(executionId)).toBe('success');
		expect(first.items.map((item) => item.json.id)).toEqual(jobs.map((job) => job.id));
		expect(harness.sent('createWebhook')).toHaveLength(1);
		expect(harness.service.webhooks.size).toBe(0);
	});

	it('keeps an item that failed before sending (On Error: Continue) in its place, and downloads media on resume', async () => {
		const node = videoNode({ downloadMedia: true, mediaField: 'video' });
		const { ended, first } = await run({ ...node, onError: 'continueRegularOutput' }, [
			{ json: { prompt: 'First', seconds: 10 } },
			{ json: { prompt: '', seconds: 11 } },
			{ json: { prompt: 'Third', seconds: 12 } },
		]);
		expect(first.error).toBeUndefined();
		const jobs = [...harness.service.jobs.values()];
		expect(jobs).toHaveLength(2);
		for (const job of jobs) await harness.service.finishJob(job.id, 'succeeded');
		const { items } = await ended;
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[1].json).toEqual({
			error: '"Prompt" of item 1 is empty',
			description: expect.any(String),
		});
		for (const index of [0, 2]) {
			expect(items[index].binary?.video).toEqual(
				expect.objectContaining({
					mimeType: 'video/mp4',
					fileName: expect.stringMatching(/\.mp4$/),
				}),
			);
		}
	});

	it('at its time limit resumes with the input items as n8n does, and the next wait of the node removes the registration left behind', async () => {
		const timedOut = await run(videoNode({}, { maxWaitTime: 1 }), inputs(2), {
			timeLimitFirst: true,
		});
		expect([...harness.service.webhooks.values()]).toHaveLength(1);
		await pastDeadline([...harness.service.webhooks.values()][0].url);
		const result = await n8n.timeOut(timedOut.executionId);
		// n8n resumes a wait at its time limit without calling the node: the input passes through.
		expect(result.items.map((item) => item.json)).toEqual(inputs(2).map((item) => item.json));
		expect(harness.service.webhooks.size).toBe(1);

		const next = await run(videoNode(), inputs(1));
		const registrations = [...harness.service.webhooks.values()];
		expect(registrations).toHaveLength(1);
		expect(registrations[0].url.startsWith(n8n.resumeUrl(next.executionId))).toBe(true);
		const job = [...harness.service.jobs.values()].at(-1)!;
		await harness.service.finishJob(job.id, 'succeeded');
		expect((await next.ended).items).toHaveLength(1);
	});

	it('marks the unfinished items as timed out when the service calls after the time limit, before n8n resumes', async () => {
		const { executionId, ended } = await run(videoNode({}, { maxWaitTime: 1 }), inputs(2));
		await sleep(1100);
		const [first] = [...harness.service.jobs.values()];
		await harness.service.finishJob(first.id, 'succeeded');
		const { items } = await ended;
		expect(n8n.status(executionId)).toBe('success');
		expect(items[0].json.status).toBe('succeeded');
		expect(items[1].json).toEqual({
			error: expect.stringMatching(
				/^Job .+ did not finish within 1 seconds \(last status: running\)$/,
			),
			description: expect.stringContaining('The job goes on in the service'),
		});
	});

	it('refuses before sending anything where the execution cannot sleep', async () => {
		harness.service.requests.length = 0;
		const mixed = await run(videoNode({ waitMethod: '={{ $json.method }}' }), [
			{ json: { prompt: 'a', seconds: 10, method: 'event' } },
			{ json: { prompt: 'b', seconds: 11, method: 'poll' } },
		]);
		expect(mixed.first.error?.message).toBe(
			'The items ask for both Wait Methods, "Poll" and "Service Event"',
		);
		const engineV2 = await runNode(videoNode(), {
			credentials: harness.credentials,
			input: inputs(1),
			settings: { engineType: 'v2' },
		});
		expect(engineV2.error?.message).toBe(
			"This workflow's execution engine cannot resume a waiting execution",
		);
		expect(engineV2.error?.description).toContain('Set "Wait Method" to "Poll"');
		expect(harness.service.requests).toEqual([]);
	});

	it('polls a batch whose jobs do not fit the address the service takes, and says so', async () => {
		// 50 job ids of the fake service's 20 characters fit 2,048 characters; 70 do not.
		const fits = await run(videoNode(), inputs(50));
		expect(n8n.status(fits.executionId)).toBe('waiting');
		expect(harness.sent('createWebhook')).toHaveLength(1);
		for (const job of harness.service.jobs.values())
			await harness.service.finishJob(job.id, 'succeeded');
		expect((await fits.ended).items).toHaveLength(50);
		harness.service.jobMode = 'poll';
		const polled = await runNode(videoNode({}, { pollInterval: 0.05 }), {
			credentials: harness.credentials,
			input: inputs(70),
		});
		expect(polled.error).toBeUndefined();
		expect(polled.items.map((item) => item.json.status)).toEqual(Array(70).fill('succeeded'));
		expect(harness.sent('createWebhook')).toHaveLength(1);
		expect(polled.run.data.resultData.runData['Content Publishing'][0].hints).toEqual([
			expect.objectContaining({
				message: expect.stringMatching(
					/^The 70 items' jobs make the address the wait registers longer than the service takes \(2048 characters\), so the node polled them/,
				),
			}),
		]);
	});

	it('polls as before when Wait Method is left at its default', async () => {
		harness.service.jobMode = 'poll';
		const result = await runNode(videoNode({ waitMethod: undefined }, { pollInterval: 0.05 }), {
			credentials: harness.credentials,
			input: inputs(1),
		});
		expect(result.items[0].json.status).toBe('succeeded');
		expect(harness.sent('createWebhook')).toHaveLength(0);
	});
});

// The node refuses to wait where n8n's resume address is this machine and the service is not: the
// service could never call it. Both run on 127.0.0.1 in these tests, so the check is tested here.
describe('what counts as this machine for the resume address', () => {
	it('is every spelling of a loopback host the URL parser leaves, and nothing else', () => {
		const hostOf = (address: string) => new URL(address).hostname;
		const loopback = [
			'http://localhost:5678',
			'http://LOCALHOST.:5678',
			'http://n8n.localhost',
			'http://127.0.0.1',
			'http://2130706433',
			'http://127.255.255.254',
			'http://[::1]',
			'http://[::ffff:127.0.0.1]',
		].map(hostOf);
		const elsewhere = [
			'http://10.0.0.1',
			'http://128.0.0.1',
			'http://126.255.255.255',
			'http://[::2]',
			'http://[::ffff:10.0.0.1]',
			'https://n8n.example.com',
			'http://localhost.example.com',
		].map(hostOf);
		expect(loopback.filter((host) => !isLoopbackHost(host))).toEqual([]);
		expect(elsewhere.filter((host) => isLoopbackHost(host))).toEqual([]);
	});
});

// ------------------------------------------------------------------------------------------------
// Nothing left on the service, on any path

let faultPaths = 0;
let registrationsLeft = 0;
const sweptWithoutTheNode: string[] = [];
afterAll(() => {
	console.log(
		`event waits: ${faultPaths} fault paths, ${registrationsLeft} registrations left on the service`,
	);
	console.log(
		`event-wait sweeps, with no execution of the node: ${sweptWithoutTheNode.join('; ')}`,
	);
});

// Date.now moved on: sweeps are due minutes after a wait, and the tests do not wait minutes.
const realNow = Date.now.bind(Date);
let clockOffset = 0;

/** Whether `condition` holds within `ms` of real time (the sweeps look every second whether one is due). */
async function holdsWithin(condition: () => boolean, ms = 20_000): Promise<boolean> {
	const bound = realNow() + ms;
	while (!condition() && realNow() < bound) await sleep(20);
	return condition();
}
// What n8n's logger received (the node logs through it): no address may be in it either.
const logged: string[] = [];
let n8nLogger: Logger;
beforeAll(() => {
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + clockOffset);
	n8nLogger = Container.get(Logger);
	const record = (message: string) => {
		logged.push(message);
	};
	const levels = new Set<PropertyKey>(['debug', 'info', 'warn', 'error']);
	const real = n8nLogger as unknown as Record<PropertyKey, unknown>;
	Container.set(
		Logger,
		new Proxy(
			{},
			{
				get: (_target, name) => {
					if (levels.has(name)) return record;
					const value = real[name];
					return typeof value === 'function' ? value.bind(n8nLogger) : value;
				},
			},
		) as Logger,
	);
});
afterAll(() => {
	jest.restoreAllMocks();
	Container.set(Logger, n8nLogger);
});

/** Every part of a registered address that must not be shown: the address, its path and each value in it. */
function addressParts(address: string): string[] {
	const url = new URL(address);
	return [
		address,
		url.pathname,
		...[...url.searchParams.values()].filter((value) => value.length >= 8),
	];
}

/** What runs showed: their hints, errors and items, and what was logged. */
function shown(...results: RunResult[]): string {
	return JSON.stringify([
		logged,
		...results.map((result) => ({
			hints: Object.values(result.run.data.resultData.runData).flatMap((runs) =>
				runs.flatMap((run) => run.hints ?? []),
			),
			error: result.error && [result.error.message, result.error.description],
			items: result.items.map((item) => item.json),
		})),
	]);
}

function hintsOf(result: RunResult): string[] {
	return (result.run.data.resultData.runData['Content Publishing']?.at(-1)?.hints ?? []).map(
		(hint) => hint.message,
	);
}

function useFaultPaths(options: Pick<FakeServiceOptions, 'profile'> = {}) {
	const { harness, run } = useServiceAndN8n(options);
	const field = options.profile === 'alternate' ? 'callbackUrl' : 'url';
	return {
		harness,
		run,
		/** An execution of another operation of the node with the credential. */
		runAnother: async () =>
			await n8n.run(
				contentPublishingNode({ resource: 'account', operation: 'get' }),
				harness.credentials,
			),
		finishLastJob: async () =>
			await harness.service.finishJob([...harness.service.jobs.values()].at(-1)!.id, 'succeeded'),
		requests: (method: string, path: RegExp) =>
			harness.service.requests.filter(
				(request) => request.method === method && path.test(request.path),
			).length,
		/**
		 * Moves Date.now on by `ms`, then waits until the service holds no registration: removed by
		 * the sweeps of this process, as no execution of the node runs meanwhile.
		 */
		sweptAfter: async (ms: number) => {
			clockOffset += ms;
			await holdsWithin(() => harness.service.webhooks.size === 0);
		},
		/** The end of one or more fault paths: nothing of them left on the service, nothing of their addresses shown. */
		checkFaultPath(text: string, paths = 1) {
			faultPaths += paths;
			registrationsLeft += harness.service.webhooks.size;
			expect([...harness.service.webhooks.values()].map((webhook) => webhook.url)).toEqual([]);
			const addresses = harness.service.requests
				.filter((request) => request.method === 'POST' && request.path === '/v1/webhooks')
				.map((request) => (request.body as IDataObject)[field] as string);
			expect(addresses.length).toBeGreaterThan(0);
			expect(addresses.flatMap(addressParts).filter((part) => text.includes(part))).toEqual([]);
		},
	};
}

const LIST = /^\/v1\/webhooks$/;
const DELETE = /^\/v1\/webhooks\//;
const JOB_READS = /^\/v1\/jobs\//;

describe('Registrations of event waits on the service', () => {
	const { harness, run, runAnother, finishLastJob, requests, sweptAfter, checkFaultPath } =
		useFaultPaths();
	beforeEach(() => {
		logged.length = 0;
	});

	it('removes a registration the service stored but refused (422) before polling, and the hint does not quote its address', async () => {
		harness.service.jobMode = 'poll';
		harness.service.injectFault({
			match: { method: 'POST', path: '/v1/webhooks' },
			status: 422,
			afterHandling: true,
			body: (request) => ({
				error: {
					code: 'validation_error',
					message: `url ${(request as IDataObject).url as string} is not reachable`,
				},
			}),
		});
		const { first } = await run(videoNode({}, { pollInterval: 0.05 }), inputs(2));
		expect(first.items.map((item) => item.json.status)).toEqual(['succeeded', 'succeeded']);
		expect(hintsOf(first)).toEqual([
			expect.stringMatching(
				/^The service did not register the webhook the wait needs \(url .+\), so the node polled the jobs\.$/,
			),
		]);
		checkFaultPath(shown(first));
	});

	it.each([
		['DELETE', DELETE],
		['list', LIST],
	])('tries a %s that failed when the wait resumed once more', async (_name, path) => {
		const { ended } = await run(videoNode(), inputs(1));
		harness.service.injectFault({
			match: { method: path === LIST ? 'GET' : 'DELETE', path },
			status: 500,
		});
		await finishLastJob();
		const result = await ended;
		expect(result.items[0].json.status).toBe('succeeded');
		checkFaultPath(shown(result));
	});

	it('removes a registration whose clean-up kept failing a minute later', async () => {
		// Its DELETE fails when the wait resumes, and a second later.
		const resumed = await run(videoNode(), inputs(1));
		harness.service.injectFault({
			match: { method: 'DELETE', path: DELETE },
			status: 500,
			times: 2,
		});
		await finishLastJob();
		const result = await resumed.ended;
		expect(result.items[0].json.status).toBe('succeeded');
		expect(harness.service.webhooks.size).toBe(1);
		await sweptAfter(SWEEP_RETRY_MS);
		checkFaultPath(shown(result));
		sweptWithoutTheNode.push(
			`a failed clean-up's registration ${SWEEP_RETRY_MS / 60_000} min later`,
		);
	});

	it("removes a cancelled execution's registration within 5 minutes of the wait's start, or of a later cancel", async () => {
		// A cancelled execution calls nothing of the node.
		const early = await run(videoNode(), inputs(1));
		n8n.cancel(early.executionId);
		await sweptAfter(SWEEP_INTERVAL_MS);
		checkFaultPath(shown(early.first));

		// A sweep 5 minutes in finds the wait going on; the next, 5 minutes after the cancel, removes it.
		const late = await run(videoNode({}, { maxWaitTime: 3600 }), inputs(1));
		const lists = requests('GET', LIST);
		clockOffset += SWEEP_INTERVAL_MS;
		expect(await holdsWithin(() => requests('GET', LIST) > lists)).toBe(true);
		expect(n8n.status(late.executionId)).toBe('waiting');
		expect(harness.service.webhooks.size).toBe(1);
		n8n.cancel(late.executionId);
		await sweptAfter(SWEEP_INTERVAL_MS);
		checkFaultPath(shown(early.first, late.first));
		sweptWithoutTheNode.push(
			`a cancel's registration within ${SWEEP_INTERVAL_MS / 60_000} min of the wait's start or of the cancel`,
		);
	});

	it("keeps a sweep's time limit apart from the system's clock, which may move on while the sweep runs", async () => {
		const cancelled = await run(videoNode({}, { maxWaitTime: 3600 }), inputs(1));
		// The list answers late: the cancel, and the clock moving on 5 minutes, come while the sweep reads it.
		harness.service.injectFault({ match: { method: 'GET', path: LIST }, delayMs: 500 });
		const lists = requests('GET', LIST);
		clockOffset += SWEEP_INTERVAL_MS;
		expect(await holdsWithin(() => requests('GET', LIST) > lists)).toBe(true);
		n8n.cancel(cancelled.executionId);
		await sweptAfter(SWEEP_INTERVAL_MS);
		checkFaultPath(shown(cancelled.first));
	});

	it('removes the registration of a wait n8n resumed at its time limit 2 minutes past it', async () => {
		// n8n resumes an execution at its time limit without the node.
		const timedOut = await run(videoNode({}, { maxWaitTime: 1 }), inputs(1), {
			timeLimitFirst: true,
		});
		await pastDeadline([...harness.service.webhooks.values()][0].url);
		await n8n.timeOut(timedOut.executionId);
		expect(harness.service.webhooks.size).toBe(1);
		await sweptAfter(LEFTOVER_GRACE_MS);
		checkFaultPath(shown(timedOut.first));
		sweptWithoutTheNode.push(
			`a time limit's registration ${LEFTOVER_GRACE_MS / 60_000} min past it`,
		);
	});

	it('sends nothing more from an execution of the node: sweeps are not tied to its next use', async () => {
		const cancelled = await run(videoNode(), inputs(1));
		n8n.cancel(cancelled.executionId);
		const lists = requests('GET', LIST);
		await runAnother();
		expect(requests('GET', LIST)).toBe(lists);
		expect(harness.service.webhooks.size).toBe(1);
		await sweptAfter(SWEEP_INTERVAL_MS);
		checkFaultPath(shown(cancelled.first));
	});

	it('goes on waiting by event where a leftover cannot be deleted, without a hint, and sweeps it later', async () => {
		const timedOut = await run(videoNode({}, { maxWaitTime: 1 }), inputs(1), {
			timeLimitFirst: true,
		});
		await pastDeadline([...harness.service.webhooks.values()][0].url);
		await n8n.timeOut(timedOut.executionId);
		const [leftover] = [...harness.service.webhooks.values()];
		harness.service.injectFault({
			match: { method: 'DELETE', path: `/v1/webhooks/${leftover.id}` },
			status: 500,
			times: 1000,
		});
		const next = await run(videoNode({}, { maxWaitTime: 5 }), inputs(1));
		expect(n8n.status(next.executionId)).toBe('waiting');
		expect(hintsOf(next.first)).toEqual([]);
		expect(requests('DELETE', new RegExp(`/${leftover.id}$`))).toBe(1);
		await finishLastJob();
		const result = await next.ended;
		expect(result.items[0].json.status).toBe('succeeded');
		expect([...harness.service.webhooks.keys()]).toEqual([leftover.id]);

		harness.service.clearFaults();
		await sweptAfter(SWEEP_RETRY_MS);
		checkFaultPath(shown(timedOut.first, next.first, result));
	});

	it('stops trying to remove a registration it cannot delete an hour past its time limit, and leaves it to the next wait', async () => {
		const timedOut = await run(videoNode({}, { maxWaitTime: 1 }), inputs(1), {
			timeLimitFirst: true,
		});
		const [leftover] = [...harness.service.webhooks.values()];
		await pastDeadline(leftover.url);
		await n8n.timeOut(timedOut.executionId);
		// Refused late, as on a busy machine: the clock moves on only once the sweep has said what follows.
		harness.service.injectFault({
			match: { method: 'DELETE', path: `/v1/webhooks/${leftover.id}` },
			status: 500,
			times: 1000,
			delayMs: 300,
		});
		const tries = () => requests('DELETE', new RegExp(`/${leftover.id}$`));
		// n8n's log: a sweep warns of each failed try after it has planned the next.
		const warned = (what: string) => logged.filter((message) => message.includes(what)).length;
		const lastTry = 'could not be removed (not tried again here';
		clockOffset += LEFTOVER_GRACE_MS;
		let minutes = LEFTOVER_GRACE_MS / 60_000;
		// A try at each sweep while the hour lasts: here one every 5 minutes, as the clock moves 5 at once.
		for (let sweeps = 1; ; sweeps++) {
			expect(await holdsWithin(() => warned('could not be removed') >= sweeps)).toBe(true);
			expect(tries()).toBe(sweeps);
			if (warned(lastTry) > 0 || minutes >= 180) break;
			minutes += SWEEP_INTERVAL_MS / 60_000;
			clockOffset += SWEEP_INTERVAL_MS;
		}
		const made = tries();
		console.log(
			`event-wait sweeps: a registration whose DELETE always fails was tried ${made} times, the last ${minutes} min past its time limit, then left to the sweep before the next wait`,
		);
		// Tried until the hour past the time limit was over, and not after.
		expect(warned(lastTry)).toBe(1);
		expect(minutes * 60_000).toBeGreaterThanOrEqual(SWEEP_GIVE_UP_MS);
		expect(minutes * 60_000).toBeLessThan(SWEEP_GIVE_UP_MS + SWEEP_INTERVAL_MS);
		clockOffset += SWEEP_INTERVAL_MS;
		// No sweep is left to try: a bound that a slow machine can only make too lenient.
		expect(await holdsWithin(() => tries() > made, 3_000)).toBe(false);
		expect(harness.service.webhooks.has(leftover.id)).toBe(true);

		harness.service.clearFaults();
		const next = await run(videoNode(), inputs(1));
		expect(harness.service.webhooks.has(leftover.id)).toBe(false);
		await finishLastJob();
		checkFaultPath(shown(timedOut.first, next.first, await next.ended));
	}, 120_000);

	it('sends a bounded number of requests for one clean-up, however many registrations are left', async () => {
		// Registrations of waits of this n8n whose time limit passed long ago.
		const crafted = new Set<string>();
		for (let index = 0; index < 50; index++) {
			const response = await fetch(`${harness.service.url}/v1/webhooks`, {
				method: 'POST',
				headers: {
					authorization: `Bearer ${harness.service.apiKey}`,
					'content-type': 'application/json',
				},
				body: JSON.stringify({
					url: `${n8n.resumeUrl(`old${index}`)}/${NODE_ID}?cp_wait=x&cp_until=1&cp_run=y`,
					// Events that do not come here: no deliveries to addresses nobody serves.
					events: ['post.published'],
				}),
			});
			expect(response.status).toBe(201);
			crafted.add(((await response.json()) as { id: string }).id);
		}
		const left = () => [...harness.service.webhooks.keys()].filter((id) => crafted.has(id));
		// The fake service's pages hold 2 registrations: 10 pages see 20 of them.
		const most = { registering: { lists: 0, deletes: 0 }, resuming: { lists: 0, deletes: 0 } };
		const count = (phase: keyof typeof most, before: [number, number]) => {
			most[phase].lists = Math.max(most[phase].lists, requests('GET', LIST) - before[0]);
			most[phase].deletes = Math.max(most[phase].deletes, requests('DELETE', DELETE) - before[1]);
		};
		let waits = 0;
		while (left().length > 0 && waits < 10) {
			waits++;
			let before: [number, number] = [requests('GET', LIST), requests('DELETE', DELETE)];
			const { ended } = await run(videoNode(), inputs(1));
			count('registering', before);
			before = [requests('GET', LIST), requests('DELETE', DELETE)];
			await finishLastJob();
			await ended;
			count('resuming', before);
		}
		console.log(
			`event-wait clean-up: 50 registrations left, removed by ${waits} waits; registering sent at most ${most.registering.lists} list requests and ${most.registering.deletes} DELETEs, resuming ${most.resuming.lists} and ${most.resuming.deletes}`,
		);
		expect(left()).toEqual([]);
		expect(most.registering.lists).toBeLessThanOrEqual(MAX_LIST_PAGES);
		expect(most.registering.deletes).toBeLessThanOrEqual(MAX_SWEEP_DELETES);
		// Looking for its own registration, tried twice.
		expect(most.resuming.lists).toBeLessThanOrEqual(2 * MAX_LIST_PAGES);
		expect(most.resuming.deletes).toBeLessThanOrEqual(1);
		// The waits' own registrations beyond the pages read go with the next sweep.
		await sweptAfter(SWEEP_RETRY_MS);
		expect(harness.service.webhooks.size).toBe(0);
	});

	it(`holds back calls without a valid signature past ${UNSIGNED_READS_PER_MINUTE} job reads, and reads once more itself when allowed`, async () => {
		const { executionId, ended } = await run(videoNode(), inputs(1));
		const [registration] = [...harness.service.webhooks.values()];
		const before = requests('GET', JOB_READS);
		const started = realNow();
		const statuses: number[] = [];
		let retryAfter: string | null = null;
		for (let call = 0; call < 100; call++) {
			const response = await fetch(registration.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			statuses.push(response.status);
			if (response.status === 429) retryAfter ??= response.headers.get('retry-after');
			await response.arrayBuffer();
		}
		// One more read is allowed every 5 seconds the calls took.
		const allowed = UNSIGNED_READS_PER_MINUTE + Math.floor((realNow() - started) / 5000);
		const read = requests('GET', JOB_READS) - before;
		const heldBack = statuses.filter((status) => status === 429).length;
		console.log(
			`event-wait throttle: 100 unsigned calls, ${read} job reads (${allowed} allowed), ${heldBack} answered 429`,
		);
		expect(read).toBeLessThanOrEqual(allowed);
		expect(heldBack).toBeGreaterThanOrEqual(100 - allowed);
		expect(Number(retryAfter)).toBeGreaterThan(0);
		expect(n8n.status(executionId)).toBe('waiting');
		// The job finishes without an event reaching the wait: the node's own read for the calls held back resumes it.
		registration.active = false;
		await finishLastJob();
		expect((await ended).items[0].json.status).toBe('succeeded');
		expect(harness.service.webhooks.size).toBe(0);
	});
});

describe('Registrations of event waits on a service without idempotency keys', () => {
	const { harness, run, sweptAfter, checkFaultPath } = useFaultPaths({ profile: 'alternate' });

	it.each([
		['found by its address and removed before polling', 0],
		['said in the hint when it cannot be looked for, and swept a minute later', 2],
	])('a registration whose answer was lost is %s', async (_name, failedLists) => {
		harness.service.jobMode = 'poll';
		harness.service.injectFault({
			match: { method: 'POST', path: '/v1/webhooks' },
			status: 502,
			afterHandling: true,
		});
		// After the sweep before registering: the look for the registration, and its second try.
		if (failedLists > 0)
			harness.service.injectFault({
				match: { method: 'GET', path: '/v1/webhooks' },
				status: 500,
				after: 1,
				times: failedLists,
			});
		const { first } = await run(videoNode({}, { pollInterval: 0.05 }), inputs(2));
		expect(first.error).toBeUndefined();
		expect(first.items.map((item) => item.json.phase)).toEqual(['READY', 'READY']);
		const [hint] = hintsOf(first);
		expect(hint).toMatch(
			/^The service did not register the webhook the wait needs \(The service's answer to POST \/v1\/webhooks was lost.*\), so the node polled the jobs\./,
		);
		if (failedLists > 0) {
			expect(hint).toMatch(/may have registered/);
			expect(harness.service.webhooks.size).toBe(1);
			await sweptAfter(SWEEP_RETRY_MS);
		} else {
			expect(hint).not.toMatch(/may have registered/);
		}
		checkFaultPath(shown(first));
	});
});
