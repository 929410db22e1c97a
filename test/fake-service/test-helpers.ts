import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

import { listenOnNewPort } from '../support/ports';
import type { ContractValidator } from './request-validator';
import {
	startFakeService,
	type FakeService,
	type FakeServiceOptions,
	type Profile,
} from './server';

/** What the fake service's own tests share: a webhook receiver, waiting, and the OpenAPI validator. */
const projectRoot = path.resolve(__dirname, '../..');

export interface ReceivedDelivery {
	headers: http.IncomingHttpHeaders;
	body: string;
}

export interface Receiver {
	url: string;
	received: ReceivedDelivery[];
	close(): Promise<void>;
}

/** A webhook endpoint on 127.0.0.1 that answers the queued statuses in turn, then 200. */
export async function startReceiver(statuses: number[] = []): Promise<Receiver> {
	const received: ReceivedDelivery[] = [];
	const server = http.createServer((request, response) => {
		let body = '';
		request.setEncoding('utf8');
		request.on('data', (chunk: string) => (body += chunk));
		request.on('end', () => {
			received.push({ headers: request.headers, body });
			response.writeHead(statuses.shift() ?? 200).end();
		});
	});
	return {
		url: `http://127.0.0.1:${await listenOnNewPort(server)}/hooks`,
		received,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

export async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error('Timed out waiting for a condition');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

// The validator package is ESM-only and Jest runs this suite as CommonJS, so it runs in a child process.
export function validateOpenApiDocument(
	document: unknown,
): Promise<{ valid: boolean; errors?: unknown }> {
	const script = `
		import { Validator } from '@seriousme/openapi-schema-validator';
		let input = '';
		for await (const chunk of process.stdin) input += chunk;
		process.stdout.write(JSON.stringify(await new Validator().validate(JSON.parse(input))));`;
	return new Promise((resolve, reject) => {
		const child = execFile(
			process.execPath,
			['--input-type=module', '--eval', script],
			{ cwd: projectRoot },
			(error, stdout) =>
				error ? reject(error) : resolve(JSON.parse(stdout) as { valid: boolean; errors?: unknown }),
		);
		child.stdin?.end(JSON.stringify(document));
	});
}

/** Starts services of one profile for a test file, and closes them all after it. */
export function serviceStarter(
	profile: Profile,
): (options?: FakeServiceOptions) => Promise<FakeService> {
	const started: FakeService[] = [];
	afterAll(() => Promise.all(started.map((service) => service.close())));
	return async (options = {}) => {
		const service = await startFakeService({ profile, ...options });
		started.push(service);
		return service;
	};
}

export interface CheckedAnswer<T> {
	status: number;
	headers: Headers;
	body: T;
	operationId?: string;
}

/** Calls a service; its answer to a documented operation must match the document, headers included. */
export async function checkedCall<T>(
	contract: ContractValidator,
	service: FakeService,
	method: string,
	url: string,
	options: { body?: unknown; apiKey?: string | null; headers?: Record<string, string> } = {},
): Promise<CheckedAnswer<T>> {
	const headers: Record<string, string> = {
		...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
		...options.headers,
	};
	const apiKey = options.apiKey === undefined ? service.apiKey : options.apiKey;
	if (apiKey !== null) headers.Authorization = `Bearer ${apiKey}`;
	const absolute = url.startsWith('http') ? url : `${service.url}${url}`;
	const response = await fetch(absolute, {
		method,
		headers,
		body: options.body === undefined ? undefined : JSON.stringify(options.body),
	});
	const text = await response.text();
	const body = (text === '' ? undefined : JSON.parse(text)) as T;
	const { operationId } = service.requests[service.requests.length - 1];
	if (operationId !== undefined) {
		const label = `${method} ${url} → ${response.status}`;
		const sent = Object.fromEntries(response.headers);
		const problems = contract.validateResponse({
			operationId,
			status: response.status,
			body,
			contentType: sent['content-type'],
			headers: sent,
		});
		expect({ [label]: problems }).toEqual({ [label]: [] });
	}
	return { status: response.status, headers: response.headers, body, operationId };
}

/** Walks a profile's operations: `op` makes `call`, expects it to be the operation named, and adds that to `seen`. */
export function operationWalk<
	P extends [method: string, url: string, body?: unknown],
	R extends { operationId?: string },
>(
	seen: Set<string>,
	call: (...args: P) => Promise<R>,
): (operationId: string, ...args: P) => Promise<R> {
	return async (operationId, ...args) => {
		const answer = await call(...args);
		expect({ [args[1]]: answer.operationId }).toEqual({ [args[1]]: operationId });
		seen.add(operationId);
		return answer;
	};
}

/**
 * A test that runs the command line: ts-node compiles the fake service before it listens, which on
 * a loaded machine (load 15 on 2 cores) took longer than Jest's 30 s.
 */
export const CLI_TIMEOUT_MS = 180_000;

/** Runs the fake service's command line with these arguments and API key until `use` is done, then expects SIGTERM to stop it cleanly. */
export async function withCli(
	args: string[],
	apiKey: string,
	use: (output: string, url: string) => Promise<void>,
): Promise<void> {
	const tsNode = path.join(projectRoot, 'node_modules/ts-node/dist/bin.js');
	const child = spawn(
		process.execPath,
		[tsNode, '--transpile-only', 'test/fake-service/cli.ts', '--port', '0', ...args],
		{
			cwd: projectRoot,
			env: { ...process.env, FAKE_SERVICE_API_KEY: apiKey },
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let output = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
	const exitCode = new Promise<number | null>((resolve) => child.once('exit', resolve));
	try {
		await waitFor(() => output.includes('Press Ctrl+C'), CLI_TIMEOUT_MS - 30_000);
		await use(
			output,
			/^Fake Content Publishing service: (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1] ?? '',
		);
		child.kill('SIGTERM');
		expect(await exitCode).toBe(0);
	} finally {
		if (child.exitCode === null) child.kill('SIGKILL');
	}
}
