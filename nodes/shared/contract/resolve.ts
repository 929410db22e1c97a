import type { IHttpRequestMethods } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ENDPOINT_NAMES, ENDPOINTS, type EndpointName, type EndpointSpec } from './catalog';
import { DEFAULT_DOCUMENT } from './defaultDocument';
import {
	enumExplanations,
	findPaths,
	named,
	operationsOf,
	parametersOf,
	requestOf,
	responseSchema,
	stateFromText,
	successes,
	uniquePaths,
	type Operation,
	type Success,
} from './operations';
import {
	DocumentReader,
	firstSentence,
	normalizeName,
	own,
	ownRecord,
	ownText,
	SchemaBudgetError,
	type ObjectShape,
	type OpenApiDocument,
	type Schema,
} from './schema';
import type {
	AnswerReading,
	Contract,
	ErrorReading,
	JobReading,
	JobReference,
	JobState,
	Paging,
	Path,
	Pointer,
	ResolvedEndpoint,
} from './types';
import { resolveWebhooks } from './webhooks';

/**
 * Reads an OpenAPI document into a Contract, step by step: each endpoint, the jobs, the errors and
 * the webhooks are one step each, with a yield to n8n in between and a budget for the whole. A step
 * the document does not allow (missing, or beyond the budget) is taken from the built-in document,
 * and the notice says which.
 */

// Steps (schema expansions, properties copied, references followed) one document may take to read.
const READ_BUDGET = 200_000;
// Steps one part of the reading (an endpoint, the envelopes, the errors) may take between two breaks for n8n.
const STEP_BUDGET = 20_000;
// Most properties (or query parameters) a request may have for the node to follow it: real APIs
// have tens, and every field of every item is looked for among them (see resolveEndpoint).
const MAX_REQUEST_FIELDS = 200;
// How long reading one document may take in all; what is left then is read from the built-in one.
const READ_DEADLINE_MS = 3_000;
// How long the reading runs before it lets n8n run.
const SLICE_MS = 4;
const DEFAULT_MAX_PAGE_SIZE = 100;
// Paths into an answer are looked for this deep: `{data: {items: [...]}}`.
const MAX_PATH_DEPTH = 3;

// ------------------------------------------------------------------------------------------------
// Where a resource sits in an answer

/** Whether an object has an identifier of its own: `id`, `uid`, or `<resource>Id`. */
function hasId(shape: ObjectShape | undefined, resource?: string): boolean {
	if (shape === undefined) return false;
	const ids = new Set(['id', 'uid', 'uuid', ...(resource ? [`${resource.toLowerCase()}id`] : [])]);
	return [...shape.properties.keys()].some((name) => ids.has(normalizeName(name)));
}

/** The object properties of an answer that could hold a resource: objects with an id. */
function holders(reader: DocumentReader, shape: ObjectShape, resource?: string): string[] {
	return [...shape.properties.entries()]
		.filter(([, schema]) => !reader.isArray(schema) && hasId(reader.shape(schema), resource))
		.map(([name]) => name);
}

/**
 * Where the resource is in one form of an answer: the answer itself when it has an id; else the
 * one property holding an object with an id (`data`, `result`), whatever sits beside it
 * (`success`, `errors`, `messages`); where several could, the one the document's other answers
 * use; else the answer itself.
 */
function resourcePath(
	reader: DocumentReader,
	schema: Schema | undefined,
	context: ReadingContext,
	resource?: string,
	depth = 0,
): Path {
	const shape = reader.shape(schema);
	if (shape === undefined || hasId(shape, resource) || depth >= MAX_PATH_DEPTH) return [];
	const candidates = holders(reader, shape, resource);
	// Without an object with an id in it (a result computed at once), the property the document's
	// other answers wrap their resource in, where this answer has it as an object.
	const wrapper = [...shape.properties.entries()].find(
		([name, property]) => context.envelopes.has(name) && reader.shape(property) !== undefined,
	)?.[0];
	const chosen =
		candidates.length === 1
			? candidates[0]
			: (candidates.find((name) => context.envelopes.has(name)) ??
				(candidates.length === 0 ? wrapper : undefined));
	return chosen === undefined
		? []
		: [chosen, ...resourcePath(reader, shape.properties.get(chosen), context, resource, depth + 1)];
}

/**
 * Where a list's items are in one form of its answer: the array of the resource (the same schema
 * the resource's own endpoint answers with, or objects with an id), not an `errors` or `messages`
 * array beside it; a bare array is the list itself.
 */
function itemsPath(
	reader: DocumentReader,
	schema: Schema | undefined,
	resourceSchema: Schema | undefined,
	resource?: string,
	depth = 0,
): Path | undefined {
	if (schema === undefined) return undefined;
	if (reader.isArray(schema)) return [];
	const shape = reader.shape(schema);
	if (shape === undefined || depth >= MAX_PATH_DEPTH) return undefined;
	const arrays = [...shape.properties.entries()].filter(([, property]) => reader.isArray(property));
	const isResource = (property: Schema) => {
		const item = reader.items(property);
		return (
			(resourceSchema !== undefined && item === resourceSchema) ||
			hasId(reader.shape(item), resource)
		);
	};
	const found = arrays.find(([, property]) => isResource(property));
	if (found) return [found[0]];
	for (const [name, property] of shape.properties) {
		if (reader.isArray(property) || reader.shape(property) === undefined) continue;
		const inner = itemsPath(reader, property, resourceSchema, resource, depth + 1);
		if (inner !== undefined && inner.length > 0) return [name, ...inner];
	}
	// No array holds objects with an id: the only array, if it is not one of errors or messages.
	const plain = arrays.filter(([name]) => !/error|message|warning/.test(normalizeName(name)));
	return plain.length === 1 ? [plain[0][0]] : undefined;
}

// ------------------------------------------------------------------------------------------------
// Paging

function isUri(reader: DocumentReader, schema: Schema): boolean {
	return reader
		.variants(schema)
		.some((variant) => /^(uri|uri-reference|url|iri)$/.test(ownText(variant, 'format')));
}

function pagingOf(
	reader: DocumentReader,
	query: Map<string, Schema>,
	answers: Schema[],
	success: Success | undefined,
): Paging {
	const parameter = (test: (name: string) => boolean) => [...query.keys()].find(test);
	const size = parameter(
		named(
			'limit',
			'per_page',
			'page_size',
			'pageSize',
			'size',
			'count',
			'max_results',
			'maxResults',
			'first',
			'top',
		),
	);
	const max =
		Number(size === undefined ? NaN : own(query.get(size), 'maximum')) || DEFAULT_MAX_PAGE_SIZE;
	const inAnswers = (test: (name: string, schema: Schema) => boolean) =>
		uniquePaths(answers.flatMap((answer) => findPaths(reader, answer, test)));
	const header = (test: (name: string, schema: Schema) => boolean) =>
		[...(success?.headers ?? new Map<string, Schema>()).entries()].find(([name, schema]) =>
			test(name, schema),
		)?.[0];

	// A next page's address: in the body (`next`, `links.next`, `@odata.nextLink`), or in a `Link` header (RFC 8288).
	const nextLinks: Pointer[] = inAnswers(
		(name, schema) =>
			/^(next|nextlink|nexturl|nextpage|odatanextlink)$/.test(normalizeName(name)) &&
			(isUri(reader, schema) || /\b(url|link|address)/.test(firstSentence(schema))),
	).map((path) => ({ in: 'body', path }));
	const linkHeader = header((name) => name === 'link');
	if (linkHeader !== undefined) nextLinks.push({ in: 'header', name: 'link', link: true });
	const nextHeader = header(
		(name, schema) =>
			/next/.test(normalizeName(name)) &&
			/(url|link|page)$/.test(normalizeName(name)) &&
			isUri(reader, schema),
	);
	if (nextHeader !== undefined) nextLinks.push({ in: 'header', name: nextHeader });
	if (nextLinks.length > 0) return { style: 'link', size, max, next: nextLinks };

	const cursor = parameter((name) =>
		/cursor|token|^after$|^startingafter$|^afterid$|continuation|^since$|^sinceid$/.test(
			normalizeName(name),
		),
	);
	const nextCursors: Pointer[] = inAnswers(
		(name) =>
			/cursor|token|continuation/.test(normalizeName(name)) &&
			!/prev|before/.test(normalizeName(name)),
	).map((path) => ({ in: 'body', path }));
	const cursorHeader = header(
		(name) => /next/.test(normalizeName(name)) && /cursor|token/.test(normalizeName(name)),
	);
	if (cursorHeader !== undefined) nextCursors.push({ in: 'header', name: cursorHeader });
	if (cursor !== undefined && nextCursors.length > 0)
		return { style: 'cursor', size, max, cursor, next: nextCursors };
	if (cursor !== undefined) {
		// `starting_after` with `has_more` (Stripe): the next page starts after the last item's id.
		const more = inAnswers(
			(name, schema) =>
				named('has_more', 'more', 'has_next', 'has_next_page')(name) &&
				reader.types(schema).includes('boolean'),
		)[0];
		return { style: 'after', size, max, cursor, more };
	}
	// In the order of preference, whatever order the answer lists them in: Cloudflare's `count` is the page's own.
	const preferred = (...names: string[]) =>
		names.map((name) => inAnswers(named(name))[0]).find((path) => path !== undefined);
	const total = preferred('total', 'total_count', 'total_items', 'total_results', 'count');
	const page = parameter(named('page', 'page_number', 'pageNumber'));
	if (page !== undefined) {
		const schema = query.get(page);
		const first = Number(own(schema, 'minimum') ?? own(schema, 'default') ?? 1);
		return { style: 'page', size, max, page, first: Number.isInteger(first) ? first : 1, total };
	}
	const offset = parameter(named('offset', 'skip', 'start'));
	if (offset !== undefined) return { style: 'offset', size, max, offset, total };
	return { style: 'none', max };
}

/**
 * A list's text-search parameter: a string parameter called like one (`q`, `search`, `query`) or
 * whose description says it searches or matches text.
 */
function searchOf(reader: DocumentReader, query: Map<string, Schema>): string | undefined {
	const isText = (schema: Schema) =>
		reader.types(schema).length === 0 || reader.types(schema).includes('string');
	const names = [...query.keys()].filter((name) => isText(query.get(name) as Schema));
	return (
		names.find(named('q', 'query', 'search', 'search_term', 'keyword')) ??
		names.find((name) =>
			/\b(search|substring|matching|contains)/.test(firstSentence(query.get(name))),
		)
	);
}

// ------------------------------------------------------------------------------------------------
// Jobs

/** How an answer refers to the job it started: it is the job, holds it, names its id, or points at it. */
function jobReferences(
	reader: DocumentReader,
	answer: Success | undefined,
	context: ReadingContext,
): JobReference[] {
	const references: JobReference[] = [];
	for (const variant of reader.variants(answer?.schema)) {
		const shape = reader.shape(variant);
		if (shape === undefined) continue;
		if (context.isJob(variant)) {
			references.push({ kind: 'job', path: [] });
			continue;
		}
		for (const [name, property] of shape.properties) {
			if (context.isJob(property)) references.push({ kind: 'job', path: [name] });
			else if (
				normalizeName(name) === 'jobid' ||
				/\b(id|identifier) of the job\b/.test(firstSentence(property))
			)
				references.push({ kind: 'id', path: [name] });
		}
	}
	if (answer?.headers.has('location') || answer?.status === '202')
		references.push({ kind: 'location' });
	return uniqueReferences(references);
}

function uniqueReferences(references: JobReference[]): JobReference[] {
	const seen = new Set<string>();
	return references.filter((reference) => {
		const key = JSON.stringify(reference);
		return !seen.has(key) && seen.add(key) !== undefined;
	});
}

function resolveJobs(
	reader: DocumentReader,
	schema: Schema | undefined,
	fallback: JobReading | undefined,
): JobReading {
	const shape = reader.shape(schema);
	if (shape === undefined && fallback !== undefined) return fallback;
	const properties = [...(shape?.properties.entries() ?? [])];
	const pick = (test: (name: string, schema: Schema) => boolean) =>
		properties.find(([name, property]) => test(name, property))?.[0];
	const withValues = properties.filter(([, property]) => reader.enumValues(property) !== undefined);
	const status =
		withValues.find(([name]) => named('status', 'state', 'phase', 'stage')(name)) ??
		withValues.find(([name, property]) =>
			/status|state|phase/.test(`${normalizeName(name)} ${firstSentence(property)}`),
		) ??
		properties.find(([name]) => named('status', 'state', 'phase')(name));
	const id = pick(named('id', 'job_id', 'uid', 'uuid'));
	const result =
		pick(named('result', 'results', 'output', 'outputs')) ??
		pick((_, property) => /\bresult/.test(firstSentence(property)));
	const error =
		pick(named('error', 'errors', 'failure')) ??
		pick(
			(name, property) =>
				reader.shape(property) !== undefined && /\b(fail|error)/.test(firstSentence(property)),
		);
	// A job may say why it failed in fields of its own (Twilio's `error_code` and `error_message`).
	const errorMessage = pick(
		named('error_message', 'failure_reason', 'failure_message', 'status_message'),
	);
	const errorCode = pick(named('error_code', 'failure_code'));
	const kind =
		pick(named('type', 'kind', 'job_type', 'operation', 'task')) ??
		pick((_, property) => /\b(kind|type) of (the )?job/.test(firstSentence(property)));
	const states: Record<string, JobState> = {};
	if (status) {
		const values = reader.enumValues(status[1]) ?? [];
		const explanations = enumExplanations(reader, status[1], values);
		for (const value of values) {
			const state = stateFromText(explanations[value] ?? '') ?? stateFromText(value);
			if (state) states[value] = state;
		}
	}
	const media = mediaNames(
		reader,
		result === undefined ? undefined : shape?.properties.get(result),
	);
	return {
		id: id ? [[id]] : (fallback?.id ?? [['id']]),
		status: status ? [[status[0]]] : (fallback?.status ?? [['status']]),
		states: Object.keys(states).length > 0 || fallback === undefined ? states : fallback.states,
		result: result ? [[result]] : (fallback?.result ?? [['result']]),
		error: error ? [[error]] : (fallback?.error ?? [['error']]),
		errorMessage: errorMessage ? [[errorMessage]] : (fallback?.errorMessage ?? []),
		errorCode: errorCode ? [[errorCode]] : (fallback?.errorCode ?? []),
		kind: kind ? [[kind]] : (fallback?.kind ?? []),
		media: media.length > 0 || fallback === undefined ? media : fallback.media,
	};
}

const MEDIA_WORDS =
	/video|image|audio|media|thumbnail|picture|photo|file|asset|download|poster|clip|render/;

/** The names of the properties of a job's result, at any depth, that hold media addresses. */
function mediaNames(reader: DocumentReader, schema: Schema | undefined): string[] {
	const names = new Set<string>();
	const visit = (value: Schema | undefined, depth: number) => {
		if (value === undefined || depth > 4) return;
		for (const variant of reader.variants(value)) {
			const item = reader.items(variant);
			if (item !== undefined) visit(item, depth + 1);
			for (const [name, property] of reader.shape(variant)?.properties ?? []) {
				reader.spend();
				const text = `${normalizeName(name)} ${firstSentence(property)} ${ownText(property, 'contentMediaType')}`;
				if (
					reader.types(property).includes('string') &&
					isUri(reader, property) &&
					MEDIA_WORDS.test(text)
				)
					names.add(normalizeName(name));
				else visit(property, depth + 1);
			}
		}
	};
	visit(schema, 0);
	return [...names];
}

// ------------------------------------------------------------------------------------------------
// Errors

function resolveErrors(
	reader: DocumentReader,
	operations: Operation[],
	fallback: ErrorReading | undefined,
): ErrorReading {
	// The error body most of the document's 4xx/5xx answers use; by schema identity, never by text.
	const counts = new Map<Schema, number>();
	for (const { operation } of operations) {
		for (const [status, response] of Object.entries(ownRecord(operation, 'responses') ?? {})) {
			reader.spend();
			if (!/^([45]\d\d|[45]XX|default)$/i.test(status)) continue;
			const schema = responseSchema(reader, response);
			if (schema !== undefined) counts.set(schema, (counts.get(schema) ?? 0) + 1);
		}
	}
	const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
	if (reader.shape(best?.[0]) === undefined && fallback !== undefined) return fallback;
	const schema = best?.[0];
	// In the order of preference, whatever order the schema lists them in.
	const pathsOf = (...names: string[]) =>
		uniquePaths(
			names.flatMap((name) =>
				reader
					.variants(schema)
					.flatMap((variant) =>
						findPaths(
							reader,
							variant,
							(property, value) =>
								named(name)(property) &&
								!reader.isArray(value) &&
								reader.shape(value) === undefined,
						),
					),
			),
		);
	const details = uniquePaths(
		reader
			.variants(schema)
			.flatMap((variant) =>
				findPaths(
					reader,
					variant,
					(name, value) =>
						reader.isArray(value) &&
						/detail|error|invalid|violation|message/.test(normalizeName(name)),
				),
			),
	);
	const detailNames = new Set<string>();
	for (const variant of reader.variants(schema)) {
		for (const path of details) {
			let property: Schema | undefined = variant;
			for (const key of path) property = reader.shape(property)?.properties.get(key);
			for (const name of reader.shape(reader.items(property))?.properties.keys() ?? [])
				detailNames.add(name);
		}
	}
	const detailNamed = (...names: string[]) => [...detailNames].filter(named(...names));
	return {
		message: pathsOf('message', 'detail', 'error_description', 'title', 'description', 'error'),
		code: pathsOf('code', 'error_code', 'type', 'status_code'),
		details,
		detailField: [
			...new Set([
				...detailNamed('field', 'pointer', 'name', 'param', 'path', 'location'),
				'field',
			]),
		],
		detailMessage: [
			...new Set([...detailNamed('message', 'detail', 'reason', 'description'), 'message']),
		],
		detailCode: [...new Set([...detailNamed('code', 'error_code', 'type'), 'code'])],
	};
}

// ------------------------------------------------------------------------------------------------
// Endpoints

interface ReadingContext {
	/** Properties the document's answers wrap their resource in, such as `data` or `result`. */
	envelopes: Set<string>;
	/** Whether a schema is the job the job endpoint answers with. */
	isJob(schema: Schema | undefined): boolean;
	/** The schema each resource's own endpoint answers with. */
	resources: Map<string, Schema>;
	builtInJobs(name: EndpointName): JobReference[];
}

function findOperation(operations: Operation[], spec: EndpointSpec): Operation | undefined {
	const atPath = operations.filter((entry) => entry.path === spec.path);
	const method = spec.method.toLowerCase();
	// An update may be a PATCH or a PUT; whichever the service documents is the one.
	return (
		atPath.find((entry) => entry.method === method) ??
		(method === 'patch' ? atPath.find((entry) => entry.method === 'put') : undefined)
	);
}

function resolveEndpoint(
	reader: DocumentReader,
	entry: Operation,
	name: EndpointName,
	context: ReadingContext,
): ResolvedEndpoint {
	const spec: EndpointSpec = ENDPOINTS[name];
	const request = requestOf(reader, entry.operation);
	const answers = successes(reader, entry.operation);
	const success = answers.find((answer) => answer.schema !== undefined) ?? answers[0];
	const query = parametersOf(reader, entry, 'query');
	// Each of the node's fields is looked for among a request's properties, by name and description,
	// for every item: a body of 6,000 described properties held n8n's event loop for 200 ms an item,
	// one of 500 for up to 50 ms.
	if (
		(request?.shape?.properties.size ?? 0) > MAX_REQUEST_FIELDS ||
		query.size > MAX_REQUEST_FIELDS
	) {
		throw new SchemaBudgetError(
			`its request has more than ${MAX_REQUEST_FIELDS.toLocaleString('en-US')} fields`,
		);
	}
	const headers = parametersOf(reader, entry, 'header');
	const resourceSchema = spec.resource ? context.resources.get(spec.resource) : undefined;
	const variants = reader.variants(success?.schema);
	const answer: AnswerReading = { resource: [], items: [], jobs: [], itemId: 'id' };
	let paging: Paging = { style: 'none', max: 0 };
	if (spec.answer === 'list') {
		answer.items = uniquePaths(
			variants
				.map((variant) => itemsPath(reader, variant, resourceSchema, spec.resource))
				.filter((path): path is Path => path !== undefined),
		);
		const first = variants
			.map((variant) => ({
				variant,
				path: itemsPath(reader, variant, resourceSchema, spec.resource),
			}))
			.find(({ path }) => path !== undefined);
		let listed: Schema | undefined = first?.variant;
		for (const key of first?.path ?? []) listed = reader.shape(listed)?.properties.get(key);
		answer.item = reader.shape(
			first?.path?.length === 0 ? reader.items(first.variant) : reader.items(listed),
		);
		answer.itemId =
			[...(answer.item?.properties.keys() ?? [])].find((key) =>
				['id', 'uid', 'uuid', `${(spec.resource ?? '').toLowerCase()}id`].includes(
					normalizeName(key),
				),
			) ?? 'id';
		paging = pagingOf(reader, query, variants, success);
	} else if (spec.answer === 'job') {
		answer.jobs = jobReferences(reader, success, context);
		answer.resource = uniquePaths(
			variants.map((variant) => resourcePath(reader, variant, context, spec.resource)),
		);
		// Where the document does not say how, the built-in ways of referring to a job stand in.
		if (answer.jobs.length === 0) answer.jobs = context.builtInJobs(name);
	} else {
		answer.resource = uniquePaths(
			variants.map((variant) => resourcePath(reader, variant, context, spec.resource)),
		);
	}
	// `Idempotency-Key` (IETF draft, Stripe), OASIS Repeatable Requests (Azure), or a header described as such.
	const idempotencyHeader = [...headers.keys()].find(
		(header) =>
			/^(x-)?idempotency-?key$|^repeatability-request-id$/i.test(header) ||
			/idempoten|carried out once/.test(firstSentence(headers.get(header))),
	);
	const firstSentHeader = [...headers.keys()].find((header) =>
		/^repeatability-first-sent$/i.test(header),
	);
	const readsName =
		spec.reads !== undefined && spec.reads in ENDPOINTS ? (spec.reads as EndpointName) : undefined;
	return {
		name,
		method: entry.method.toUpperCase() as IHttpRequestMethods,
		path: spec.path,
		documented: true,
		request: request?.shape,
		mediaType: request?.mediaType ?? 'application/json',
		query,
		idempotencyHeader,
		firstSentHeader: idempotencyHeader === undefined ? undefined : firstSentHeader,
		answer,
		paging,
		search: spec.answer === 'list' ? searchOf(reader, query) : undefined,
		// A PUT whose body has required fields replaces the whole object.
		replaces:
			entry.method === 'put' && readsName !== undefined && (request?.shape?.required.size ?? 0) > 0,
		reads: readsName,
	};
}

/** The properties that hold a resource in the document's object answers, and how often. */
function envelopesOf(reader: DocumentReader, operations: Operation[]): Set<string> {
	const counts = new Map<string, number>();
	for (const entry of operations) {
		for (const variant of reader.variants(successes(reader, entry.operation)[0]?.schema)) {
			const shape = reader.shape(variant);
			if (shape === undefined || hasId(shape)) continue;
			for (const name of holders(reader, shape)) counts.set(name, (counts.get(name) ?? 0) + 1);
		}
	}
	return new Set([...counts.entries()].filter(([, count]) => count >= 2).map(([name]) => name));
}

// ------------------------------------------------------------------------------------------------
// The whole document

let builtIn: Promise<Contract> | undefined;

/** The built-in conventions, read once from the built-in document. */
export async function builtInContract(): Promise<Contract> {
	builtIn ??= readDocument(DEFAULT_DOCUMENT, undefined);
	return await builtIn;
}

/** Everything the node needs, read from the service's OpenAPI document. */
export async function resolveContract(document: OpenApiDocument): Promise<Contract> {
	return await readDocument(document, await builtInContract());
}

async function readDocument(
	document: OpenApiDocument,
	fallback: Contract | undefined,
): Promise<Contract> {
	const reader = new DocumentReader(document, READ_BUDGET);
	const deadline = Date.now() + READ_DEADLINE_MS;
	const notFollowed: string[] = [];
	const operations = operationsOf(document);
	let slice = Date.now();
	/**
	 * Runs one step of the reading, after letting n8n run once the steps since the last pause took a
	 * few milliseconds; a step that fails or comes late reads as the fallback.
	 */
	async function step<T>(what: string, read: () => T, otherwise: () => T): Promise<T> {
		if (Date.now() - slice >= SLICE_MS) {
			await sleep(0);
			slice = Date.now();
		}
		if (fallback === undefined) return read();
		if (Date.now() > deadline) {
			notFollowed.push(`${what} (reading took longer than ${READ_DEADLINE_MS / 1000} seconds)`);
			return otherwise();
		}
		try {
			reader.beginStep(STEP_BUDGET);
			return read();
		} catch (error) {
			// A part the node cannot read (beyond the budget, or built in a way nothing foresaw) is a part it does not follow.
			notFollowed.push(
				`${what} (${error instanceof SchemaBudgetError ? error.message : 'it is not built as an OpenAPI document describes'})`,
			);
			return otherwise();
		}
	}

	const getJob = findOperation(operations, ENDPOINTS.getJob);
	const jobSchemaOf = () => {
		const success = getJob ? successes(reader, getJob.operation)[0] : undefined;
		const path = resourcePath(
			reader,
			success?.schema,
			{ ...noContext, envelopes: new Set() },
			'job',
		);
		let schema = success?.schema;
		for (const key of path) schema = reader.shape(schema)?.properties.get(key);
		return schema;
	};
	const noContext: ReadingContext = {
		envelopes: new Set<string>(),
		isJob: () => false,
		resources: new Map<string, Schema>(),
		builtInJobs: (name) => fallback?.endpoints[name].answer.jobs ?? [],
	};
	// The job's schema is a step of its own: envelopes beyond a step's budget must not also lose how
	// answers that start a job are recognised (the node would no longer wait for jobs).
	const jobSchema = await step('its jobs', jobSchemaOf, () => undefined);
	const context: ReadingContext = {
		...noContext,
		envelopes: await step(
			"its answers' envelopes",
			() => envelopesOf(reader, operations),
			() => noContext.envelopes,
		),
		isJob: (schema: Schema | undefined) =>
			jobSchema !== undefined && reader.variants(schema).includes(jobSchema),
	};

	const endpoints = {} as Record<EndpointName, ResolvedEndpoint>;
	// Single resources first: a list's items are recognised as the resource its own endpoint answers with.
	const order = [...ENDPOINT_NAMES].sort(
		(a, b) => Number(ENDPOINTS[a].answer === 'list') - Number(ENDPOINTS[b].answer === 'list'),
	);
	for (const name of order) {
		const entry = findOperation(operations, ENDPOINTS[name]);
		// An endpoint the document does not name follows the built-in document, which names every one.
		const builtInEndpoint = () => (fallback as Contract).endpoints[name];
		if (entry === undefined && fallback !== undefined) {
			endpoints[name] = builtInEndpoint();
			continue;
		}
		const spec: EndpointSpec = ENDPOINTS[name];
		const documented = entry as Operation;
		// The resource's schema is noted within the step: noted after it, past the budget, it threw out
		// of the whole reading, and a document that spent the budget failed every request.
		endpoints[name] = await step(
			`${spec.method} ${spec.path}`,
			() => {
				const endpoint = resolveEndpoint(reader, documented, name, context);
				if (
					spec.resource !== undefined &&
					spec.answer === 'object' &&
					spec.method === 'GET' &&
					!context.resources.has(spec.resource)
				) {
					let schema = successes(reader, documented.operation)[0]?.schema;
					for (const key of endpoint.answer.resource[0] ?? [])
						schema = reader.shape(schema)?.properties.get(key);
					if (schema !== undefined) context.resources.set(spec.resource, schema);
				}
				return endpoint;
			},
			builtInEndpoint,
		);
	}
	const jobs = await step(
		'its jobs',
		() => resolveJobs(reader, jobSchema, fallback?.jobs),
		() => fallback?.jobs as JobReading,
	);
	const errors = await step(
		'its error answers',
		() => resolveErrors(reader, operations, fallback?.errors),
		() => fallback?.errors as ErrorReading,
	);
	const webhooks = await step(
		'its webhooks',
		() =>
			resolveWebhooks(
				reader,
				operations,
				endpoints,
				fallback?.webhooks,
				context.isJob,
				context.resources,
			),
		() => fallback?.webhooks as Contract['webhooks'],
	);
	const contract: Contract = { reader, endpoints, jobs, errors, webhooks };
	if (fallback !== undefined) {
		contract.document = document;
		if (notFollowed.length > 0) {
			contract.notice = `The node could not follow these parts of the service's OpenAPI document and used its built-in conventions for them: ${notFollowed.join('; ')}.`;
		}
	} else {
		// The built-in document describes itself in full; its endpoints count as not the service's own.
		for (const name of ENDPOINT_NAMES) endpoints[name].documented = false;
	}
	return contract;
}
