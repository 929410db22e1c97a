import type { IDataObject } from 'n8n-workflow';

import { FIELDS, type FieldName } from './catalog';
import { builtInName } from './defaultDocument';
import { enumExplanations } from './operations';
import {
	DocumentReader,
	firstSentence,
	normalizeName,
	own,
	type ObjectShape,
	type Schema,
} from './schema';

/**
 * The node's fields in a service's names: each goes to the property of the request schema with the
 * same name; else the same name in another case style (`page_id` = `pageId`); else the property
 * whose name or first description sentence holds the field's words (catalog.ts). Values are spelt
 * the way the schema's enum spells them (`draft` → `DRAFT`), and a list typed as text is split at
 * commas and new lines.
 */

/** An error in the node's own request before it is sent, such as a field the service does not take. */
export class ContractFieldError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
	}
}

function typesOf(schema: Schema): string[] {
	const type = own(schema, 'type');
	const types = Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
	return own(schema, 'nullable') === true ? [...types, 'null'] : types;
}

function fitsValue(schema: Schema, value: unknown): boolean {
	const types = typesOf(schema);
	if (types.length === 0 || value === undefined) return true;
	if (Array.isArray(value)) return types.includes('array');
	if (typeof value === 'number') return types.includes('integer') || types.includes('number');
	if (typeof value === 'boolean') return types.includes('boolean');
	if (typeof value === 'string') return types.includes('string') || types.includes('array');
	return types.includes('object');
}

/** Whether a name (without separators) or a description holds every word of an entry. */
function holdsWords(text: string, words: readonly string[], inName: boolean): boolean {
	return words.every((word) =>
		inName ? text.includes(word) : new RegExp(`\\b${word}`).test(text),
	);
}

function wordsOf(field: string): readonly (readonly string[])[] {
	if (field in FIELDS) return FIELDS[field as FieldName].words;
	return [
		field
			.replace(/([A-Z])/g, ' $1')
			.toLowerCase()
			.split(/[^a-z0-9]+/)
			.filter(Boolean),
	];
}

/** The name the built-in document gives a field: snake_case for the node's own fields. */
function defaultName(field: string): string {
	return field in FIELDS ? builtInName(field as FieldName) : field;
}

/** A node field's value as the node means it: a list field typed as text is its entries. */
function nodeValue(field: string, value: unknown): unknown {
	return field in FIELDS && FIELDS[field as FieldName].type === 'list' && typeof value === 'string'
		? splitList(value)
		: value;
}

/** The service's name for one of the node's fields, or undefined when its schema has none. */
export function findField(
	shape: Pick<ObjectShape, 'properties'>,
	field: string,
	value?: unknown,
	taken: Set<string> = new Set(),
	{ writable = true }: { writable?: boolean } = {},
): string | undefined {
	const candidates = [...shape.properties.entries()].filter(
		([name, schema]) =>
			!taken.has(name) &&
			(!writable || own(schema, 'readOnly') !== true) &&
			fitsValue(schema, value),
	);
	const wanted = field in FIELDS ? builtInName(field as FieldName) : field;
	const exact = candidates.find(([name]) => name === field || name === wanted);
	if (exact) return exact[0];
	// Each name and first sentence is read once here, not once for every entry of words: this runs
	// for every field of every item, over every property a request has (up to 200).
	const names = candidates.map(([name]) => normalizeName(name));
	const normalized = names.indexOf(normalizeName(field));
	if (normalized !== -1) return candidates[normalized][0];
	for (const inName of [true, false]) {
		const texts = inName ? names : candidates.map(([, schema]) => firstSentence(schema));
		for (const words of wordsOf(field)) {
			const match = texts.findIndex((text) => holdsWords(text, words, inName));
			if (match !== -1) return candidates[match][0];
		}
	}
	// A field of known values (a post's status) is the property whose values include one of them.
	const values =
		field in FIELDS
			? ((FIELDS[field as FieldName] as { values?: readonly string[] }).values ?? [])
			: [];
	const byValue = candidates.find(([, schema]) => {
		const listed = own(schema, 'enum');
		return (
			Array.isArray(listed) &&
			listed.some((entry) => typeof entry === 'string' && values.includes(entry.toLowerCase()))
		);
	});
	return byValue?.[0];
}

/** Splits a comma- or newline-separated text into its non-empty entries. */
export function splitList(value: unknown): string[] {
	if (Array.isArray(value))
		return value
			.map(String)
			.map((entry) => entry.trim())
			.filter(Boolean);
	return String(value ?? '')
		.split(/[,\n]/)
		.map((entry) => entry.trim())
		.filter(Boolean);
}

/** A word without its ending: `published` and `publish`, `scheduled` and `schedule` read alike. */
function stem(word: string): string {
	return word.toLowerCase().replace(/(ing|ed|es|e|s)$/, '');
}

/**
 * A value in the service's terms: the enum value spelt alike (`draft` → `DRAFT`), else of the same
 * stem (`published` → `publish`), else the one the document explains with the value's word
 * (`scheduled` → `future`, "Scheduled: goes out at publish_on").
 */
function serviceValue(reader: DocumentReader, schema: Schema, value: unknown): unknown {
	if (Array.isArray(value))
		return value.map((entry) => serviceValue(reader, reader.items(schema) ?? {}, entry));
	const allowed = reader.enumValues(schema);
	if (typeof value !== 'string' || allowed === undefined || allowed.includes(value)) return value;
	const spelt = allowed.find((candidate) => normalizeName(candidate) === normalizeName(value));
	if (spelt !== undefined) return spelt;
	const stemmed = allowed.find(
		(candidate) => stem(normalizeName(candidate)) === stem(normalizeName(value)),
	);
	if (stemmed !== undefined) return stemmed;
	const explanations = enumExplanations(reader, schema, allowed);
	return (
		allowed.find((candidate) =>
			(explanations[candidate] ?? '')
				.split(/[^A-Za-z]+/)
				.some((word) => word !== '' && stem(word) === stem(value)),
		) ?? value
	);
}

/**
 * Renames the node's fields to the service's and spells values its way. A field the service's
 * closed schema has no place for fails here, before anything is sent; `optional` fields it has no
 * place for are left out instead.
 */
export function mapFields(
	reader: DocumentReader,
	shape: Pick<ObjectShape, 'properties' | 'closed'> | undefined,
	fields: IDataObject,
	where: string,
	optional: IDataObject = {},
): IDataObject {
	const all = Object.entries({ ...fields, ...optional }).map(
		([field, value]) => [field, nodeValue(field, value)] as const,
	);
	if (shape === undefined)
		return Object.fromEntries(
			all.map(([field, value]) => [defaultName(field), value]),
		) as IDataObject;
	const mapped: IDataObject = {};
	const taken = new Set<string>();
	for (const [field, value] of all) {
		let name = findField(shape, field, value, taken);
		let sent = value;
		if (name === undefined && typeof value === 'boolean') {
			// A yes/no field the service names by its opposite (Stripe's `disabled` for `active`) goes negated.
			const opposite =
				(field in FIELDS
					? (FIELDS[field as FieldName] as { opposite?: string[][] }).opposite
					: undefined) ?? [];
			name = [...shape.properties.entries()].find(
				([candidate, schema]) =>
					!taken.has(candidate) &&
					fitsValue(schema, value) &&
					opposite.some((words) => holdsWords(normalizeName(candidate), words, true)),
			)?.[0];
			sent = !value;
		}
		if (name === undefined) {
			if (field in optional && shape.closed) continue;
			if (!shape.closed) {
				mapped[defaultName(field)] = value as IDataObject[string];
				continue;
			}
			throw new ContractFieldError(
				`The service takes no "${field}" in ${where}`,
				`Its OpenAPI document lists: ${[...shape.properties.keys()].join(', ') || 'nothing'}. Leave that field empty, or send the service's own field with "Extra Body Fields (JSON)" or "Extra Query Parameters (JSON)".`,
			);
		}
		taken.add(name);
		const converted = serviceValue(reader, shape.properties.get(name) ?? {}, sent);
		// Set as an own data property, whatever the service calls its field (even `__proto__`).
		Object.defineProperty(mapped, name, {
			value: converted,
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return mapped;
}
