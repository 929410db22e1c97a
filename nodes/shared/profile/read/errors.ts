import { BUILT_IN_PROFILE } from '../builtIn';
import { ownEntries } from '../pointer';
import type { ErrorProfile } from '../types';
import { body } from './answers';
import { DocumentReader, normalizeName, ownRecord, type Schema } from './document';
import { findPaths, named, responseSchema, unique, type DocumentOperation } from './operations';

/**
 * The error body most of the document's `4xx`/`5xx`/`default` answers use (by schema identity, never
 * by text), with where it says its message, code and field details.
 */
export function readErrors(reader: DocumentReader, operations: DocumentOperation[]): ErrorProfile {
	const counts = new Map<Schema, number>();
	for (const { operation } of operations) {
		for (const [status, response] of ownEntries(ownRecord(operation, 'responses'))) {
			reader.spend();
			if (!/^([45]\d\d|[45]XX|default)$/i.test(status)) continue;
			const schema = responseSchema(reader, response);
			if (schema !== undefined) counts.set(schema, (counts.get(schema) ?? 0) + 1);
		}
	}
	const schema = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
	if (reader.shape(schema) === undefined) return BUILT_IN_PROFILE.errors;
	const variants = reader.variants(schema);
	const paths = (test: (name: string, value: Schema) => boolean) =>
		unique(variants.flatMap((variant) => findPaths(reader, variant, test)));
	// In the order of preference, whatever order the schema lists them in.
	const pathsOf = (...names: string[]) =>
		unique(
			names.flatMap((name) =>
				paths(
					(property, value) =>
						named(name)(property) && !reader.isArray(value) && reader.shape(value) === undefined,
				),
			),
		).map(body);
	const details = paths(
		(name, value) =>
			reader.isArray(value) && /detail|error|invalid|violation|message/.test(normalizeName(name)),
	);
	const detailNames = new Set<string>();
	for (const variant of variants) {
		for (const path of details) {
			const entry = reader.items(reader.at(variant, path));
			for (const name of reader.shape(entry)?.properties.keys() ?? []) {
				reader.spend();
				detailNames.add(name);
			}
		}
	}
	// The entries' properties so named, and the first name, which the entries may leave undescribed.
	const detailNamed = (...names: string[]) => [
		...new Set([...[...detailNames].filter(named(...names)), names[0]]),
	];
	const message = pathsOf(
		'message',
		'detail',
		'error_description',
		'title',
		'description',
		'error',
	);
	const code = pathsOf('code', 'error_code', 'type', 'status_code');
	// JSON:API 1.1: no message of its own, but `errors`, error objects whose first says the refusal.
	const errorObject = variants
		.map((variant) => reader.shape(reader.items(reader.at(variant, ['errors']))))
		.find((entry) => entry?.properties.has('detail') || entry?.properties.has('title'));
	const inFirst = (found: string[], ...names: string[]) =>
		found.length > 0 || message.length > 0 || errorObject === undefined
			? found
			: names
					.filter((name) => errorObject.properties.has(name))
					.map((name) => body(['errors', '0', name]));
	return {
		message: inFirst(message, 'detail', 'title'),
		code: inFirst(code, 'code'),
		details: details.map(body),
		detailField: detailNamed('field', 'pointer', 'name', 'param', 'path', 'location'),
		detailMessage: detailNamed('message', 'detail', 'reason', 'description'),
		detailCode: detailNamed('code', 'error_code', 'type'),
		from: '#/paths (error answers)',
	};
}
