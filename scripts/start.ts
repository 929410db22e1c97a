/**
 * `npm start`: the package in a real n8n on 127.0.0.1, with the bundled fake service as the API
 * (or a real service with --base-url and --api-key), an owner account, a credential and the
 * example workflows ready. Ctrl+C, or SIGINT, SIGTERM or SIGHUP to the npm process alone, stops
 * everything; the next start reuses the same folder and keeps what the user did there: edited
 * examples, published workflows, the fake service's data.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
	chmodSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
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
	runCommand,
	type N8nInstance,
	type PinnedN8n,
} from './n8n-instance';

const ROOT = path.resolve(__dirname, '..');
const DEFAULT_STATE_FOLDER = path.join(ROOT, '.n8n-local');
/** The credential the examples name (by this id; n8n finds it by the id whatever its name is now). */
export const CREDENTIAL = {
	id: 'cpLocalFakeService',
	name: 'Content Publishing (local fake service)',
};
export const OWNER_EMAIL = 'owner@example.com';

/** Only this user may read or list what holds a key, a password or a signing secret. */
const PRIVATE_FILE = 0o600;
const PRIVATE_FOLDER = 0o700;

interface State {
	/** The fake service's API key. */
	apiKey: string;
	ownerPassword: string;
	/**
	 * A SHA-256 digest of the credential last imported into n8n, to tell whether it changed; the
	 * credential itself, with its key, is kept only in n8n's database, encrypted.
	 */
	credential?: string;
}

export interface Service {
	baseUrl: string;
	apiKey: string;
}

class StartError extends Error {}

function readOptions() {
	const { values } = parseArgs({
		options: {
			'base-url': { type: 'string' },
			'api-key': { type: 'string' },
			port: { type: 'string' },
			'fake-port': { type: 'string' },
			'state-folder': { type: 'string' },
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
	if (baseUrl !== undefined) serviceHost(baseUrl);
	const port = (value: string | undefined, fallback: number, flag: string) => {
		const number = Number(value ?? fallback);
		if (!Number.isInteger(number) || number < 1 || number > 65535)
			throw new StartError(`${flag} must be a port number, not "${value}".`);
		return number;
	};
	return {
		stateFolder: path.resolve(values['state-folder'] ?? DEFAULT_STATE_FOLDER),
		realService: baseUrl && apiKey ? { baseUrl, apiKey } : undefined,
		n8nPort: port(values.port ?? process.env.N8N_PORT, 5678, '--port'),
		fakePort: port(values['fake-port'] ?? process.env.FAKE_SERVICE_PORT, 5690, '--fake-port'),
		/** The examples as shipped and the fake service's seed data again; the owner, the credential and other workflows stay. */
		reset: values.reset === true,
	};
}

/** The host (and port, unless the scheme's own) of a service's address. */
function serviceHost(baseUrl: string): string {
	let url: URL | undefined;
	try {
		url = new URL(baseUrl);
	} catch {
		url = undefined;
	}
	if (!url || !['http:', 'https:'].includes(url.protocol) || url.host === '')
		throw new StartError(
			`--base-url must be an http:// or https:// address, such as https://api.example.com, not "${baseUrl}".`,
		);
	return url.host;
}

/** The credential's name: what it points at, the fake service or the real service's host. */
export function credentialName(realService?: Service): string {
	return realService ? `Content Publishing (${serviceHost(realService.baseUrl)})` : CREDENTIAL.name;
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

/** Writes a file only this user can read, whether or not it existed before. */
function writePrivateFile(file: string, text: string): void {
	writeFileSync(file, text, { mode: PRIVATE_FILE });
	chmodSync(file, PRIVATE_FILE);
}

/**
 * Makes the state folder, n8n's user folder and n8n's settings folder this user's only, and every
 * file directly in them: the fake service's key and the owner's password (start.json), the
 * webhooks' signing secrets (fake-service.json), n8n's encryption key (config), its database
 * (credentials, the owner, the triggers' secrets) and its logs. Their subfolders (the installed
 * package, binary data) are out of reach through these folders.
 */
export function protectSecrets(stateFolder: string): void {
	const userFolder = path.join(stateFolder, 'n8n');
	for (const folder of [stateFolder, userFolder, path.join(userFolder, '.n8n')]) {
		if (!existsSync(folder)) continue;
		chmodSync(folder, PRIVATE_FOLDER);
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			if (entry.isFile()) chmodSync(path.join(folder, entry.name), PRIVATE_FILE);
		}
	}
}

function stateFile(stateFolder: string): string {
	return path.join(stateFolder, 'start.json');
}

function loadState(stateFolder: string): State {
	const file = stateFile(stateFolder);
	if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as State;
	const state = {
		apiKey: `cp_local_${randomBytes(12).toString('hex')}`,
		ownerPassword: `Local-${randomBytes(6).toString('hex')}1`,
	};
	saveState(stateFolder, state);
	return state;
}

function saveState(stateFolder: string, state: State): void {
	writePrivateFile(stateFile(stateFolder), JSON.stringify(state, null, 2));
}

async function installN8n(signal?: AbortSignal): Promise<PinnedN8n> {
	// The oldest pin is the n8n that runs on the Node.js of this machine (Node 20 or newer).
	const pinned = pinnedN8n('oldest');
	if (pinned.installed) return pinned;
	console.log(
		`n8n ${pinned.version} is not installed yet: installing it once, outside this folder (about 5 minutes)...`,
	);
	try {
		return await ensureN8nInstalled('oldest', signal);
	} catch (error) {
		signal?.throwIfAborted();
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

/** The credential as `n8n import:credentials` reads it, named after what it points at. */
function credentialImport(service: Service, name: string): string {
	return JSON.stringify([{ id: CREDENTIAL.id, name, type: 'contentPublishingApi', data: service }]);
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Before the digest, the credential was kept as credentials.json, key included: its digest tells
 * whether it changed, and the file goes once the credential is in n8n.
 */
function legacyCredentialFile(stateFolder: string): string {
	return path.join(stateFolder, 'credentials.json');
}

/** Imports the credential from a file only this user can read, removed as soon as n8n has it. */
async function importCredential(
	n8n: N8nInstance,
	credential: string,
	stateFolder: string,
): Promise<void> {
	const file = path.join(stateFolder, 'credential-import.json');
	writePrivateFile(file, credential);
	try {
		await n8n.cli(['import:credentials', `--input=${file}`]);
	} finally {
		rmSync(file, { force: true });
	}
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
	credential: string,
	stateFolder: string,
	signal?: AbortSignal,
): Promise<void> {
	const ids = async (route: string) =>
		new Set(
			((await rest.call('GET', route)) as unknown as Array<{ id: string }>).map(({ id }) => id),
		);
	const credentialIds = await ids('/credentials');
	signal?.throwIfAborted();
	if (!credentialIds.has(CREDENTIAL.id)) await importCredential(n8n, credential, stateFolder);
	const workflows = await ids('/workflows');
	signal?.throwIfAborted();
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
	/** The credential's name, as it is in n8n now. */
	credentialName: string;
	/** The examples' names. */
	examples: string[];
	stop(): Promise<void>;
}

/** Where the fake service keeps its data between starts. */
export function fakeServiceStateFile(stateFolder: string): string {
	return path.join(stateFolder, 'fake-service.json');
}

export type StartOptions = Omit<ReturnType<typeof readOptions>, 'reset'> & {
	reset?: boolean;
	/** Aborting it while n8n starts stops what has started (n8n, its commands, the fake service) and rejects. */
	signal?: AbortSignal;
};

export async function start(options: StartOptions): Promise<Started> {
	const { signal } = options;
	await requireFreePort(options.n8nPort, 'n8n', '--port');
	if (!options.realService)
		await requireFreePort(options.fakePort, 'the fake service', '--fake-port');
	const pinned = await installN8n(signal);
	signal?.throwIfAborted();
	mkdirSync(options.stateFolder, { recursive: true, mode: PRIVATE_FOLDER });
	protectSecrets(options.stateFolder);
	const state = loadState(options.stateFolder);
	const fakeStateFile = fakeServiceStateFile(options.stateFolder);
	if (options.reset) rmSync(fakeStateFile, { force: true });
	const fake = options.realService
		? undefined
		: await startFakeService({
				apiKey: state.apiKey,
				port: options.fakePort,
				jobMode: 'timed',
				stateFile: fakeStateFile,
			});
	const service = options.realService ?? { baseUrl: fake!.url, apiKey: state.apiKey };
	const userFolder = path.join(options.stateFolder, 'n8n');
	// No database yet: n8n has never run in this folder, and everything is imported before it starts.
	const firstStart = !existsSync(path.join(userFolder, '.n8n', 'database.sqlite'));
	let n8n: N8nInstance | undefined;
	let stopped: Promise<void> | undefined;
	const stop = async () => {
		stopped ??= (async () => {
			await n8n?.stop();
			await fake?.close();
		})();
		await stopped;
	};
	// Whatever runs when the signal comes is ended at once; the next step does not begin.
	const onAbort = () => void stop();
	signal?.addEventListener('abort', onAbort, { once: true });
	try {
		signal?.throwIfAborted();
		n8n = await createN8n(pinned, {
			userFolder,
			port: options.n8nPort,
			logFile: path.join(options.stateFolder, 'n8n.log'),
			// n8n writes its settings file, which holds the encryption key, for this user only, and
			// narrows it on every start.
			env: { N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true' },
		});
		const examples = readExamples();
		const named = credentialName(options.realService);
		const credential = credentialImport(service, named);
		const legacyFile = legacyCredentialFile(options.stateFolder);
		const imported =
			state.credential ??
			(existsSync(legacyFile) ? digest(readFileSync(legacyFile, 'utf8')) : undefined);
		// Each n8n command takes seconds, so only what is new or changed is imported.
		signal?.throwIfAborted();
		if (firstStart || imported !== digest(credential))
			await importCredential(n8n, credential, options.stateFolder);
		saveState(options.stateFolder, { ...state, credential: digest(credential) });
		rmSync(legacyFile, { force: true });
		signal?.throwIfAborted();
		if (firstStart || options.reset) await importExamples(n8n, examples, options.stateFolder);
		signal?.throwIfAborted();
		await n8n.start();
		// n8n's first run made its settings, database and log; they are this user's only from now on.
		protectSecrets(options.stateFolder);
		const rest = await ownerSession(n8n, state.ownerPassword);
		if (!firstStart)
			await restoreMissing(n8n, rest, examples, credential, options.stateFolder, signal);
		signal?.throwIfAborted();
		signal?.removeEventListener('abort', onAbort);
		return {
			n8n,
			fake,
			state,
			credentialName: named,
			examples: examples.map(({ name }) => name),
			stop,
		};
	} catch (error) {
		signal?.removeEventListener('abort', onAbort);
		await stop();
		throw error;
	}
}

/**
 * Builds the package unless dist/ holds a build of the sources as they are. In a process group of
 * its own, so that a stop request ends the compiler too, not only the npm that runs it.
 */
async function buildIfChanged(signal: AbortSignal): Promise<void> {
	if (isBuilt()) return;
	console.log('Building the package...');
	await runCommand('npm', ['run', 'build'], { cwd: ROOT, signal, inheritOutput: true });
}

/**
 * The examples that work with the fake service only: the trigger needs a service that can call n8n
 * back on 127.0.0.1, and the test event is for the trigger.
 */
const FAKE_SERVICE_EXAMPLES = ['cpExVideoReady', 'cpExFireEvent'];

/** What `npm start` prints once n8n is ready; it names the fake service only where it runs. */
function banner(started: Started, options: ReturnType<typeof readOptions>): string {
	const inRepository = path.relative(ROOT, path.join(options.stateFolder, 'n8n.log'));
	const log = inRepository.startsWith('..')
		? path.join(options.stateFolder, 'n8n.log')
		: inRepository;
	const examples = readExamples();
	const named = (ids: string[]) =>
		examples
			.filter(({ id }) => ids.includes(id))
			.map(({ name }) => `"${name}"`)
			.join(' and ');
	const lines = [
		'',
		'Content Publishing nodes are running in n8n.',
		'',
		`  n8n editor     ${started.n8n.url}`,
		`  Login          ${OWNER_EMAIL} / ${started.state.ownerPassword}`,
	];
	if (options.realService) {
		lines.push(
			`  Service        ${options.realService.baseUrl} (your API key), credential "${started.credentialName}"`,
			`  Examples       ${started.examples.length} workflows, e.g. "${started.examples[0]}"; they call your service, and those that publish publish there`,
			`  Fake service   not started: ${named(FAKE_SERVICE_EXAMPLES)} need a service that can call n8n back at ${started.n8n.url}, such as the fake service (npm start without --base-url)`,
			`  n8n's log      ${log}`,
			'  Kept           edited examples, published workflows (npm start -- --reset: examples as shipped)',
			'',
			'Press Ctrl+C to stop n8n.',
		);
	} else {
		lines.push(
			`  Fake service   ${started.fake!.url}  (API key ${started.state.apiKey}), credential "${started.credentialName}"`,
			`  Examples       ${started.examples.length} workflows, e.g. "${started.examples[0]}"`,
			`  Trigger event  with a trigger example listening, run ${named(['cpExFireEvent'])}`,
			`  n8n's log      ${log}`,
			"  Kept           edited examples, published workflows, the fake service's data (npm start -- --reset: examples as shipped, the service's seed data)",
			'',
			'Press Ctrl+C to stop n8n and the fake service.',
		);
	}
	return [...lines, ''].join('\n');
}

/**
 * Calls `stop` on each of: SIGINT (Ctrl+C, or npm passing it on), SIGTERM (a stop button,
 * `timeout`, a process manager, a container runtime), SIGHUP (the terminal closed), the parent
 * process gone (npm killed: this process is handed to another parent), and this process's output
 * closed (whoever read it is gone). Standard input is not watched: a start with no input
 * (`< /dev/null`, a service manager) has it closed at once and must keep running.
 */
function onStopRequest(stop: (reason: string) => void): void {
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
		process.on(signal, () => stop(signal));
	const parent = process.ppid;
	const watch = setInterval(() => {
		if (process.ppid !== parent) stop('the parent process ended');
	}, 1000);
	watch.unref();
	for (const stream of [process.stdout, process.stderr])
		stream.on('error', () => stop('the output closed'));
}

/** Runs `npm start` to its end: 0 once stopped on request, 1 when it could not start. */
async function main(): Promise<number> {
	const stopRequest = new AbortController();
	let stopReason = '';
	const stopRequested = new Promise<void>((resolve) => {
		onStopRequest((reason) => {
			if (stopRequest.signal.aborted) return;
			stopReason = reason;
			stopRequest.abort();
			resolve();
		});
	});
	try {
		const options = readOptions();
		await buildIfChanged(stopRequest.signal);
		const started = await start({ ...options, signal: stopRequest.signal });
		console.log(banner(started, options));
		await stopRequested;
		console.log(`Stopping (${stopReason})...`);
		await started.stop();
		return 0;
	} catch (error) {
		// What was started is stopped already; the error is only how the start was cut short.
		if (stopRequest.signal.aborted) {
			console.log(`Stopped before n8n was ready (${stopReason}).`);
			return 0;
		}
		console.error(
			error instanceof StartError ? error.message : `npm start failed: ${(error as Error).message}`,
		);
		return 1;
	}
}

if (require.main === module) {
	void main().then((code) => process.exit(code));
}
