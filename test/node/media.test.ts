import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';
import { binaryContent, useBinaryDataMode } from '../support/n8n-engine';

/** Download Media: a finished job's files as binary data, streamed, the key only to the service. */
const harness = useFakeService();
const wait = { options: FAST_WAIT, downloadMedia: true };

describe.each(['default', 'filesystem'] as const)('with n8n binary mode %s', (mode) => {
	beforeAll(async () => await useBinaryDataMode(mode));
	afterAll(async () => await useBinaryDataMode('default'));

	it('puts a finished video into the binary field, with its name and type', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A launch video',
			...wait,
		});
		const [item] = result.items;
		const jobId = String(jsonOf(result)[0].id);
		expect(item.binary?.data).toMatchObject({
			fileName: `${jobId}.mp4`,
			mimeType: 'video/mp4',
			fileExtension: 'mp4',
		});
		const served = Buffer.from(
			await (await fetch(`${harness.service.url}/media/${jobId}.mp4`)).arrayBuffer(),
		);
		expect(await binaryContent(item.binary!.data)).toEqual(served);
	});

	it('puts each slide of a carousel into a field of its own', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateCarousel',
			prompt: 'Three points',
			additionalFields: { slideCount: 3 },
			...wait,
			mediaField: 'slide',
		});
		const binary = result.items[0].binary ?? {};
		expect(Object.keys(binary)).toEqual(['slide_0', 'slide_1', 'slide_2']);
		expect(Object.values(binary).map((file) => file.mimeType)).toEqual([
			'image/png',
			'image/png',
			'image/png',
		]);
	});
});

describe('a service with other conventions', () => {
	const alternate = useFakeService({ profile: 'alternate' });

	it('finds the media where its document puts them', async () => {
		const result = await alternate.run({
			resource: 'content',
			operation: 'generateCarousel',
			prompt: 'Two points',
			additionalFields: { slideCount: 2 },
			...wait,
		});
		expect(Object.keys(result.items[0].binary ?? {})).toEqual(['data_0', 'data_1']);
		const video = await alternate.run({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A video',
			...wait,
		});
		expect(video.items[0].binary?.data.mimeType).toBe('video/mp4');
	});
});

it('downloads the media of a job it waits for, and fails clearly on a job without media', async () => {
	const video = harness.service.startJob('generate.video', { prompt: 'Later' });
	const waited = await harness.run({
		resource: 'job',
		operation: 'wait',
		jobId: video.id,
		...wait,
	});
	expect(waited.items[0].binary?.data.mimeType).toBe('video/mp4');

	const post = harness.service.startJob('generate.linkedin', { prompt: 'Text only' });
	const failed = await harness.run({ resource: 'job', operation: 'wait', jobId: post.id, ...wait });
	expect(failed.error?.message).toBe('The finished job of item 0 names no media to download');
});

it('sends the API key only to the service, not to media on another host', async () => {
	const seen: Array<string | undefined> = [];
	const cdn = http.createServer((request, response) => {
		seen.push(request.headers.authorization);
		response.writeHead(200, { 'Content-Type': 'video/mp4' });
		response.end('video bytes');
	});
	await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve));
	try {
		const elsewhere = `http://localhost:${(cdn.address() as AddressInfo).port}/videos/launch.mp4`;
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			times: 10,
			rewriteAnswer: (job) => ({
				...(job as object),
				result: { video_url: elsewhere, duration_seconds: 5, aspect_ratio: '16:9' },
			}),
		});
		const result = await harness.run({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A CDN video',
			...wait,
			// A CDN on this machine is not public: it downloads only when listed.
			mediaOptions: { allowedMediaHosts: `localhost:${(cdn.address() as AddressInfo).port}` },
		});
		expect(result.items[0].binary?.data).toMatchObject({
			fileName: 'launch.mp4',
			mimeType: 'video/mp4',
		});
		expect(seen).toEqual([undefined]);
	} finally {
		cdn.close();
	}
});
