/**
 * `npm start` as a user runs it, in a process of its own, in a folder of its own: stopped by a
 * signal to the npm process alone (SIGTERM, SIGINT), by npm being killed, and by a terminal's
 * Ctrl+C (SIGINT to the whole process group), each time with n8n and the fake service gone, both
 * ports free and no process left; the folder's secrets readable by this user only; `--base-url`
 * said truly in the banner and the credential's name; and an older folder that kept the
 * credential in credentials.json started without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
	chmodSync,
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { N8nRestClient } from '../../scripts/n8n-instance';
import { portToReuse } from '../support/ports';
import { CREDENTIAL, OWNER_EMAIL } from '../../scripts/start';
import { startFakeService, type FakeService } from '../fake-service';
import { until, untilAsync } from './workflows';

jest.setTimeout(420_000);

const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLES_THAT_NEED_THE_FAKE_SERVICE = [
	'Example: when a video is ready, publish it',
	'Example: fire a test event (generate a video)',
];

let folder: string;
let ports: { n8n: number; fake: number };
let other: FakeService;
/** The process groups of the starts, each led by its npm process. */
const groups: number[] = [];

beforeAll(async () => {
	folder = mkdtempSync(path.join(tmpdir(), 'cp-npm-start-'));
	ports = { n8n: await portToReuse(), fake: await portToReuse() };
	other = await startFakeService({ apiKey: 'a-real-service-key-0123456789' });
});

afterAll(async () => {
	// A failed test may have left its start running.
	for (const group of groups) if (groupMembers(group).length > 0) process.kill(-group, 'SIGKILL');
	await other?.close();
	if (folder) rmSync(folder, { recursive: true, force: true });
});

interface Run {
	npm: ChildProcess;
	output(): string;
}

/** `npm start -- <args>` in the repository, as its own process group (a terminal's job). */
function npmStart(args: string[]): Run {
	const npm = spawn('npm', ['start', '--', '--state-folder', folder, ...args], {
		cwd: ROOT,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	groups.push(npm.pid!);
	let output = '';
	const record = (chunk: Buffer) => {
		output = (output + chunk.toString()).slice(-100_000);
	};
	npm.stdout!.on('data', record);
	npm.stderr!.on('data', record);
	return { npm, output: () => output };
}

const exited = (npm: ChildProcess) => npm.exitCode !== null || npm.signalCode !== null;

/** Waits for the banner, which comes once n8n is ready; the first start in a folder takes longest. */
async function ready(run: Run): Promise<string> {
	await until(
		() => exited(run.npm) || run.output().includes('Press Ctrl+C'),
		'npm start to be ready',
		run.output,
		300_000,
	);
	if (exited(run.npm)) throw new Error(`npm start ended early:\n${run.output()}`);
	return run.output().slice(run.output().indexOf('Content Publishing nodes are running'));
}

/** The processes still running in a process group (one that has ended but is not yet reaped does not count). */
function groupMembers(group: number): number[] {
	return readdirSync('/proc')
		.filter((entry) => /^\d+$/.test(entry))
		.flatMap((pid) => {
			let stat: string;
			try {
				stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
			} catch {
				return []; // it ended between the listing and the read
			}
			// pid (command) state ppid pgrp ...: the command may hold spaces and parentheses.
			const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			return Number(pgrp) === group && state !== 'Z' ? [Number(pid)] : [];
		});
}

async function portFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
}

/** Sends the stop and waits until nothing of the start is left: its processes, and its ports. */
async function stopsOn(run: Run, send: () => void, usedPorts: number[]): Promise<void> {
	const group = run.npm.pid!;
	expect(groupMembers(group).length).toBeGreaterThanOrEqual(3); // npm, node, n8n
	const sentAt = Date.now();
	send();
	await untilAsync(
		async () =>
			groupMembers(group).length === 0 &&
			(await Promise.all(usedPorts.map(portFree))).every(Boolean),
		'npm start to stop everything and free its ports',
		() => `${run.output()}\nstill running: ${groupMembers(group).join(', ')}`,
		60_000,
	);
	console.log(`Stopped ${((Date.now() - sentAt) / 1000).toFixed(1)} s after the signal`);
	expect(run.output()).toContain('Stopping (');
}

function ownerPassword(): string {
	return (
		JSON.parse(readFileSync(path.join(folder, 'start.json'), 'utf8')) as { ownerPassword: string }
	).ownerPassword;
}

async function storedCredential(): Promise<{ name: string; baseUrl: string; updatedAt: string }> {
	const rest = new N8nRestClient(`http://127.0.0.1:${ports.n8n}`);
	await rest.login(OWNER_EMAIL, ownerPassword());
	const credentials = (await rest.call('GET', '/credentials')) as unknown as Array<{ id: string }>;
	expect(credentials.map(({ id }) => id)).toEqual([CREDENTIAL.id]);
	const stored = (await rest.call('GET', `/credentials/${CREDENTIAL.id}?includeData=true`)) as {
		name: string;
		updatedAt: string;
		data: { baseUrl: string };
	};
	return { name: stored.name, baseUrl: stored.data.baseUrl, updatedAt: stored.updatedAt };
}

/** The modes of what holds a key, a password or a signing secret, and of the folders that hold them. */
function secretModes(): Record<string, string> {
	const paths = [
		'.',
		'start.json',
		'fake-service.json',
		'n8n.log',
		'n8n',
		'n8n/.n8n',
		'n8n/.n8n/config',
		'n8n/.n8n/database.sqlite',
	];
	return Object.fromEntries(
		paths.map((name) => [name, (statSync(path.join(folder, name)).mode & 0o777).toString(8)]),
	);
}

const PRIVATE_MODES = {
	'.': '700',
	'start.json': '600',
	'fake-service.json': '600',
	'n8n.log': '600',
	n8n: '700',
	'n8n/.n8n': '700',
	'n8n/.n8n/config': '600',
	'n8n/.n8n/database.sqlite': '600',
};

/** The files of the folder that hold this text as it is, outside the installed package. */
function filesHolding(text: string): string[] {
	const found: string[] = [];
	const visit = (dir: string) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			const file = path.join(dir, entry.name);
			if (entry.isDirectory() && entry.name !== 'nodes') visit(file);
			else if (entry.isFile() && readFileSync(file).includes(text)) found.push(file);
		}
	};
	visit(folder);
	return found;
}

const fakeStartArgs = () => ['--port', String(ports.n8n), '--fake-port', String(ports.fake)];
let lastFakeCredential: { name: string; baseUrl: string; updatedAt: string };

it('stops n8n and the fake service on SIGTERM to the npm process alone, and keeps its secrets to this user', async () => {
	const run = npmStart(fakeStartArgs());
	const banner = await ready(run);
	expect(banner).toContain(`Fake service   http://127.0.0.1:${ports.fake}`);
	expect(banner).toContain(`credential "${CREDENTIAL.name}"`);
	expect(banner).toContain(EXAMPLES_THAT_NEED_THE_FAKE_SERVICE[1]);
	expect(banner).toContain('Press Ctrl+C to stop n8n and the fake service.');
	expect(secretModes()).toEqual(PRIVATE_MODES);
	// The credential, key included, is only in n8n's database, encrypted.
	expect(existsSync(path.join(folder, 'credentials.json'))).toBe(false);
	expect(existsSync(path.join(folder, 'credential-import.json'))).toBe(false);

	await stopsOn(run, () => process.kill(run.npm.pid!, 'SIGTERM'), [ports.n8n, ports.fake]);
	expect(run.output()).toContain('Stopping (SIGTERM)');
});

it('with --base-url, names the credential after the service, keeps its key only in n8n, says which examples need the fake service, narrows modes made wide, and stops on SIGINT to npm alone', async () => {
	for (const name of ['.', 'start.json', 'n8n/.n8n/config', 'n8n/.n8n/database.sqlite'])
		chmodSync(path.join(folder, name), name === '.' ? 0o755 : 0o644);
	const host = new URL(other.url).host;
	const run = npmStart([
		'--port',
		String(ports.n8n),
		'--base-url',
		other.url,
		'--api-key',
		other.apiKey,
	]);
	const banner = await ready(run);
	expect(banner).toContain(
		`Service        ${other.url} (your API key), credential "Content Publishing (${host})"`,
	);
	expect(banner).not.toContain('and the fake service');
	expect(banner).not.toContain('Trigger event');
	expect(banner).not.toContain("fake service's data");
	expect(banner).toContain(
		`Fake service   not started: "${EXAMPLES_THAT_NEED_THE_FAKE_SERVICE[0]}" and "${EXAMPLES_THAT_NEED_THE_FAKE_SERVICE[1]}" need a service that can call n8n back`,
	);
	expect(banner).toContain('Press Ctrl+C to stop n8n.');
	expect(secretModes()).toEqual(PRIVATE_MODES);
	expect(filesHolding(other.apiKey)).toEqual([]);
	expect(await storedCredential()).toEqual(
		expect.objectContaining({ name: `Content Publishing (${host})`, baseUrl: other.url }),
	);

	await stopsOn(run, () => process.kill(run.npm.pid!, 'SIGINT'), [ports.n8n]);
	expect(run.output()).toContain('Stopping (SIGINT)');
});

it('points the credential at the fake service again, named for it, and stops itself when npm is killed', async () => {
	const run = npmStart(fakeStartArgs());
	await ready(run);
	lastFakeCredential = await storedCredential();
	expect(lastFakeCredential).toEqual(
		expect.objectContaining({ name: CREDENTIAL.name, baseUrl: `http://127.0.0.1:${ports.fake}` }),
	);

	await stopsOn(run, () => process.kill(run.npm.pid!, 'SIGKILL'), [ports.n8n, ports.fake]);
	expect(run.output()).toContain('Stopping (the parent process ended)');
});

it("starts a folder that kept the credential in credentials.json, without importing it again, and stops on a terminal's Ctrl+C", async () => {
	// As an earlier npm start left the folder: the credential's file, readable by all, and no digest.
	const stateFile = path.join(folder, 'start.json');
	const { apiKey, ownerPassword } = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<
		string,
		string
	>;
	writeFileSync(stateFile, JSON.stringify({ apiKey, ownerPassword }, null, 2));
	const legacy = path.join(folder, 'credentials.json');
	writeFileSync(
		legacy,
		JSON.stringify([
			{
				...CREDENTIAL,
				type: 'contentPublishingApi',
				data: { baseUrl: `http://127.0.0.1:${ports.fake}`, apiKey },
			},
		]),
	);
	chmodSync(legacy, 0o644);

	const run = npmStart(fakeStartArgs());
	await ready(run);
	expect(await storedCredential()).toEqual(lastFakeCredential);
	expect(existsSync(legacy)).toBe(false);
	expect(secretModes()).toEqual(PRIVATE_MODES);

	await stopsOn(run, () => process.kill(-run.npm.pid!, 'SIGINT'), [ports.n8n, ports.fake]);
});
