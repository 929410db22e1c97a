import { own, pointerOf } from '../pointer';
import { capped, OWN_HEADERS } from '../shape';
import {
	MAX_PROFILE_TEXT,
	OPERATIONS,
	type NotFollowed,
	type OperationName,
	type OperationProfile,
} from '../types';
import { isIdName, pagingParameters } from './answers';
import { DocumentReader, nameOf, ownArray, ownRecord, type Schema } from './document';
import { parametersOf, requestOf, successes, type DocumentOperation } from './operations';

// Body members are followed this many objects down: the node's places go three levels deep.
const MAX_DEPTH = 4;

/** The places an operation's profile fills: its parameters' (and the members beside them), its constants', the id's, the members it keeps and its precondition and idempotency headers. */
export function filledPlaces(operation: OperationProfile): string[] {
	const { idempotency, idAt, precondition } = operation;
	return [
		...Object.values(operation.fields).flatMap(({ to, beside = {} }) =>
			to === null
				? []
				: [
						to,
						...Object.keys(beside).map(
							(member) => `${to.replace(/\/[^/]*$/, '')}${pointerOf([member])}`,
						),
					],
		),
		...Object.keys(operation.constants ?? {}),
		...(idAt === undefined ? [] : [idAt]),
		...(precondition === undefined ? [] : [pointerOf(['headers', precondition.header])]),
		...(operation.replaces?.keep ?? []).map((member) => pointerOf(['body', member])),
		...[idempotency?.header, idempotency?.firstSent].flatMap((header) =>
			header === undefined ? [] : [pointerOf(['headers', header.toLowerCase()])],
		),
	];
}

/** Whether a place is filled, as a whole or by a place inside it (`/body/data` by `/body/data/type`). */
export function isFilled(filled: string[], place: string): boolean {
	return filled.some((to) => to === place || to.startsWith(`${place}/`));
}

const requiredBySchema = new WeakMap<Schema, Set<string>>();

/** The members a schema requires: its own and its `allOf` parts', and those every `oneOf`/`anyOf` alternative requires. */
function requiredOf(reader: DocumentReader, value: unknown, depth = 0): Set<string> {
	const schema = reader.deref(value);
	const known = schema && requiredBySchema.get(schema);
	if (known !== undefined) return known;
	// Read from `required` itself: an alternative may say only what it requires (`{"required": ["a"]}`).
	const required = new Set(
		ownArray(schema, 'required').filter((name): name is string => typeof name === 'string'),
	);
	if (schema === undefined || depth > MAX_DEPTH) return required;
	reader.spend(1 + required.size);
	// Each schema once, however many compositions name it (a fan-out of `allOf`s).
	requiredBySchema.set(schema, required);
	for (const part of ownArray(schema, 'allOf'))
		for (const name of requiredOf(reader, part, depth + 1)) required.add(name);
	if (ownArray(schema, 'oneOf').length + ownArray(schema, 'anyOf').length === 0) return required;
	const [first, ...others] = reader
		.variants(schema)
		.map((variant) => requiredOf(reader, variant, depth + 1));
	for (const name of first ?? [])
		if (others.every((variant) => variant.has(name))) required.add(name);
	return required;
}

/** The one value a schema allows (an enum of one, a `const`), where a constant can hold it. */
export function onlyValue(reader: DocumentReader, value: unknown) {
	const schema = reader.deref(value);
	const values =
		own(schema, 'const') !== undefined ? [own(schema, 'const')] : ownArray(schema, 'enum');
	const [only] = values;
	return values.length === 1 &&
		(typeof only === 'number' ||
			typeof only === 'boolean' ||
			(typeof only === 'string' && only.length <= MAX_PROFILE_TEXT))
		? only
		: undefined;
}

/** A required part: its place, its path in the body, the one value the document allows there, and where it says so. */
interface Part {
	place: string;
	path?: string[];
	value?: string | number | boolean;
	evidence?: string;
}

/** The body's required members no filled place reaches, below `path`, each with the one value it allows. */
function unfilledMembers(
	reader: DocumentReader,
	schema: Schema | undefined,
	path: string[],
	filled: string[],
): Part[] {
	const shape = reader.shape(schema);
	if (shape === undefined || path.length >= MAX_DEPTH) return [];
	const required = requiredOf(reader, schema);
	const found: Part[] = [];
	for (const name of new Set([...required, ...shape.properties.keys()])) {
		reader.spend();
		const member = shape.properties.get(name);
		const place = pointerOf(['body', ...path, name]);
		if (own(member, 'readOnly') === true || filled.includes(place)) continue;
		// A member the request sends (required, or holding a filled place) must hold what it requires.
		if (isFilled(filled, place)) {
			if (!reader.isArray(member))
				found.push(...unfilledMembers(reader, member, [...path, name], filled));
		} else if (required.has(name))
			found.push({ place, path: [...path, name], value: onlyValue(reader, member) });
	}
	return found;
}

/** The headers and query parameters the credential fills (an API key's), as `header:<name>` and `query:<name>`. */
function credentialParameters(reader: DocumentReader): Set<string> {
	const names = new Set<string>();
	for (const scheme of Object.values(
		ownRecord(reader.document.components, 'securitySchemes') ?? {},
	)) {
		reader.spend();
		const resolved = reader.deref(scheme);
		const name = own(resolved, 'name');
		const where = own(resolved, 'in');
		if (typeof name !== 'string') continue;
		if (where === 'header') names.add(`header:${name.toLowerCase()}`);
		if (where === 'query') names.add(`query:${name}`);
	}
	return names;
}

/**
 * A conditional request's header (RFC 9110) is sent with the validator the resource's read answers
 * in the header the document declares for it (`If-Match` with the `ETag`, `If-Unmodified-Since`
 * with `Last-Modified`), read first (the write's `reads`) as its precondition; whether it is.
 */
function followPrecondition(
	reader: DocumentReader,
	place: string,
	name: OperationName,
	operation: OperationProfile,
	found: ReadonlyMap<OperationName, DocumentOperation>,
): boolean {
	const condition = CONDITIONAL.exec(place)?.[1];
	const { reads } = OPERATIONS[name];
	const read = condition !== undefined && reads !== undefined && found.get(reads);
	if (!read) return false;
	const validator = condition === 'match' ? 'etag' : 'last-modified';
	const answered = successes(reader, read.operation).find(({ headers }) => headers.has(validator));
	if (answered === undefined) return false;
	operation.precondition = {
		header: place.slice('/headers/'.length),
		from: `/headers/${validator}`,
	};
	(operation.stated ??= {})[place] = capped(
		`${read.from}/responses/${answered.status}/headers: ${validator}`,
	);
	return true;
}

// Headers of a conditional request (RFC 9110), whose value is the resource's as read, never a constant.
const CONDITIONAL = /^\/headers\/if-(match|unmodified-since)$/;
// Constants the reader states per operation, so that Describe shows them all (it shortens past 50).
const MAX_STATED = 20;

/**
 * What a document's operation requires that its profile does not send: a required header
 * parameter, or a required member of the body (also inside an object the request sends), that no
 * parameter of the node, constant, kept member or idempotency header fills. The request would be
 * refused, so what the document states is followed: a body member of one allowed value becomes a
 * constant (JSON:API's `data.type`), and an update's or a delete's id member (JSON:API's `data.id`)
 * is where the resource's id is sent too (`idAt`), each with where the document says so
 * (`stated`). Each other part is listed as not followed, with what an override would send.
 */
export function followRequired(
	reader: DocumentReader,
	entry: DocumentOperation,
	name: OperationName,
	operation: OperationProfile,
	found: ReadonlyMap<OperationName, DocumentOperation>,
): NotFollowed[] {
	const filled = [
		...filledPlaces(operation),
		...pagingParameters(operation.answer.paging).map((name) => pointerOf(['query', name])),
	];
	const credential = credentialParameters(reader);
	const required = new Set<string>();
	parametersOf(reader, entry, 'header', required);
	const headers: Part[] = [...required]
		.map((header) => header.toLowerCase())
		.filter((header) => !OWN_HEADERS.test(header) && !credential.has(`header:${header}`))
		.map((header) => ({ place: pointerOf(['headers', header]) }))
		.filter(({ place }) => !filled.includes(place));
	const requiredQuery = new Set<string>();
	const query = parametersOf(reader, entry, 'query', requiredQuery);
	const queries: Part[] = [...requiredQuery]
		.filter((name) => !credential.has(`query:${name}`))
		.map((name) => ({
			place: pointerOf(['query', name]),
			value: onlyValue(reader, query.get(nameOf(name))),
			evidence: `${entry.from}/parameters: ${name}`,
		}))
		.filter(({ place }) => !filled.includes(place));
	const members = unfilledMembers(reader, requestOf(reader, entry.operation)?.schema, [], filled);
	const { verb, resource } = OPERATIONS[name];
	const isId = (path: string[]) =>
		['update', 'delete'].includes(verb) &&
		operation.path.includes('{id}') &&
		operation.idAt === undefined &&
		isIdName(path[path.length - 1], resource);
	const notFollowed: Part[] = [];
	for (const part of headers)
		if (!followPrecondition(reader, part.place, name, operation, found)) notFollowed.push(part);
	for (const part of [...queries, ...members]) {
		const { place, path = [], value, evidence } = part;
		if (value !== undefined && Object.keys(operation.constants ?? {}).length < MAX_STATED)
			(operation.constants ??= {})[place] = value;
		else if (value === undefined && isId(path)) operation.idAt = place;
		else {
			notFollowed.push(part);
			continue;
		}
		(operation.stated ??= {})[place] = capped(
			evidence ?? `${entry.from}/requestBody: ${path.join('.')}`,
		);
	}
	return notFollowed.map(({ place, value }) => ({
		part: capped(`${OPERATIONS[name].title} (${entry.method} ${entry.path}): ${place}`),
		why: capped(
			`the document requires it and no parameter of the node fills it; Profile Overrides can send ${
				CONDITIONAL.test(place)
					? `the ETag read first: "${name}": {"precondition": {"header": "${place.slice('/headers/'.length)}", "from": "/headers/etag"}}`
					: `${value === undefined ? 'a fixed value' : 'it'}: "${name}": {"constants": {"${place}": ${value === undefined ? '…' : JSON.stringify(value)}}}`
			}`,
		),
		operation: name,
		place,
	}));
}
