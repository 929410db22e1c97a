import type { IDataObject, IHttpRequestMethods } from 'n8n-workflow';

import { ENDPOINTS, type EndpointName } from './endpoints';
import {
	deref,
	enumValues,
	firstSentence,
	HTTP_METHODS,
	isRecord,
	jsonContent,
	normalizeName,
	objectShape,
	parametersOf,
	successResponse,
	typesOf,
	type ObjectShape,
	type OpenApiDocument,
	type Schema,
} from './openapi';

/**
 * What the node knows about the service: read from its OpenAPI document, or the built-in
 * conventions where the document is missing, unreadable or silent. Operations describe requests
 * in the node's own field names (today's defaults); the contract turns them into the service's.
 */

export type JobState = 'pending' | 'succeeded' | 'failed';

export type Paging =
	| { style: 'cursor'; size?: string; cursor: string; next?: string[]; max: number }
	| { style: 'page'; size?: string; page: string; first: number; total?: string[]; max: number }
	| { style: 'offset'; size?: string; offset: string; total?: string[]; max: number }
	| { style: 'link'; size?: string; next: string[]; max: number }
	| { style: 'none'; max: number };

export interface ResolvedEndpoint {
	method: IHttpRequestMethods;
	/** Path below the base URL; `{id}` stands for the resource id. */
	path: string;
	/** Whether the service's document describes this endpoint. */
	documented: boolean;
	/** The request body's object, when the document describes it. */
	request?: ObjectShape;
	/** Query parameters the document names, when it names any. */
	query?: Record<string, Schema>;
	/** The property an answer's object is wrapped in, such as `data`. */
	envelope?: string;
	/** The property holding a list answer's items; undefined for a bare array or unknown. */
	items?: string;
	paging: Paging;
	/** The object a list holds, when the document describes it. */
	item?: ObjectShape;
	/** A list's text-search parameter, such as `q`, when the document names one. */
	search?: string;
	/** An update by PUT that replaces the whole object: the current one is read and sent back changed. */
	replaces: boolean;
}

export interface JobContract {
	/** Property names of a job's id, status, result and error, most likely first. */
	id: string[];
	status: string[];
	result: string[];
	error: string[];
	/** The state of each status value the document explains; others are read by their usual names. */
	states: Record<string, JobState>;
}

export interface ErrorContract {
	message: string[][];
	code: string[][];
	details: string[][];
	detailField: string[];
	detailMessage: string[];
}

export type SignatureFormat = 'sha256' | 'timestamped';

export interface SignatureScheme {
	format: SignatureFormat;
	/** Lower-case header names. */
	header: string;
	timestampHeader?: string;
	deliveryIdHeader?: string;
}

export interface DeliveryShape {
	type: string;
	id: string;
	time: string;
	data: string;
}

export interface WebhookContract {
	/** The events the service offers, when its document lists them. */
	events?: string[];
	/** Whether `*` subscribes to every event. */
	wildcard: boolean;
	/** Where the signing secret goes in a registration, and where the service's own comes back. */
	secretField?: string;
	secretAnswerField?: string;
	/** The service's names of a registration's url, events and active fields. */
	fields: { url: string; events: string; active: string };
	delivery: DeliveryShape;
	signature: SignatureScheme;
}

export interface Contract {
	/** The service's document, when it could be read. */
	document?: OpenApiDocument;
	/** Why the built-in conventions apply, when the document could not be read. */
	notice?: string;
	endpoints: Record<EndpointName, ResolvedEndpoint>;
	jobs: JobContract;
	errors: ErrorContract;
	webhooks: WebhookContract;
}

/** An error in the node's own request before it is sent, such as a field the service does not take. */
export class ContractFieldError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
	}
}

// ------------------------------------------------------------------------------------------------
// Built-in conventions

const DEFAULT_MAX_PAGE_SIZE = 100;

const DEFAULT_JOBS: JobContract = {
	id: ['id'],
	status: ['status', 'state'],
	result: ['result'],
	error: ['error'],
	states: {},
};

const DEFAULT_ERRORS: ErrorContract = {
	message: [['error', 'message'], ['message'], ['error'], ['detail'], ['title']],
	code: [['error', 'code'], ['code']],
	details: [['error', 'details'], ['details'], ['errors']],
	detailField: ['field'],
	detailMessage: ['message'],
};

const DEFAULT_WEBHOOKS: WebhookContract = {
	wildcard: true,
	secretField: 'secret',
	secretAnswerField: 'secret',
	fields: { url: 'url', events: 'events', active: 'active' },
	delivery: { type: 'type', id: 'id', time: 'created_at', data: 'data' },
	signature: {
		format: 'sha256',
		header: 'x-content-publishing-signature',
		timestampHeader: 'x-content-publishing-timestamp',
		deliveryIdHeader: 'x-content-publishing-delivery',
	},
};

function defaultEndpoint(name: EndpointName): ResolvedEndpoint {
	const { method, path } = ENDPOINTS[name];
	const isList = name.startsWith('list');
	return {
		method,
		path,
		documented: false,
		paging: isList ? { style: 'cursor', size: 'limit', cursor: 'cursor', max: DEFAULT_MAX_PAGE_SIZE } : { style: 'none', max: 0 },
		replaces: false,
	};
}

export function defaultContract(notice?: string): Contract {
	const endpoints = Object.fromEntries(
		(Object.keys(ENDPOINTS) as EndpointName[]).map((name) => [name, defaultEndpoint(name)]),
	) as Record<EndpointName, ResolvedEndpoint>;
	return {
		notice,
		endpoints,
		jobs: DEFAULT_JOBS,
		errors: DEFAULT_ERRORS,
		webhooks: DEFAULT_WEBHOOKS,
	};
}

// ------------------------------------------------------------------------------------------------
// Matching the node's fields onto the service's

/**
 * The words each node field goes by, for a service that names it differently. A property matches
 * when its name or the first sentence of its description holds all words of one entry.
 */
const FIELD_WORDS: Record<string, string[][]> = {
	content: [['content'], ['text'], ['body']],
	transcript: [['transcript']],
	title: [['title'], ['headline']],
	prompt: [['prompt']],
	source_text: [['source', 'text']],
	source_post_id: [['source', 'post']],
	page_id: [['page']],
	post_id: [['post']],
	status: [['status'], ['state']],
	scheduled_at: [['schedule'], ['publish', 'at']],
	tags: [['tag']],
	media_urls: [['media']],
	tone: [['tone']],
	language: [['language'], ['locale']],
	length: [['length']],
	thread_length: [['thread']],
	slide_count: [['slide']],
	duration_seconds: [['duration']],
	aspect_ratio: [['aspect']],
	url: [['url'], ['uri']],
	events: [['event'], ['topic']],
	description: [['description']],
	active: [['active'], ['enable']],
	secret: [['secret']],
};

function fitsValue(schema: Schema, value: unknown): boolean {
	const types = typesOf(schema);
	if (types.length === 0 || value === undefined) return true;
	if (Array.isArray(value)) return types.includes('array');
	if (typeof value === 'number') return types.includes('integer') || types.includes('number');
	if (typeof value === 'boolean') return types.includes('boolean');
	if (typeof value === 'string') return types.includes('string');
	return types.includes('object');
}

/** Whether a name (without separators) or a description holds every word of an entry. */
function holdsWords(text: string, words: string[], inName: boolean): boolean {
	return words.every((word) => (inName ? text.includes(word) : new RegExp(`\\b${word}`).test(text)));
}

/** The service's name for one of the node's fields, or undefined when its schema has none. */
export function findField(
	shape: Pick<ObjectShape, 'properties'>,
	field: string,
	value?: unknown,
	taken: Set<string> = new Set(),
): string | undefined {
	const candidates = Object.entries(shape.properties).filter(
		([name, schema]) => !taken.has(name) && schema.readOnly !== true && fitsValue(schema, value),
	);
	const exact = candidates.find(([name]) => name === field);
	if (exact) return exact[0];
	const normalized = candidates.find(([name]) => normalizeName(name) === normalizeName(field));
	if (normalized) return normalized[0];
	const alternatives = FIELD_WORDS[field] ?? [field.split('_')];
	for (const inName of [true, false]) {
		for (const words of alternatives) {
			const match = candidates.find(([name, schema]) =>
				holdsWords(inName ? normalizeName(name) : firstSentence(schema), words, inName),
			);
			if (match) return match[0];
		}
	}
	return undefined;
}

/** The enum value the service spells the given value as (`draft` → `DRAFT`). */
function serviceValue(document: OpenApiDocument | undefined, schema: Schema, value: unknown): unknown {
	if (document === undefined) return value;
	if (Array.isArray(value)) {
		return value.map((entry) => serviceValue(document, deref(document, schema.items) ?? {}, entry));
	}
	const allowed = enumValues(document, schema);
	if (typeof value !== 'string' || allowed === undefined || allowed.includes(value)) return value;
	return allowed.find((candidate) => normalizeName(candidate) === normalizeName(value)) ?? value;
}

/**
 * Renames the node's fields to the service's and spells enum values its way. A field the
 * service's closed schema has no place for fails here, before anything is sent.
 */
export function mapFields(
	document: OpenApiDocument | undefined,
	shape: Pick<ObjectShape, 'properties' | 'closed'> | undefined,
	fields: IDataObject,
	where: string,
): IDataObject {
	if (shape === undefined || document === undefined) return fields;
	const mapped: IDataObject = {};
	const taken = new Set<string>();
	for (const [field, value] of Object.entries(fields)) {
		const name = findField(shape, field, value, taken);
		if (name === undefined) {
			if (!shape.closed) {
				mapped[field] = value;
				continue;
			}
			throw new ContractFieldError(
				`The service takes no "${field}" in ${where}`,
				`Its OpenAPI document lists: ${Object.keys(shape.properties).join(', ') || 'nothing'}. Leave that field empty, or send the service's own field with "Extra Body Fields (JSON)" or "Extra Query Parameters (JSON)".`,
			);
		}
		taken.add(name);
		mapped[name] = serviceValue(document, shape.properties[name], value) as IDataObject[string];
	}
	return mapped;
}

/**
 * The body of a request to an endpoint, in the service's fields; `optional` fields the service
 * has no place for are left out instead of failing.
 */
export function requestBody(contract: Contract, name: EndpointName, fields: IDataObject, optional: IDataObject = {}): IDataObject {
	const endpoint = contract.endpoints[name];
	const { request } = endpoint;
	const taken = new Set<string>();
	const kept = Object.fromEntries(
		Object.entries(optional).filter(([field, value]) => {
			if (request === undefined || contract.document === undefined || !request.closed) return true;
			const found = findField(request, field, value, taken);
			if (found !== undefined) taken.add(found);
			return found !== undefined;
		}),
	);
	return mapFields(contract.document, request, { ...fields, ...kept }, `${endpoint.method} ${endpoint.path}`);
}

/** The query of a request to an endpoint, in the service's parameters; paging is added when reading. */
export function requestQuery(contract: Contract, name: EndpointName, fields: IDataObject): IDataObject {
	const endpoint = contract.endpoints[name];
	if (endpoint.query === undefined || Object.keys(fields).length === 0) return fields;
	const paging = new Set(
		Object.entries(endpoint.paging)
			.filter(([key, value]) => key !== 'style' && typeof value === 'string')
			.map(([, value]) => value as string),
	);
	const properties = Object.fromEntries(Object.entries(endpoint.query).filter(([parameter]) => !paging.has(parameter)));
	return mapFields(contract.document, { properties, closed: true }, fields, `the query of ${endpoint.method} ${endpoint.path}`);
}

// ------------------------------------------------------------------------------------------------
// Reading a document

type Operations = Array<{ path: string; method: string; pathItem: IDataObject; operation: IDataObject }>;

function operationsOf(document: OpenApiDocument): Operations {
	return Object.entries(document.paths).flatMap(([path, pathItem]) =>
		HTTP_METHODS.filter((method) => isRecord(pathItem[method])).map((method) => ({
			path: path.replace(/\{[^}]+\}/g, '{id}'),
			method,
			pathItem,
			operation: pathItem[method] as IDataObject,
		})),
	);
}

/** The single object an answer schema wraps, such as `{"data": {...}}`. */
function envelopeOf(document: OpenApiDocument, schema: Schema | undefined): string | undefined {
	const shape = objectShape(document, schema);
	if (shape === undefined) return undefined;
	const names = Object.keys(shape.properties);
	const candidates = names.length === 1 ? names : shape.required.length === 1 ? shape.required : [];
	const [name] = candidates;
	if (name === undefined) return undefined;
	const inner = shape.properties[name];
	return objectShape(document, inner) !== undefined && !typesOf(inner).includes('array') ? name : undefined;
}

/** Paths (up to two deep) to properties of an object whose names satisfy a test. */
function findPaths(
	document: OpenApiDocument,
	shape: ObjectShape,
	test: (name: string, schema: Schema) => boolean,
	prefix: string[] = [],
): string[][] {
	const found: string[][] = [];
	for (const [name, schema] of Object.entries(shape.properties)) {
		if (test(name, schema)) found.push([...prefix, name]);
		const inner = prefix.length === 0 ? objectShape(document, schema) : undefined;
		if (inner) found.push(...findPaths(document, inner, test, [name]));
	}
	return found;
}

function named(...names: string[]) {
	const wanted = new Set(names.map(normalizeName));
	return (name: string) => wanted.has(normalizeName(name));
}

function pagingOf(document: OpenApiDocument, query: Record<string, Schema>, answer: ObjectShape | undefined): Paging {
	const parameter = (test: (name: string) => boolean) => Object.keys(query).find(test);
	const size = parameter(named('limit', 'per_page', 'page_size', 'size', 'count', 'max_results'));
	const max = Number(size === undefined ? NaN : query[size].maximum) || DEFAULT_MAX_PAGE_SIZE;
	const nextLink = answer
		? findPaths(document, answer, (name, schema) => /^next(url|link|page)?$/.test(normalizeName(name)) && (schema.format === 'uri' || schema.format === 'uri-reference' || /url|link/.test(firstSentence(schema))))[0]
		: undefined;
	if (nextLink) return { style: 'link', size, next: nextLink, max };
	const cursor = parameter((name) => /cursor|token|^after$|startingafter|continuation/.test(normalizeName(name)));
	const nextCursor = answer
		? findPaths(document, answer, (name) => /cursor|token/.test(normalizeName(name)))[0]
		: undefined;
	if (cursor !== undefined) return { style: 'cursor', size, cursor, next: nextCursor, max };
	const total = answer ? findPaths(document, answer, named('total', 'total_count', 'total_items', 'count'))[0] : undefined;
	const page = parameter(named('page', 'page_number'));
	if (page !== undefined) {
		const first = Number(query[page].minimum ?? query[page].default ?? 1);
		return { style: 'page', size, page, first: Number.isInteger(first) ? first : 1, total, max };
	}
	const offset = parameter(named('offset', 'skip', 'start'));
	if (offset !== undefined) return { style: 'offset', size, offset, total, max };
	return { style: 'none', max };
}

/**
 * A list's text-search parameter: a string parameter called like one (`q`, `search`, `query`) or
 * whose description says it searches or matches text.
 */
function searchOf(query: Record<string, Schema>): string | undefined {
	const isText = (schema: Schema) => typesOf(schema).length === 0 || typesOf(schema).includes('string');
	return (
		Object.keys(query).find((name) => isText(query[name]) && named('q', 'query', 'search', 'search_term', 'keyword')(name)) ??
		Object.keys(query).find((name) => isText(query[name]) && /\b(search|substring|matching|contains)/.test(firstSentence(query[name])))
	);
}

function resolveEndpoint(document: OpenApiDocument, operations: Operations, name: EndpointName): ResolvedEndpoint {
	const wanted = ENDPOINTS[name];
	const atPath = operations.filter((entry) => entry.path === wanted.path);
	const method = wanted.method.toLowerCase();
	// An update may be a PATCH or a PUT; whichever the service documents is the one.
	const found =
		atPath.find((entry) => entry.method === method) ??
		(method === 'patch' || method === 'put' ? atPath.find((entry) => entry.method === 'put' || entry.method === 'patch') : undefined);
	if (found === undefined) return defaultEndpoint(name);

	const body = jsonContent(document, found.operation.requestBody);
	const request = body ? objectShape(document, body.schema) : undefined;
	const answer = successResponse(document, found.operation);
	const query = parametersOf(document, found.pathItem, found.operation, 'query');
	const isList = name.startsWith('list');
	const endpoint: ResolvedEndpoint = {
		method: found.method.toUpperCase() as IHttpRequestMethods,
		path: wanted.path,
		documented: true,
		request,
		query: Object.keys(query).length > 0 ? query : undefined,
		paging: { style: 'none', max: 0 },
		replaces: found.method === 'put' && (request?.required.length ?? 0) > 0,
	};
	if (isList) {
		const answerShape = objectShape(document, answer?.schema);
		endpoint.items = answerShape
			? Object.keys(answerShape.properties).find((property) => typesOf(answerShape.properties[property]).includes('array'))
			: undefined;
		const list = endpoint.items === undefined ? deref(document, answer?.schema) : deref(document, answerShape?.properties[endpoint.items]);
		endpoint.item = objectShape(document, list?.items);
		endpoint.paging = pagingOf(document, query, answerShape);
		endpoint.search = searchOf(query);
	} else {
		endpoint.envelope = envelopeOf(document, answer?.schema);
	}
	return endpoint;
}

/** The job's object: the answer of GET /v1/jobs/{id}, out of its envelope. */
function jobShape(document: OpenApiDocument, operations: Operations, endpoint: ResolvedEndpoint): ObjectShape | undefined {
	const found = operations.find((entry) => entry.path === endpoint.path && entry.method === 'get');
	const schema = found ? successResponse(document, found.operation)?.schema : undefined;
	const shape = objectShape(document, schema);
	return endpoint.envelope && shape ? objectShape(document, shape.properties[endpoint.envelope]) : shape;
}

/** Explanations of enum values: `x-enum-descriptions`, or "`VALUE`: text" in the description. */
function enumExplanations(schema: Schema, values: string[]): Record<string, string> {
	const explained: Record<string, string> = {};
	const extension = schema['x-enum-descriptions'] ?? schema['x-enumDescriptions'];
	if (Array.isArray(extension)) values.forEach((value, index) => (explained[value] = String(extension[index] ?? '')));
	else if (isRecord(extension)) for (const value of values) explained[value] = String(extension[value] ?? '');
	const description = typeof schema.description === 'string' ? schema.description : '';
	for (const [, value, text] of description.matchAll(/`([^`]+)`\s*[:=–-]\s*([^`]*)/g)) {
		if (values.includes(value)) explained[value] ||= text;
	}
	return explained;
}

/** The state a status's explanation describes, if it says clearly. */
function stateFromText(text: string): JobState | undefined {
	const lower = text.toLowerCase();
	if (/\b(fail|error|broke|cancel|abort|expire|reject)/.test(lower)) return 'failed';
	if (/\b(not (yet )?(started|finished|done|complete)|in progress|pending|queued|waiting|running|processing)/.test(lower)) return 'pending';
	if (/\b(succe|finished|complete|done|ready)/.test(lower)) return 'succeeded';
	return undefined;
}

function resolveJobs(document: OpenApiDocument, shape: ObjectShape | undefined): JobContract {
	if (shape === undefined) return DEFAULT_JOBS;
	const properties = Object.entries(shape.properties);
	const withValues = properties.filter(([, schema]) => enumValues(document, schema) !== undefined);
	const status =
		withValues.find(([name]) => named('status', 'state', 'phase', 'stage')(name)) ??
		withValues.find(([name, schema]) => /status|state|phase/.test(`${normalizeName(name)} ${firstSentence(schema)}`));
	const id = properties.find(([name]) => named('id', 'job_id', 'uid')(name))?.[0];
	const pick = (test: (name: string, schema: Schema) => boolean) => properties.find(([name, schema]) => test(name, schema))?.[0];
	const result = pick(named('result', 'results', 'output', 'outputs')) ?? pick((_, schema) => /\bresult/.test(firstSentence(schema)));
	const error =
		pick(named('error', 'errors', 'failure', 'failure_reason')) ?? pick((_, schema) => /\b(fail|error)/.test(firstSentence(schema)));
	const states: Record<string, JobState> = {};
	if (status) {
		const values = enumValues(document, status[1]) ?? [];
		for (const [value, text] of Object.entries(enumExplanations(status[1], values))) {
			const state = stateFromText(text);
			if (state) states[value] = state;
		}
	}
	return {
		id: id ? [id] : DEFAULT_JOBS.id,
		status: status ? [status[0]] : DEFAULT_JOBS.status,
		result: result ? [result] : DEFAULT_JOBS.result,
		error: error ? [error] : DEFAULT_JOBS.error,
		states,
	};
}

/** The error body the document describes most often for 4xx and 5xx answers. */
function resolveErrors(document: OpenApiDocument, operations: Operations): ErrorContract {
	const counts = new Map<string, { count: number; schema: Schema }>();
	for (const { operation } of operations) {
		const responses = isRecord(operation.responses) ? operation.responses : {};
		for (const [status, response] of Object.entries(responses)) {
			if (!/^([45]\d\d|[45]XX|default)$/i.test(status)) continue;
			const content = jsonContent(document, response);
			if (content?.schema === undefined) continue;
			const key = JSON.stringify(content.schema);
			counts.set(key, { count: (counts.get(key)?.count ?? 0) + 1, schema: content.schema });
		}
	}
	const [best] = [...counts.values()].sort((a, b) => b.count - a.count);
	const shape = objectShape(document, best?.schema);
	if (shape === undefined) return DEFAULT_ERRORS;
	// In the order of preference, whatever order the schema lists them in.
	const pathsOf = (...names: string[]) => names.flatMap((name) => findPaths(document, shape, named(name)));
	const message = pathsOf('message', 'detail', 'error_description', 'title', 'description');
	const code = pathsOf('code', 'error_code', 'type');
	const details = findPaths(document, shape, (name, schema) => typesOf(schema).includes('array') && /detail|error|invalid|violation/.test(normalizeName(name)));
	const detailShape = details[0] ? objectShape(document, deref(document, findSchema(document, shape, details[0])?.items)) : undefined;
	const detailNames = Object.keys(detailShape?.properties ?? {});
	return {
		message: message.length > 0 ? message : DEFAULT_ERRORS.message,
		code: code.length > 0 ? code : DEFAULT_ERRORS.code,
		details: details.length > 0 ? details : DEFAULT_ERRORS.details,
		detailField: detailNames.filter(named('field', 'pointer', 'name', 'param', 'path', 'location')).concat(DEFAULT_ERRORS.detailField),
		detailMessage: detailNames.filter(named('message', 'detail', 'reason', 'description')).concat(DEFAULT_ERRORS.detailMessage),
	};
}

function findSchema(document: OpenApiDocument, shape: ObjectShape, path: string[]): Schema | undefined {
	let schema: Schema | undefined = { properties: shape.properties };
	for (const key of path) schema = deref(document, (objectShape(document, schema)?.properties ?? {})[key]);
	return schema;
}

function headerText(schema: Schema): string {
	return [schema.pattern, schema.description, schema.example, schema.format].filter((part) => typeof part === 'string').join(' ');
}

function resolveWebhooks(document: OpenApiDocument, endpoints: Record<EndpointName, ResolvedEndpoint>, operations: Operations): WebhookContract {
	const create = endpoints.createWebhook;
	const request = create.request;
	const field = (name: string, fallback: string, value?: unknown) => (request && findField(request, name, value)) ?? fallback;
	const eventsField = field('events', DEFAULT_WEBHOOKS.fields.events, []);
	const listedEvents = request?.properties[eventsField]
		? enumValues(document, deref(document, request.properties[eventsField].items))
		: undefined;
	const deliveries = Object.entries(isRecord(document.webhooks) ? document.webhooks : {});
	const events = listedEvents ?? (deliveries.length > 0 ? deliveries.map(([event]) => event) : undefined);

	const created = operations.find((entry) => entry.path === create.path && entry.method === 'post');
	const answerSchema = created ? successResponse(document, created.operation)?.schema : undefined;
	const answer = objectShape(document, answerSchema);
	const answerObject = create.envelope && answer ? objectShape(document, answer.properties[create.envelope]) : answer;

	const webhooks: WebhookContract = {
		...DEFAULT_WEBHOOKS,
		events,
		wildcard: events === undefined || events.includes('*'),
		secretField: request ? findField(request, 'secret', '') : DEFAULT_WEBHOOKS.secretField,
		secretAnswerField: answerObject
			? Object.keys(answerObject.properties).find((name) => /secret/.test(normalizeName(name)))
			: DEFAULT_WEBHOOKS.secretAnswerField,
		fields: { url: field('url', 'url', ''), events: eventsField, active: field('active', 'active', true) },
	};

	const delivery = deliveries
		.map(([, pathItem]) => (isRecord(pathItem) && isRecord(pathItem.post) ? { pathItem, operation: pathItem.post } : undefined))
		.find((entry) => entry !== undefined);
	if (delivery === undefined) return webhooks;
	const body = objectShape(document, jsonContent(document, delivery.operation.requestBody)?.schema);
	if (body) {
		const names = Object.entries(body.properties);
		const pick = (test: (name: string, schema: Schema) => boolean, fallback: string) => names.find(([name, schema]) => test(name, schema))?.[0] ?? fallback;
		webhooks.delivery = {
			type: pick((name, schema) => named('type', 'event', 'event_type', 'kind')(name) || typeof schema.const === 'string', 'type'),
			id: pick(named('id', 'event_id', 'delivery_id'), 'id'),
			time: pick((_, schema) => schema.format === 'date-time', 'created_at'),
			data: pick((name, schema) => named('data', 'payload', 'object')(name) || objectShape(document, schema) !== undefined, 'data'),
		};
	}
	const headers = parametersOf(document, delivery.pathItem, delivery.operation, 'header');
	const headerNamed = (test: RegExp) => Object.keys(headers).find((name) => test.test(name.toLowerCase()));
	const signature = headerNamed(/signature/);
	if (signature !== undefined) {
		const text = headerText(headers[signature]);
		const timestampHeader = headerNamed(/timestamp/);
		webhooks.signature = {
			format: /t=/.test(text) && /v1=/.test(text) ? 'timestamped' : 'sha256',
			header: signature.toLowerCase(),
			timestampHeader: timestampHeader?.toLowerCase(),
			deliveryIdHeader: headerNamed(/delivery|(^|-)id$/)?.toLowerCase(),
		};
	}
	return webhooks;
}

/** Everything the node needs, read from the service's OpenAPI document. */
export function resolveContract(document: OpenApiDocument): Contract {
	const operations = operationsOf(document);
	const endpoints = Object.fromEntries(
		(Object.keys(ENDPOINTS) as EndpointName[]).map((name) => [name, resolveEndpoint(document, operations, name)]),
	) as Record<EndpointName, ResolvedEndpoint>;
	return {
		document,
		endpoints,
		jobs: resolveJobs(document, jobShape(document, operations, endpoints.getJob)),
		errors: resolveErrors(document, operations),
		webhooks: resolveWebhooks(document, endpoints, operations),
	};
}

/**
 * The events to register, as the service names them: `*` is every event it lists when it has no
 * wildcard of its own, and an event it does not list fails before anything is sent.
 */
export function eventsToSend(webhooks: WebhookContract, events: string[]): string[] {
	const offered = webhooks.events;
	if (offered === undefined) return events;
	if (events.includes('*') && !webhooks.wildcard) return offered;
	const unknown = events.filter((event) => event !== '*' && !offered.includes(event));
	if (unknown.length > 0) {
		throw new ContractFieldError(
			`The service offers no event ${unknown.map((event) => `"${event}"`).join(', ')}`,
			`Its OpenAPI document lists: ${offered.join(', ')}. Choose from those under "Events".`,
		);
	}
	return events;
}
