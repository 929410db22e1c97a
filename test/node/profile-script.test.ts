/**
 * `npm run profile` (scripts/profile.ts), run as the developer runs it, against loopback services
 * that try what the node's transport stops: a redirect to another origin, a gzip bomb, a password
 * in the Base URL, and a failure whose message quotes the key.
 */
import { spawn } from 'node:child_process';
import { createServer, type RequestListener, type Server } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

import { listenOnNewPort } from '../support/ports';

const API_KEY = 'sk-profile-script-0123456789';
// Each test starts the script as a child with ts-node, which compiles it first: seconds on an idle
// machine, far more on one with 2 cores under load, so each test here may take this long.
jest.setTimeout(180_000);

const servers: Server[] = [];
afterEach(async () => {
	for (const server of servers.splice(0)) {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
});

/** A loopback service; `requests` counts what reached it. */
async function serve(listener: RequestListener) {
	const seen = { requests: 0, url: '' };
	const server = createServer((request, response) => {
		seen.requests++;
		listener(request, response);
	});
	servers.push(server);
	seen.url = `http://127.0.0.1:${await listenOnNewPort(server)}`;
	return seen;
}

interface Run {
	code: number | null;
	output: string;
}

async function runProfile(baseUrl: string, apiKey = API_KEY): Promise<Run> {
	const env: NodeJS.ProcessEnv = { ...process.env, CONTENT_PUBLISHING_API_KEY: apiKey };
	delete env.CONTENT_PUBLISHING_BASE_URL;
	const child = spawn(
		process.execPath,
		['-r', 'ts-node/register/transpile-only', 'scripts/profile.ts', '--base-url', baseUrl],
		{ cwd: `${__dirname}/../..`, env },
	);
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	return { code, output };
}

it('follows redirects within the Base URL origin only: the other origin receives nothing', async () => {
	const elsewhere = await serve((_request, response) => response.end('{}'));
	const service = await serve((request, response) => {
		const to =
			request.url === '/v1/openapi.json' ? '/v1/moved' : `${elsewhere.url}/v1/openapi.json`;
		response.writeHead(302, { location: to }).end();
	});
	const { output } = await runProfile(service.url);
	expect(elsewhere.requests).toBe(0);
	expect(service.requests).toBe(2);
	expect(output).toContain(
		`redirected the request to ${elsewhere.url}, which the node does not follow`,
	);
	expect(output).not.toContain(API_KEY);
});

it('stops reading a gzip bomb at 16 MB decoded, without waiting for its end', async () => {
	// 300 MB of zeros in 300 gzip members of 1 MB each (a gzip stream may hold several): 300 KB
	// sent, and then the answer is held open, so only a reader that stops at the limit finishes.
	const member = await promisify(gzip)(Buffer.alloc(1024 * 1024));
	const service = await serve((_request, response) => {
		response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
		for (let i = 0; i < 300; i++) response.write(member);
	});
	const { code, output } = await runProfile(service.url);
	expect(output).toContain('The service answered with more than 16 MB');
	expect(code).toBe(0);
});

it('refuses a Base URL with a user name and password, and never prints them', async () => {
	const service = await serve((_request, response) => response.end('{}'));
	const { code, output } = await runProfile(
		service.url.replace('//', '//someone:pass-0123456789@'),
	);
	expect(output).toContain('must not contain a user name or password');
	expect(output).not.toContain('pass-0123456789');
	expect(service.requests).toBe(0);
	expect(code).toBe(1);
});

it('never prints the key, not even where a failure quotes the request', async () => {
	const service = await serve((_request, response) => response.end('{}'));
	// A key pasted with a line break inside (fetch trims one at its ends): fetch refuses the
	// header and quotes it in its message.
	const [start, end] = [API_KEY.slice(0, 14), API_KEY.slice(14)];
	const { output } = await runProfile(service.url, `${start}\n${end}`);
	expect(output).not.toContain(start);
	expect(output).not.toContain(end);
	expect(output).toContain('Not followed: the whole document');
});
