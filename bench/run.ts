/**
 * Benchmarks, reported as ratios against a baseline measured in the same run, so that the
 * numbers mean the same on any machine. Run with `npm run bench` (after `npm run build`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { startFakeService } from '../test/fake-service';
import { N8N_PINS } from '../scripts/n8n-instance';
import { n8nThroughput, type NodeCost, type Service } from './n8n-throughput';
import { pathProfile } from './path-profile';
import { rateLimitInN8n } from './rate-limit';
import {
	contentPublishingNode,
	runNode,
	shutDownEngine,
	useBinaryDataMode,
} from '../test/support/n8n-engine';
import { WaitingN8n } from '../test/support/waiting-n8n';
import type { FakeService } from '../test/fake-service';
import { subtitlesToText } from '../nodes/ContentPublishing/parameters/transcript';

/**
 * BENCH_SMOKE=1 runs every benchmark at a small size, as the tests do to keep them working; its
 * figures mean nothing.
 */
const SMOKE = process.env.BENCH_SMOKE === '1';
/**
 * BENCH_ONLY=throughput,subtitles runs only those benchmarks (the functions of that name below);
 * BENCH_N8N=oldest compares in that pinned n8n only (default: every pin that is installed).
 */
const ONLY = process.env.BENCH_ONLY?.split(',');
const BENCH_N8N_PINS = N8N_PINS.filter(
	(pin) => process.env.BENCH_N8N === undefined || process.env.BENCH_N8N.split(',').includes(pin),
);
// Rounds of every way in real n8n: enough for a median and a range that say which node is cheaper.
const N8N_ROUNDS = 5;

async function time(run: () => Promise<unknown> | unknown, repeat = 3): Promise<number> {
	const samples: number[] = [];
	for (let attempt = 0; attempt < repeat; attempt++) {
		const started = performance.now();
		await run();
		samples.push(performance.now() - started);
	}
	return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

function report(name: string, ratio: number, meaning: string) {
	console.log(`${name.padEnd(44)} ${ratio.toFixed(2).padStart(8)}x   ${meaning}`);
}

/**
 * Whether items' job waits overlap: 8 and 64 items against 1, with jobs that take 1.5 s (what the
 * goal is about; 64 is more waits than run at once), and 8 with jobs done on their second poll,
 * where the 21 extra requests of 8 items are most of the difference.
 */
async function jobWaits() {
	for (const [label, jobs, counts] of [
		[
			'jobs of 1.5 s',
			{ jobMode: 'timed', timedJobDelaysMs: { running: 100, done: SMOKE ? 300 : 1500 } },
			[8, 64],
		],
		['jobs done on their 2nd poll', { jobMode: 'poll' }, [8]],
	] as const) {
		const service = await startFakeService({ apiKey: 'bench-key', ...jobs });
		const credentials = { baseUrl: service.url, apiKey: service.apiKey };
		const generate = (items: number) =>
			runNode(
				contentPublishingNode({
					resource: 'content',
					operation: 'generateLinkedin',
					prompt: 'Benchmark',
					options: { pollInterval: 0.05, maxWaitTime: 60 },
				}),
				{ credentials, input: Array.from({ length: items }, () => ({ json: {} })) },
			);
		const one = await time(() => generate(1));
		for (const count of counts) {
			const many = await time(() => generate(count));
			report(
				`${count} items waiting / 1 item, ${label}`,
				many / one,
				`near 1: waits overlap; ${count} would mean one after another (${one.toFixed(0)} ms, ${count} items ${many.toFixed(0)} ms)`,
			);
		}
		await service.close();
	}
}

/** How soon a finished job is noticed: the wait's time over max(t + 1 s, 1.1 t), for jobs done at t. */
async function jobNotice() {
	const finishTimes = SMOKE ? [0.3] : [1.5, 4, 12];
	const measured = await Promise.all(
		finishTimes.map(async (seconds) => {
			const service = await startFakeService({
				apiKey: 'bench-key',
				jobMode: 'timed',
				timedJobDelaysMs: { running: 100, done: seconds * 1000 },
			});
			const started = performance.now();
			await runNode(
				contentPublishingNode({
					resource: 'content',
					operation: 'generateLinkedin',
					prompt: 'Benchmark',
				}),
				{
					credentials: { baseUrl: service.url, apiKey: service.apiKey },
				},
			);
			const noticedAfter = (performance.now() - started) / 1000;
			const polls = service.requestsTo('getJob').length;
			await service.close();
			return { seconds, ratio: noticedAfter / Math.max(seconds + 1, 1.1 * seconds), polls };
		}),
	);
	for (const { seconds, ratio, polls } of measured) {
		report(
			`job done at ${seconds} s: noticed / max(t+1 s, 1.1t)`,
			ratio,
			`at most 1 meets the goal; ${polls} polls (default Poll Interval)`,
		);
	}
}

/**
 * Per-item cost of Account → Get against the raw sequential fetch loop (the physical limit of
 * one connection at a time here), one request at a time and 8 at a time.
 */
async function throughput() {
	// In a process of their own, as a real service would be: in this one the server would share
	// the one thread with the node and hide what parallel requests gain. The fake service checks
	// every request and answer against its document, which costs it a core of its own here; the
	// minimal server only answers /v1/me, so it shows the node's own limit.
	for (const [name, server] of [
		['fake service', startFakeServiceProcess],
		['minimal server', startMinimalServerProcess],
	] as const) {
		const started = await server();
		await throughputAgainst(name, started);
		if (name === 'minimal server') {
			const distant = await startMinimalServerProcess(DISTANT_SERVICE_DELAY_MS);
			await throughputInN8n(started, distant);
			distant.stop();
		}
		started.stop();
	}
}

/** The node's own work per item beside n8n's request helper, from a CPU profile (path-profile.ts). */
async function perItemPath() {
	const server = await startMinimalServerProcess();
	try {
		await pathProfile(server, SMOKE, report);
	} finally {
		server.stop();
	}
}

// About the time a request takes to a service in another data centre of the same region.
const DISTANT_SERVICE_DELAY_MS = 20;

/** Milliseconds for `items` requests of GET /v1/me sent one after another by `fetch` (one kept-alive connection). */
async function rawFetchLoop(service: Service, items: number): Promise<number> {
	return await time(async () => {
		for (let index = 0; index < items; index++) {
			await (
				await fetch(`${service.url}/v1/me`, {
					headers: { authorization: `Bearer ${service.apiKey}` },
				})
			).json();
		}
	}, 1);
}

/**
 * The node against n8n's own HTTP Request node, in each pinned n8n, by n8n's execution times; and
 * what bounds sending in parallel: the CPU time n8n's main thread spends per request.
 */
async function throughputInN8n(loopback: Service, distant: Service) {
	const items = SMOKE ? 40 : 2000;
	const connectionsBefore = await loopback.connections?.();
	const raw = await rawFetchLoop(loopback, items);
	const rawConnections =
		connectionsBefore === undefined
			? undefined
			: (await loopback.connections!()) - connectionsBefore;
	if (rawConnections !== undefined)
		console.log(
			`(the raw fetch loop opened ${rawConnections} new connections for ${items} requests)`,
		);
	const rawPerItem = raw / items;
	for (const pin of BENCH_N8N_PINS) {
		const measured = await n8nThroughput(
			pin,
			{ loopback, distant },
			items,
			SMOKE ? 16 : 500,
			SMOKE ? 1 : N8N_ROUNDS,
		);
		if (measured === undefined) {
			console.log(`in n8n (${pin} pin): skipped, not installed (npm run test:e2e installs it)`);
			continue;
		}
		reportN8n(`in n8n ${measured.version}`, measured.costs, rawPerItem);
	}
}

function reportN8n(where: string, costs: Record<string, NodeCost>, rawPerItem: number) {
	const busy = ({ mainThreadBusy, connectionsPerItem }: NodeCost) =>
		[
			mainThreadBusy === undefined
				? ''
				: `; n8n's main thread busy ${(mainThreadBusy * 100).toFixed(0)}%`,
			connectionsPerItem === undefined
				? ''
				: `; ${connectionsPerItem.toFixed(2)} new connections per item`,
		].join('');
	for (const [name, cost] of Object.entries(costs)) {
		if (name.endsWith('away')) continue;
		report(
			`${where}: ${name} / raw loop`,
			cost.msPerItem / rawPerItem,
			`${(cost.msPerItem * 1000).toFixed(0)} µs per item (raw fetch loop ${(rawPerItem * 1000).toFixed(0)} µs)${busy(cost)}`,
		);
	}
	// HTTP Request sends every item's request at once (unless its Batching option is set), so
	// the fair match is this node with requests in parallel too; 1 at a time is shown beside it.
	// Each ratio is of one round's two runs (they ran minutes apart at most), its median and range
	// over the rounds: one run swings too much on a shared machine to say which is cheaper.
	const one = costs['this node, 1 at a time'];
	const eight = costs['this node, 8 at a time'];
	for (const [other, label] of [
		['HTTP Request, Bearer Auth credential', 'HTTP Request + credential'],
		['HTTP Request, key as a header', 'HTTP Request, header'],
	] as const) {
		for (const [mine, parallel] of [
			[eight, 8],
			[one, 1],
		] as const) {
			const ratios = perRound(costs[other], mine);
			report(
				`${where}: ${label} / this node (${parallel})`,
				ratios.median,
				`median of ${ratios.count} rounds, ${ratios.min.toFixed(2)}–${ratios.max.toFixed(2)}; ${verdict(ratios, other, parallel)}`,
			);
			// The main thread's CPU per item, which a busy machine stretches far less than the time.
			if (mine.mainThreadBusy === undefined) continue;
			const cpu = perRound(
				costs[other],
				mine,
				(cost) => cost.msPerItem * (cost.mainThreadBusy ?? 1),
			);
			report(
				`${where}: ${label} / this node (${parallel}), main-thread CPU`,
				cpu.median,
				`median of ${cpu.count} rounds, ${cpu.min.toFixed(2)}–${cpu.max.toFixed(2)}; n8n's main-thread CPU per item, the same rounds`,
			);
		}
	}
	const parallelGain = perRound(one, eight);
	report(
		`${where}: this node, 1 at a time / 8 at a time`,
		parallelGain.median,
		`median of ${parallelGain.count} rounds, ${parallelGain.min.toFixed(2)}–${parallelGain.max.toFixed(2)}; how much faster Requests in Parallel = 8 is`,
	);
	if (eight.mainThreadBusy !== undefined) {
		// The main thread runs every request's JavaScript one after another: no parallelism can make
		// an item take less than the CPU time it spends on it.
		const cpuPerItem = eight.msPerItem * eight.mainThreadBusy;
		report(
			`${where}: the most any parallelism could gain`,
			one.msPerItem / cpuPerItem,
			`1 at a time / main-thread CPU per item at 8 (${(cpuPerItem * 1000).toFixed(0)} µs): the ceiling on this machine`,
		);
	}
	const distantOne = costs['this node, 1 at a time, 20 ms away'];
	const distantEight = costs['this node, 8 at a time, 20 ms away'];
	report(
		`${where}, service ${DISTANT_SERVICE_DELAY_MS} ms away: 1 at a time / 8 at a time`,
		distantOne.msPerItem / distantEight.msPerItem,
		`${(distantOne.msPerItem * 1000).toFixed(0)} µs per item, 8 at a time ${(distantEight.msPerItem * 1000).toFixed(0)} µs${busy(distantEight)}`,
	);
}

/** The ratio a / b of each round's costs (the same round of both): its median and range. */
function perRound(
	a: NodeCost,
	b: NodeCost,
	measure: (cost: NodeCost) => number = (cost) => cost.msPerItem,
): { median: number; min: number; max: number; count: number } {
	const ratios = (a.rounds ?? [a])
		.map((cost, round) => measure(cost) / measure((b.rounds ?? [b])[round]))
		.sort((x, y) => x - y);
	return {
		median: ratios[Math.floor(ratios.length / 2)],
		min: ratios[0],
		max: ratios[ratios.length - 1],
		count: ratios.length,
	};
}

/** Which of the two is cheaper per item, said plainly, and how sure the rounds make it. */
function verdict(ratios: ReturnType<typeof perRound>, them: string, parallel: number): string {
	if (ratios.min >= 1)
		return `this node (${parallel} at a time) is cheaper than ${them} in every round`;
	if (ratios.max < 1)
		return `THIS NODE (${parallel} at a time) IS THE SLOWER ONE: dearer than ${them} in every round`;
	return ratios.median >= 1
		? `this node (${parallel} at a time) is cheaper than ${them} by the median, not in every round`
		: `THIS NODE (${parallel} at a time) IS THE SLOWER ONE by the median (cheaper in some rounds) than ${them}`;
}

async function throughputAgainst(name: string, service: { url: string; apiKey: string }) {
	const items = SMOKE ? 40 : 2000;
	const credentials = { baseUrl: service.url, apiKey: service.apiKey };
	const input = Array.from({ length: items }, () => ({ json: {} }));
	const node = (parallel: number) =>
		contentPublishingNode({ resource: 'account', operation: 'get', requestOptions: { parallel } });
	await runNode(node(1), { credentials, input: input.slice(0, 50) });
	const raw = await rawFetchLoop(service, items);
	const one = await time(() => runNode(node(1), { credentials, input }), 1);
	const eight = await time(() => runNode(node(8), { credentials, input }), 1);
	report(
		`${name}: ${items} items, 1 at a time / raw loop`,
		one / raw,
		`${((one / items) * 1000).toFixed(0)} µs per item; raw fetch loop ${((raw / items) * 1000).toFixed(0)} µs`,
	);
	report(
		`${name}: 1 at a time / 8 at a time`,
		one / eight,
		'how much faster Requests in Parallel = 8 is',
	);
	report(
		`${name}: 8 at a time / raw loop`,
		eight / raw,
		'below 1: faster than one connection at a time',
	);
}

/**
 * A server that answers GET /v1/me and nothing else (no document: the node's built-in conventions),
 * after `delayMs`: a service across a network answers later without costing this machine CPU.
 */
async function startMinimalServerProcess(delayMs = 0): Promise<Service & { stop: () => void }> {
	const script = `let connections = 0;
	require('http').createServer((request, response) => {
		if (request.url === '/bench/connections') return response.end(String(connections));
		const me = request.url === '/v1/me';
		const answer = () => {
			response.writeHead(me ? 200 : 404, { 'content-type': 'application/json' });
			response.end(me ? '{"id":"acc_1","name":"Bench"}' : '{"error":{"message":"not found"}}');
		};
		if (${delayMs} > 0) setTimeout(answer, ${delayMs}); else answer();
	}).on('connection', () => connections++).listen(0, '127.0.0.1', function () { console.log('service: http://127.0.0.1:' + this.address().port); });`;
	const server = await serverProcess(['-e', script], {});
	return {
		...server,
		connections: async () => Number(await (await fetch(`${server.url}/bench/connections`)).text()),
	};
}

/** The fake service's command line, in a child process; resolves once it prints its address. */
async function startFakeServiceProcess(): Promise<Service & { stop: () => void }> {
	const cli = path.join(__dirname, '..', 'test', 'fake-service', 'cli.ts');
	return await serverProcess([require.resolve('ts-node/dist/bin.js'), '--transpile-only', cli], {
		FAKE_SERVICE_PORT: '0',
	});
}

// Servers still running when the bench ends, by a failure too: they share its stderr, so one left
// running kept the smoke test's execFile waiting for that stream to close until its timeout.
const serverProcesses = new Set<ChildProcess>();
process.on('exit', () => {
	for (const child of serverProcesses) child.kill('SIGTERM');
});

async function serverProcess(
	args: string[],
	env: NodeJS.ProcessEnv,
): Promise<Service & { stop: () => void }> {
	const apiKey = 'bench-key-0123456789';
	const child = spawn(process.execPath, args, {
		env: { ...process.env, ...env, FAKE_SERVICE_API_KEY: apiKey },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	serverProcesses.add(child);
	child.once('exit', () => serverProcesses.delete(child));
	const url = await new Promise<string>((resolve, reject) => {
		let output = '';
		child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
			output += chunk;
			const found = /service: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
			if (found) resolve(found);
		});
		child.once('exit', (code) => reject(new Error(`The server exited with ${code}`)));
	});
	return { url, apiKey, stop: () => child.kill('SIGTERM') };
}

/** A 1 GiB video downloaded into n8n's filesystem binary storage: the growth of the process's memory. */
async function mediaDownload() {
	const bytes = SMOKE ? 2 ** 24 : 2 ** 30;
	await useBinaryDataMode('filesystem');
	const service = await startFakeService({ apiKey: 'bench-key', videoBytes: bytes });
	global.gc?.();
	const before = process.memoryUsage().rss;
	let peak = before;
	const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
	const started = performance.now();
	const result = await runNode(
		contentPublishingNode({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A long video',
			options: { pollInterval: 0.05 },
			downloadMedia: true,
		}),
		{ credentials: { baseUrl: service.url, apiKey: service.apiKey } },
	);
	const seconds = (performance.now() - started) / 1000;
	clearInterval(sampler);
	if (result.error) throw result.error;
	const growthMb = (peak - before) / 2 ** 20;
	report(
		`${bytes / 2 ** 20} MiB video to binary data: peak RSS growth / 64 MB`,
		growthMb / 64,
		`${growthMb.toFixed(0)} MB more at the peak; ${(bytes / 2 ** 20 / seconds).toFixed(0)} MiB/s (file ${result.items[0].binary?.data.fileSize})`,
	);
	await service.close();
	await useBinaryDataMode('default');
}

async function listMemory() {
	const service = await startFakeService({ apiKey: 'bench-key' });
	const credentials = { baseUrl: service.url, apiKey: service.apiKey };
	for (let index = 0; index < (SMOKE ? 50 : 2000); index++) {
		await fetch(`${service.url}/v1/posts`, {
			method: 'POST',
			headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ content: `Post ${index} `.repeat(20), tags: ['bench'] }),
		});
	}
	global.gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	const result = await runNode(
		contentPublishingNode({ resource: 'post', operation: 'getMany', returnAll: true }),
		{
			credentials,
		},
	);
	global.gc?.();
	const heapAfter = process.memoryUsage().heapUsed;
	const outputBytes = Buffer.byteLength(JSON.stringify(result.items.map((item) => item.json)));
	report(
		`heap kept by Get Many of ${result.items.length} posts / their JSON`,
		(heapAfter - heapBefore) / outputBytes,
		global.gc
			? 'memory the run holds per byte of output'
			: 'run with --expose-gc for a stable figure',
	);
	await service.close();
}

async function subtitles() {
	const cues = Array.from(
		{ length: SMOKE ? 200 : 20_000 },
		(_, index) =>
			`${index + 1}\n00:00:${String(index % 60).padStart(2, '0')}.000 --> 00:00:${String(index % 60).padStart(2, '0')}.900\nLine number ${index} of the talk\n`,
	).join('\n');
	const vtt = `WEBVTT\n\n${cues}`;
	const baseline = await time(
		() =>
			vtt
				.split('\n')
				.filter((line) => line.trim() !== '')
				.join('\n'),
		5,
	);
	const parsed = await time(() => subtitlesToText(vtt, 'vtt'), 5);
	report(
		`subtitles to text (${(vtt.length / 2 ** 20).toFixed(1)} MiB) / split+join`,
		parsed / baseline,
		'cost over the cheapest pass over the lines',
	);
}

/**
 * The contract: the service's document is read once per base URL and time to live, however many
 * items and executions follow; the first execution pays for reading and resolving it.
 */
async function contractReads() {
	const rounds = SMOKE ? 1 : 3;
	for (const profile of ['primary', 'alternate'] as const) {
		const cold: number[] = [];
		const warm: number[] = [];
		let documentReads = 0;
		let executions = 0;
		for (let round = 0; round < rounds; round++) {
			// A new service is a new base URL: its contract is not cached yet.
			const service = await startFakeService({ apiKey: 'bench-key', profile });
			const credentials = { baseUrl: service.url, apiKey: service.apiKey };
			const run = () =>
				runNode(contentPublishingNode({ resource: 'account', operation: 'get' }), {
					credentials,
					input: Array.from({ length: 100 }, () => ({ json: {} })),
				});
			cold.push(await time(run, 1));
			warm.push(await time(run, 5));
			executions += 6;
			documentReads += service.requests.filter(
				(request) => request.path === '/v1/openapi.json',
			).length;
			await service.close();
		}
		const median = (values: number[]) =>
			values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
		report(
			`${profile}: first execution / warm (100 items)`,
			median(cold) / median(warm),
			`cost of reading the document; ${documentReads / rounds} read per base URL in ${executions / rounds} executions`,
		);
	}
}

/**
 * Under a rate limit of R requests a second, in a real n8n (the oldest pin): goodput as a fraction
 * of R (goal: at least 0.9) and 429s per 1,000 requests (goal: at most 20), beside the HTTP Request
 * node with Retry On Fail doing the same work.
 */
async function rateLimit() {
	const perSecond = 20;
	const items = SMOKE ? 40 : 1000;
	const measured = await rateLimitInN8n(N8N_PINS[0], perSecond, items);
	if (measured === undefined) {
		console.log(
			`rate limit in n8n (${N8N_PINS[0]} pin): skipped, not installed (npm run test:e2e installs it)`,
		);
		return;
	}
	for (const [name, run] of Object.entries(measured.runs)) {
		const refusals = `${run.refusalsPer1000.toFixed(0)} refusals per 1,000 requests`;
		report(
			`in n8n ${measured.version}, ${perSecond}/s limit: ${name}`,
			run.goodput,
			run.failed === undefined
				? `goodput as a fraction of the limit, ${items} items; ${refusals}`
				: `${run.failed}; ${refusals}`,
		);
	}
}

/** Finishes each job the service starts `stepMs` after the one before it, the first `stepMs` after it started. */
function finishOneByOne(service: FakeService, stepMs: number): () => void {
	const seen = new Set(service.jobs.keys());
	const timers: NodeJS.Timeout[] = [];
	let started = 0;
	const scan = setInterval(() => {
		for (const job of service.jobs.values()) {
			if (seen.has(job.id)) continue;
			seen.add(job.id);
			timers.push(
				setTimeout(() => void service.finishJob(job.id, 'succeeded'), ++started * stepMs),
			);
		}
	}, 5);
	return () => {
		clearInterval(scan);
		timers.forEach(clearTimeout);
	};
}

/**
 * What 8 items waiting for video jobs hold of a worker (in queue mode; of n8n's main process in
 * regular mode): the execution's running time, its jobs finishing one after another over 8 steps.
 * Polling runs for the whole wait; with Wait Method "Service Event" the execution runs to start the
 * jobs and again to output them, and sleeps in n8n's waiting state between (resumed by the
 * service's events, as waiting-webhooks.ts does; test/support/waiting-n8n.ts).
 */
async function waitHolds() {
	const stepMs = SMOKE ? 100 : 1000;
	const service = await startFakeService({ apiKey: 'bench-key', jobMode: 'manual' });
	const credentials = { baseUrl: service.url, apiKey: service.apiKey };
	const input = Array.from({ length: 8 }, (_, index) => ({ json: { prompt: `Video ${index}` } }));
	const node = (waitMethod: string) =>
		contentPublishingNode({
			resource: 'content',
			operation: 'generateVideo',
			prompt: '={{ $json.prompt }}',
			waitMethod,
			options: { maxWaitTime: 600 },
		});

	let stop = finishOneByOne(service, stepMs);
	const started = performance.now();
	const polled = await runNode(node('poll'), { credentials, input });
	const pollHeld = (performance.now() - started) / 1000;
	stop();
	if (polled.error) throw polled.error;
	const pollReads = service.requestsTo('getJob').length;

	const n8n = await WaitingN8n.start();
	stop = finishOneByOne(service, stepMs);
	const waiting = await n8n.run(node('event'), credentials, input);
	const resumed = await waiting.ended;
	stop();
	if (resumed.error || resumed.items.length !== 8)
		throw resumed.error ?? new Error('The event wait did not output 8 items');
	const eventHeld = n8n.heldMs(waiting.executionId) / 1000;
	const eventReads = service.requestsTo('getJob').length - pollReads;
	await n8n.close();
	await service.close();
	report(
		'8 items waiting: worker-s held, event / poll',
		eventHeld / pollHeld,
		`near 0: the execution sleeps; polling held ${pollHeld.toFixed(2)} worker-s, the event ${eventHeld.toFixed(3)} (jobs done over ${(8 * stepMs) / 1000} s; job reads: polling ${pollReads}, event ${eventReads})`,
	);
}

async function main() {
	console.log('benchmark                                       ratio   meaning');
	const benchmarks = {
		rateLimit,
		contractReads,
		jobNotice,
		throughput,
		perItemPath,
		mediaDownload,
		jobWaits,
		waitHolds,
		listMemory,
		subtitles,
	};
	for (const [name, run] of Object.entries(benchmarks))
		if (!ONLY || ONLY.includes(name)) await run();
	shutDownEngine();
}

void main();
