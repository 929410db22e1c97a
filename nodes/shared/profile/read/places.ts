import { BUILT_IN_PROFILE } from '../builtIn';
import { isRecord, own, pointerOf, segmentsOf } from '../pointer';
import { capped } from '../shape';
import {
	OPERATIONS,
	type JobProfile,
	type NotFollowed,
	type OperationName,
	type OperationProfile,
	type Pointer,
} from '../types';
import { DocumentReader, type Schema } from './document';
import { successOf, type DocumentOperation } from './operations';

// Members named in a reason, so that it stays short on any document.
const MAX_NAMED = 10;

/**
 * What a schema has where it lacks the place at `path` (`it has id, attributes`), or undefined
 * where it has the place or describes nothing there to tell. A number or `-` steps into a list.
 */
export function absentFrom(
	reader: DocumentReader,
	schema: Schema | undefined,
	path: readonly string[],
): string | undefined {
	let at = schema;
	for (const [index, key] of path.entries()) {
		reader.spend();
		if (/^(\d+|-)$/.test(key) && reader.isArray(at)) {
			at = reader.items(at);
			continue;
		}
		const shape = reader.shape(at);
		const more = own(reader.deref(at), 'additionalProperties');
		// Nothing to tell by: no members described, any allowed, or members the reading cut off.
		if (!shape?.properties.size || reader.isPartial(at) || more === true || isRecord(more))
			return undefined;
		const next = shape.properties.get(key);
		if (next === undefined) {
			const names = [...shape.properties.keys()].slice(0, MAX_NAMED).join(', ');
			const which = index === 0 ? 'it' : `its ${pointerOf(path.slice(0, index))}`;
			return `${which} has ${names}${shape.properties.size > MAX_NAMED ? ', …' : ''}`;
		}
		at = next;
	}
	return undefined;
}

/**
 * A part whose places (pointers into `schema`, or `/body/…` locations with `inBody`) all lack in
 * the schema, as not followed; undefined where one of them is there.
 */
export function notThere(
	reader: DocumentReader,
	schema: Schema | undefined,
	places: readonly string[],
	part: Omit<NotFollowed, 'why'> & { what: string },
	inBody = false,
): NotFollowed | undefined {
	let lacks: string | undefined;
	for (const place of places) {
		const [first, ...rest] = segmentsOf(place);
		// Only the body has a schema to check a location against.
		if (inBody && first !== 'body') return undefined;
		lacks = absentFrom(reader, schema, inBody ? rest : segmentsOf(place));
		if (lacks === undefined) return undefined;
	}
	if (lacks === undefined) return undefined;
	const { what, ...entry } = part;
	return {
		...entry,
		part: capped(entry.part),
		why: capped(`${what} has no ${places.join(' or ')} (${lacks})`),
	};
}

/** The places of one operation's answer: its resource, a list's items and their id, and its next page (`unpaged`). */
function operationPlaces(
	reader: DocumentReader,
	entry: DocumentOperation,
	name: OperationName,
	{ answer }: OperationProfile,
	unpaged: string | undefined,
): NotFollowed[] {
	const schema = successOf(reader, entry.operation)?.schema;
	const what = `its answer (${answer.from})`;
	const title = `${OPERATIONS[name].title} (${entry.method} ${entry.path})`;
	const part = (key: 'resource' | 'items' | 'itemId', says: string, within = what) => ({
		part: `${title}: its ${says}`,
		of: pointerOf(['operations', name, 'answer', key]),
		operation: name,
		what: within,
	});
	const found = (['resource', 'items'] as const).map((key) =>
		notThere(reader, schema, answer[key] ?? [], part(key, key), true),
	);
	// A list that takes a cursor whose answer names none is read as one page: said, not assumed.
	if (unpaged !== undefined)
		found.push({
			part: `${title}: its next page`,
			of: pointerOf(['operations', name, 'answer', 'paging']),
			operation: name,
			why: capped(
				`it takes a cursor (${unpaged}) but its answer names no next one, so a list would end after its first page; Profile Overrides can say where: "${name}": {"answer": {"paging": {"style": "cursor", "cursor": "${unpaged}", "next": "/body/…"}}}`,
			),
		});
	const listed = (answer.items ?? []).find(
		(place) => notThere(reader, schema, [place], { part: '', what }, true) === undefined,
	);
	if (listed !== undefined && answer.itemId !== undefined) {
		const item = reader.items(reader.at(schema, segmentsOf(listed).slice(1)));
		found.push(
			notThere(
				reader,
				item,
				[answer.itemId],
				part('itemId', "items' id", `an item of ${listed} in ${what}`),
			),
		);
	}
	return found.filter((entry) => entry !== undefined);
}

/**
 * The places a profile states for answers that the schemas the document gives those answers lack,
 * but parts already listed (by `of`): such a place would be read as absent without a word, so it is
 * listed as not followed. Where the document gives no schema, or a schema describes no members
 * there (an open object), there is nothing to check against. It pauses (yields) after each operation.
 */
export function* statedPlaces(
	reader: DocumentReader,
	found: Map<OperationName, DocumentOperation>,
	operations: Record<OperationName, OperationProfile>,
	job: { schema: Schema | undefined; profile: JobProfile; from: string },
	unpaged: ReadonlyMap<OperationName, string>,
	listed: NotFollowed[],
): Generator<void, NotFollowed[]> {
	const stated: NotFollowed[] = [];
	for (const [name, entry] of found) {
		// An operation not followed as a whole is listed already.
		if (operations[name] !== BUILT_IN_PROFILE.operations[name])
			stated.push(...operationPlaces(reader, entry, name, operations[name], unpaged.get(name)));
		yield;
	}
	// Jobs not followed as a whole are listed already.
	if (job.profile !== BUILT_IN_PROFILE.jobs) {
		const { profile: jobs, from } = job;
		const places: Array<[string, Pointer, Pointer[]]> = [
			["its jobs' id", '/jobs/id', jobs.id],
			jobs.completion.by === 'status'
				? ["its jobs' status", '/jobs/completion/status', jobs.completion.status]
				: ["its jobs' done flag", '/jobs/completion/done', jobs.completion.done],
			["its jobs' result", '/jobs/result', jobs.result],
			// Why a job failed may be in a message or code of its own instead (Twilio's).
			["its jobs' error", '/jobs/error', [...jobs.error, ...jobs.errorMessage, ...jobs.errorCode]],
			["its jobs' kind", '/jobs/kind', jobs.kind],
		];
		for (const [part, of, at] of places) {
			const lacking = notThere(reader, job.schema, at, { part, of, what: `the job at ${from}` });
			if (lacking !== undefined) stated.push(lacking);
		}
	}
	return stated.filter(({ of }) => !listed.some((entry) => entry.of === of));
}
