/**
 * The hostile-document corpus: OpenAPI documents written as an attacker would write them, each made
 * by a small generator when its case runs, and a loopback service that serves one of them at
 * /v1/openapi.json and answers the node's requests in the built-in conventions, or the way the
 * case says where the document describes (or lies about) something else.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';

import { listenOnNewPort } from './ports';
import { buildOpenApiDocument, schemaRef as ref } from '../fake-service/openapi';

type Doc = { [key: string]: unknown };

export interface Request {
	/** The resource id in the path, as in `/v1/posts/{id}`. */
	id?: string;
	query: URLSearchParams;
	body: unknown;
	headers: IncomingHttpHeaders;
}

interface Reply {
	status?: number;
	headers?: Record<string, string>;
	/** Text is sent as it is (a body with a `__proto__` key, say); anything else as JSON. */
	body?: unknown;
}

/** The answer to a request; none leaves the request waiting until the service closes. */
type Route = (request: Request, service: HostileService) => Reply | undefined;

/** Serves the document itself, for documents that come slowly or never end. */
type Serve = (response: ServerResponse) => void;

/** What the node did against one hostile service, step by step: an output, or the error's message. */
export interface Outcome {
	/** The hint in the output panel: why (part of) the document was not followed. */
	notice: string | undefined;
	account: unknown;
	posts: unknown;
	created: unknown;
	updated: unknown;
	job: unknown;
	webhook: unknown;
	trigger: string;
	/** Registrations left on the service for the trigger's URL after activating it. */
	registrations: number;
	/** The events the trigger's registration asked the service for. */
	subscribed: unknown;
}

export interface HostileCase {
	name: string;
	document: () => string | Serve;
	/** Answers that differ from the built-in conventions, by `METHOD /route`. */
	answers?: Record<string, Route>;
	/** The events the trigger is activated on; `job.completed` where not given. */
	trigger?: string[];
	/** Where the outcome differs from every step working; a pattern for a text. */
	expected?: { [Key in keyof Outcome]?: Outcome[Key] | RegExp };
}

export interface HostileService {
	url: string;
	registrations: Map<string, Doc>;
	/** The secret, or the hint at one, that the service last handed out with a registration. */
	secretGiven?: string;
	close(): Promise<void>;
}

// ------------------------------------------------------------------------------------------------
// The service

export const ACCOUNT = { id: 'acct_1', name: 'Hostile Inc' };
const POSTS = ['p1', 'p2', 'p3'].map((id) => ({
	id,
	content: `Post ${id}`,
	title: `Title ${id}`,
	status: 'draft',
}));
export const RESULT = { video_url: 'https://cdn.example.com/video.mp4' };
const JOB = {
	id: 'job_1',
	type: 'generate.video',
	status: 'succeeded',
	result: RESULT,
	error: null,
};

/** Registers a webhook and answers with it and `extra`: a secret, or a hint at one, of the service's making. */
const registered =
	(extra: Doc = {}): Route =>
	({ body }, service) => {
		const id = `wh_${service.registrations.size + 1}`;
		// The node's secret is kept by the service, not shown again.
		const webhook: Doc = { ...(body as Doc), id, active: true, secret: undefined };
		service.registrations.set(id, webhook);
		service.secretGiven = Object.values(extra).find(
			(value): value is string => typeof value === 'string',
		);
		return { status: 201, body: { ...webhook, ...extra } };
	};

const BUILT_IN: Record<string, Route> = {
	'GET /v1/me': () => ({ body: ACCOUNT }),
	// Pages of two, cursor style, whatever limit is asked for.
	'GET /v1/posts': ({ query }) => ({
		body:
			query.get('cursor') === 'c2'
				? { data: POSTS.slice(2), next_cursor: null }
				: { data: POSTS.slice(0, 2), next_cursor: 'c2' },
	}),
	'POST /v1/posts': ({ body }) => ({ status: 201, body: { id: 'p4', ...(body as Doc) } }),
	'GET /v1/posts/{id}': ({ id }) => ({ body: POSTS.find((post) => post.id === id) }),
	'PATCH /v1/posts/{id}': ({ id, body }) => ({
		body: { ...POSTS.find((post) => post.id === id), ...(body as Doc) },
	}),
	'POST /v1/generate/video': () => ({
		status: 201,
		body: { ...JOB, status: 'queued', result: null },
	}),
	'GET /v1/jobs/{id}': () => ({ body: JOB }),
	'POST /v1/webhooks': registered(),
	'GET /v1/webhooks': (_request, service) => ({
		body: { data: [...service.registrations.values()], next_cursor: null },
	}),
	'GET /v1/webhooks/{id}': ({ id }, service) => ({ body: service.registrations.get(id ?? '') }),
	'DELETE /v1/webhooks/{id}': ({ id }, service) =>
		service.registrations.delete(id ?? '')
			? { status: 204 }
			: { status: 404, body: { error: { code: 'not_found', message: 'No such webhook' } } },
};

/** Starts the service; the document is made first, so that making it is not measured as the node's work. */
export async function startHostileService(hostile: HostileCase): Promise<HostileService> {
	const made = hostile.document();
	const document = typeof made === 'string' ? Buffer.from(made) : made;
	const answers = { ...BUILT_IN, ...hostile.answers };
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const url = new URL(request.url ?? '/', 'http://service.invalid');
			if (url.pathname === '/v1/openapi.json') {
				if (Buffer.isBuffer(document))
					response.writeHead(200, { 'Content-Type': 'application/json' }).end(document);
				else document(response);
				return;
			}
			const [, route, id] = /^(\/v1\/(?:posts|jobs|webhooks))\/([^/]+)$/.exec(url.pathname) ?? [
				undefined,
				url.pathname,
			];
			const text = Buffer.concat(chunks).toString('utf8');
			const answer = answers[`${request.method} ${id === undefined ? route : `${route}/{id}`}`];
			const reply = answer
				? answer(
						{
							id,
							query: url.searchParams,
							body: text ? (JSON.parse(text) as unknown) : undefined,
							headers: request.headers,
						},
						service,
					)
				: { status: 404, body: { error: { code: 'not_found', message: 'No such route' } } };
			if (reply === undefined) return;
			const body =
				reply.body === undefined
					? ''
					: typeof reply.body === 'string'
						? reply.body
						: JSON.stringify(reply.body);
			response
				.writeHead(reply.status ?? 200, {
					...(body ? { 'Content-Type': 'application/json' } : {}),
					...reply.headers,
				})
				.end(body);
		});
	});
	const service: HostileService = {
		url: `http://127.0.0.1:${await listenOnNewPort(server)}`,
		registrations: new Map(),
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	return service;
}

// ------------------------------------------------------------------------------------------------
// Building documents

const json = (schema: unknown, more: Doc = {}) => ({
	description: 'OK',
	content: { 'application/json': { schema } },
	...more,
});
const object = (properties: Doc, more: Doc = {}) => ({ type: 'object', properties, ...more });
const ID = { type: 'string' };
const listParameters = [
	{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } },
	{ name: 'cursor', in: 'query', schema: { type: 'string' } },
];
const list = (items: unknown, more: Doc = {}) => ({
	parameters: listParameters,
	responses: {
		'200': json(
			object({ data: { type: 'array', items }, next_cursor: { type: ['string', 'null'] } }),
		),
	},
	...more,
});

/** A document of the given paths and schemas. */
function openApi(paths: Doc, schemas: Doc = {}, extra: Doc = {}): Doc {
	return {
		openapi: '3.1.0',
		info: { title: 'Hostile', version: '1' },
		paths,
		components: { schemas },
		...extra,
	};
}

/**
 * The primary fake service's document (the built-in conventions, written out), to change in one
 * place; as JSON text would give it, so that changing one schema never changes another that shared it.
 */
function primary(): Doc {
	return JSON.parse(JSON.stringify(buildOpenApiDocument())) as Doc;
}

/** The value at a path of keys inside a document. */
function at(value: Doc, ...keys: string[]): Doc {
	return keys.reduce((current, key) => current[key] as Doc, value);
}

const text = (document: Doc) => JSON.stringify(document);
/** The primary's document as `edit` leaves it, as text. */
const edited = (edit: (document: Doc) => void) => () => {
	const document = primary();
	edit(document);
	return text(document);
};

/** The primary document with the webhook registration taking no secret and answering with these properties. */
function serviceMadeSecret(properties: Doc): Doc {
	const document = primary();
	const schemas = at(document, 'components', 'schemas');
	delete at(schemas, 'CreateWebhookRequest', 'properties').secret;
	schemas.WebhookWithSecret = object({ ...at(schemas, 'Webhook', 'properties'), ...properties });
	return document;
}

/** Schemas `s0` … `s<depth>`, each composing the next twice with `keyword`, the last one the account. */
function fanOutChain(keyword: 'allOf' | 'oneOf' | 'anyOf', depth: number): Doc {
	const schemas: Doc = { [`s${depth}`]: object({ id: ID, name: { type: 'string' } }) };
	// Two distinct parts per level, each naming the next level: 2^depth expansions without memoizing.
	for (let level = 0; level < depth; level++) {
		schemas[`s${level}`] = {
			[keyword]: [
				{ allOf: [ref(`s${level + 1}`)] },
				object({ [`p${level}`]: { type: 'string' } }, { allOf: [ref(`s${level + 1}`)] }),
			],
		};
	}
	return openApi(
		{
			'/v1/me': { get: { responses: { '200': json(ref('s0')) } } },
			'/v1/posts': { get: list(ref('s0')) },
			'/v1/posts/{id}': { patch: { requestBody: json(ref('s0')) } },
		},
		schemas,
	);
}

/** Bodies of Post → Create and Update: this many properties, described at length and none of them the node's. */
function describedBody(count: number): string {
	const document = primary();
	at(document, 'components', 'schemas').Described = object(
		Object.fromEntries(
			Array.from({ length: count }, (_, index) => [
				`f${index}`,
				{ type: 'string', description: `${'x '.repeat(999)}x` },
			]),
		),
	);
	for (const [path, method] of [
		['/v1/posts', 'post'],
		['/v1/posts/{id}', 'patch'],
	])
		at(document, 'paths', path, method, 'requestBody', 'content', 'application/json').schema =
			ref('Described');
	return text(document);
}

/** Text that never ends, in chunks as fast as the socket takes them. */
const endless: Serve = (response) => {
	const chunk = Buffer.alloc(64 * 1024, ' ');
	response.writeHead(200, { 'Content-Type': 'application/json' });
	response.write('{"openapi": "3.1.0", "paths": {}, "x": "');
	const more = () => {
		while (!response.destroyed && response.write(chunk));
		if (!response.destroyed) response.once('drain', more);
	};
	more();
};

/** A byte every 100 ms, for ever. */
const trickle: Serve = (response) => {
	response.writeHead(200, { 'Content-Type': 'application/json' });
	response.write('{');
	const timer = setInterval(() => response.write(' '), 100);
	response.on('close', () => clearInterval(timer));
};

const MB = 1024 * 1024;
const webhookRegistration = (secret: string) => ({ 'POST /v1/webhooks': registered({ secret }) });
const MASKED = {
	trigger:
		/^The service registered the webhook but answered with a signing secret that is no secret: a value of \d+ characters, (masked \(with •, \*, …, xxxx or \.\.\. in it\)|fewer than 16 bytes), 0 of 2 deliveries started$/,
	registrations: 0,
	subscribed: undefined,
};
// Every hint ends by pointing at the profile in use.
const DESCRIBE = ' Service → Describe shows the profile in use\\.$';
/** The document not answered, the hint saying why. */
const notAnswered = (why: string) => ({
	notice: new RegExp(
		`^The service's OpenAPI document could not be read \\(${why}\\), so the node used its built-in conventions\\.${DESCRIBE}`,
	),
});
/** The whole document read by the built-in conventions, the hint saying why. */
const notRead = (why: string) => ({
	notice: new RegExp(
		`^The node could not read http://127\\.0\\.0\\.1:\\d+/v1/openapi\\.json: ${why}, so the node used its built-in conventions\\.${DESCRIBE}`,
	),
});
/** Parts of the document read by the built-in conventions, the hint naming them (all of them, in order). */
const partsNotFollowed = (parts: string) => ({
	notice: new RegExp(
		`^The node could not follow these parts of the service's OpenAPI document and used its built-in conventions for them: ${parts}\\.${DESCRIBE}`,
	),
});

/** Parts of the document not followed for a name or value longer than any real one. */
const longNamesIn = (...parts: string[]) =>
	partsNotFollowed(
		parts
			.map(
				(part) =>
					`${part.replace(/[{}]/g, '\\$&')} \\(it has a name or value longer than 256 characters\\)`,
			)
			.join('; '),
	);

/** `count` event names, the node's own first: about 33 bytes each with its explanation. */
const eventNames = (count: number) => [
	'job.completed',
	...Array.from({ length: count - 1 }, (_, index) => `e${index}.updated`),
];
const EXPLANATION = 'Item updated.';
const longEventNames = () =>
	eventNames(1_000).map((name, index) => (index === 0 ? name : `${'x'.repeat(240)}.${name}`));

/**
 * The primary document whose webhooks take these events (one schema, `Events`), explained per
 * value (`x-enum-descriptions`), in the enum's description as `value: text` lines, or not at all;
 * the events field's own description is `about`.
 */
function withEvents(names: string[], explained?: 'per value' | 'in prose', about?: string): string {
	const document = primary();
	const schemas = at(document, 'components', 'schemas');
	schemas.Events = {
		type: 'string',
		enum: names,
		...(explained === 'per value' ? { 'x-enum-descriptions': names.map(() => EXPLANATION) } : {}),
		...(explained === 'in prose'
			? { description: names.map((name) => `${name}: ${EXPLANATION}`).join('\n') }
			: {}),
	};
	for (const name of [
		'CreateWebhookRequest',
		'UpdateWebhookRequest',
		'Webhook',
		'WebhookWithSecret',
	])
		at(schemas, name, 'properties').events = {
			type: 'array',
			items: ref('Events'),
			...(about === undefined ? {} : { description: about }),
		};
	return text(document);
}

/** A document with more events than the node reads: its webhooks are the built-in ones, `*` for All Events. */
const TOO_MANY_EVENTS = partsNotFollowed(
	'its webhooks \\(its events list has more than 1,000 values\\)',
);

/** The primary document whose job (or, `post`, whose post written) has a status of these values. */
function withStatus(
	schema: 'Job' | 'CreatePostRequest',
	values: string[],
	explanations: Doc = {},
): string {
	const document = primary();
	const schemas = at(document, 'components', 'schemas');
	for (const name of schema === 'Job' ? ['Job'] : ['CreatePostRequest', 'UpdatePostRequest'])
		at(schemas, name, 'properties').status = { type: 'string', enum: values, ...explanations };
	return text(document);
}
const manyValues = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, index) => `${prefix}${index}`);

const manyEnum = (count: number): Doc => ({ type: 'string', enum: manyValues(count, 'state') });
const manyProperties = (count: number): Doc =>
	object(Object.fromEntries(manyValues(count, 'f').map((name) => [name, { type: 'string' }])));
/** About `count` values in arrays of a thousand zeros (one array may hold no more than 200,000). */
function values(count: number): string {
	const thousand = `[${'0,'.repeat(999)}0]`;
	return `[${Array.from({ length: Math.ceil(count / 1_001) }, () => thousand).join(',')}]`;
}

/** The primary document with `count` more properties of one schema (less `without`), all of them this shared one. */
function withShared(name: string, shared: Doc, count: number, without?: string): string {
	const document = primary();
	const schemas = at(document, 'components', 'schemas');
	schemas.Shared = shared;
	const properties = at(schemas, name, 'properties');
	if (without !== undefined) delete properties[without];
	for (let index = 0; index < count; index++) properties[`p${index}`] = ref('Shared');
	return text(document);
}

export const HOSTILE_CASES: HostileCase[] = [
	{
		// Before the contract rewrite this held n8n's event loop for 87 s: every reading of a schema
		// expanded each `allOf` part again, 5 ways at every level, through the cycle back to `a`.
		name: 'self-referencing allOf, fan-out 5 (the 400-byte bomb)',
		document: () => {
			const parts = (self: string, next: string) => ({
				allOf: [{ $ref: `#/${self}` }, ...Array.from({ length: 4 }, () => ({ $ref: `#/${next}` }))],
			});
			return text({
				openapi: '3.1.0',
				paths: {
					'/v1/me': {
						get: {
							responses: { 200: { content: { 'application/json': { schema: { $ref: '#/a' } } } } },
						},
					},
				},
				a: parts('a', 'b'),
				b: parts('b', 'c'),
				c: parts('c', 'a'),
			});
		},
	},
	{ name: 'allOf fan-out chain 30 deep', document: () => text(fanOutChain('allOf', 30)) },
	{ name: 'oneOf fan-out chain 30 deep', document: () => text(fanOutChain('oneOf', 30)) },
	{ name: 'anyOf fan-out chain 30 deep', document: () => text(fanOutChain('anyOf', 30)) },
	{
		name: '$ref cycles',
		document: () =>
			text(
				openApi(
					{
						'/v1/me': { get: { responses: { '200': json(ref('A')) } } },
						'/v1/posts': { get: list(ref('Tree')) },
						'/v1/posts/{id}': { patch: { requestBody: json(ref('B')) } },
						'/v1/jobs/{id}': {
							get: { responses: { '200': json({ $ref: '#/components/responses/Loop' }) } },
						},
					},
					{},
					{
						components: {
							schemas: {
								A: ref('B'),
								B: ref('A'),
								Tree: object({
									id: ID,
									child: ref('Tree'),
									children: { type: 'array', items: ref('Tree') },
								}),
							},
							responses: { Loop: { $ref: '#/components/responses/Loop' } },
						},
					},
				),
			),
	},
	{
		name: '$ref chains of 1,000 hops and a pointer of 100,000 segments',
		expected: partsNotFollowed('GET /v1/posts \\(it has a \\$ref longer than 4,096 characters\\)'),
		document: () => {
			const schemas: Doc = { r1000: object({ id: ID }) };
			for (let hop = 0; hop < 1000; hop++) schemas[`r${hop}`] = ref(`r${hop + 1}`);
			const deep = { $ref: `#/${'x/'.repeat(100_000)}x` };
			return text(
				openApi(
					{
						'/v1/me': { get: { responses: { '200': json(ref('r0')) } } },
						'/v1/posts': { get: list(deep) },
					},
					schemas,
				),
			);
		},
	},
	{
		// Large but followable: 8,000 schemas of about 1.7 KB, chained to one another, and padding.
		name: 'a 15 MB document',
		document: () => {
			const document = primary();
			const schemas = at(document, 'components', 'schemas');
			const description = 'A field of a very large API, described at length. '.repeat(30);
			for (let index = 0; index < 8000; index++) {
				schemas[`Large${index}`] = object({
					id: ID,
					next: ref(`Large${(index + 1) % 8000}`),
					notes: { type: 'string', description },
				});
			}
			const filled = text(document);
			return `${filled.slice(0, -1)}, "x-padding": "${'.'.repeat(15 * MB - filled.length - 20)}"}`;
		},
	},
	// One value as large as the limit allows: each is read in one piece.
	{
		name: 'a string of 15 MB',
		document: () => `{"openapi": "3.1.0", "paths": {}, "x": "${'a'.repeat(15 * MB)}"}`,
	},
	{
		name: 'a string of 5 million escaped quotes',
		document: () => `{"openapi": "3.1.0", "paths": {}, "x": "${'\\"'.repeat(5_000_000)}"}`,
	},
	{
		name: '15 MB of whitespace',
		expected: notRead(
			'it is too large to follow: it has more than 1,048,576 whitespace characters in a row',
		),
		document: () => `{"openapi": "3.1.0", "paths": {},${' \n\t\r'.repeat((15 * MB) / 4)}"x": 1}`,
	},
	{
		name: 'a number of 15 million digits',
		expected: notRead('it is too large to follow: it has a number of more than 1,000 digits'),
		document: () => `{"openapi": "3.1.0", "paths": {}, "x": 1${'0'.repeat(15 * MB)}}`,
	},
	{
		name: 'a 20 MB document, beyond the 16 MB limit',
		expected: notAnswered('The service answered with more than 16 MB'),
		document: () => `${text(primary()).slice(0, -1)}, "x-padding": "${' '.repeat(20 * MB)}"}`,
	},
	{
		name: 'a document that never ends',
		expected: notAnswered('The service answered with more than 16 MB'),
		document: () => endless,
	},
	{
		name: 'a document served a byte every 100 ms, never ending',
		expected: notAnswered(
			'The service at http://127\\.0\\.0\\.1:\\d+ did not answer within 15 seconds',
		),
		document: () => trickle,
	},
	{
		name: 'nesting 10,000 deep',
		expected: notRead('it is too large to follow: it nests deeper than 256 levels'),
		document: () =>
			`{"openapi": "3.1.0", "paths": {}, "x": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
	},
	{
		// Past 64 KB the text is parsed in slices, by the node's own parser.
		name: 'nesting 10,000 deep after 100 KB',
		expected: notRead('it is too large to follow: it nests deeper than 256 levels'),
		document: () =>
			`{"openapi": "3.1.0", "paths": {}, "pad": "${' '.repeat(100_000)}", "x": ${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
	},
	{
		name: '2 million tiny values',
		document: () => `${text(primary()).slice(0, -1)}, "x-values": ${values(2_000_000)}}`,
	},
	{
		name: 'more than 4 million values',
		expected: notRead('it is too large to follow: it holds more than 4,000,000 values'),
		document: () => `${text(primary()).slice(0, -1)}, "x-values": ${values(4_000_000)}}`,
	},
	{
		name: 'an array of a million values',
		expected: notRead('it is too large to follow: it has an array of more than 200,000 items'),
		document: () => `${text(primary()).slice(0, -1)}, "x-values": [${'0,'.repeat(999_999)}0]}`,
	},
	{
		name: 'a 600,000-path document',
		expected: notRead('it is too large to follow: it has an object of more than 10,000 members'),
		document: () => {
			const document = primary();
			const paths = at(document, 'paths');
			for (let index = 0; index < 600_000; index++) paths[`/p${index}`] = { get: {} };
			return text(document);
		},
	},
	{
		// 20 parts of 10,000 properties: no object is large, their union is.
		name: 'a request body of 200,000 properties',
		expected: partsNotFollowed(
			'PATCH /v1/posts/\\{id\\} \\(its schemas take more than 5,000 steps to read at once\\)',
		),
		document: edited((document) => {
			const parts = Array.from({ length: 20 }, (_, part) =>
				object(
					Object.fromEntries(
						Array.from({ length: 10_000 }, (_, index) => [
							`f${part}_${index}`,
							{ type: 'string', description: 'A field.' },
						]),
					),
				),
			);
			at(
				document,
				'paths',
				'/v1/posts/{id}',
				'patch',
				'requestBody',
				'content',
				'application/json',
			).schema = { allOf: parts };
		}),
	},
	// Every field of the node is looked for among the properties' names and descriptions, for every item.
	{
		name: 'request bodies of 200 properties with descriptions of 2,000 characters',
		document: () => describedBody(200),
	},
	{
		name: 'request bodies of 6,000 properties with descriptions of 2,000 characters',
		expected: partsNotFollowed(
			'POST /v1/posts \\(its schemas take more than 5,000 steps to read at once\\); PATCH /v1/posts/\\{id\\} \\(its schemas take more than 5,000 steps to read at once\\)',
		),
		document: () => describedBody(6_000),
	},
	{
		// Every answer is beyond a step's budget: what is left must be read by the built-in
		// conventions, not fail every request.
		name: "a document whose every answer is beyond a step's budget",
		expected: partsNotFollowed(
			"its jobs \\(its schemas take more than 5,000 steps to read at once\\); its answers' envelopes \\(its schemas take more than 5,000 steps to read at once\\); GET /v1/me \\(its schemas take more than 5,000 steps to read at once\\); .*; its webhooks \\(its schemas take more than 5,000 steps to read at once\\)",
		),
		document: edited((document) => {
			const fields = (prefix: string) =>
				object(
					Object.fromEntries(
						Array.from({ length: 9_000 }, (_, index) => [`${prefix}${index}`, {}]),
					),
				);
			at(document, 'components', 'schemas').Heavy = { allOf: ['a', 'b', 'c'].map(fields) };
			for (const item of Object.values(at(document, 'paths')) as Doc[]) {
				for (const operation of Object.values(item) as Doc[]) {
					for (const [status, answer] of Object.entries(at(operation, 'responses'))) {
						const content = (answer as Doc).content as Doc | undefined;
						if (content === undefined || !status.startsWith('2')) continue;
						const schema = at(content, 'application/json').schema;
						content['application/json'] = { schema: { allOf: [schema, ref('Heavy')] } };
					}
				}
			}
		}),
	},
	{
		name: 'megabyte-long descriptions, names and enum values',
		expected: longNamesIn(
			"its answers' envelopes",
			'POST /v1/posts',
			'GET /v1/posts/{id}',
			'PATCH /v1/posts/{id}',
			'GET /v1/posts',
			'its jobs',
		),
		document: edited((document) => {
			const long = (word: string) => `${word} `.repeat(Math.ceil(MB / (word.length + 1)));
			document.info = { title: 'Hostile', version: '1', description: long('Hello.') };
			at(document, 'paths', '/v1/me', 'get').description = long('failed');
			const post = at(document, 'components', 'schemas', 'Post', 'properties');
			at(post, 'content').description = long('text:');
			at(post, 'status').description = long('draft: published');
			post[long('x').replace(/ /g, '_')] = {
				type: 'string',
				description: long('The id of the job'),
			};
			const status = at(document, 'components', 'schemas', 'Job', 'properties', 'status');
			// Every status value is read for what it means: 8 of them of a megabyte each.
			for (const word of ['not started', 'failed', 'done', 'running', 'w', 'x', 'y', 'z'])
				(status.enum as string[]).push(long(word).replace(/ /g, '-'));
		}),
	},
	{
		// Split into 7 million segments before a step was counted: 233-285 ms in one turn.
		name: 'a $ref of 14 million characters',
		expected: partsNotFollowed('GET /v1/posts \\(it has a \\$ref longer than 4,096 characters\\)'),
		document: edited((document) => {
			at(document, 'paths', '/v1/posts').get = list({ $ref: `#/${'x/'.repeat(7_000_000)}x` });
		}),
	},
	{
		name: '9,000 header parameters with names of 1 KB',
		expected: partsNotFollowed('POST /v1/posts \\(it has more than 200 parameters\\)'),
		document: edited((document) => {
			at(document, 'paths', '/v1/posts', 'post').parameters = Array.from(
				{ length: 9_000 },
				(_, index) => ({
					name: `X-${'a'.repeat(1_000)}-${index}`,
					in: 'header',
					schema: { type: 'string' },
				}),
			);
		}),
	},
	{
		// Each is matched against the `+json` expression, which goes over it twice.
		name: '9,000 media types of 1.5 KB in a request body',
		expected: partsNotFollowed('POST /v1/posts \\(it has a body of more than 64 media types\\)'),
		document: edited((document) => {
			at(document, 'paths', '/v1/posts', 'post').requestBody = {
				content: Object.fromEntries(
					Array.from({ length: 9_000 }, (_, index) => [
						`application/${'a'.repeat(1_500)}${index}`,
						{ schema: ref('CreatePostRequest') },
					]),
				),
			};
		}),
	},
	{
		// Each alternative is read for an envelope and a resource: 75-115 ms in one turn, within the steps.
		name: '9,000 oneOf variants',
		expected: partsNotFollowed(
			"its answers' envelopes \\(one of its schemas composes more than 200 others\\); GET /v1/me \\(one of its schemas composes more than 200 others\\)",
		),
		document: edited((document) => {
			at(document, 'paths', '/v1/me', 'get').responses = {
				'200': json({
					oneOf: Array.from({ length: 9_000 }, (_, index) => ({
						type: 'string',
						format: `f${index}`,
					})),
				}),
			};
		}),
	},
	{
		// Each would be printed by Service → Describe and carried into every request or delivery.
		name: '700 KB operationIds, summaries, property and header names, events and status values',
		expected: longNamesIn('POST /v1/posts', 'its jobs', 'its webhooks'),
		document: edited((document) => {
			const long = (prefix: string) => `${prefix}${'x'.repeat(700 * 1024)}`;
			for (const [path, method] of [
				['/v1/me', 'get'],
				['/v1/posts', 'post'],
			])
				Object.assign(at(document, 'paths', path, method), {
					operationId: long('get'),
					summary: long('Get '),
				});
			at(document, 'components', 'schemas', 'CreatePostRequest', 'properties')[long('title_')] = {
				type: 'string',
			};
			at(document, 'components', 'parameters', 'SignatureHeader').name = long('X-Signature-');
			at(document, 'webhooks')[long('job.completed.')] = at(document, 'webhooks', 'job.completed');
			(at(document, 'components', 'schemas', 'Job', 'properties', 'status').enum as string[]).push(
				long('failed_'),
			);
		}),
	},
	{
		// `/\/+$/` and `/\{[^}]*\}/` backtrack quadratically on these.
		name: 'ReDoS: a server URL of 100,000 slashes and braces',
		expected: partsNotFollowed('its paths \\(its server URL is longer than 2,000 characters\\)'),
		document: () =>
			text({
				...primary(),
				servers: [{ url: `https://api.example.com${'/'.repeat(100_000)}{${'{'.repeat(100_000)}x` }],
			}),
	},
	{
		name: 'ReDoS: path templates of 100,000 braces',
		// Paths longer than any API's are not followed, and the notice names them.
		expected: { notice: /the path "\/v1\/\{+….*longer than 200 characters/ },
		document: edited((document) => {
			at(document, 'paths')[`/v1/${'{'.repeat(100_000)}`] = { get: { responses: {} } };
			at(document, 'paths')[`/v1/${'{x'.repeat(50_000)}`] = { get: { responses: {} } };
		}),
	},
	{
		// Against every regular expression the contract runs on a document's text: descriptions of
		// 2,000 characters (as far as they are read) built to make each backtrack, and names and
		// values as long as they are followed (256 characters).
		name: 'ReDoS: descriptions, names and enum values built against each expression',
		document: edited((document) => {
			const texts = [
				`a${' '.repeat(1999)}`,
				`${'a'.repeat(41)}${' '.repeat(1959)}`,
				`a:${' '.repeat(1998)}`,
				`${'a='.repeat(1000)}`,
				`${'`a`-'.repeat(500)}`,
				`${'. '.repeat(1000)}`,
				`${'not '.repeat(500)}`,
				`secret ${'sign '.repeat(398)}`,
				`sha256=${'v1='.repeat(664)}`,
				`${'unix '.repeat(400)}`,
			];
			const headers = texts.map((description, index) => ({
				name: `X-${'a'.repeat(240)}-${index}-Delivery`,
				in: 'header',
				description,
				schema: { type: 'string', pattern: description },
			}));
			const event = at(document, 'components', 'schemas', 'JobCompletedEvent');
			at(document, 'webhooks')[`${'a.'.repeat(124)}failed`] = {
				post: { parameters: headers, requestBody: json(event) },
			};
			const job = at(document, 'components', 'schemas', 'Job', 'properties');
			// Besides the status the service reports: a status the document does not list counts as pending.
			job.status = {
				type: 'string',
				enum: [
					...texts.map((description) => description.replace(/ /g, '_').slice(0, 256)),
					'succeeded',
				],
				description: texts.join('\n'),
			};
			for (const [index, description] of texts.entries())
				job[`${'_'.repeat(250)}${index}`] = {
					type: 'string',
					format: description,
					description,
				};
		}),
	},
	{
		// A Link header the document promises, answered with what backtracks: `<` without end, and `rel=` followed by spaces.
		name: 'ReDoS: Link headers built against the next-link expressions',
		document: edited((document) => {
			const listing = at(document, 'paths', '/v1/posts', 'get');
			listing.parameters = [{ name: 'limit', in: 'query', schema: { type: 'integer' } }];
			listing.responses = {
				'200': json(object({ data: { type: 'array', items: ref('Post') } }), {
					headers: { Link: { schema: { type: 'string' } } },
				}),
			};
		}),
		answers: {
			'GET /v1/posts': ({ query }) =>
				query.get('page') === '2'
					? { headers: { Link: '<'.repeat(8192) }, body: { data: POSTS.slice(2) } }
					: {
							headers: { Link: `<x>;rel=${' '.repeat(7900)}, </v1/posts?page=2>; rel="next"` },
							body: { data: POSTS.slice(0, 2) },
						},
		},
	},
	{
		// `^(a+)+$` against `aaaa…!` takes 2^n steps in a backtracking engine.
		name: 'ReDoS: a secret pattern that backtracks without end',
		document: () =>
			text(
				serviceMadeSecret({
					secret: {
						type: 'string',
						pattern: '^(a+)+$',
						description: 'The secret that signs deliveries.',
					},
				}),
			),
		// A secret all the same, that the pattern would take 2^40 steps to refuse.
		answers: webhookRegistration(`${'a'.repeat(40)}!832b621f568840852e425d0ee863881d`),
	},
	{
		name: '__proto__, constructor and prototype as property, envelope and path names',
		// Path keys that are not paths are not followed, and the notice names them.
		expected: { notice: /the path "__proto__" \(it is not a plain path/ },
		document: () =>
			text(
				openApi(
					{
						'/v1/me': {
							get: { responses: { '200': json(object({ ['__proto__']: ref('__proto__') })) } },
						},
						'/v1/posts': {
							get: {
								...list(ref('Post')),
								responses: {
									'200': json(
										object({
											constructor: { type: 'array', items: ref('Post') },
											next_cursor: { type: ['string', 'null'] },
										}),
									),
								},
							},
						},
						'/v1/jobs/{id}': { get: { responses: { '200': json(ref('Job')) } } },
						['__proto__']: {
							get: { responses: { '200': json({ $ref: '#/constructor/prototype' }) } },
						},
						constructor: { get: {} },
						prototype: { post: {} },
					},
					{
						['__proto__']: object({
							id: ID,
							name: { type: 'string' },
							constructor: { type: 'string' },
						}),
						Post: object({ id: ID, content: { type: 'string' }, prototype: { type: 'string' } }),
						Job: object({
							id: ID,
							prototype: {
								type: 'string',
								enum: ['queued', 'succeeded'],
								description: 'Status of the job.',
							},
							result: object({ video_url: { type: 'string', format: 'uri' } }),
						}),
					},
				),
			),
		answers: {
			'GET /v1/me': () => ({ body: `{"__proto__": ${JSON.stringify(ACCOUNT)}}` }),
			'GET /v1/posts': () => ({
				body: `{"constructor": ${JSON.stringify(POSTS)}, "next_cursor": null}`,
			}),
			'POST /v1/generate/video': () => ({
				status: 201,
				body: '{"id": "job_1", "prototype": "queued"}',
			}),
			'GET /v1/jobs/{id}': () => ({
				body: `{"id": "job_1", "prototype": "succeeded", "result": ${JSON.stringify(RESULT)}}`,
			}),
		},
	},
	{
		// The answers do not have the envelopes: nothing may come out of Object.prototype instead.
		name: '__proto__ and constructor envelopes the answers do not have',
		// No list where the profile says: an error naming the place, never an empty list.
		expected: {
			posts: /^The service's answer to GET \/v1\/posts holds no list where the profile says$/,
		},
		document: () =>
			text(
				openApi({
					'/v1/me': {
						get: { responses: { '200': json(object({ ['__proto__']: object({ id: ID }) })) } },
					},
					'/v1/posts': {
						get: {
							...list({}),
							responses: {
								'200': json(
									object({
										constructor: { type: 'array', items: object({ id: ID }) },
										next_cursor: { type: 'string' },
									}),
								),
							},
						},
					},
				}),
			),
	},
	{
		name: 'a masked secret (••••dcfe)',
		expected: MASKED,
		document: () =>
			text(
				serviceMadeSecret({
					secret: { type: 'string', description: 'The signing secret, masked.' },
				}),
			),
		answers: webhookRegistration('••••dcfe'),
	},
	{
		name: 'a masked secret (****)',
		expected: MASKED,
		document: () => text(serviceMadeSecret({ signing_secret: { type: 'string' } })),
		answers: { 'POST /v1/webhooks': registered({ signing_secret: '****************' }) },
	},
	{
		name: 'a secret_last4 hint and no secret',
		expected: {
			trigger:
				/^The service registered the webhook but neither took nor gave a signing secret, 0 of 2 deliveries started$/,
			registrations: 0,
			subscribed: undefined,
		},
		document: () =>
			text(
				serviceMadeSecret({
					secret_last4: {
						type: 'string',
						description: 'The last four characters of the secret that signs deliveries.',
					},
				}),
			),
		answers: { 'POST /v1/webhooks': registered({ secret_last4: 'dcfe' }) },
	},
	{
		name: 'a secret shorter than 16 characters',
		expected: MASKED,
		document: () => text(serviceMadeSecret({ secret: { type: 'string' } })),
		answers: webhookRegistration('whsec_1a2b3c4d'),
	},
	{
		// The pattern says anything goes; the value is a masked copy all the same.
		name: 'a secret pattern that lies',
		expected: MASKED,
		document: () =>
			text(
				serviceMadeSecret({
					secret: {
						type: 'string',
						pattern: '^.{4,}$',
						description: 'The secret that signs deliveries.',
					},
				}),
			),
		answers: webhookRegistration('sk_live_0123456789…dcfe'),
	},
	{
		// The attempt number repeats across different deliveries: taken for an id it would drop them.
		name: 'a delivery header named X-Delivery-Attempt',
		document: edited((document) => {
			const schemas = at(document, 'components', 'schemas');
			for (const event of ['JobCompletedEvent', 'JobFailedEvent', 'PostPublishedEvent'])
				delete at(schemas, event, 'properties').id;
			at(document, 'components', 'parameters').DeliveryIdHeader = {
				name: 'X-Delivery-Attempt',
				in: 'header',
				description: 'The unique id of this delivery attempt.',
				schema: { type: 'string', format: 'uuid' },
			};
		}),
	},
	{
		name: 'an envelope the answers do not have',
		document: edited((document) => {
			for (const [path, method, schema] of [
				['/v1/me', 'get', 'Account'],
				['/v1/posts/{id}', 'patch', 'Post'],
				['/v1/webhooks', 'post', 'WebhookWithSecret'],
			]) {
				const responses = at(document, 'paths', path, method, 'responses');
				delete responses['201'];
				responses['200'] = json(object({ data: ref(schema), meta: object({ request_id: ID }) }));
			}
		}),
	},
	{
		name: 'a list whose items path holds an object',
		// No list where the profile says: an error naming the place, never an empty list.
		expected: {
			posts: /^The service's answer to GET \/v1\/posts holds no list where the profile says$/,
		},
		document: () => text(primary()),
		answers: { 'GET /v1/posts': () => ({ body: { data: POSTS[0], next_cursor: null } }) },
	},
	{
		name: 'a list total of 10^12',
		document: edited((document) => {
			const listing = at(document, 'paths', '/v1/posts', 'get');
			listing.parameters = [
				{ name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } },
				{ name: 'per_page', in: 'query', schema: { type: 'integer', maximum: 2 } },
			];
			listing.responses = {
				'200': json(
					object({ data: { type: 'array', items: ref('Post') }, total: { type: 'integer' } }),
				),
			};
		}),
		answers: {
			'GET /v1/posts': ({ query }) => {
				const page = Number(query.get('page') ?? 1);
				return { body: { data: POSTS.slice((page - 1) * 2, page * 2), total: 1e12 } };
			},
		},
	},
	{
		// The Location names another origin; only its path may be taken, on the credential's origin.
		name: 'a Location header pointing elsewhere',
		document: edited((document) => {
			at(document, 'paths', '/v1/generate/video', 'post').responses = {
				'202': { description: 'Accepted.', headers: { Location: { schema: { type: 'string' } } } },
			};
		}),
		answers: {
			'POST /v1/generate/video': () => ({
				status: 202,
				headers: { Location: 'https://attacker.example/v1/jobs/job_1' },
			}),
		},
	},
	// Large but legal: explained enums of many values, read and activated in time linear in their size.
	{
		name: 'an events enum of 100,000 values explained per value, the trigger on All Events',
		expected: { ...TOO_MANY_EVENTS, subscribed: ['*'] },
		trigger: ['*'],
		document: () => withEvents(eventNames(100_000), 'per value'),
	},
	{
		name: "an events enum of 100,000 values explained in the enum's description",
		expected: TOO_MANY_EVENTS,
		document: () => withEvents(eventNames(100_000), 'in prose'),
	},
	{
		name: 'an events enum of 10,000 values explained per value',
		expected: TOO_MANY_EVENTS,
		document: () => withEvents(eventNames(10_000), 'per value'),
	},
	{
		name: "an events enum of 10,000 values explained in the enum's description",
		expected: TOO_MANY_EVENTS,
		document: () => withEvents(eventNames(10_000), 'in prose'),
	},
	{
		name: 'an events enum of 8,000 values, the trigger on All Events',
		expected: { ...TOO_MANY_EVENTS, subscribed: ['*'] },
		trigger: ['*'],
		document: () => withEvents(eventNames(8_000)),
	},
	{
		// As many events as the node reads, and descriptions as long as it reads them, all mentions of them.
		name: 'an events enum of 1,000 values with descriptions of 2,000 characters of mentions, the trigger on All Events',
		expected: { subscribed: eventNames(1_000) },
		trigger: ['*'],
		document: () => {
			const names = eventNames(1_000);
			const mentions = names.join(' | ').slice(0, 2_000);
			return withEvents(names, 'per value', mentions.replace(/ \| /g, ', then '));
		},
	},
	{
		// As many events as the node reads, each as long as it reads one: Describe shows the first few.
		name: 'an events enum of 1,000 values of 250 characters, the trigger on All Events',
		expected: { subscribed: longEventNames() },
		trigger: ['*'],
		document: () => withEvents(longEventNames()),
	},
	{
		name: 'a job status enum of 100,000 values explained per value',
		expected: partsNotFollowed(
			'its jobs \\(its schemas take more than 5,000 steps to read at once\\)',
		),
		document: () => {
			const values = ['queued', 'succeeded', ...manyValues(99_998, 'state')];
			return withStatus('Job', values, { 'x-enum-descriptions': values.map(() => 'Done.') });
		},
	},
	{
		name: 'a job status described in 2,000 characters of mentions of its values',
		document: () =>
			withStatus('Job', ['queued', 'running', 'succeeded', 'failed'], {
				description: `${'queued -> running -> '.repeat(94)}succeeded | failed`,
			}),
	},
	{
		// None of them is the node's `draft`, `published` or `scheduled`: each is compared with every value.
		name: "a post status enum of 100,000 values, none of them the node's",
		expected: partsNotFollowed(
			'POST /v1/posts \\(its schemas take more than 5,000 steps to read at once\\); PATCH /v1/posts/\\{id\\} \\(its schemas take more than 5,000 steps to read at once\\)',
		),
		document: () => withStatus('CreatePostRequest', manyValues(100_000, 'state')),
	},
	// One large schema shared by many places: each place reads it again, and every reading is counted.
	{
		name: 'a job whose 190 properties share one enum of 100,000 values',
		expected: partsNotFollowed(
			'its jobs \\(its schemas take more than 5,000 steps to read at once\\)',
		),
		document: () => withShared('Job', manyEnum(100_000), 190),
	},
	{
		// Which of them is the post's status is told by their values: none is the node's.
		name: 'a post body whose 190 properties share one enum of 100,000 values',
		expected: partsNotFollowed(
			'POST /v1/posts \\(its schemas take more than 5,000 steps to read at once\\)',
		),
		document: () => withShared('CreatePostRequest', manyEnum(100_000), 190, 'status'),
	},
	{
		name: 'an answer whose 2,000 properties share an object of 2,000 properties',
		expected: partsNotFollowed(
			"its answers' envelopes \\(its schemas take more than 5,000 steps to read at once\\); GET /v1/me \\(its schemas take more than 5,000 steps to read at once\\)",
		),
		// Without an id of its own, each of its properties is looked at for one.
		document: () => withShared('Account', manyProperties(2_000), 2_000, 'id'),
	},
	{
		name: '1,000 deliveries that share a body of 2,000 properties',
		// Read one delivery at a time, with breaks for n8n between, they spend the whole reading's
		// budget: none is left to check the places of the answers after them.
		expected: partsNotFollowed(
			"its webhooks \\(its schemas take more than 400,000 steps to read\\); its answers' places \\(its schemas take more than 400,000 steps to read\\)",
		),
		document: () => {
			const document = JSON.parse(
				withShared('JobCompletedEvent', { type: 'string' }, 2_000),
			) as Doc;
			const webhooks = at(document, 'webhooks');
			for (let index = 0; index < 1_000; index++)
				webhooks[`e${index}.updated`] = webhooks['job.completed'];
			return text(document);
		},
	},
	{
		// With no events listed for the registration, the deliveries' types are the events.
		name: 'a delivery whose type lists 5,000 events, the trigger on All Events',
		expected: { ...TOO_MANY_EVENTS, subscribed: ['*'] },
		trigger: ['*'],
		document: () => {
			const document = JSON.parse(withEvents(eventNames(2))) as Doc;
			delete at(document, 'components', 'schemas', 'Events').enum;
			at(document, 'components', 'schemas', 'JobCompletedEvent', 'properties').type = {
				type: 'string',
				enum: eventNames(5_000),
			};
			return text(document);
		},
	},
	{
		name: 'a document that is not JSON',
		expected: notRead('it is not JSON'),
		document: () => `<!doctype html><html><body>${'<p>Log in</p>'.repeat(1000)}</body></html>`,
	},
	{
		name: 'a Swagger 2.0 document',
		expected: {
			notice:
				/^http:\/\/127\.0\.0\.1:\d+\/v1\/openapi\.json is not an OpenAPI 3\.0 or 3\.1 document, so the node used its built-in conventions\. Service → Describe shows the profile in use\.$/,
		},
		document: () =>
			text({
				swagger: '2.0',
				info: { title: 'Old', version: '1' },
				paths: { '/v1/me': { get: { responses: { '200': { schema: { type: 'object' } } } } } },
			}),
	},
	{
		name: 'JSON with a byte order mark',
		expected: notRead('it is not JSON'),
		document: () => `\uFEFF${text(primary())}`,
	},
	{
		name: 'numbers like 1e999',
		document: () =>
			text(primary())
				.replace('"maximum":100', '"maximum":1e999')
				.replace('"minimum":1', '"minimum":-1e999')
				.replace(/}$/, `, "x-huge": [1e999, -1e999, 1${'0'.repeat(400)}, 1e-999]}`),
	},
];
