/**
 * Nothing a service's document or an override says moves a request off the credential's Base URL:
 * a document whose paths name another host (`@host:port/…`), leave the Base URL's path (`..` in any
 * encoding) or are not paths at all, served to the real node in n8n's engine. Another loopback
 * service stands for the attacker's host and must receive nothing; the node must use its built-in
 * paths instead, and Service → Describe must name each path it did not follow.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { posix } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { outsideBase, pathProblem } from '../../nodes/shared/origin';
import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { checkOverrides } from '../../nodes/shared/profile/overrides';
import { buildOpenApiDocument } from '../fake-service/openapi';
import { useLoopbackGuard } from '../support/loopback-guard';
import { listenOnNewPort } from '../support/ports';
import {
	contentPublishingNode,
	runNode,
	runWebhookMethod,
	shutDownEngine,
	triggerNode,
	triggerWorkflow,
	type RunResult,
} from '../support/n8n-engine';

const guard = useLoopbackGuard();
const API_KEY = 'origin-key-0123456789abcdef';
const ACCOUNT = { id: 'acct_1', name: 'Real Service' };
// Every path the steps below use, each written in the hostile form under test.
const ROUTES = ['/v1/me', '/v1/posts', '/v1/webhooks'];

interface Recorder {
	url: string;
	seen: string[];
	server: Server;
}

/** A loopback service that answers by `answer` and records `METHOD path` of every request. */
async function recorder(answer: (request: IncomingMessage, body: string) => unknown) {
	const seen: string[] = [];
	const server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		request.on('end', () => {
			seen.push(`${request.method} ${request.url}`);
			const reply = answer(request, body);
			const [status, json] = Array.isArray(reply) ? reply : [200, reply];
			response.writeHead(status as number, { 'Content-Type': 'application/json' });
			response.end(json === undefined ? '' : JSON.stringify(json));
		});
	});
	const port = await listenOnNewPort(server);
	return { url: `http://127.0.0.1:${port}`, seen, server } satisfies Recorder;
}

/** The attacker's host: it answers everything, so that a request it got would show as a success. */
let other: Recorder;
/** The real service under a path prefix; a request outside the prefix is answered as if it were in. */
let service: Recorder;
let documentPaths: (other: string) => Record<string, string>;
/** The Base URL's path: `/api/<n>` where a form would leave it, none where a form names another host. */
let prefix = '';

beforeAll(async () => {
	other = await recorder(() => ({ id: 'from-the-other-host', db_password: 'hunter2' }));
	const built = buildOpenApiDocument();
	service = await recorder((request, body) => {
		const path = new URL(request.url ?? '/', 'http://x').pathname.slice(prefix.length);
		if (path === '/v1/openapi.json') {
			const paths = documentPaths(other.url.replace('http://', ''));
			const rekeyed = Object.fromEntries(
				Object.entries(built.paths).map(([key, item]) => [paths[key] ?? key, item]),
			);
			return { ...built, servers: [{ url: service.url }], paths: rekeyed };
		}
		if (request.url?.startsWith(`${prefix}/`) !== true)
			return { id: 'outside-the-prefix', db_password: 'hunter2' };
		if (path === '/v1/me') return ACCOUNT;
		if (path === '/v1/posts' && request.method === 'POST')
			return [201, { id: 'p1', status: 'draft', ...(JSON.parse(body) as object) }];
		if (path === '/v1/webhooks' && request.method === 'POST')
			return [
				201,
				{ id: 'wh_1', active: true, ...(JSON.parse(body) as object), secret: undefined },
			];
		if (path === '/v1/webhooks') return { data: [], next_cursor: null };
		if (/^\/v1\/webhooks\/[^/]+$/.test(path) && request.method === 'DELETE')
			return [204, undefined];
		return [404, { error: { code: 'not_found', message: 'No such route' } }];
	});
});

afterAll(async () => {
	for (const { server } of [other, service]) {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
	shutDownEngine();
});

/** Hostile forms of a route; `host` is the attacker's `127.0.0.1:port`. Those after the first two leave `/api`. */
const FORMS: Array<[string, (route: string, host: string) => string]> = [
	['an authority', (route, host) => `@${host}${route}`],
	['a port, user info and an authority', (route, host) => `:1@${host}${route}`],
	['a second slash', (route, host) => `//${host}${route}`],
	['a backslash', (route, host) => `\\\\${host}${route}`],
	['.. segments', (route) => `/../..${route}`],
	['%2e%2e segments', (route) => `/%2e%2e/%2e%2e${route}`],
	['.%2e segments', (route) => `/.%2e/.%2e${route}`],
	['%2E%2E and %2e. segments', (route) => `/%2E%2E/%2e.${route}`],
	['double-encoded dots', (route) => `/%252e%252e/%252e%252e${route}`],
	['an encoded slash between dots', (route) => `/..%2f..${route}`],
	['a control character', (route) => `${route}\r\nX-Injected: 1`],
	['a query', (route, host) => `${route}?next=http://${host}/`],
	['700 KB', (route) => `${route}/${'a'.repeat(700 * 1024)}`],
];

/** The path a request reached, as a server that decodes and resolves it would see it. */
function reached(seen: string): string {
	let path = seen.split(' ')[1].split('?')[0];
	for (let round = 0; round < 3; round++)
		try {
			path = decodeURIComponent(path);
		} catch {
			break;
		}
	return posix.normalize(path.replace(/\\/g, '/'));
}

// Each form has a Base URL of its own, so that no earlier form's reading of the document is reused.
let host = '127.0.0.1';
// Every other form with Profile Overrides that change nothing the steps use: a profile read from
// such a document must take overrides as well, not fail blaming them.
let overrides: string | undefined;
const credentials = () => ({
	baseUrl: `${service.url.replace('127.0.0.1', host)}${prefix}`,
	apiKey: API_KEY,
	profileOverrides: overrides,
});
const run = async (parameters: INodeParameters): Promise<RunResult> =>
	await runNode(contentPublishingNode(parameters), { credentials: credentials() });

let formsLeft = 0;
afterAll(() =>
	console.log(
		`document paths off the origin: ${formsLeft} of ${FORMS.length} forms (account, post, webhook and trigger each)`,
	),
);

describe.each(FORMS.map(([name, write], index) => ({ name, write, index })))(
	'a document whose paths hold $name',
	({ write, index }) => {
		beforeAll(() => {
			documentPaths = (host) =>
				Object.fromEntries(ROUTES.map((route) => [route, write(route, host)]));
			prefix = index < 2 ? '' : `/api/${index}`;
			host = index === 1 ? 'localhost' : '127.0.0.1';
			overrides =
				index % 2 === 1 ? '{"operations": {"deletePost": {"method": "DELETE"}}}' : undefined;
		});

		it('sends nothing elsewhere: the built-in paths stand in, and Describe names what it did not follow', async () => {
			const before = { other: other.seen.length, service: service.seen.length };
			const account = await run({ resource: 'account', operation: 'get' });
			const created = await run({
				resource: 'post',
				operation: 'create',
				content: 'Secret draft',
				status: 'draft',
			});
			const webhook = await run({
				resource: 'webhook',
				operation: 'create',
				url: 'https://hooks.example.com/n8n',
				events: ['job.completed'],
			});
			const trigger = triggerNode({ events: ['job.completed'] });
			const activated = await runWebhookMethod(
				triggerWorkflow(trigger),
				trigger,
				credentials(),
				'create',
			);
			const described = await run({ resource: 'service', operation: 'describe' });

			const leftOrigin = other.seen.length > before.other;
			const leftPrefix = service.seen
				.slice(before.service)
				.some((seen) => !reached(seen).startsWith(`${prefix}/`));
			if (leftOrigin || leftPrefix) formsLeft += 1;
			expect({ leftOrigin, leftPrefix }).toEqual({ leftOrigin: false, leftPrefix: false });
			expect(account.items[0]?.json).toEqual(ACCOUNT);
			expect(created.items[0]?.json).toMatchObject({ id: 'p1', content: 'Secret draft' });
			expect(webhook.items[0]?.json).toMatchObject({ id: 'wh_1' });
			expect(activated).toBe(true);
			const notFollowed = described.items[0]?.json.notFollowed as Array<{
				part: string;
				why: string;
			}>;
			expect(notFollowed.map(({ part }) => part)).toEqual(
				expect.arrayContaining([expect.stringMatching(/^the path "/)]),
			);
			// Describe stays small, whatever the document's paths hold.
			expect(JSON.stringify(described.items[0]?.json).length).toBeLessThan(200_000);
			expect(guard.blocked).toEqual([]);
		}, 120_000);
	},
);

describe('the path rule', () => {
	it('follows every path of the public documents and refuses each hostile form', () => {
		for (const path of ['/v1/posts/{id}', '/v1/posts/', '/2010-04-01/Accounts/{Sid}.json'])
			expect(pathProblem(path)).toBeUndefined();
		for (const [, form] of FORMS) expect(pathProblem(form('/v1/me', '127.0.0.1:1'))).toBeDefined();
	});

	it("refuses an override's path that leaves the Base URL's path in any encoding", () => {
		for (const path of [
			'/v1/%2e%2e/%2e%2e/outside',
			'/v1/.%2e/.%2e/outside',
			'/v1/%2E%2E/%2e./outside',
			'/v1/%252e%252e/outside',
			'@127.0.0.1:1/v1/me',
		]) {
			const { problem } = checkOverrides(
				JSON.stringify({ operations: { getAccount: { path } } }),
				BUILT_IN_PROFILE,
			);
			expect(problem?.message).toMatch(
				/^Profile Overrides \/operations\/getAccount\/path: must be a path below the Base URL/,
			);
		}
	});

	it('checks the address as built: origin, user info, path prefix and dot segments', () => {
		const base = 'http://127.0.0.1:8080/api';
		expect(outsideBase(base, `${base}/v1/me`, true)).toBeUndefined();
		expect(outsideBase(base, 'http://127.0.0.1:8080/other/next', false)).toBeUndefined();
		for (const [target, below] of [
			['http://127.0.0.1:8080@127.0.0.1:9/v1/me', false],
			['http://user:pw@127.0.0.1:8080/api/v1/me', false],
			['https://127.0.0.1:8080/api/v1/me', false],
			['http://127.0.0.1:8081/api/v1/me', false],
			[`${base}/../v1/me`, true],
			[`${base}/%2e%2e/v1/me`, true],
			[`${base}/%252e%252e/v1/me`, true],
			['http://127.0.0.1:8080/apiv1/me', true],
		] as const)
			expect(outsideBase(base, target, below)).toBeDefined();
	});

	it('gives the same verdicts past its memory of parsed addresses, and for another Base URL', () => {
		const base = 'http://127.0.0.1:8080/api';
		const cases = [
			[`${base}/v1/me`, true],
			['http://127.0.0.1:8081/api/v1/me', false],
			[`${base}/%2e%2e/v1/me`, true],
			['http://user:pw@127.0.0.1:8080/api/v1/me', false],
		] as const;
		const verdicts = () => cases.map(([target, below]) => outsideBase(base, target, below));
		const first = verdicts();
		expect(first.map((verdict) => verdict === undefined)).toEqual([true, false, false, false]);
		// Far more addresses than the memory keeps, then the same ones again.
		for (let index = 0; index < 500; index++)
			expect(outsideBase(base, `${base}/v1/posts/post_${index}`, true)).toBeUndefined();
		expect(verdicts()).toEqual(first);
		// A parsed address read again under another Base URL is judged by that one.
		expect(outsideBase('http://127.0.0.1:8081/api', cases[1][0], true)).toBeUndefined();
		expect(outsideBase('http://127.0.0.1:8081/api', cases[0][0], false)).toBeDefined();
		expect(outsideBase('http://127.0.0.1:8080/other', cases[0][0], true)).toBe(
			'its path is not below /other',
		);
	});
});
