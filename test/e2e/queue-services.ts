/**
 * PostgreSQL and Redis for n8n's queue mode, from Debian's packages, installed with apt-get when
 * missing, each started on a free loopback port with its data in a temporary folder.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ensureDebianPackages, postgresBin, REDIS_SERVER } from './debian';

import { freePort } from '../../scripts/n8n-instance';

export interface Service {
	port: number;
	stop(): Promise<void>;
}

/** Spawns a server and resolves once its output shows the ready line. */
async function started(child: ChildProcess, ready: string, what: string): Promise<void> {
	let output = '';
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 60_000);
		const read = (chunk: Buffer) => {
			output += chunk.toString();
			if (output.includes(ready)) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout?.on('data', read);
		child.stderr?.on('data', read);
		child.once('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${output}`)));
	});
}

function stopper(child: ChildProcess, cleanUp: () => void): () => Promise<void> {
	return async () => {
		if (child.exitCode === null) {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			await exited;
		}
		cleanUp();
	};
}

/** A PostgreSQL cluster with user `n8n` (trust authentication) and its `postgres` database. */
export async function startPostgres(): Promise<Service> {
	if (postgresBin() === undefined) ensureDebianPackages();
	const bin = postgresBin();
	if (bin === undefined)
		throw new Error('PostgreSQL is not installed, and apt-get did not install it');
	// PostgreSQL refuses to run as root; Debian's package made the user `postgres` for it.
	const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
	const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
	const data = mkdtempSync(path.join(tmpdir(), 'cp-postgres-'));
	chownSync(data, uid, gid);
	execFileSync(
		'runuser',
		['-u', 'postgres', '--', path.join(bin, 'initdb'), '-D', data, '-U', 'n8n', '-A', 'trust'],
		{ stdio: 'pipe' },
	);
	const port = await freePort();
	const child = spawn(
		'runuser',
		[
			'-u',
			'postgres',
			'--',
			path.join(bin, 'postgres'),
			'-D',
			data,
			'-p',
			String(port),
			'-k',
			data,
			'-c',
			'listen_addresses=127.0.0.1',
		],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	await started(child, 'ready to accept connections', 'PostgreSQL');
	return { port, stop: stopper(child, () => rmSync(data, { recursive: true, force: true })) };
}

export async function startRedis(): Promise<Service> {
	const binary = REDIS_SERVER;
	if (!existsSync(binary)) ensureDebianPackages();
	const port = await freePort();
	const child = spawn(
		binary,
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	await started(child, 'Ready to accept connections', 'Redis');
	return { port, stop: stopper(child, () => undefined) };
}
