/**
 * Checks the public OpenAPI fixtures and their hand-written expectations against each other, not
 * the node: every listed operation is in its document, and every location and parameter the
 * expectation names is described there (the items location as an array), unless the entry lists it
 * under `undocumented` (the API's reference has it, its document does not), in which case it must
 * indeed be missing; each job's status (with both values) and id are in its read's answer, and
 * each webhook registration's address and events in its request.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import { validateOpenApiDocument } from './fake-service/test-helpers';

const DIR = path.join(__dirname, 'fixtures', 'public-openapi');
const MAX_FIXTURE_BYTES = 400 * 1024;
const MAX_TOTAL_BYTES = 3 * 1024 * 1024;
const LOCATIONS = ['next', 'more', 'total'] as const;
const PARAMETERS = ['cursor', 'page', 'offset', 'size'] as const;
const KEY_PARAMETER: Record<string, string | undefined> = {
	none: undefined,
	link: 'next',
	cursor: 'cursor',
	after: 'cursor',
	page: 'page',
	offset: 'offset',
};

type Json = { [key: string]: unknown };
interface ExpectedList {
	method: string;
	path: string;
	items: string;
	paging: Partial<
		Record<'style' | (typeof LOCATIONS)[number] | (typeof PARAMETERS)[number], string>
	>;
	undocumented?: string[];
	why: string;
}
interface ExpectedApi {
	api: string;
	file: string;
	lists: ExpectedList[];
	jobs?: Array<{
		path: string;
		status: string;
		succeeded: string;
		failed: string;
		id?: string;
		why: string;
	}>;
	webhooks?: Array<{
		path: string;
		method: string;
		url: string;
		events: string | null;
		why: string;
	}>;
}

const isJson = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);
const field = (value: unknown, key: string): unknown => (isJson(value) ? value[key] : undefined);
const expected: ExpectedApi[] = JSON.parse(readFileSync(path.join(DIR, 'expected.json'), 'utf8'));

function documentOf(api: ExpectedApi): Json {
	const file = path.join(DIR, api.file);
	if (!existsSync(file)) {
		throw new Error(`${api.file} is missing: SOURCES.md names its source and how to trim it`);
	}
	const document: unknown = JSON.parse(readFileSync(file, 'utf8'));
	if (!isJson(document)) throw new Error(`${api.file} is not a JSON object`);
	return document;
}

/** Follows `$ref`s ("#/..." only) to the object they name; a cycle of refs is cut after 50. */
function deref(document: Json, node: unknown): unknown {
	for (let hops = 0; hops < 50; hops += 1) {
		const ref = field(node, '$ref');
		if (typeof ref !== 'string') return node;
		node = ref
			.slice(2)
			.split('/')
			.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
			.reduce<unknown>((at, segment) => field(at, segment), document);
	}
	throw new Error('$ref cycle');
}

/** The schema and every schema it is composed of (allOf, anyOf, oneOf), each dereferenced. */
function alternatives(document: Json, schema: unknown, seen = new Set<unknown>()): unknown[] {
	const resolved = deref(document, schema);
	if (!isJson(resolved) || seen.has(resolved)) return [];
	seen.add(resolved);
	const parts = ['allOf', 'anyOf', 'oneOf'].flatMap((key) => {
		const list = resolved[key];
		return Array.isArray(list) ? list : [];
	});
	return [resolved, ...parts.flatMap((part) => alternatives(document, part, seen))];
}

/**
 * The schemas found at a /body/... pointer, following properties through compositions; `-` is
 * each entry of a list.
 */
function schemasAt(document: Json, bodySchema: unknown, segments: string[]): unknown[] {
	if (segments.length === 0) return alternatives(document, bodySchema);
	const [segment, ...rest] = segments;
	return alternatives(document, bodySchema).flatMap((schema) => {
		const property = field(schema, segment === '-' ? 'items' : 'properties');
		const next = segment === '-' ? property : field(property, segment);
		return next === undefined ? [] : schemasAt(document, next, rest);
	});
}

const isArraySchema = (schema: unknown): boolean => {
	const type = field(schema, 'type');
	return (
		type === 'array' || (Array.isArray(type) && type.includes('array')) || 'items' in Object(schema)
	);
};

function successResponse(document: Json, operation: unknown): Json {
	const responses = field(operation, 'responses');
	const status = Object.keys(isJson(responses) ? responses : {}).find((code) => /^2/.test(code));
	const response = status === undefined ? undefined : deref(document, field(responses, status));
	if (!isJson(response)) throw new Error('no success response');
	return response;
}

/** The schema of a response's or a request's JSON (or form) body. */
function bodySchema(document: Json, response: unknown): unknown {
	const content = field(deref(document, response), 'content');
	const json = Object.keys(isJson(content) ? content : {}).find((type) => /json|form/.test(type));
	return json === undefined ? undefined : field(field(content, json), 'schema');
}

const segmentsOf = (pointer: string) =>
	pointer
		.split('/')
		.slice(1)
		.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The schemas at a pointer into a resource the body is, or holds in one property (`data`). */
function inResource(document: Json, body: unknown, pointer: string): unknown[] {
	const direct = schemasAt(document, body, segmentsOf(pointer));
	if (direct.length > 0) return direct;
	const envelopes = alternatives(document, body).flatMap((schema) =>
		Object.keys(Object(field(schema, 'properties'))),
	);
	return envelopes.flatMap((envelope) =>
		schemasAt(document, body, [envelope, ...segmentsOf(pointer)]),
	);
}

/** Whether a status schema lists a value (its enum) or names it in its description. */
const hasValue = (schema: unknown, value: string) => {
	const values = field(schema, 'enum');
	return (
		(Array.isArray(values) && values.includes(value)) ||
		String(field(schema, 'description') ?? '').includes(value)
	);
};

/** Whether the answer's description has the location: a body property, or a declared header. */
function describes(document: Json, response: Json, location: string): boolean {
	const [, part, ...segments] = location
		.split('/')
		.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
	if (part === 'headers') {
		const headers = field(response, 'headers');
		return Object.keys(isJson(headers) ? headers : {}).some(
			(name) => name.toLowerCase() === segments.join('/'),
		);
	}
	if (part !== 'body') throw new Error(`${location} is neither /body nor /headers`);
	return schemasAt(document, bodySchema(document, response), segments).length > 0;
}

function queryParameters(document: Json, pathItem: unknown, operation: unknown): string[] {
	const declared = [field(pathItem, 'parameters'), field(operation, 'parameters')].flatMap(
		(list) => (Array.isArray(list) ? list.map((parameter) => deref(document, parameter)) : []),
	);
	return declared
		.filter((parameter) => field(parameter, 'in') === 'query')
		.map((parameter) => String(field(parameter, 'name')));
}

describe('public OpenAPI fixtures', () => {
	it('stay within their size bounds', () => {
		const sizes = expected.map((api) => statSync(path.join(DIR, api.file)).size);
		for (const size of sizes) expect(size).toBeLessThanOrEqual(MAX_FIXTURE_BYTES);
		expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(MAX_TOTAL_BYTES);
		expect(expected.length).toBeGreaterThanOrEqual(10);
	});

	describe.each(expected.map((api) => [api.api, api] as const))('%s', (_name, api) => {
		let document: Json = {};
		beforeAll(() => {
			document = documentOf(api);
		});

		it('is a valid OpenAPI 3.0 or 3.1 document', async () => {
			expect(String(document.openapi)).toMatch(/^3\.[01]\./);
			expect(await validateOpenApiDocument(document)).toEqual({ valid: true });
		});

		it.each(api.lists.map((list) => [`${list.method} ${list.path}`, list] as const))(
			'%s: the expectation names what the document describes',
			(_operation, list) => {
				const pathItem = field(document.paths, list.path);
				const operation = field(pathItem, list.method);
				expect(operation).toBeDefined();
				const response = successResponse(document, operation);
				const undocumented = new Set(list.undocumented);
				const { style } = list.paging;
				expect(style && style in KEY_PARAMETER).toBe(true);
				const key = KEY_PARAMETER[style ?? ''];
				if (key) expect(list.paging[key as keyof ExpectedList['paging']]).toBeDefined();
				expect(list.why.length).toBeGreaterThan(20);

				const items = schemasAt(
					document,
					bodySchema(document, response),
					list.items.split('/').slice(2),
				);
				expect({ items: list.items, isArray: items.some(isArraySchema) }).toEqual({
					items: list.items,
					isArray: true,
				});
				for (const name of LOCATIONS) {
					const location = list.paging[name];
					if (location === undefined) continue;
					const described = describes(document, response, location);
					expect({ location, described }).toEqual({
						location,
						described: !undocumented.has(location),
					});
				}
				const parameters = queryParameters(document, pathItem, operation);
				for (const name of PARAMETERS) {
					const parameter = list.paging[name];
					if (parameter === undefined) continue;
					expect({ parameter, declared: parameters.includes(parameter) }).toEqual({
						parameter,
						declared: !undocumented.has(parameter),
					});
				}
			},
		);

		it('names job statuses and webhook registrations the document describes', () => {
			for (const job of api.jobs ?? []) {
				const read = field(field(document.paths, job.path), 'get');
				const body = bodySchema(document, successResponse(document, read));
				const status = inResource(document, body, job.status);
				expect({
					job: job.path,
					succeeded: status.some((schema) => hasValue(schema, job.succeeded)),
					failed: status.some((schema) => hasValue(schema, job.failed)),
					id: job.id === undefined || inResource(document, body, job.id).length > 0,
					why: job.why.length > 20,
				}).toEqual({ job: job.path, succeeded: true, failed: true, id: true, why: true });
			}
			for (const webhook of api.webhooks ?? []) {
				const registration = field(
					field(document.paths, webhook.path),
					webhook.method.toLowerCase(),
				);
				const body = bodySchema(document, field(registration, 'requestBody'));
				const at = (pointer: string | null) =>
					pointer === null || schemasAt(document, body, segmentsOf(pointer)).length > 0;
				expect({
					webhook: webhook.path,
					url: at(webhook.url),
					events: at(webhook.events),
					why: webhook.why.length > 20,
				}).toEqual({ webhook: webhook.path, url: true, events: true, why: true });
			}
		});
	});
});
