import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

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
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
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
export function validateOpenApiDocument(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
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
			(error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as { valid: boolean; errors?: unknown })),
		);
		child.stdin?.end(JSON.stringify(document));
	});
}
