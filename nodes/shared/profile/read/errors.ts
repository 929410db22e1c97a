import { BUILT_IN_PROFILE } from '../builtIn';
import type { ErrorProfile } from '../types';
import { body } from './answers';
import { DocumentReader, normalizeName, ownRecord } from './document';
import { findPaths, named, responseSchema, unique, type Operation } from './operations';
import type { Schema } from './document';

/**
 * The service's error body: the one most of the document's `4xx`/`5xx`/`default` answers use (by
 * schema identity, never by text), with where it says its message, code and field details.
 */
export function readErrors(reader: DocumentReader, operations: Operation[]): ErrorProfile {
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
	const schema = best?.[0];
	if (reader.shape(schema) === undefined) return BUILT_IN_PROFILE.errors;
	const variants = reader.variants(schema);
	// In the order of preference, whatever order the schema lists them in.
	const pathsOf = (...names: string[]) =>
		unique(
			names.flatMap((name) =>
				variants.flatMap((variant) =>
					findPaths(
						reader,
						variant,
						(property, value) =>
							named(name)(property) && !reader.isArray(value) && reader.shape(value) === undefined,
					),
				),
			),
		).map(body);
	const details = unique(
		variants.flatMap((variant) =>
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
	for (const variant of variants) {
		for (const path of details) {
			let property: Schema | undefined = variant;
			for (const key of path) property = reader.shape(property)?.properties.get(key);
			for (const name of reader.shape(reader.items(property))?.properties.keys() ?? []) {
				reader.spend();
				detailNames.add(name);
			}
		}
	}
	const detailNamed = (fallbackName: string, ...names: string[]) => [
		...new Set([...[...detailNames].filter(named(...names)), fallbackName]),
	];
	return {
		message: pathsOf('message', 'detail', 'error_description', 'title', 'description', 'error'),
		code: pathsOf('code', 'error_code', 'type', 'status_code'),
		details: details.map(body),
		detailField: detailNamed('field', 'field', 'pointer', 'name', 'param', 'path', 'location'),
		detailMessage: detailNamed('message', 'message', 'detail', 'reason', 'description'),
		detailCode: detailNamed('code', 'code', 'error_code', 'type'),
		from: '#/paths (error answers)',
	};
}
