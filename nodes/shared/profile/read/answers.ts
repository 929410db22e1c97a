import { own, pointerOf, segmentsOf } from '../pointer';
import type { AnswerReading, JobReference, Location, Paging } from '../types';
import {
	DocumentReader,
	firstSentence,
	normalizeName,
	ownText,
	type ObjectShape,
	type Schema,
} from './document';
import {
	findPaths,
	named,
	parametersOf,
	unique,
	type DocumentOperation,
	type successOf,
} from './operations';

// Paths into an answer are looked for this deep: `{data: {items: [...]}}`.
const MAX_PATH_DEPTH = 3;

export const body = (path: string[]): Location => pointerOf(['body', ...path]);

/** The property that identifies an object: `id`, `uid`, `uuid`, `gid`, or `<resource>Id`. */
export function idOf(shape: ObjectShape | undefined, resource = ''): string | undefined {
	return [...(shape?.properties.keys() ?? [])].find((name) => isIdName(name, resource));
}

/** Whether a property's name is an id's: `id`, `uid`, `uuid`, `gid`, or the resource's (`post_id`). */
export function isIdName(name: string, resource = ''): boolean {
	return ['id', 'uid', 'uuid', 'gid', `${resource.toLowerCase()}id`].includes(normalizeName(name));
}

/** Whether an object has an id of its own; counted, as it is asked of objects many properties share. */
function hasId(reader: DocumentReader, shape: ObjectShape | undefined, resource?: string): boolean {
	if (shape !== undefined) reader.spend(shape.properties.size);
	return idOf(shape, resource) !== undefined;
}

/** The object properties of an answer that could hold a resource: objects with an id. */
function holders(reader: DocumentReader, shape: ObjectShape, resource?: string): string[] {
	return [...shape.properties.entries()]
		.filter(
			([, schema]) => !reader.isArray(schema) && hasId(reader, reader.shape(schema), resource),
		)
		.map(([name]) => name);
}

/**
 * Where the resource is in one form of an answer: the answer itself when it has an id; else the one
 * property holding an object with an id, whatever sits beside it; where several could, the one the
 * document's other answers use (`envelopes`); else the answer itself.
 */
export function resourcePath(
	reader: DocumentReader,
	schema: Schema | undefined,
	envelopes: Set<string>,
	resource?: string,
	depth = 0,
): string[] {
	const shape = reader.shape(schema);
	if (shape === undefined || hasId(reader, shape, resource) || depth >= MAX_PATH_DEPTH) return [];
	const candidates = holders(reader, shape, resource);
	// Without an object with an id (a result computed at once), the other answers' envelope.
	const wrapper = [...shape.properties.entries()].find(
		([name, property]) => envelopes.has(name) && reader.shape(property) !== undefined,
	)?.[0];
	const chosen =
		candidates.length === 1
			? candidates[0]
			: (candidates.find((name) => envelopes.has(name)) ??
				(candidates.length === 0 ? wrapper : undefined));
	return chosen === undefined
		? []
		: [
				chosen,
				...resourcePath(reader, shape.properties.get(chosen), envelopes, resource, depth + 1),
			];
}

/** The properties that hold a resource in the document's object answers, where at least two answers use it. */
export function envelopesOf(reader: DocumentReader, answers: (Schema | undefined)[]): Set<string> {
	const counts = new Map<string, number>();
	for (const answer of answers)
		for (const variant of reader.variants(answer)) {
			const shape = reader.shape(variant);
			if (shape === undefined || hasId(reader, shape)) continue;
			for (const name of holders(reader, shape)) counts.set(name, (counts.get(name) ?? 0) + 1);
		}
	return new Set([...counts.entries()].filter(([, count]) => count >= 2).map(([name]) => name));
}

/**
 * Where a list's items are in one form of its answer: the array of the resource (the schema its own
 * read answers with, or objects with an id), not an `errors` array beside it; or the bare array.
 */
export function itemsPath(
	reader: DocumentReader,
	schema: Schema | undefined,
	resourceSchema: Schema | undefined,
	resource?: string,
	depth = 0,
): string[] | undefined {
	if (reader.isArray(schema)) return [];
	const shape = reader.shape(schema);
	if (shape === undefined || depth >= MAX_PATH_DEPTH) return undefined;
	const arrays = [...shape.properties.entries()].filter(([, property]) => reader.isArray(property));
	const found = arrays.find(([, property]) => {
		const item = reader.items(property);
		return (
			(resourceSchema !== undefined && item === resourceSchema) ||
			hasId(reader, reader.shape(item), resource)
		);
	});
	if (found) return [found[0]];
	for (const [name, property] of shape.properties) {
		reader.spend();
		if (reader.isArray(property) || reader.shape(property) === undefined) continue;
		const inner = itemsPath(reader, property, resourceSchema, resource, depth + 1);
		if (inner !== undefined && inner.length > 0) return [name, ...inner];
	}
	// No array holds objects with an id: the only array, if it is not one of errors or messages.
	const plain = arrays.filter(([name]) => !/error|message|warning/.test(normalizeName(name)));
	return plain.length === 1 ? [plain[0][0]] : undefined;
}

/** The schema of the resource in an answer's schema, at the first place the reading names. */
export function resourceIn(
	reader: DocumentReader,
	schema: Schema | undefined,
	answer: AnswerReading,
): Schema | undefined {
	return reader.at(schema, segmentsOf(answer.resource?.[0] ?? '/body').slice(1));
}

export function isUri(reader: DocumentReader, schema: Schema): boolean {
	return reader
		.variants(schema)
		.some((variant) => /^(uri|uri-reference|url|iri)$/.test(ownText(variant, 'format')));
}

/**
 * How a list pages: a next page's address (in the body, or a `Link` header), else a cursor from the
 * answer, the last item's id (`starting_after`), a page number or an offset; else none, and where
 * it takes a cursor all the same (`unpaged`), which: its answer names no next one.
 */
export function pagingOf(
	reader: DocumentReader,
	entry: DocumentOperation,
	answers: Schema[],
	success: ReturnType<typeof successOf>,
): Paging & { unpaged?: string } {
	const query = parametersOf(reader, entry, 'query');
	const from = `${entry.from}/parameters`;
	const parameter = (test: (name: string) => boolean) => [...query.keys()].find(test);
	const size = parameter(
		named('limit', 'per_page', 'page_size', 'size', 'count', 'max_results', 'first', 'top'),
	);
	const max = Number(size === undefined ? NaN : own(query.get(size), 'maximum')) || 100;
	const sizing = size === undefined ? { from } : { size, max, from };
	// Three deep: DigitalOcean's `links.pages.next`.
	const inAnswers = (test: (name: string, schema: Schema) => boolean) =>
		unique(answers.flatMap((answer) => findPaths(reader, answer, test, [], 3)));
	const header = (test: (name: string, schema: Schema) => boolean) =>
		[...(success?.headers ?? [])].find(([name, schema]) => test(name, schema))?.[0];

	// A next page's address: in the body (`next`, `links.next`, `@odata.nextLink`), or in a `Link` header (RFC 8288).
	const nextLinks: Location[] = inAnswers(
		(name, schema) =>
			/^(next|nextlink|nexturl|nextpage|nextpageuri|nextpageurl|odatanextlink)$/.test(
				normalizeName(name),
			) &&
			(isUri(reader, schema) || /\b(url|uri|link|address)/.test(firstSentence(schema))),
	).map(body);
	if (header((name) => name === 'link') !== undefined) nextLinks.push('/headers/link');
	const nextHeader = header(
		(name, schema) =>
			/next/.test(normalizeName(name)) &&
			/(url|link|page)$/.test(normalizeName(name)) &&
			isUri(reader, schema),
	);
	if (nextHeader !== undefined) nextLinks.push(`/headers/${nextHeader}`);
	if (nextLinks.length > 0) return { style: 'link', next: nextLinks, ...sizing };

	// A query parameter that takes a token from the answer: a cursor, a marker (Box), or a page
	// named by text rather than a number (Stripe's search).
	const cursor = parameter(
		(name) =>
			/cursor|token|continuation|^marker$|position$/.test(normalizeName(name)) ||
			(named('page')(name) && reader.types(query.get(name)).includes('string')),
	);
	const nextCursors: Location[] = inAnswers(
		(name, schema) =>
			(/cursor|token|continuation|^nextmarker$|^next\w*position$/.test(normalizeName(name)) ||
				(named('next_page')(name) && !isUri(reader, schema))) &&
			!/prev|before/.test(normalizeName(name)),
	).map(body);
	const cursorHeader = header(
		(name) => /next/.test(normalizeName(name)) && /cursor|token/.test(normalizeName(name)),
	);
	if (cursorHeader !== undefined) nextCursors.push(`/headers/${cursorHeader}`);
	if (cursor !== undefined && nextCursors.length > 0)
		return { style: 'cursor', cursor, next: nextCursors, ...sizing };
	// `starting_after` with `has_more` (Stripe): the next page starts after the last item's id.
	const after = parameter((name) =>
		/^(after|startingafter|afterid|since|sinceid)$/.test(normalizeName(name)),
	);
	if (after !== undefined) {
		const more = inAnswers(
			(name, schema) =>
				named('has_more', 'more', 'has_next', 'has_next_page')(name) &&
				reader.types(schema).includes('boolean'),
		)[0];
		return { style: 'after', cursor: after, ...(more ? { more: body(more) } : {}), ...sizing };
	}
	const page = parameter(named('page', 'page_number'));
	if (page !== undefined) {
		const schema = query.get(page);
		const first = Number(own(schema, 'minimum') ?? own(schema, 'default') ?? 1);
		return { style: 'page', page, first: Number.isInteger(first) ? first : 1, ...sizing };
	}
	const offset = parameter(named('offset', 'skip', 'start', 'start_at'));
	if (offset !== undefined) return { style: 'offset', offset, ...sizing };
	return { style: 'none', from, unpaged: cursor };
}

/** The query parameters a list's paging fills: its page size, cursor, page number or offset. */
export function pagingParameters(paging: Paging | undefined): string[] {
	return ['size', 'cursor', 'page', 'offset'].flatMap((key) => {
		const name = own(paging, key);
		return typeof name === 'string' ? [name] : [];
	});
}

/** A list's text-search parameter: a string one called so (`q`, `search`) or described so. */
export function searchOf(reader: DocumentReader, query: Map<string, Schema>): string | undefined {
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

/** How an answer (or a delivery's data, `root` '') refers to a job: it is it, holds it, or names its id. */
export function jobReferences(
	reader: DocumentReader,
	schema: Schema | undefined,
	isJob: (schema: Schema | undefined) => boolean,
	root: string,
): JobReference[] {
	const references: JobReference[] = [];
	for (const variant of reader.variants(schema)) {
		const shape = reader.shape(variant);
		if (shape === undefined) continue;
		if (isJob(variant)) {
			references.push({ job: root });
			continue;
		}
		for (const [name, property] of shape.properties) {
			reader.spend();
			if (isJob(property)) references.push({ job: `${root}${pointerOf([name])}` });
			else if (
				normalizeName(name) === 'jobid' ||
				/\b(id|identifier) of the (job|operation|task)\b/.test(firstSentence(property))
			)
				references.push({ id: `${root}${pointerOf([name])}` });
		}
	}
	return unique(references);
}

// Names a job's state goes by; an answer with one of them is a job the node may not recognise.
const STATE_NAMES = new Set(['status', 'state', 'done', 'completed', 'finished', 'progress']);

/**
 * Whether a success answer is the result itself, with no job: the document gives its schema, and
 * no variant has a member a job's state would be in (DigitalOcean's synchronous CRUD beside 202 work).
 */
export function answersAtOnce(reader: DocumentReader, schema: Schema | undefined): boolean {
	if (schema === undefined) return false;
	return reader.variants(schema).every((variant) =>
		[...(reader.shape(variant)?.properties.keys() ?? [])].every((name) => {
			reader.spend();
			return !STATE_NAMES.has(normalizeName(name));
		}),
	);
}
