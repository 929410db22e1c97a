/**
 * Benchmarks, reported as ratios against a baseline measured in the same run, so that the
 * numbers mean the same on any machine. Run with `npm run bench` (after `npm run build`).
 */
import { performance } from 'node:perf_hooks';

import { startFakeService } from '../test/fake-service';
import { contentPublishingNode, runNode, shutDownEngine } from '../test/support/n8n-engine';
import { subtitlesToText } from '../nodes/ContentPublishing/helpers/transcript';

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

async function jobWaits() {
	const service = await startFakeService({ apiKey: 'bench-key' });
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
	const eight = await time(() => generate(8));
	report('8 items waiting for jobs / 1 item', eight / one, 'near 1: waits overlap; 8 would mean one after another');

	await service.close();
}

async function listMemory() {
	const service = await startFakeService({ apiKey: 'bench-key' });
	const credentials = { baseUrl: service.url, apiKey: service.apiKey };
	for (let index = 0; index < 2000; index++) {
		await fetch(`${service.url}/v1/posts`, {
			method: 'POST',
			headers: { authorization: `Bearer ${service.apiKey}`, 'content-type': 'application/json' },
			body: JSON.stringify({ content: `Post ${index} `.repeat(20), tags: ['bench'] }),
		});
	}
	global.gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	const result = await runNode(contentPublishingNode({ resource: 'post', operation: 'getMany', returnAll: true }), {
		credentials,
	});
	global.gc?.();
	const heapAfter = process.memoryUsage().heapUsed;
	const outputBytes = Buffer.byteLength(JSON.stringify(result.items.map((item) => item.json)));
	report(
		`heap kept by Get Many of ${result.items.length} posts / their JSON`,
		(heapAfter - heapBefore) / outputBytes,
		global.gc ? 'memory the run holds per byte of output' : 'run with --expose-gc for a stable figure',
	);
	await service.close();
}

async function subtitles() {
	const cues = Array.from(
		{ length: 20_000 },
		(_, index) => `${index + 1}\n00:00:${String(index % 60).padStart(2, '0')}.000 --> 00:00:${String(index % 60).padStart(2, '0')}.900\nLine number ${index} of the talk\n`,
	).join('\n');
	const vtt = `WEBVTT\n\n${cues}`;
	const baseline = await time(() => vtt.split('\n').filter((line) => line.trim() !== '').join('\n'), 5);
	const parsed = await time(() => subtitlesToText(vtt, 'vtt'), 5);
	report(`subtitles to text (${(vtt.length / 2 ** 20).toFixed(1)} MiB) / split+join`, parsed / baseline, 'cost over the cheapest pass over the lines');
}

async function main() {
	console.log('benchmark                                       ratio   meaning');
	await jobWaits();
	await listMemory();
	await subtitles();
	shutDownEngine();
}

void main();
