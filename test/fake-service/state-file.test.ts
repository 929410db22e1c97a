import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
	buildOpenApiDocument,
	createContractValidator,
	startFakeService,
	type FakeService,
	type FakeServiceOptions,
	type Job,
	type Post,
	type Webhook,
} from './index';
import { boundedState, MAX_STATE_BYTES, readState, type SavedState } from './state-file';
import { checkedCall, CLI_TIMEOUT_MS, startReceiver, waitFor, withCli } from './test-helpers';

/** The fake service's data kept in a file across restarts, as `npm start` uses it. */

const contract = createContractValidator(buildOpenApiDocument());
let folder: string;
let file: string;
const open: FakeService[] = [];

beforeEach(() => {
	folder = mkdtempSync(path.join(tmpdir(), 'cp-fake-state-'));
	file = path.join(folder, 'fake-service.json');
});

afterEach(async () => {
	await Promise.all(open.splice(0).map((service) => service.close()));
	rmSync(folder, { recursive: true, force: true });
});

async function start(options: FakeServiceOptions = {}): Promise<FakeService> {
	const service = await startFakeService({
		apiKey: 'state-file-test-key',
		stateFile: file,
		...options,
	});
	open.push(service);
	return service;
}

const call = <T>(service: FakeService, method: string, url: string, body?: unknown) =>
	checkedCall<T>(contract, service, method, url, { body });

/** Closes the service and starts it again from a fresh copy of its module, as a new process would (ids counted from 0). */
async function restart(
	service: FakeService,
	options: FakeServiceOptions = {},
): Promise<FakeService> {
	await service.close();
	let fresh: typeof startFakeService = startFakeService;
	await jest.isolateModulesAsync(async () => {
		fresh = (await import('./server')).startFakeService;
	});
	const restarted = await fresh({ apiKey: 'state-file-test-key', stateFile: file, ...options });
	open.push(restarted);
	return restarted;
}

it('keeps pages, posts, webhooks with their secrets and the account across a restart, and new ids come after them', async () => {
	const first = await start();
	const pageIds = [...first.pages.keys()];
	// Enough ids that a count started again from 0 would make ones that sort before them.
	for (let index = 0; index < 10; index += 1)
		await call(first, 'POST', '/v1/posts', { content: `Earlier ${index}` });
	const post = (
		await call<Post>(first, 'POST', '/v1/posts', { content: 'Kept', page_id: pageIds[1] })
	).body;
	const webhook = (
		await call<Webhook & { secret: string }>(first, 'POST', '/v1/webhooks', {
			url: 'http://127.0.0.1:9/hook',
			events: ['*'],
			secret: 'kept-secret-0123456789',
		})
	).body;
	const account = first.account;

	const second = await restart(first);
	expect([...second.pages.keys()]).toEqual(pageIds);
	expect(second.account).toEqual(account);
	expect((await call<Post>(second, 'GET', `/v1/posts/${post.id}`)).body).toEqual(post);
	expect((await call<Webhook>(second, 'GET', `/v1/webhooks/${webhook.id}`)).status).toBe(200);
	expect(second.webhooks.get(webhook.id)?.secret).toBe('kept-secret-0123456789');

	const next = (await call<Post>(second, 'POST', '/v1/posts', { content: 'After' })).body;
	// Cursors name the last id seen; a new post whose id sorted before the kept ones would be skipped.
	const firstPage = (
		await call<{ data: Post[]; next_cursor: string }>(second, 'GET', '/v1/posts?limit=11')
	).body;
	expect(firstPage.data.at(-1)?.id).toBe(post.id);
	const secondPage = (
		await call<{ data: Post[] }>(
			second,
			'GET',
			`/v1/posts?limit=11&cursor=${firstPage.next_cursor}`,
		)
	).body;
	expect(secondPage.data.map((item) => item.id)).toEqual([next.id]);
});

it('writes a moment after a change, without waiting for the service to close, atomically and readable by its user only', async () => {
	const service = await start();
	const post = (await call<Post>(service, 'POST', '/v1/posts', { content: 'Written soon' })).body;
	await waitFor(() => readState(file)?.posts.some((saved) => saved.id === post.id) === true, 5000);
	expect(statSync(file).mode & 0o777).toBe(0o600);
	expect(readdirSync(folder)).toEqual(['fake-service.json']);
});

it('finishes a job that was running when the service stopped, and delivers its event with the kept secret', async () => {
	const receiver = await startReceiver();
	try {
		const first = await start({ jobMode: 'manual' });
		await call(first, 'POST', '/v1/webhooks', {
			url: receiver.url,
			events: ['job.completed'],
			secret: 'delivery-secret-0123456789',
		});
		const job = (
			await call<Job>(first, 'POST', '/v1/generate/twitter', {
				prompt: 'One. Two. Three.',
				thread_length: 2,
			})
		).body;

		const second = await restart(first, {
			jobMode: 'timed',
			timedJobDelaysMs: { running: 10, done: 50 },
		});
		await waitFor(() => second.jobs.get(job.id)?.status === 'succeeded', 5000);
		expect(second.jobs.get(job.id)?.result).toEqual({ tweets: ['1/2 One.', '2/2 Two.'] });
		await second.waitForDeliveries();
		expect(receiver.received).toHaveLength(1);
		const { headers, body } = receiver.received[0];
		const timestamp = Number(headers['x-content-publishing-timestamp']);
		expect(headers['x-content-publishing-signature']).toBe(
			second.signDelivery('delivery-secret-0123456789', body, timestamp)[
				'X-Content-Publishing-Signature'
			],
		);
	} finally {
		await receiver.close();
	}
});

it('stays within its bound: the oldest posts give way, the pages and the newest posts stay', async () => {
	const service = await start();
	const big = 'x'.repeat(2 ** 20);
	const posts: string[] = [];
	for (let index = 0; index < 10; index += 1)
		posts.push(
			(await call<Post>(service, 'POST', '/v1/posts', { content: `${index} ${big}` })).body.id,
		);
	await service.close();
	expect(statSync(file).size).toBeLessThanOrEqual(MAX_STATE_BYTES);
	const saved = readState(file)!;
	expect(saved.pages).toHaveLength(5);
	const kept = saved.posts.map((post) => post.id);
	expect(kept.length).toBeGreaterThan(0);
	expect(kept).toEqual(posts.slice(posts.length - kept.length));
	expect(kept.length).toBeLessThan(posts.length);
});

it('bounds by bytes, newest first across posts, jobs and webhooks', () => {
	const service = {
		version: 1,
		account: { id: 'acc_000001000000000000' },
		pages: [],
		posts: [],
		jobs: [],
		webhooks: [],
	} as unknown as SavedState;
	const post = (sequence: number) =>
		({
			id: `post_${sequence.toString(36).padStart(6, '0')}000000000000`,
			content: 'y'.repeat(100),
		}) as Post;
	const state = {
		...service,
		posts: [post(2), post(3), post(5)],
		webhooks: [{ id: 'wh_000004000000000000', url: 'u', secret: 's' }],
	} as SavedState;
	const fixed = Buffer.byteLength(JSON.stringify({ ...state, posts: [], webhooks: [] }));
	const roomForTwo = fixed + 2 * (JSON.stringify(post(5)).length + 1);
	const kept = boundedState(state, roomForTwo);
	expect(kept.posts.map((saved) => saved.id)).toEqual([post(5).id]);
	expect(kept.webhooks).toHaveLength(1);
	expect(JSON.stringify(kept).length).toBeLessThanOrEqual(roomForTwo);
});

it('sets a file aside that is not its state, and starts from its seed data', async () => {
	writeFileSync(file, '{"version": 1, "account": ');
	const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
	try {
		const service = await start();
		expect(service.pages.size).toBe(5);
		expect(warn).toHaveBeenCalledWith(expect.stringContaining('is not JSON'));
		expect(readFileSync(`${file}.broken`, 'utf8')).toBe('{"version": 1, "account": ');
	} finally {
		warn.mockRestore();
	}
});

it('leaves out records that are not what their list holds', async () => {
	const first = await start();
	await first.close();
	const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedState & { posts: unknown[] };
	saved.posts.push({ id: '../../etc', content: 'x' }, { id: 'post_000999000000000000' }, 'text');
	writeFileSync(file, JSON.stringify(saved));
	const second = await start();
	expect(second.posts.size).toBe(0);
	expect(second.pages.size).toBe(5);
});

it(
	'is what the command line keeps with --state-file',
	async () => {
		await withCli(['--state-file', file], 'cli-state-key-0123456789', async (output, url) => {
			expect(output).toContain(`Data: kept in ${file}`);
			const response = await fetch(`${url}/v1/posts`, {
				method: 'POST',
				headers: {
					Authorization: 'Bearer cli-state-key-0123456789',
					'Content-Type': 'application/json',
				},
				body: JSON.stringify({ content: 'From the command line' }),
			});
			expect(response.status).toBe(201);
		});
		expect(readState(file)?.posts.map((post) => post.content)).toEqual(['From the command line']);
	},
	CLI_TIMEOUT_MS,
);
