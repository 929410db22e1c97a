import type { IDataObject } from 'n8n-workflow';

import { pathProblem } from '../../origin';
import { isRecord, own, ownEntries, pointerOf } from '../pointer';
import {
	HTTP_METHODS,
	OPERATIONS,
	type HttpMethod,
	type NotFollowed,
	type OperationName,
} from '../types';
import {
	DocumentReader,
	firstSentence,
	nameOf,
	normalizeName,
	ownArray,
	ownRecord,
	ownText,
	SchemaBudgetError,
	type OpenApiDocument,
	type Schema,
} from './document';
import { wordsOf } from './words';

/** One of a document's operations; which is each of the node's is `findOperation`'s to say. */
export interface DocumentOperation {
	/** Relative to the document's first server, with `{id}` for its one path parameter. */
	path: string;
	method: HttpMethod;
	pathItem: IDataObject;
	operation: IDataObject;
	/** Where it is in the document: `#/paths/~1posts~1{post}/post`. */
	from: string;
	/** What the document says it does: its operationId, summary and tags, as lower-case words. */
	said: string;
	/** Its path's parameters, whatever they are called: `dag_id`, `dag_run_id`. */
	pathParameters: string[];
}

// The largest number of operations a document's paths are read for; beyond it the rest are not.
const MAX_OPERATIONS = 5_000;
// No real operation has nearly as many parameters; each is copied with its description.
const MAX_PARAMETERS = 200;
// No real body comes in nearly as many media types; each is matched against JSON_TYPE.
const MAX_MEDIA_TYPES = 64;
// No real server URL is longer; every request's path would begin with a longer one's (HTTP 431).
const MAX_SERVER_URL = 2_000;

/** The path of the document's first server, which its paths are below (`/v1` + `/posts`), or none. */
function basePath(document: OpenApiDocument): string {
	const url = own(ownArray(document, 'servers')[0], 'url');
	if (typeof url !== 'string') return '';
	if (url.length > MAX_SERVER_URL)
		throw new SchemaBudgetError(
			`its server URL is longer than ${MAX_SERVER_URL.toLocaleString('en-US')} characters`,
		);
	try {
		// Variables (`{region}`) are the host's. Neither expression backtracks on `/////` or on `{{{{`.
		return new URL(url.replace(/\{[^{}]*\}/g, 'x'), 'http://service.invalid').pathname.replace(
			/(?<!\/)\/+$/,
			'',
		);
	} catch {
		return '';
	}
}

/**
 * An operation's id without the method it starts with where that word is no verb of its own:
 * Stripe's `PostCustomersCustomer` is a POST to a customer, no post (`getPost`'s get stays).
 */
function ownName(operation: IDataObject, method: HttpMethod): string {
	const id = ownText(operation, 'operationId');
	return method === 'POST' && /^post[A-Z_]/i.test(id) ? id.slice(4) : id;
}

/**
 * What an operation without a summary does, from its description's first sentence with its verb
 * as the words name it: Stripe's update says only "Updates the specified customer…".
 */
function whatItDoes(operation: IDataObject): string {
	return firstSentence(operation)
		.replace(/<[^>]*>/g, ' ')
		.trim()
		.replace(/^([a-z]+?)(?:(?<=(?:ch|sh|ss|x))es|(?<![su])s)\b/, '$1');
}

// Paths not followed are named in the profile up to this many; the rest are counted.
const MAX_PATHS_NAMED = 5;

/**
 * The document's operations. A path that is not a plain path below the Base URL (another host, a
 * dot segment) is not followed: it is added to `notFollowed`, and the built-in path stands in.
 */
export function* operationsOf(reader: DocumentReader, notFollowed: NotFollowed[] = []) {
	const found: DocumentOperation[] = [];
	const base = basePath(reader.document);
	const refused: NotFollowed[] = [];
	for (const [path, pathItem] of ownEntries(reader.document.paths)) {
		yield;
		const why = pathProblem(`${base}${path}`);
		if (why !== undefined) {
			const shown = path.length > 60 ? `${path.slice(0, 60)}…` : path;
			refused.push({ part: `the path ${JSON.stringify(shown)}`, why });
			continue;
		}
		if (!isRecord(pathItem)) continue;
		for (const method of HTTP_METHODS) {
			const operation = own(pathItem, method.toLowerCase());
			reader.spend();
			if (!isRecord(operation) || found.length >= MAX_OPERATIONS) continue;
			const tags = ownArray(operation, 'tags').filter((tag) => typeof tag === 'string');
			found.push({
				path: `${base}${path}`.replace(/\{[^{}]+\}/g, '{id}'),
				method,
				pathItem,
				operation,
				from: `#${pointerOf(['paths', path, method.toLowerCase()])}`,
				said: wordsOf(
					`${ownName(operation, method)} ${ownText(operation, 'summary') || whatItDoes(operation)} ${tags.join(' ')}`,
				),
				// `[^{}]` passes braces that never close once.
				pathParameters: [...path.matchAll(/\{([^{}]+)\}/g)].map(([, name]) => name),
			});
		}
	}
	notFollowed.push(...refused.slice(0, MAX_PATHS_NAMED));
	if (refused.length > MAX_PATHS_NAMED)
		notFollowed.push({
			part: `${refused.length - MAX_PATHS_NAMED} more paths`,
			why: 'each is not a plain path below the Base URL, as those above',
		});
	return found;
}

/**
 * What each operation of the node does, in words a document's operationIds and summaries use, and
 * the methods it may use, first the most usual.
 */
export const VERBS: Record<(typeof OPERATIONS)[OperationName]['verb'], [RegExp, HttpMethod[]]> = {
	list: [/\b(list|all|index|search|find|query|browse|many)\b/, ['GET']],
	get: [/\b(get|retrieve|read|fetch|show|find|describe|view|one)\b/, ['GET']],
	create: [/\b(create|add|new|register|make|insert)\b/, ['POST', 'PUT']],
	update: [/\b(update|modify|edit|change|replace|patch|set|upsert)\b/, ['PATCH', 'PUT', 'POST']],
	delete: [/\b(delete|remove|destroy|unregister|erase|drop)\b/, ['DELETE', 'POST']],
	generate: [/\b(generate|generation|create|write|draft|make|compose)\b/, ['POST']],
	publish: [/\b(publish|publication|share|post)\b/, ['POST']],
	wait: [/\b(get|retrieve|read|poll|status|check|fetch)\b/, ['GET']],
};
const RESOURCES: Record<(typeof OPERATIONS)[OperationName]['resource'], RegExp> = {
	account: /\b(me|account|user|profile|whoami|self)\b/,
	page: /\bpages?\b/,
	post: /\bposts?\b/,
	job: /\b(jobs?|tasks?|operations?)\b/,
	webhook: /\b(webhooks?|hooks?|subscriptions?|callbacks?)\b/,
	blog: /\bblog/,
	linkedin: /\blinked ?in\b/,
	twitter: /\b(twitter|tweets?|x)\b/,
	carousel: /\bcarousels?\b/,
	video: /\bvideos?\b/,
};

/**
 * The document's operation for one of the node's: the built-in method on the built-in path; else
 * there, the one other method of the purpose whose words say it (Stripe's `POST` update), or for an
 * update the one PUT or PATCH; else anywhere, the one whose words say the purpose and the resource,
 * with as many path parameters and a method of the purpose.
 */
export function findOperation(
	reader: DocumentReader,
	operations: DocumentOperation[],
	name: OperationName,
	builtIn: { method: HttpMethod; path: string },
): DocumentOperation | undefined {
	const { verb, resource } = OPERATIONS[name];
	const [said, methods] = VERBS[verb];
	reader.spend(operations.length);
	const atPath = operations.filter((entry) => entry.path === builtIn.path);
	const exact = atPath.find((entry) => entry.method === builtIn.method);
	if (exact !== undefined) return exact;
	const says = (entry: DocumentOperation) => said.test(entry.said);
	const samePath = atPath.filter(
		(entry) => methods.includes(entry.method) && entry.method !== 'GET' && says(entry),
	);
	if (samePath.length === 1) return samePath[0];
	if (verb === 'update') {
		const replacing = atPath.filter((entry) => entry.method === 'PUT' || entry.method === 'PATCH');
		if (replacing.length === 1) return replacing[0];
	}
	const elsewhere = operations.filter(
		(entry) =>
			entry.pathParameters.length === Number(builtIn.path.includes('{id}')) &&
			methods.includes(entry.method) &&
			says(entry) &&
			RESOURCES[resource].test(`${entry.said} ${wordsOf(entry.path)}`),
	);
	return elsewhere.length === 1 ? elsewhere[0] : undefined;
}

const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\b/i;

function mediaTypesOf(content: unknown): string[] {
	const types = isRecord(content) ? Object.keys(content) : [];
	if (types.length > MAX_MEDIA_TYPES)
		throw new SchemaBudgetError(`it has a body of more than ${MAX_MEDIA_TYPES} media types`);
	return types.map(nameOf);
}

/** The body the document declares and the media type to send it as: JSON first, then any `+json`, then a form. */
export function requestOf(reader: DocumentReader, operation: IDataObject) {
	const content = ownRecord(reader.deref(own(operation, 'requestBody')), 'content');
	if (content === undefined) return undefined;
	const types = mediaTypesOf(content);
	const mediaType =
		types.find((type) => /^application\/json\b/i.test(type)) ??
		types.find((type) => JSON_TYPE.test(type)) ??
		types.find((type) => /^application\/x-www-form-urlencoded\b/i.test(type));
	if (mediaType === undefined) return undefined;
	const schema = reader.deref(own(own(content, mediaType), 'schema'));
	return { schema, shape: reader.shape(schema), mediaType: mediaType.split(';')[0].trim() };
}

export function responseSchema(reader: DocumentReader, response: unknown): Schema | undefined {
	const content = ownRecord(reader.deref(response), 'content');
	const mediaType = mediaTypesOf(content).find((type) => JSON_TYPE.test(type));
	return mediaType === undefined ? undefined : reader.deref(own(own(content, mediaType), 'schema'));
}

/** The success answers of an operation, lowest status first. */
export function successes(reader: DocumentReader, operation: IDataObject) {
	const responses = ownRecord(operation, 'responses') ?? {};
	return Object.keys(responses)
		.filter((code) => /^2(\d\d|XX)$/i.test(code))
		.sort()
		.map((status) => {
			const response = reader.deref(own(responses, status));
			const headers = new Map<string, Schema>();
			for (const [name, header] of ownEntries(ownRecord(response, 'headers'))) {
				reader.spend();
				headers.set(nameOf(name).toLowerCase(), reader.deref(header) ?? {});
			}
			return { status, schema: responseSchema(reader, response), headers };
		});
}

/** The success answer an operation is read by: the first that has a schema, else the first. */
export function successOf(reader: DocumentReader, operation: IDataObject) {
	const answers = successes(reader, operation);
	return answers.find((answer) => answer.schema !== undefined) ?? answers[0];
}

/** The operation's parameters, path-level ones included, by where they go; `required` gets the names of required ones. */
export function parametersOf(
	reader: DocumentReader,
	entry: Pick<DocumentOperation, 'pathItem' | 'operation'>,
	location: 'query' | 'header',
	required = new Set<string>(),
): Map<string, Schema> {
	const found = new Map<string, Schema>();
	const parameters = [
		...ownArray(entry.pathItem, 'parameters'),
		...ownArray(entry.operation, 'parameters'),
	];
	if (parameters.length > MAX_PARAMETERS)
		throw new SchemaBudgetError(`it has more than ${MAX_PARAMETERS} parameters`);
	for (const item of parameters) {
		reader.spend();
		const parameter = reader.deref(item);
		const name = own(parameter, 'name');
		if (own(parameter, 'in') !== location || typeof name !== 'string') continue;
		found.set(nameOf(name), {
			...(reader.deref(own(parameter, 'schema')) ?? {}),
			description: ownText(parameter, 'description'),
		});
		// The operation's own declaration replaces the path's.
		if (own(parameter, 'required') === true) required.add(name);
		else required.delete(name);
	}
	return found;
}

export function named(...names: string[]) {
	const wanted = new Set(names.map(normalizeName));
	return (name: string) => wanted.has(normalizeName(name));
}

export function unique<T>(values: T[]): T[] {
	const seen = new Set<string>();
	return values.filter((value) => {
		const key = JSON.stringify(value);
		return !seen.has(key) && seen.add(key) !== undefined;
	});
}

/** Paths (up to `depth` deep) to the properties of an answer that pass a test, in the answer's order. */
export function findPaths(
	reader: DocumentReader,
	schema: Schema | undefined,
	test: (name: string, property: Schema) => boolean,
	prefix: string[] = [],
	depth = 2,
): string[][] {
	const shape = reader.shape(schema);
	if (shape === undefined) return [];
	const found: string[][] = [];
	for (const [name, property] of shape.properties) {
		reader.spend();
		if (test(name, property)) found.push([...prefix, name]);
		if (prefix.length + 1 < depth && !reader.isArray(property))
			found.push(...findPaths(reader, property, test, [...prefix, name], depth));
	}
	return found;
}
