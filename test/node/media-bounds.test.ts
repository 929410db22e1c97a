import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { FAST_WAIT, useFakeService, type RunOverrides } from '../support/fixtures';
import { useLoopbackGuard } from '../support/loopback-guard';
import { useBinaryDataMode, type RunResult } from '../support/n8n-engine';
import { nonPublicReason, readHostRules } from '../../nodes/shared/transport/hosts';

/**
 * Download Media within bounds: media only from the Base URL's origin, public hosts and listed
 * hosts (every spelling of a private address refused before connecting, on every redirect), at
 * most Max Media Size per file, no silence beyond Timeout, all within Max Download Time, at most 50
 * files, clean file names, and types that agree with the name and the job. The hostile media
 * servers are this file's own, on 127.0.0.1; the loopback guard keeps every connection there.
 */
const harness = useFakeService();
const guard = useLoopbackGuard();
const CONTINUE = { node: { onError: 'continueRegularOutput' as const } };

// Emptied after each test, so each shows its own attempts.
afterEach(() => expect(guard.blocked.splice(0)).toEqual([]));

interface Hostile {
	url: string;
	/** `127.0.0.1:PORT` */
	host: string;
	port: number;
	requests: IncomingMessage[];
	/** Bytes of bodies written so far. */
	sent: number;
}

const servers: http.Server[] = [];
afterEach(async () => {
	await Promise.all(
		servers.splice(0).map(
			(server) =>
				new Promise<void>((resolve) => {
					server.close(() => resolve());
					server.closeAllConnections();
				}),
		),
	);
});

/** A media server of the test's own on 127.0.0.1, answering with `handle`. */
async function mediaServer(
	handle: (request: IncomingMessage, response: ServerResponse, server: Hostile) => void,
): Promise<Hostile> {
	const hostile: Hostile = { url: '', host: '', port: 0, requests: [], sent: 0 };
	const server = http.createServer((request, response) => {
		hostile.requests.push(request);
		handle(request, response, hostile);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	servers.push(server);
	hostile.port = (server.address() as AddressInfo).port;
	hostile.host = `127.0.0.1:${hostile.port}`;
	hostile.url = `http://${hostile.host}`;
	return hostile;
}

/** Answers every request with this type and body. */
function serving(type: string, body: Buffer | string = 'media bytes') {
	return (_request: IncomingMessage, response: ServerResponse, server: Hostile) => {
		response.writeHead(200, { 'Content-Type': type });
		server.sent += Buffer.byteLength(body);
		response.end(body);
	};
}

const videoResult = (url: string) => ({
	video_url: url,
	duration_seconds: 5,
	aspect_ratio: '16:9',
});
const carouselResult = (urls: string[]) => ({
	slides: urls.map((url, index) => ({ title: `Slide ${index}`, body: 'Text', image_url: url })),
});

/**
 * Jobs whose results name the given media, awaited by Job → Wait for Completion with Download
 * Media, one item each, with these parameters on top.
 */
// The results the test's jobs answer with, by job id; the fake service's job answers are rewritten
// to carry them (one fault per test, since the service's reset clears faults).
const resultsById = new Map<string, object>();
let rewriting = false;
beforeEach(() => {
	resultsById.clear();
	rewriting = false;
});

async function downloadJobs(
	results: Array<{ type?: 'generate.video' | 'generate.carousel'; result: object }>,
	parameters: IDataObject = {},
	options: RunOverrides = {},
): Promise<RunResult> {
	const jobIds = results.map(({ type = 'generate.video', result }) => {
		const { id } = harness.service.startJob(type, { prompt: 'Media' });
		resultsById.set(id, result);
		return id;
	});
	if (!rewriting) {
		rewriting = true;
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			times: 100_000,
			rewriteAnswer: (job) => ({
				...(job as IDataObject),
				result: resultsById.get(String((job as IDataObject).id)) ?? (job as IDataObject).result,
			}),
		});
	}
	return await harness.run(
		{
			resource: 'job',
			operation: 'wait',
			jobId: '={{ $json.jobId }}',
			options: FAST_WAIT,
			downloadMedia: true,
			...parameters,
		},
		{ ...options, input: jobIds.map((jobId) => ({ json: { jobId } })) },
	);
}

function failureOf(result: RunResult, index = 0): { error?: string; description?: string } {
	if (result.error) return { error: result.error.message, description: result.error.description };
	return result.items[index].json as { error?: string; description?: string };
}

describe('media only from where it belongs', () => {
	let refusedAddresses = 0;
	let refusedForms = 0;
	afterAll(() =>
		console.log(`media refused: ${refusedAddresses} addresses in ${refusedForms} forms`),
	);

	it('refuses loopback, private, link-local, metadata and local names in every spelling, before connecting', async () => {
		// Loopback addresses point at a server of the test's own, which must see no request.
		const media = await mediaServer(serving('video/mp4'));
		const port = media.port;
		const forms: Record<string, string[]> = {
			"another port on the Base URL's host": [`http://127.0.0.1:${port}/a.mp4`],
			localhost: [
				`http://localhost:${port}/a.mp4`,
				`http://LocalHost.:${port}/a.mp4`,
				`http://ｌｏｃａｌｈｏｓｔ:${port}/a.mp4`,
			],
			'*.localhost': [`http://media.localhost:${port}/a.mp4`],
			'IPv4 as one decimal number': [`http://2130706433:${port}/a.mp4`],
			'IPv4 in hexadecimal': [`http://0x7f000001:${port}/a.mp4`, `http://0x7f.1:${port}/a.mp4`],
			'IPv4 in octal': [`http://0177.0.0.1:${port}/a.mp4`],
			'IPv4 shortened': [`http://127.1:${port}/a.mp4`],
			'IPv4 in full-width digits': [`http://１２７.０.０.１:${port}/a.mp4`],
			'IPv6 loopback': [`http://[::1]:${port}/a.mp4`, `http://[0:0:0:0:0:0:0:1]:${port}/a.mp4`],
			'IPv4-mapped IPv6': [
				`http://[::ffff:127.0.0.1]:${port}/a.mp4`,
				`http://[::ffff:7f00:1]:${port}/a.mp4`,
				'http://[::ffff:169.254.169.254]/a.mp4',
				'http://[::ffff:10.0.0.1]/a.mp4',
			],
			'unspecified address': [
				`http://0.0.0.0:${port}/a.mp4`,
				`http://0:${port}/a.mp4`,
				`http://[::]:${port}/a.mp4`,
			],
			'private (RFC 1918)': [
				'http://10.0.0.1/a.mp4',
				'http://172.16.0.1/a.mp4',
				'http://172.31.255.254/a.mp4',
				'http://192.168.1.1/a.mp4',
			],
			'shared (CGNAT)': ['http://100.64.0.1/a.mp4', 'http://100.100.100.200/latest/meta-data/'],
			'link-local and metadata address': [
				'http://169.254.169.254/latest/meta-data/',
				'http://0xa9fea9fe/latest/meta-data/',
				'http://2852039166/latest/meta-data/',
				'http://0251.0376.0251.0376/latest/meta-data/',
				'http://[fe80::1]/a.mp4',
			],
			'unique-local IPv6': ['http://[fd00:ec2::254]/latest/meta-data/', 'http://[fc00::1]/a.mp4'],
			'NAT64 and 6to4 carrying a private address': [
				'http://[64:ff9b::a9fe:a9fe]/a.mp4',
				'http://[2002:a9fe:a9fe::1]/a.mp4',
			],
			'multicast, broadcast and reserved': [
				'http://224.0.0.1/a.mp4',
				'http://255.255.255.255/a.mp4',
				'http://240.0.0.1/a.mp4',
				'http://[ff02::1]/a.mp4',
			],
			'single-label name': [
				'http://metadata/computeMetadata/v1/',
				'http://intranet:8080/a.mp4',
				'http://instance-data/latest/',
			],
			'.internal, .local, .home.arpa names': [
				'http://metadata.google.internal/computeMetadata/v1/',
				'http://nas.local/a.mp4',
				'http://router.home.arpa/a.mp4',
				'http://api.svc.cluster.local/a.mp4',
			],
			'metadata name': [
				'http://metadata.goog/computeMetadata/v1/',
				'http://metadata.tencentyun.com/latest/meta-data/',
			],
		};
		const addresses = Object.values(forms).flat();
		const result = await downloadJobs(
			addresses.map((address) => ({ result: videoResult(address) })),
			{ requestOptions: { timeout: 5 } },
			CONTINUE,
		);

		expect(result.items).toHaveLength(addresses.length);
		addresses.forEach((address, index) => {
			const { error, description } = failureOf(result, index);
			expect({ address, error }).toEqual({
				address,
				error: expect.stringMatching(
					new RegExp(
						`^The media address of item ${index} names ${escape(new URL(address).host)}, .+, which the node does not download from$`,
					),
				),
			});
			expect(description).toContain('"Allowed Media Hosts"');
			expect(result.items[index].binary).toBeUndefined();
		});
		expect(media.requests).toHaveLength(0);
		refusedAddresses += addresses.length;
		refusedForms += Object.keys(forms).length;
	});

	it("downloads from the Base URL's origin, even on loopback, but not from another port of its host", async () => {
		const other = await mediaServer(serving('video/mp4'));
		const ownVideo = harness.service.startJob('generate.video', { prompt: 'Own' });
		const own = await harness.run({
			resource: 'job',
			operation: 'wait',
			jobId: ownVideo.id,
			options: FAST_WAIT,
			downloadMedia: true,
		});
		expect(own.items[0].binary?.data.mimeType).toBe('video/mp4');

		const elsewhere = await downloadJobs([{ result: videoResult(`${other.url}/a.mp4`) }]);
		expect(elsewhere.error?.message).toBe(
			`The media address of item 0 names ${other.host}, a loopback address, which the node does not download from`,
		);
		expect(elsewhere.error?.description).toContain(
			`If ${other.host} serves your media (a private CDN), add ${other.host} there.`,
		);
		expect(other.requests).toHaveLength(0);
		refusedAddresses += 1;
	});

	it('downloads from the hosts listed in Allowed Media Hosts, however they are spelled, on the listed port only', async () => {
		const cdn = await mediaServer(serving('video/mp4'));
		const listed = await downloadJobs(
			[
				{ result: videoResult(`http://localhost:${cdn.port}/videos/launch.mp4`) },
				{ result: videoResult(`${cdn.url}/videos/second.mp4`) },
			],
			{
				// localhost by name and 127.0.0.1 as the parser reads 0x7f000001.
				mediaOptions: { allowedMediaHosts: `localhost:${cdn.port}, 0x7f000001:${cdn.port}` },
			},
		);
		expect(listed.items.map((item) => item.binary?.data.fileName)).toEqual([
			'launch.mp4',
			'second.mp4',
		]);
		// The key stays with the service.
		expect(cdn.requests.map((request) => request.headers.authorization)).toEqual([
			undefined,
			undefined,
		]);

		const otherPort = await downloadJobs([{ result: videoResult(`${cdn.url}/a.mp4`) }], {
			mediaOptions: { allowedMediaHosts: `127.0.0.1:${cdn.port + 1}, *.localhost` },
		});
		expect(otherPort.error?.message).toMatch(/names 127\.0\.0\.1:\d+, a loopback address/);
		refusedAddresses += 1;
	});

	it('refuses an Allowed Media Hosts entry that is not a host, before sending anything', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A video',
			options: FAST_WAIT,
			downloadMedia: true,
			mediaOptions: { allowedMediaHosts: 'cdn.example.com, https://cdn.example.com/videos' },
		});
		expect(result.error?.message).toBe(
			'"Allowed Media Hosts" of item 0 has an entry that is not a host: "https://cdn.example.com/videos"',
		);
		expect(harness.sent('generateVideo')).toHaveLength(0);
	});

	it("checks every redirect, sends the key only within the Base URL's origin, and follows at most 5", async () => {
		const cdn = await mediaServer(serving('video/mp4'));
		const listed = { mediaOptions: { allowedMediaHosts: cdn.host } };
		const onService = `${harness.service.url}/media/moved.mp4`;

		// The service sends its media on to a listed CDN: followed, without the key.
		harness.service.injectFault({
			match: { method: 'GET', path: '/media/moved.mp4' },
			status: 302,
			redirectTo: `${cdn.url}/cdn/moved.mp4`,
		});
		const followed = await downloadJobs([{ result: videoResult(onService) }], listed);
		expect(followed.items[0].binary?.data).toMatchObject({
			fileName: 'moved.mp4',
			mimeType: 'video/mp4',
		});
		expect(cdn.requests.map((request) => [request.url, request.headers.authorization])).toEqual([
			['/cdn/moved.mp4', undefined],
		]);

		// To a loopback port that is neither: refused before connecting.
		const target = await mediaServer(serving('video/mp4'));
		harness.service.injectFault({
			match: { method: 'GET', path: '/media/moved.mp4' },
			status: 302,
			redirectTo: `http://localhost:${target.port}/private.mp4`,
		});
		const toLoopback = await downloadJobs([{ result: videoResult(onService) }]);
		expect(toLoopback.error?.message).toBe(
			`The media address of item 0 redirected to localhost:${target.port}, a loopback name, which the node does not download from`,
		);

		// A listed host that redirects to a metadata address.
		const bouncing = await mediaServer((_request, response) => {
			response.writeHead(307, { Location: 'http://169.254.169.254/latest/meta-data/iam/' });
			response.end();
		});
		const toMetadata = await downloadJobs([{ result: videoResult(`${bouncing.url}/a.mp4`) }], {
			mediaOptions: { allowedMediaHosts: bouncing.host },
		});
		expect(toMetadata.error?.message).toMatch(
			/^The media address of item 0 redirected to 169\.254\.169\.254, a link-local address/,
		);
		expect(target.requests).toHaveLength(0);
		refusedAddresses += 2;
		refusedForms += 1;

		// A redirect loop ends after 5 redirects.
		const loop = await mediaServer((request, response) => {
			response.writeHead(302, { Location: `${request.url}x` });
			response.end();
		});
		const looped = await downloadJobs([{ result: videoResult(`${loop.url}/a.mp4`) }], {
			mediaOptions: { allowedMediaHosts: loop.host },
		});
		expect(looped.error?.message).toBe(
			`The media at ${loop.url}/a.mp4 redirected more than 5 times`,
		);
		expect(loop.requests).toHaveLength(6);
	});
});

describe.each(['default', 'filesystem'] as const)(
	'bounds of each download, with n8n binary mode %s',
	(mode) => {
		beforeAll(async () => await useBinaryDataMode(mode));
		afterAll(async () => await useBinaryDataMode('default'));

		it('stops a file at Max Media Size, and the item keeps no part of it', async () => {
			// Without the cap this server would send 64 MB; with it, the download stops near 1 MB.
			const endless = await mediaServer((_request, response, server) => {
				response.writeHead(200, { 'Content-Type': 'video/mp4' });
				const chunk = Buffer.alloc(64 * 1024, 1);
				const pump = () => {
					while (server.sent < 64 * 1024 * 1024 && !response.destroyed) {
						server.sent += chunk.length;
						if (!response.write(chunk)) return void response.once('drain', pump);
					}
					response.end();
				};
				pump();
			});
			const result = await downloadJobs(
				[{ result: videoResult(`${endless.url}/endless.mp4`) }],
				{ mediaOptions: { allowedMediaHosts: endless.host, maxMediaSize: 1 } },
				CONTINUE,
			);
			expect(failureOf(result)).toEqual({
				error: `The media at ${endless.url}/endless.mp4 is larger than "Max Media Size" (1 MB)`,
				description:
					'The download was stopped. Raise "Max Media Size" under Media Options if the file is expected to be this large.',
			});
			expect(result.items[0].binary).toBeUndefined();
			expect(endless.sent).toBeLessThan(32 * 1024 * 1024);
		});

		it('stops a download that goes silent for the Timeout, after its headers or before them', async () => {
			const stalled = await mediaServer((_request, response) => {
				response.writeHead(200, { 'Content-Type': 'video/mp4' });
				response.write(Buffer.alloc(1024));
			});
			const silent = await mediaServer(() => undefined);
			// If silence were not bounded, these would wait for the socket's 60 s and jest's 30 s would fail the test.
			const result = await downloadJobs(
				[
					{ result: videoResult(`${stalled.url}/stalled.mp4`) },
					{ result: videoResult(`${silent.url}/silent.mp4`) },
				],
				{
					requestOptions: { timeout: 1 },
					mediaOptions: { allowedMediaHosts: `${stalled.host}, ${silent.host}` },
				},
				CONTINUE,
			);
			expect(failureOf(result, 0).error).toBe(
				`The media at ${stalled.url}/stalled.mp4 sent nothing for 1 seconds`,
			);
			expect(failureOf(result, 1).error).toBe(
				`The media at ${silent.url}/silent.mp4 sent nothing for 1 seconds`,
			);
			expect(failureOf(result, 0).description).toContain('"Timeout" under Request Options');
			expect(result.items.map((item) => item.binary)).toEqual([undefined, undefined]);
		});
	},
);

it('ends a download that trickles in, at Max Download Time', async () => {
	// 1 KB every 200 ms: never silent for the Timeout, and without a deadline it would run 40 s.
	const trickle = await mediaServer((_request, response) => {
		response.writeHead(200, { 'Content-Type': 'video/mp4' });
		let drops = 0;
		const drip = setInterval(() => {
			if (response.destroyed || ++drops > 200) {
				clearInterval(drip);
				response.end();
			} else response.write(Buffer.alloc(1024));
		}, 200);
	});
	const result = await downloadJobs([{ result: videoResult(`${trickle.url}/slow.mp4`) }], {
		requestOptions: { timeout: 1 },
		mediaOptions: { allowedMediaHosts: trickle.host, maxDownloadTime: 2 },
	});
	expect(result.error?.message).toBe(
		'The media of item 0 did not arrive within "Max Download Time" (2 seconds)',
	);
	expect(result.error?.description).toContain(
		`The download of ${trickle.url}/slow.mp4 was stopped.`,
	);
});

it('stops a download at once when the execution is cancelled', async () => {
	const stalled = await mediaServer((_request, response) => {
		response.writeHead(200, { 'Content-Type': 'video/mp4' });
		response.write(Buffer.alloc(1024));
	});
	const result = await downloadJobs(
		[{ result: videoResult(`${stalled.url}/a.mp4`) }],
		{ requestOptions: { timeout: 600 }, mediaOptions: { allowedMediaHosts: stalled.host } },
		{
			onStarted: (cancel: () => void) => {
				const check = setInterval(() => {
					if (stalled.requests.length > 0) {
						clearInterval(check);
						cancel();
					}
				}, 20);
			},
		},
	);
	expect(result.run.status).toBe('canceled');
	expect(result.items).toEqual([]);
});

it('downloads at most 50 files for one item, and none of a result that names more', async () => {
	const cdn = await mediaServer(serving('image/png', Buffer.from('png')));
	const urls = (count: number) =>
		Array.from({ length: count }, (_, index) => `${cdn.url}/slide-${index}.png`);
	const options = { mediaOptions: { allowedMediaHosts: cdn.host } };
	const fifty = await downloadJobs(
		[{ type: 'generate.carousel', result: carouselResult(urls(50)) }],
		options,
	);
	expect(Object.keys(fifty.items[0].binary ?? {})).toHaveLength(50);

	cdn.requests.length = 0;
	const many = await downloadJobs(
		[{ type: 'generate.carousel', result: carouselResult(urls(1000)) }],
		options,
	);
	expect(many.error?.message).toBe('The finished job of item 0 names more than 50 media files');
	expect(cdn.requests).toHaveLength(0);
});

it('names files without path, control or invisible format characters', async () => {
	const cdn = await mediaServer(serving('image/png', Buffer.from('png')));
	const paths = [
		'/s/..%2F..%2Fetc%2Fpasswd.png',
		'/s/slide%0D%0A%1B%5B31m%00.png',
		'/s/photo%E2%80%AEgnp.exe',
		'/s/..%5C..%5Cboot.ini',
		'/s/%2E%2E',
		'/s/%E0%A4%A.png',
	];
	const result = await downloadJobs(
		[
			{
				type: 'generate.carousel',
				result: carouselResult(paths.map((path) => `${cdn.url}${path}`)),
			},
		],
		{ mediaOptions: { allowedMediaHosts: cdn.host } },
	);
	expect(Object.values(result.items[0].binary ?? {}).map((file) => file.fileName)).toEqual([
		'passwd.png',
		'slide[31m.png',
		'photognp.exe',
		'boot.ini',
		undefined,
		'%E0%A4%A.png',
	]);
});

it('stores a file under a type that agrees with its name and its job, and refuses one that does not', async () => {
	const server = await mediaServer((request, response) => {
		const type = decodeURIComponent(
			new URL(request.url ?? '/', 'http://x').searchParams.get('type') ?? '',
		);
		response.writeHead(200, type ? { 'Content-Type': type } : {});
		response.end('bytes');
	});
	const at = (path: string, type: string) =>
		`${server.url}${path}?type=${encodeURIComponent(type)}`;
	const result = await downloadJobs(
		[
			{ result: videoResult(at('/v/error.mp4', 'text/html; charset=utf-8')) },
			{ result: videoResult(at('/v/generic.mp4', 'application/octet-stream')) },
			{ result: videoResult(at('/v/wrong.mp4', 'image/png')) },
			{ result: videoResult(at('/v/plain.mp4', '')) },
			{
				type: 'generate.carousel',
				result: carouselResult([at('/c/slide', 'video/mp4'), at('/c/ok', 'image/png')]),
			},
			{
				type: 'generate.carousel',
				result: carouselResult([
					at('/c/drawing.png', 'image/svg+xml'),
					at('/c/ok.png', 'image/png'),
				]),
			},
			{ result: videoResult(at('/v/noname', 'video/webm')) },
		],
		{ mediaOptions: { allowedMediaHosts: server.host } },
		CONTINUE,
	);
	const outcome = result.items.map(
		(item) =>
			(item.json.error as string | undefined) ??
			Object.values(item.binary ?? {})
				.map((file) => file.mimeType)
				.join(' '),
	);
	expect(outcome).toEqual([
		`The media at ${server.url}/v/error.mp4 was served as text/html, not as media`,
		'video/mp4',
		`The media at ${server.url}/v/wrong.mp4 was served as image/png, but its name says video/mp4`,
		'video/mp4',
		`The media at ${server.url}/c/slide is video/mp4, which a carousel job does not make (it makes images)`,
		`The media at ${server.url}/c/drawing.png was served as image/svg+xml, not as media`,
		'video/webm',
	]);
});

describe('what an address says of its host', () => {
	it('takes public hosts as public, up to the edges of every private range', () => {
		const publicHosts = [
			'cdn.example.com',
			'media.example.co.uk',
			'xn--bcher-kva.example.org',
			'8.8.8.8',
			'9.255.255.255',
			'11.0.0.0',
			'100.63.255.255',
			'100.128.0.0',
			'126.255.255.255',
			'128.0.0.0',
			'169.253.255.255',
			'169.255.0.0',
			'172.15.255.255',
			'172.32.0.0',
			'192.167.255.255',
			'192.169.0.0',
			'198.17.255.255',
			'198.20.0.0',
			'223.255.255.255',
			'[2606:4700:4700::1111]',
			'[2a00:1450:4001:80b::200e]',
			'[::ffff:808:808]',
			'[64:ff9b::808:808]',
			'[2002:808:808::1]',
		];
		expect(publicHosts.filter((host) => nonPublicReason(host) !== undefined)).toEqual([]);
		const edges = [
			'10.255.255.255',
			'100.64.0.0',
			'100.127.255.255',
			'127.255.255.255',
			'172.16.0.0',
			'172.31.255.255',
			'192.168.255.255',
			'198.18.0.0',
			'198.19.255.255',
			'239.255.255.255',
			'[fdff:ffff::1]',
			'[febf::1]',
			'[2001:db8::1]',
			'[2001::1]',
			'[::ffff:a00:1]',
			'[100::1]',
			'localhost',
			'a.b.localhost.',
			'printer.lan',
			'db.corp',
		];
		expect(edges.filter((host) => nonPublicReason(host) === undefined)).toEqual([]);
	});

	it('reads Allowed Media Hosts as the URL parser reads hosts', () => {
		expect(
			readHostRules(
				' cdn.internal, *.media.corp  10.0.0.5:9000\nfd00::5, [fd00::6]:81 , https://Media.Example.com ',
			).rules,
		).toEqual([
			{ host: 'cdn.internal', subdomains: false, port: undefined },
			{ host: 'media.corp', subdomains: true, port: undefined },
			{ host: '10.0.0.5', subdomains: false, port: '9000' },
			{ host: '[fd00::5]', subdomains: false, port: undefined },
			{ host: '[fd00::6]', subdomains: false, port: '81' },
			{ host: 'media.example.com', subdomains: false, port: '443' },
		]);
		for (const invalid of [
			'cdn.example.com/videos',
			'user@cdn.example.com',
			'cdn.example.com?x',
			'*.https://cdn.example.com',
			'http://',
			'bad^host',
		]) {
			expect(readHostRules(`ok.example, ${invalid}`).invalid).toBe(invalid);
		}
	});
});

function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
