/**
 * `npm start`: the package in a real n8n on 127.0.0.1, with the bundled fake service as the API
 * (or a real service with --base-url and --api-key), an owner account, a credential and the
 * example workflows ready. Ctrl+C stops everything; the next start reuses the same folder and
 * keeps what the user did there: edited examples, published workflows, the fake service's data.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { startFakeService, type FakeService } from '../test/fake-service';
import { isBuilt } from './build-inputs';
import {
	createN8n,
	ensureN8nInstalled,
	N8nRestClient,
	pinnedN8n,
	type N8nInstance,
	type PinnedN8n,
} from './n8n-instance';

const ROOT = path.resolve(__dirname, '..');
const DEFAULT_STATE_FOLDER = path.join(ROOT, '.n8n-local');
export const CREDENTIAL = {
	id: 'cpLocalFakeService',
	name: 'Content Publishing (local fake service)',
};
export const OWNER_EMAIL = 'owner@example.com';

interface State {
	apiKey: string;
	ownerPassword: string;
}

class StartError extends Error {}

function readOptions() {
	const { values } = parseArgs({
		options: {
			'base-url': { type: 'string' },
			'api-key': { type: 'string' },
			port: { type: 'string' },
			'fake-port': { type: 'string' },
			reset: { type: 'boolean', default: false },
		},
	});
	const baseUrl = values['base-url'] ?? process.env.CONTENT_PUBLISHING_BASE_URL;
	const apiKey = values['api-key'] ?? process.env.CONTENT_PUBLISHING_API_KEY;
	if ((baseUrl === undefined) !== (apiKey === undefined)) {
		throw new StartError(
			'Give both --base-url and --api-key (or CONTENT_PUBLISHING_BASE_URL and CONTENT_PUBLISHING_API_KEY) to use a real service.',
		);
	}
	const port = (value: string | undefined, fallback: number, flag: string) => {
		const number = Number(value ?? fallback);
		if (!Number.isInteger(number) || number < 1 || number > 65535)
			throw new StartError(`${flag} must be a port number, not "${value}".`);
		return number;
	};
	return {
		stateFolder: DEFAULT_STATE_FOLDER,
		realService: baseUrl && apiKey ? { baseUrl, apiKey } : undefined,
		n8nPort: port(values.port ?? process.env.N8N_PORT, 5678, '--port'),
		fakePort: port(values['fake-port'] ?? process.env.FAKE_SERVICE_PORT, 5690, '--fake-port'),
		/** The examples as shipped and the fake service's seed data again; the owner, the credential and other workflows stay. */
		reset: values.reset === true,
	};
}

async function requireFreePort(port: number, what: string, flag: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const probe = createServer();
		probe.once('error', () =>
			reject(
				new StartError(
					`Port ${port} on 127.0.0.1 is already in use, so ${what} cannot start there. Stop what uses it, or choose another port: npm start -- ${flag} <port>`,
				),
			),
		);
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
	});
}

function loadState(stateFolder: string): State {
	const stateFile = path.join(stateFolder, 'start.json');
	mkdirSync(stateFolder, { recursive: true });
	if (existsSync(stateFile)) return JSON.parse(readFileSync(stateFile, 'utf8')) as State;
	const state = {
		apiKey: `cp_local_${randomBytes(12).toString('hex')}`,
		ownerPassword: `Local-${randomBytes(6).toString('hex')}1`,
	};
	writeFileSync(stateFile, JSON.stringify(state, null, 2));
	return state;
}

async function installN8n(): Promise<PinnedN8n> {
	// The oldest pin is the n8n that runs on the Node.js of this machine (Node 20 or newer).
	const pinned = pinnedN8n('oldest');
	if (pinned.installed) return pinned;
	console.log(
		`n8n ${pinned.version} is not installed yet: installing it once, outside this folder (about 5 minutes)...`,
	);
	try {
		return await ensureN8nInstalled('oldest');
	} catch (error) {
		const detail = String((error as { stderr?: string }).stderr ?? (error as Error).message)
			.trim()
			.split('\n')
			.slice(-3)
			.join('\n');
		throw new StartError(
			`Could not install n8n:\n${detail}\nCheck that the npm registry is reachable, then run npm start again.`,
		);
	}
}

interface Example {
	id: string;
	name: string;
}

function readExamples(): Example[] {
	return readdirSync(path.join(ROOT, 'examples'))
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as Example);
}

/** Imports these examples as shipped, in one n8n command; the same ids each time, so nothing is duplicated. */
async function importExamples(
	n8n: N8nInstance,
	examples: Example[],
	stateFolder: string,
): Promise<void> {
	if (examples.length === 0) return;
	const file = path.join(stateFolder, 'examples.json');
	writeFileSync(file, JSON.stringify(examples));
	await n8n.cli(['import:workflow', `--input=${file}`]);
}

/**
 * Writes the credential's file for this service; true when it differs from the one imported last
 * time (another service, port or key), so that it must be imported again.
 */
function writeCredential(
	service: { baseUrl: string; apiKey: string },
	stateFolder: string,
): { file: string; changed: boolean } {
	const file = path.join(stateFolder, 'credentials.json');
	const text = JSON.stringify([{ ...CREDENTIAL, type: 'contentPublishingApi', data: service }]);
	const changed = !existsSync(file) || readFileSync(file, 'utf8') !== text;
	writeFileSync(file, text);
	return { file, changed };
}

/** Logs in as the owner, setting the owner up on a new instance. */
async function ownerSession(n8n: N8nInstance, password: string): Promise<N8nRestClient> {
	const rest = new N8nRestClient(n8n.url);
	if (await rest.needsOwner()) await rest.setUpOwner(OWNER_EMAIL, password);
	else await rest.login(OWNER_EMAIL, password);
	return rest;
}

/**
 * Puts back what is missing in a running n8n (an example or the credential deleted in the editor);
 * what is there stays as the user left it, edits and publishing included.
 */
async function restoreMissing(
	n8n: N8nInstance,
	rest: N8nRestClient,
	examples: Example[],
	credentialFile: string,
	stateFolder: string,
): Promise<void> {
	const ids = async (route: string) =>
		new Set(
			((await rest.call('GET', route)) as unknown as Array<{ id: string }>).map(({ id }) => id),
		);
	if (!(await ids('/credentials')).has(CREDENTIAL.id))
		await n8n.cli(['import:credentials', `--input=${credentialFile}`]);
	const workflows = await ids('/workflows');
	await importExamples(
		n8n,
		examples.filter(({ id }) => !workflows.has(id)),
		stateFolder,
	);
}

export interface Started {
	n8n: N8nInstance;
	fake?: FakeService;
	state: State;
	/** The examples' names. */
	examples: string[];
	stop(): Promise<void>;
}

/** Where the fake service keeps its data between starts. */
export function fakeServiceStateFile(stateFolder: string): string {
	return path.join(stateFolder, 'fake-service.json');
}

export type StartOptions = Omit<ReturnType<typeof readOptions>, 'reset'> & { reset?: boolean };

export async function start(options: StartOptions): Promise<Started> {
	await requireFreePort(options.n8nPort, 'n8n', '--port');
	if (!options.realService)
		await requireFreePort(options.fakePort, 'the fake service', '--fake-port');
	const pinned = await installN8n();
	const state = loadState(options.stateFolder);
	const stateFile = fakeServiceStateFile(options.stateFolder);
	if (options.reset) rmSync(stateFile, { force: true });
	const fake = options.realService
		? undefined
		: await startFakeService({
				apiKey: state.apiKey,
				port: options.fakePort,
				jobMode: 'timed',
				stateFile,
			});
	const service = options.realService ?? { baseUrl: fake!.url, apiKey: state.apiKey };
	const userFolder = path.join(options.stateFolder, 'n8n');
	// No database yet: n8n has never run in this folder, and everything is imported before it starts.
	const firstStart = !existsSync(path.join(userFolder, '.n8n', 'database.sqlite'));
	const n8n = await createN8n(pinned, {
		userFolder,
		port: options.n8nPort,
		logFile: path.join(options.stateFolder, 'n8n.log'),
	});
	const stop = async () => {
		await n8n.stop();
		await fake?.close();
	};
	try {
		const examples = readExamples();
		const credential = writeCredential(service, options.stateFolder);
		// Each n8n command takes seconds, so only what is new or changed is imported.
		if (firstStart || credential.changed)
			await n8n.cli(['import:credentials', `--input=${credential.file}`]);
		if (firstStart || options.reset) await importExamples(n8n, examples, options.stateFolder);
		await n8n.start();
		const rest = await ownerSession(n8n, state.ownerPassword);
		if (!firstStart)
			await restoreMissing(n8n, rest, examples, credential.file, options.stateFolder);
		return { n8n, fake, state, examples: examples.map(({ name }) => name), stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

/** Builds the package unless dist/ holds a build of the sources as they are. */
function buildIfChanged(): void {
	if (isBuilt()) return;
	console.log('Building the package...');
	execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

async function main() {
	const options = readOptions();
	buildIfChanged();
	const started = await start(options);
	const service = options.realService
		? `Service        ${options.realService.baseUrl} (your API key)`
		: `Fake service   ${started.fake!.url}  (API key ${started.state.apiKey})`;
	console.log(
		[
			'',
			'Content Publishing nodes are running in n8n.',
			'',
			`  n8n editor     ${started.n8n.url}`,
			`  Login          ${OWNER_EMAIL} / ${started.state.ownerPassword}`,
			`  ${service}`,
			`  Examples       ${started.examples.length} workflows, e.g. "${started.examples[0]}"`,
			'  Trigger event  with a trigger example listening, run "Example: fire a test event (generate a video)"',
			`  n8n's log      ${path.relative(ROOT, path.join(options.stateFolder, 'n8n.log'))}`,
			"  Kept           edited examples, published workflows, the fake service's data (npm start -- --reset: examples as shipped, the service's seed data)",
			'',
			'Press Ctrl+C to stop n8n and the fake service.',
			'',
		].join('\n'),
	);
	let stopping = false;
	const shutdown = async () => {
		if (stopping) return;
		stopping = true;
		console.log('Stopping...');
		await started.stop();
		process.exit(0);
	};
	process.on('SIGINT', () => void shutdown());
	process.on('SIGTERM', () => void shutdown());
}

if (require.main === module) {
	main().catch((error: unknown) => {
		console.error(
			error instanceof StartError ? error.message : `npm start failed: ${(error as Error).message}`,
		);
		process.exit(1);
	});
}
