/**
 * No document can hurt n8n: every document of the hostile corpus (test/support/hostile-documents.ts)
 * is served by a loopback service of its own to the real node in n8n's engine, which then gets the
 * account, describes the profile (Service → Describe), reads a list with Return All, creates and
 * updates a post, waits for a job, creates a webhook, and activates the trigger (on the case's
 * events, `job.completed` unless it says) and takes two deliveries. The node must follow what is
 * truthful or fall back to its built-in conventions with a hint naming what it did not follow;
 * never read a value through a prototype; never take a hint at a secret for the secret (the
 * activation fails and the registration is removed); never hold n8n's event loop for 50 ms of its
 * own work, measured around every case; and never describe a profile in 200,000 characters or more.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { signingKey } from '../../nodes/shared/executor/signatures';
import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import type { SignatureScheme } from '../../nodes/shared/profile/types';
import { buildOpenApiDocument } from '../fake-service/openapi';
import { byId, FAST_WAIT } from '../support/fixtures';
import { useLoopbackGuard } from '../support/loopback-guard';
import {
	ACCOUNT,
	HOSTILE_CASES,
	RESULT,
	startHostileService,
	type HostileCase,
	type HostileService,
	type Outcome,
} from '../support/hostile-documents';
import {
	contentPublishingNode,
	deliver,
	runNode,
	runWebhookMethod,
	shutDownEngine,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
	type RunResult,
} from '../support/n8n-engine';

const API_KEY = 'hostile-key-0123456789';
// Every connection stays on this machine, and one the node tries elsewhere is recorded.
const guard = useLoopbackGuard();
const HOOK_URL = 'https://hooks.example.com/n8n';

/** Every step working, without a hint: what a truthful document, or none, gets. */
const WORKING: Outcome = {
	notice: undefined,
	account: ACCOUNT,
	posts: ['p1', 'p2', 'p3'],
	created: 'Hello',
	updated: 'Updated',
	job: RESULT,
	webhook: HOOK_URL,
	trigger: 'activated, 2 of 2 deliveries started',
	registrations: 1,
	subscribed: ['job.completed'],
};

/** An item's output, which must be a plain object; or the error's message. */
function output(result: RunResult, read: (json: Record<string, unknown>) => unknown): unknown {
	if (result.error) return result.error.message;
	for (const item of result.items) expect(Object.getPrototypeOf(item.json)).toBe(Object.prototype);
	return result.items.length === 0 ? undefined : read(result.items[0].json);
}

/** A delivery signed by the scheme the trigger stored, with the attempt header a hostile document may call an id. */
function signedDelivery(scheme: SignatureScheme, secret: string, id: string) {
	const rawBody = JSON.stringify({
		id,
		type: 'job.completed',
		created_at: new Date().toISOString(),
		data: { id: 'job_1', status: 'succeeded', result: RESULT },
	});
	const timestamp = String(Math.floor(Date.now() / 1000));
	const parts = scheme.signed.map((part) =>
		typeof part !== 'string'
			? part.text
			: { body: rawBody, timestamp, id, url: '', form: '' }[part],
	);
	const digest = createHmac(scheme.algorithm, signingKey(secret, scheme))
		.update(parts.join(scheme.separator))
		.digest(scheme.encoding);
	const headers: Record<string, string> = {
		'Content-Type': 'application/json',
		'X-Delivery-Attempt': '1',
		[scheme.header]: `${scheme.prefix ?? ''}${digest}`,
	};
	if (scheme.timestampHeader !== undefined) headers[scheme.timestampHeader] = timestamp;
	if (scheme.idHeader !== undefined) headers[scheme.idHeader] = id;
	return { headers, rawBody };
}

async function triggerOutcome(
	service: HostileService,
	credentials: { baseUrl: string; apiKey: string },
	events = ['job.completed'],
): Promise<Pick<Outcome, 'trigger' | 'registrations' | 'subscribed'>> {
	const node = triggerNode({ events });
	const workflow = triggerWorkflow(node);
	let activation = 'activated';
	await runWebhookMethod(workflow, node, credentials, 'create').catch(
		(error: Error) => (activation = error.message),
	);
	const registered = [...service.registrations.values()].filter(
		(webhook) => webhook.url === webhookUrl(node),
	);
	const subscriptions = (
		workflow.getStaticData('node', node) as {
			subscriptions?: Record<string, { secret: string; signature?: SignatureScheme }>;
		}
	).subscriptions;
	const stored = subscriptions?.[webhookUrl(node)];
	// Where the activation failed, the deliveries are signed with what the service handed out: a hint must verify nothing.
	const secret = stored?.secret ?? service.secretGiven ?? 'no secret';
	const scheme = stored?.signature ?? BUILT_IN_PROFILE.webhooks.signature;
	let started = 0;
	// Two different events; their ids are new to this n8n process, which remembers delivered ones.
	for (const id of [randomUUID(), randomUUID()]) {
		const delivered = await deliver(
			workflow,
			node,
			credentials,
			signedDelivery(scheme, secret, id),
		);
		if (delivered.response.workflowData !== undefined) started++;
	}
	return {
		trigger: `${activation}, ${started} of 2 deliveries started`,
		registrations: registered.length,
		subscribed: registered[0]?.events,
	};
}

// Describe's output, in characters of JSON, by case: small whatever the document holds.
const described = new Map<string, number>();
const MAX_DESCRIBED = 200_000;

async function outcomeOf(service: HostileService, hostile?: HostileCase): Promise<Outcome> {
	const credentials = { baseUrl: service.url, apiKey: API_KEY };
	const run = async (parameters: Record<string, unknown>) =>
		await runNode(contentPublishingNode(parameters as never), { credentials });
	const account = await run({ resource: 'account', operation: 'get' });
	const description = await run({ resource: 'service', operation: 'describe' });
	expect(description.error).toBeUndefined();
	if (hostile !== undefined)
		described.set(hostile.name, JSON.stringify(description.items[0]?.json ?? null).length);
	const hints = Object.values(account.run.data.resultData.runData)[0]?.[0]?.hints ?? [];
	const posts = await run({ resource: 'post', operation: 'getMany', returnAll: true });
	const created = await run({
		resource: 'post',
		operation: 'create',
		content: 'Hello',
		status: 'draft',
		additionalFields: { title: 'Launch', tags: 'a, b' },
	});
	const updated = await run({
		resource: 'post',
		operation: 'update',
		postId: byId('id', 'p1'),
		updateFields: { title: 'Updated', content: 'New text', tags: 'a, b' },
	});
	const job = await run({
		resource: 'content',
		operation: 'generateVideo',
		prompt: 'A video',
		options: FAST_WAIT,
	});
	const webhook = await run({
		resource: 'webhook',
		operation: 'create',
		url: HOOK_URL,
		events: ['job.completed'],
	});
	return {
		notice: hints.map((hint) => hint.message).join(' ') || undefined,
		account: output(account, (json) => json),
		posts: posts.error ? posts.error.message : posts.items.map((item) => item.json.id),
		created: output(created, (json) => json.content),
		updated: output(updated, (json) => json.title),
		job: output(job, (json) => json.result),
		webhook: output(webhook, (json) => json.url),
		...(await triggerOutcome(service, credentials, hostile?.trigger)),
	};
}

interface Cost {
	/** The event loop's longest turn, in ms of wall time. */
	stall: number;
	/** The most time the thread was on a CPU within one turn, in ms (at most its wall time). */
	cpu: number;
	/** The same less the garbage-collection pauses within the turn: the synchronous work of the node and of n8n around it. */
	work: number;
	/** Peak heap growth, in MB. */
	heap: number;
	/** The reference's time just before, in ms. */
	reference: number;
}

// `--expose-gc` for this file only: the heap is measured from what is live, not from garbage of before.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

// The time n8n's thread (this one) spent on a CPU, in ms: Linux counts it per thread, so neither
// V8's helper threads nor other processes on the machine count; elsewhere the whole process's.
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
const threadCpu = existsSync(SCHEDSTAT)
	? () => Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6
	: () => (process.cpuUsage().user + process.cpuUsage().system) / 1000;

/**
 * What a turn is measured against, on a busy machine as on a quiet one: the thread's CPU time for
 * JSON.parse of a fixed 0.6 MB answer of 8,000 small objects (as n8n parses answers, so that its
 * allocation and collection costs weigh alike), the median of 5 just before each case. About 7 ms
 * on this machine when quiet; load and other processes' use of the cores stretch both alike.
 */
const REFERENCE_TEXT = JSON.stringify({
	items: Array.from({ length: 8_000 }, (_, index) => ({
		id: `p${index}`,
		title: `Post number ${index}`,
		tags: ['a', 'b'],
		score: index * 1.5,
		ok: true,
	})),
});
function referenceMs(): number {
	const times: number[] = [];
	for (let run = 0; run < 5; run++) {
		const start = threadCpu();
		JSON.parse(REFERENCE_TEXT);
		times.push(threadCpu() - start);
	}
	return times.sort((a, b) => a - b)[2];
}
// No turn may take 50 ms of n8n's own work, nor (where the machine is slower or busy) 6 times the reference.
const MAX_TURN_MS = 50;
const MAX_TURN_REFERENCES = 6;
const turnBound = (cost: Cost) => Math.max(MAX_TURN_MS, MAX_TURN_REFERENCES * cost.reference);
// Cases measured again past the bound: at most twice each, the lower measurement kept.
const MAX_REMEASURED = 2;
const remeasured = new Set<string>();

/**
 * Runs work while a 1 ms ticker measures every turn of the event loop: its wall time (the time
 * between two ticks), the time the thread was on a CPU meanwhile (on a busy machine a turn is often
 * long only because the thread was not running) and V8's garbage-collection pauses within it. The
 * heap is sampled every 10 ms.
 */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; cost: Cost }> {
	const reference = referenceMs();
	const pauses: Array<[number, number]> = [];
	const observer = new PerformanceObserver((list) => {
		for (const entry of list.getEntries())
			pauses.push([entry.startTime, entry.startTime + entry.duration]);
	});
	observer.observe({ entryTypes: ['gc'] });
	collectGarbage();
	// V8 sweeps after a collection for a while, partly on other threads; that is not the node's work.
	await new Promise((resolve) => setTimeout(resolve, 50));
	const heapBefore = process.memoryUsage().heapUsed;
	let heapPeak = heapBefore;
	const turns: Array<{ start: number; end: number; cpu: number }> = [];
	let last = performance.now();
	let lastCpu = threadCpu();
	const ticker = setInterval(() => {
		const now = performance.now();
		const cpu = threadCpu();
		turns.push({ start: last, end: now, cpu: cpu - lastCpu });
		last = now;
		lastCpu = cpu;
		if (turns.length % 10 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
	}, 1);
	try {
		const value = await work();
		await new Promise((resolve) => setTimeout(resolve, 5));
		heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
		// The observer hands over the last pauses in a turn of its own.
		await new Promise((resolve) => setImmediate(resolve));
		const collecting = (start: number, end: number) =>
			pauses.reduce(
				(sum, [from, to]) => sum + Math.max(0, Math.min(end, to) - Math.max(start, from)),
				0,
			);
		const most = (of: (turn: (typeof turns)[number]) => number) => Math.max(...turns.map(of));
		return {
			value,
			cost: {
				stall: most(({ start, end }) => end - start),
				cpu: most(({ start, end, cpu }) => Math.min(end - start, cpu)),
				work: most(({ start, end, cpu }) => Math.min(end - start, cpu) - collecting(start, end)),
				heap: (heapPeak - heapBefore) / 1024 / 1024,
				reference,
			},
		};
	} finally {
		clearInterval(ticker);
		observer.disconnect();
	}
}

const costs = new Map<string, Cost>();

afterAll(() => {
	shutDownEngine();
	if (costs.size === 0) return;
	const worst = (key: Exclude<keyof Cost, 'reference'>) => {
		const [name, cost] = [...costs.entries()].reduce((most, entry) =>
			entry[1][key] > most[1][key] ? entry : most,
		);
		const references =
			key === 'work' ? `, ${(cost.work / cost.reference).toFixed(1)} times the reference` : '';
		return `${Math.round(cost[key])} ${key === 'heap' ? 'MB' : 'ms'}${key === 'work' ? " of n8n's own work" : key === 'cpu' ? ' with GC pauses' : key === 'stall' ? ' of wall time on this busy machine' : ''} (${name}${references})`;
	};
	const [longest, length] = [...described.entries()].reduce((most, entry) =>
		entry[1] > most[1] ? entry : most,
	);
	console.log(
		`hostile documents: ${costs.size}, max event-loop stall ${worst('work')}, ${worst('cpu')}, ${worst('stall')}; max heap growth ${worst('heap')}; Describe's largest output ${length.toLocaleString('en-US')} characters (${longest}); measured again past the bound: ${remeasured.size}${remeasured.size > 0 ? ` (${[...remeasured].join(', ')})` : ''}`,
	);
});

const prototypeBefore = Object.getOwnPropertyNames(Object.prototype);

// The first run loads and compiles much of n8n's engine, which no document is to blame for; and the
// first request that is cancelled has its error's stack mapped by source-map-support (which n8n
// installs as jest does), parsing axios's source map once per process: 80 ms.
beforeAll(async () => {
	const service = await startHostileService({
		name: "the primary fake service's document",
		document: () => JSON.stringify(buildOpenApiDocument()),
		answers: { 'GET /v1/pages': () => undefined },
	});
	await outcomeOf(service);
	await runNode(
		contentPublishingNode({ resource: 'page', operation: 'getMany', returnAll: true }),
		{
			credentials: { baseUrl: service.url, apiKey: API_KEY },
			onStarted: (cancel) => setTimeout(cancel, 200),
		},
	);
	await service.close();
});

it.each(HOSTILE_CASES.map((hostile): [string, HostileCase] => [hostile.name, hostile]))(
	'%s',
	async (name, hostile) => {
		const service = await startHostileService(hostile);
		try {
			const { value: outcome, cost: first } = await measured(
				async () => await outcomeOf(service, hostile),
			);
			let cost = first;
			// A turn the node's own work makes long is long each time; one a busy machine's other
			// processes stretched is not: measured again, on a service of its own (nothing cached).
			for (let again = 0; again < MAX_REMEASURED && cost.work >= turnBound(cost); again++) {
				remeasured.add(name);
				const fresh = await startHostileService(hostile);
				try {
					const next = (await measured(async () => await outcomeOf(fresh, hostile))).cost;
					if (next.work < cost.work) cost = next;
				} finally {
					await fresh.close();
				}
			}
			costs.set(name, cost);
			const wanted = Object.fromEntries(
				Object.entries({ ...WORKING, ...hostile.expected }).map(([key, value]) => [
					key,
					value instanceof RegExp ? expect.stringMatching(value) : value,
				]),
			);
			expect(outcome).toEqual(wanted);
			expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeBefore);
			expect(guard.blocked).toEqual([]);
			expect(cost.work).toBeLessThan(turnBound(cost));
			expect(described.get(name)).toBeLessThan(MAX_DESCRIBED);
		} finally {
			await service.close();
		}
	},
	60_000,
);
