import { own, pointerOf } from '../pointer';
import type { Placement } from '../types';
import { idOf } from './answers';
import {
	DocumentReader,
	firstSentence,
	normalizeName,
	type ObjectShape,
	type Schema,
} from './document';
import { onlyValue } from './required';
import { enumExplanations } from './words';

interface FieldSpec {
	/** The kind of value it takes; a text where not said. */
	type?: 'integer' | 'boolean' | 'list' | 'date-time';
	/** The words the parameter goes by: a name or first sentence holding all words of one entry matches. */
	words: string[][];
	values?: readonly string[];
	/** For a yes/no: the words its opposite goes by, sent negated. */
	opposite?: string[][];
	/** For an id of another resource: the words that resource goes by, as an object holding its id. */
	reference?: string[][];
}

const FIELDS: Record<string, FieldSpec> = {
	content: { words: [['content'], ['text'], ['body']] },
	title: { words: [['title'], ['headline']] },
	transcript: { words: [['transcript']] },
	prompt: { words: [['prompt'], ['instruction']] },
	sourceText: { words: [['source', 'text']] },
	sourcePostId: { words: [['source', 'post']], reference: [['source', 'post']] },
	pageId: { words: [['page']], reference: [['page']] },
	postId: { words: [['post']], reference: [['post']] },
	status: { words: [['status'], ['state']], values: ['draft', 'published', 'scheduled'] },
	scheduledAt: { type: 'date-time', words: [['schedule'], ['publish', 'at']] },
	tags: { type: 'list', words: [['tag'], ['label']] },
	mediaUrls: { type: 'list', words: [['media']] },
	tone: { words: [['tone'], ['voice']] },
	language: { words: [['language'], ['locale']] },
	length: { words: [['length']], values: ['short', 'medium', 'long'] },
	threadLength: { type: 'integer', words: [['thread'], ['tweet']] },
	thread: { type: 'list', words: [['thread'], ['part'], ['tweets']] },
	slideCount: { type: 'integer', words: [['slide']] },
	durationSeconds: { type: 'integer', words: [['duration'], ['length', 'second']] },
	aspectRatio: { words: [['aspect']] },
	url: { words: [['url'], ['uri'], ['endpoint'], ['address']] },
	events: { type: 'list', words: [['event'], ['topic'], ['trigger']] },
	description: { words: [['description']] },
	active: {
		type: 'boolean',
		words: [['active'], ['enable']],
		opposite: [['disable'], ['inactive'], ['pause']],
	},
	secret: { words: [['secret']] },
};

/** The values of the node's parameters that take listed values only (options in n8n). */
export const LISTED_VALUES: Record<string, readonly string[]> = Object.fromEntries(
	Object.entries(FIELDS).flatMap(([field, { values }]) => (values ? [[field, values]] : [])),
);

// The most properties a request may have, all levels together, for its fields to be placed: real APIs have tens.
export const MAX_REQUEST_FIELDS = 200;

function propertyAt(path: string[], schema: Schema) {
	const name = path[path.length - 1];
	return { path, name, normalized: normalizeName(name), said: firstSentence(schema), schema };
}

type Property = ReturnType<typeof propertyAt>;

/** The properties of a request, the top level first, then each object's own, two levels down. */
function propertiesOf(reader: DocumentReader, shape: Pick<ObjectShape, 'properties'>): Property[] {
	const found: Property[] = [];
	const parents = [{ path: [] as string[], shape }];
	for (const parent of parents) {
		for (const [name, schema] of parent.shape.properties) {
			reader.spend();
			if (found.length >= MAX_REQUEST_FIELDS) return found;
			if (own(schema, 'readOnly') === true) continue;
			const path = [...parent.path, name];
			found.push(propertyAt(path, schema));
			const inner = reader.isArray(schema) ? undefined : reader.shape(schema);
			if (inner !== undefined && path.length <= 2) parents.push({ path, shape: inner });
		}
	}
	return found;
}

/** Whether a name (without separators) holds every word of one of the entries. */
const nameHolds = (name: string, entries: string[][] = []) =>
	entries.some((words) => words.every((word) => name.includes(word)));

const wordPatterns = new Map<string, RegExp>();

/** Whether a sentence holds every word of one of the entries, each at the start of a word. */
const sentenceHolds = (sentence: string, entries: string[][]) =>
	entries.some((words) =>
		words.every((word) => {
			let pattern = wordPatterns.get(word);
			if (pattern === undefined) wordPatterns.set(word, (pattern = new RegExp(`\\b${word}`)));
			return pattern.test(sentence);
		}),
	);

/** Whether a property lists one of the node's values, in any case; each list lower-cased once. */
const lowerCased = new WeakMap<string[], Set<string>>();
function listsOneOf(reader: DocumentReader, schema: Schema, values?: readonly string[]): boolean {
	const listed = values === undefined ? undefined : reader.enumValues(schema);
	if (listed === undefined) return false;
	let lower = lowerCased.get(listed);
	if (lower === undefined)
		lowerCased.set(listed, (lower = new Set(listed.map((entry) => entry.toLowerCase()))));
	return values?.some((value) => lower.has(value)) ?? false;
}

/**
 * The rules, strongest first; a property the `reference` rule finds takes the parameter as an
 * object (`page.id`), one the `negate` rule finds takes it negated.
 */
const RULES: Array<{
	rule: (spec: FieldSpec, names: string[], property: Property, reader: DocumentReader) => boolean;
	by?: 'reference' | 'negate';
}> = [
	{ rule: (_, names, { name }) => names.includes(name) },
	{ rule: (_, [field], { normalized }) => normalized === normalizeName(field) },
	{ by: 'reference', rule: (spec, _, { normalized }) => nameHolds(normalized, spec.reference) },
	{ rule: (spec, _, { normalized }) => nameHolds(normalized, spec.words) },
	{ rule: (spec, _, { said }) => sentenceHolds(said, spec.words) },
	{ rule: (spec, _, { schema }, reader) => listsOneOf(reader, schema, spec.values) },
	{ by: 'negate', rule: (spec, _, { normalized }) => nameHolds(normalized, spec.opposite) },
];

// Members beside a reference's id, as a parameter's placement takes them: a few, plainly named.
const MAX_BESIDE = 8;
const BESIDE_NAME = /^[A-Za-z0-9_.\-[\]$@]+$/;

/**
 * Where a reference goes in an object: its id, or JSON:API's resource linkage (`page.data.id`),
 * with the required members beside the id that allow one value (`{"type": "pages"}`).
 */
function referenceIn(
	reader: DocumentReader,
	schema: Schema,
	path: string[],
	linkage = true,
): (Pick<Placement, 'beside'> & { path: string[] }) | undefined {
	const shape = reader.isArray(schema) ? undefined : reader.shape(schema);
	const id = idOf(shape);
	const data = shape?.properties.get('data');
	if (shape === undefined || id === undefined)
		return linkage && data !== undefined
			? referenceIn(reader, data, [...path, 'data'], false)
			: undefined;
	const beside = [...shape.required].flatMap((name) => {
		const value = name === id ? undefined : onlyValue(reader, shape.properties.get(name));
		return value === undefined || !BESIDE_NAME.test(name) ? [] : [[name, value] as const];
	});
	return {
		path: [...path, id],
		...(beside.length > 0 ? { beside: Object.fromEntries(beside.slice(0, MAX_BESIDE)) } : {}),
	};
}

/** Where a value of the parameter's type can go in a property; a negated yes/no goes to a yes/no. */
function fit(reader: DocumentReader, spec: FieldSpec, { path, schema }: Property, by?: 'negate') {
	if (by === 'negate') return reader.types(schema).includes('boolean') ? path : undefined;
	// A time never goes where only listed values are taken (a status of `scheduled`).
	if (spec.type === 'date-time' && reader.enumValues(schema) !== undefined) return undefined;
	const types = reader.types(schema);
	const untyped = types.length === 0 && !reader.isArray(schema) && !reader.shape(schema);
	if (spec.type !== 'list') {
		const takes =
			spec.type === 'integer'
				? ['integer', 'number']
				: [spec.type === 'boolean' ? 'boolean' : 'string'];
		return untyped || takes.some((type) => types.includes(type)) ? path : undefined;
	}
	if (!reader.isArray(schema)) return undefined;
	const inner = reader.shape(reader.items(schema));
	if (inner === undefined) return path;
	// A list of objects takes each entry as the one text property of an object (`tweets[].text`).
	const texts = [...inner.properties].filter(([, item]) => reader.types(item).includes('string'));
	return texts.length === 1 ? [...path, '-', texts[0][0]] : undefined;
}

/** The service's value for each of the node's values that it spells otherwise. */
function spelling(reader: DocumentReader, spec: FieldSpec, schema: Schema) {
	if (spec.values === undefined) return undefined;
	const allowed = reader.enumValues(reader.isArray(schema) ? reader.items(schema) : schema);
	if (allowed === undefined) return undefined;
	const stem = (word: string) => normalizeName(word).replace(/(ing|ed|es|e|s)$/, '');
	// Each of the service's values in plain words once, counted: an enum may hold 100,000.
	let candidates: Array<{ value: string; name: string; stem: string; said: Set<string> }> = [];
	const values: Record<string, string> = {};
	for (const value of spec.values) {
		if (allowed.includes(value)) continue;
		if (candidates.length === 0) {
			const { explained } = enumExplanations(reader, schema, allowed);
			candidates = allowed.map((candidate) => {
				const words = (explained.get(candidate) ?? '').split(/[^A-Za-z]+/).filter(Boolean);
				reader.spend(1 + words.length);
				const said = new Set(words.map(stem));
				return { value: candidate, name: normalizeName(candidate), stem: stem(candidate), said };
			});
		}
		// Spelt alike (`DRAFT`), of the same stem (`publish`), or explained with the value's word.
		const service =
			candidates.find(({ name }) => name === normalizeName(value)) ??
			candidates.find((candidate) => candidate.stem === stem(value)) ??
			candidates.find(({ said }) => said.has(stem(value)));
		if (service !== undefined) values[value] = service.value;
	}
	return Object.keys(values).length > 0 ? values : undefined;
}

/**
 * The places of the parameters an operation sends under `root` (`body` or `query`, by their
 * built-in places, whose last segment is their built-in name) among a request's properties
 * (`shape`, or the query parameters; docs/service.md, "Request fields"). The rules run in order
 * over all of them, so that a stronger rule for one is never taken by a weaker rule for another.
 * A parameter with no place gets `to: null` and why. It pauses (yields) after each rule: each
 * tries every parameter on every property.
 */
export function* placeParameters(
	reader: DocumentReader,
	root: 'body' | 'query',
	shape: Pick<ObjectShape, 'properties' | 'closed'> | undefined,
	builtInPlaces: Record<string, Placement>,
	from: string,
): Generator<void, Record<string, Placement>> {
	const builtIn = Object.fromEntries(
		Object.entries(builtInPlaces).filter(([, place]) => place.to?.startsWith(`/${root}/`)),
	);
	if (Object.keys(builtIn).length === 0) return {};
	const properties =
		shape === undefined
			? []
			: root === 'query'
				? [...shape.properties].map(([name, schema]) => propertyAt([name], schema))
				: propertiesOf(reader, shape);
	const taken = new Set<string>();
	const placed: Record<string, Placement> = {};
	const fields = Object.keys(builtIn).filter((field) => field in FIELDS);
	for (const { rule, by } of RULES) {
		yield;
		for (const field of fields) {
			if (field in placed) continue;
			const spec = FIELDS[field];
			const names = [field, (builtIn[field].to ?? '').split('/').pop() ?? field];
			for (const property of properties) {
				reader.spend();
				const key = property.path.join('/');
				if (taken.has(key) || !rule(spec, names, property, reader)) continue;
				const found: { path?: string[]; beside?: Placement['beside'] } | undefined =
					by === 'reference'
						? referenceIn(reader, property.schema, property.path)
						: { path: fit(reader, spec, property, by) };
				if (found?.path === undefined) continue;
				taken.add(key);
				const values = spelling(reader, spec, property.schema);
				placed[field] = {
					to: pointerOf([root, ...found.path]),
					...(values ? { values } : {}),
					...(found.beside ? { beside: found.beside } : {}),
					...(by === 'negate' ? { negate: true } : {}),
					from: `${from}: ${property.path.join('.')}`,
				};
				break;
			}
		}
	}
	// A schema that takes other properties takes the parameter under its built-in name.
	const open = !shape
		? 'the document describes no request body'
		: !shape.closed
			? `${root === 'body' ? 'the request body' : 'the query'} takes other fields`
			: undefined;
	const listed = [...(shape?.properties.keys() ?? [])].slice(0, 20).join(', ') || 'nothing';
	for (const field of Object.keys(builtIn))
		placed[field] ??=
			open === undefined
				? {
						to: null,
						why: `Its OpenAPI document lists${root === 'body' ? '' : ' these query parameters'}: ${listed}.`,
						from,
					}
				: { ...builtIn[field], from: `built-in (${open})` };
	return placed;
}
