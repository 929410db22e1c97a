import type { IDataObject } from 'n8n-workflow';

import {
	DocumentReader,
	HTTP_METHODS,
	isRecord,
	normalizeName,
	own,
	ownArray,
	ownRecord,
	ownText,
	type ObjectShape,
	type OpenApiDocument,
	type Schema,
} from './schema';
import type { JobState, Path } from './types';

/**
 * The parts of a document every reading needs: its operations, their bodies, answers and
 * parameters, paths into answers, and what enum values are explained to mean.
 */

export interface Operation {
	path: string;
	method: string;
	pathItem: IDataObject;
	operation: IDataObject;
}

/**
 * The path the document's paths are relative to: that of its first server (`https://api.example.com/v1`
 * makes `/posts` the node's `/v1/posts`), or none.
 */
function basePath(document: OpenApiDocument): string {
	const url = own(ownArray(document, 'servers')[0], 'url');
	if (typeof url !== 'string') return '';
	try {
		// Server variables (`{region}`) stand for parts of the host, which the node does not use. Both
		// expressions stop where a backtracking one would start over at every character: `\/+$` on a
		// run of slashes that does not end the path, `\{[^}]*\}` on braces that do not close, took
		// n8n's event loop for seconds (quadratic in their length).
		return new URL(url.replace(/\{[^{}]*\}/g, 'x'), 'http://service.invalid').pathname.replace(
			/(?<!\/)\/+$/,
			'',
		);
	} catch {
		return '';
	}
}

export function operationsOf(document: OpenApiDocument): Operation[] {
	const found: Operation[] = [];
	const base = basePath(document);
	for (const [path, pathItem] of Object.entries(document.paths)) {
		if (!isRecord(pathItem)) continue;
		for (const method of HTTP_METHODS) {
			const operation = own(pathItem, method);
			// Whatever its path parameter is called: `{id}`, `{post_id}`, `{postId}`; `[^{}]`, so that
			// braces that never close are passed once, not once for every brace before them.
			if (isRecord(operation))
				found.push({
					path: `${base}${path}`.replace(/\{[^{}]+\}/g, '{id}'),
					method,
					pathItem,
					operation,
				});
		}
	}
	return found;
}

// ------------------------------------------------------------------------------------------------
// Bodies, answers and parameters of one operation

const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;

/** The body the document declares and the media type to send it as: JSON first, then any `+json`, then a form. */
export function requestOf(
	reader: DocumentReader,
	operation: IDataObject,
): { shape?: ObjectShape; mediaType: string } | undefined {
	const content = ownRecord(reader.deref(own(operation, 'requestBody')), 'content');
	if (content === undefined) return undefined;
	const types = Object.keys(content);
	const mediaType =
		types.find((type) => /^application\/json\b/i.test(type)) ??
		types.find((type) => JSON_TYPE.test(type)) ??
		types.find((type) => FORM_TYPE.test(type));
	if (mediaType === undefined) return undefined;
	return {
		shape: reader.shape(own(own(content, mediaType), 'schema')),
		mediaType: mediaType.split(';')[0].trim(),
	};
}

/** The JSON schema of a response, if it has one. */
export function responseSchema(reader: DocumentReader, response: unknown): Schema | undefined {
	const content = ownRecord(reader.deref(response), 'content');
	const mediaType = Object.keys(content ?? {}).find((type) => JSON_TYPE.test(type));
	return mediaType === undefined ? undefined : reader.deref(own(own(content, mediaType), 'schema'));
}

export interface Success {
	status: string;
	schema?: Schema;
	headers: Map<string, Schema>;
}

/** The success answers of an operation, lowest status first. */
export function successes(reader: DocumentReader, operation: IDataObject): Success[] {
	const responses = ownRecord(operation, 'responses') ?? {};
	return Object.keys(responses)
		.filter((code) => /^2(\d\d|XX)$/i.test(code))
		.sort()
		.map((status) => {
			const response = reader.deref(own(responses, status));
			const headers = new Map<string, Schema>();
			for (const [name, header] of Object.entries(ownRecord(response, 'headers') ?? {}))
				headers.set(name.toLowerCase(), reader.deref(header) ?? {});
			return { status, schema: responseSchema(reader, response), headers };
		});
}

/** The operation's parameters, path-level ones included, by where they go. */
export function parametersOf(
	reader: DocumentReader,
	entry: Operation,
	location: 'query' | 'header',
): Map<string, Schema> {
	const found = new Map<string, Schema>();
	for (const item of [
		...ownArray(entry.pathItem, 'parameters'),
		...ownArray(entry.operation, 'parameters'),
	]) {
		reader.spend();
		const parameter = reader.deref(item);
		const name = own(parameter, 'name');
		if (own(parameter, 'in') === location && typeof name === 'string') {
			found.set(name, {
				...(reader.deref(own(parameter, 'schema')) ?? {}),
				description: ownText(parameter, 'description'),
			});
		}
	}
	return found;
}

export function named(...names: string[]) {
	const wanted = new Set(names.map(normalizeName));
	return (name: string) => wanted.has(normalizeName(name));
}

export function uniquePaths(paths: Path[]): Path[] {
	const seen = new Set<string>();
	return paths.filter((path) => {
		const key = JSON.stringify(path);
		return !seen.has(key) && seen.add(key) !== undefined;
	});
}

/** Paths (up to two deep) to the properties of an answer that pass a test, in the answer's order. */
export function findPaths(
	reader: DocumentReader,
	schema: Schema | undefined,
	test: (name: string, property: Schema) => boolean,
	prefix: Path = [],
): Path[] {
	const shape = reader.shape(schema);
	if (shape === undefined) return [];
	const found: Path[] = [];
	for (const [name, property] of shape.properties) {
		reader.spend();
		if (test(name, property)) found.push([...prefix, name]);
		if (prefix.length === 0 && !reader.isArray(property))
			found.push(...findPaths(reader, property, test, [name]));
	}
	return found;
}

/** The state a status's explanation (or the status word itself) describes, if it says clearly. */
export function stateFromText(text: string): JobState | undefined {
	// Its first words say it; an enum value of a megabyte, read for every value, would hold n8n.
	const lower = text.slice(0, 500).toLowerCase().replace(/[_-]+/g, ' ');
	if (/\b(fail|error|broke|cancel|abort|expire|reject|denied|timed? ?out)/.test(lower))
		return 'failed';
	if (/\b(scheduled|will (run|start|publish)|deferred|later)\b/.test(lower)) return 'scheduled';
	if (
		/\b(not (yet )?(started|finished|done|complete)|in progress|pending|queued|waiting|running|processing|started|accepted|rendering|new|busy|working|active)\b/.test(
			lower,
		)
	) {
		return 'pending';
	}
	if (/\b(succe|finished|complete|done|ready|ok\b|published|live\b)/.test(lower))
		return 'succeeded';
	return undefined;
}

/** Explanations of enum values: `x-enum-descriptions`, `x-ms-enum`, `oneOf` of `const`s, or "`VALUE`: text" lines. */
export function enumExplanations(
	reader: DocumentReader,
	schema: Schema | undefined,
	values: string[],
): Record<string, string> {
	const explained: Record<string, string> = {};
	const explain = (value: unknown, text: unknown) => {
		if (
			typeof value === 'string' &&
			typeof text === 'string' &&
			values.includes(value) &&
			!explained[value]
		)
			explained[value] = text.slice(0, 500);
	};
	for (const variant of [schema, ...reader.variants(schema)]) {
		const listed = ownArray(variant, 'enum');
		const extension = own(variant, 'x-enum-descriptions') ?? own(variant, 'x-enumDescriptions');
		if (Array.isArray(extension))
			listed.forEach((value, index) => explain(value, extension[index]));
		else if (isRecord(extension)) for (const value of values) explain(value, own(extension, value));
		for (const entry of ownArray(ownRecord(variant, 'x-ms-enum'), 'values'))
			explain(own(entry, 'value'), own(entry, 'description'));
		explain(own(variant, 'const'), own(variant, 'description') ?? own(variant, 'title'));
		const description = ownText(variant, 'description');
		for (const [, value, text] of description.matchAll(
			/[`'"]?([A-Za-z][\w.-]{0,40})[`'"]?\s*(?::|=|–|—|-|means)\s*([^\n`]{1,200})/g,
		))
			explain(value, text);
	}
	return explained;
}
