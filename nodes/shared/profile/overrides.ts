import { keepInMemory } from '../memory';
import { BUILT_IN_PROFILE } from './builtIn';
import { isRecord, own, pointerOf, readAt, setOwn } from './pointer';
import { LISTED_VALUES } from './read/fields';
import { VERBS } from './read/operations';
import { filledPlaces, isFilled } from './read/required';
import {
	checkProfile,
	OPERATION_NAMES,
	OPERATIONS,
	OverrideError,
	problem,
	PROFILE,
	type Shape,
} from './shape';
import { webhookWeakness } from './signing';
import type { OperationName, OperationProfile, Profile } from './types';

/**
 * The credential's Profile Overrides (docs/service.md): merged over the profile the node read and
 * checked as a whole before any request, an error naming the JSON path and what is allowed there.
 */

const MAX_OVERRIDES_LENGTH = 64 * 1024;
const MAX_DEPTH = 12;

const OVERRIDES = "the credential's Profile Overrides";
/** What Describe's profile says of its reading, not how to send: taken and left as read, so that it can be copied whole. */
const DESCRIBED_ONLY = ['source', 'notFollowed', 'overridden'];
const SETTABLE = Object.keys(PROFILE.parts).filter(
	(key) => !DESCRIBED_ONLY.includes(key.replace(/\?$/, '')),
);

/** Reads the credential's Profile Overrides text: empty is none. */
export function parseOverrides(raw: unknown): Record<string, unknown> | undefined {
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
		return undefined;
	let value: unknown = raw;
	if (typeof raw === 'string') {
		if (raw.length > MAX_OVERRIDES_LENGTH)
			throw problem([], `must be at most ${MAX_OVERRIDES_LENGTH / 1024} KB of JSON`);
		try {
			value = JSON.parse(raw);
		} catch (error) {
			throw problem([], `must be JSON: ${(error as Error).message}`);
		}
	}
	if (!isRecord(value))
		throw problem(
			[],
			'must be a JSON object, such as {"operations": {"updatePost": {"method": "POST"}}}',
		);
	const overrides = Object.fromEntries(
		Object.entries(value).filter(([key]) => !DESCRIBED_ONLY.includes(key)),
	);
	for (const key of Object.keys(overrides))
		if (!SETTABLE.includes(key))
			throw problem(
				[key],
				`is not a part of the profile that can be set; known: ${SETTABLE.join(', ')} (and ${DESCRIBED_ONLY.join(', ')}, which Describe outputs and overrides leave as read)`,
			);
	for (const key of Object.keys(overrides.operations ?? {}))
		if (key !== EVERY && !(OPERATION_NAMES as readonly string[]).includes(key))
			throw problem(
				['operations', key],
				`is not an operation of the node; known: ${EVERY} (every operation), ${OPERATION_NAMES.join(', ')}`,
			);
	checkCopied(overrides, []);
	for (const [key, operation] of Object.entries(overrides.operations ?? {}))
		readFields(key, own(operation, 'fields'));
	return overrides;
}

/**
 * No deeper than a profile goes, and no list or object Describe shortened (its last entry `… and
 * 12 more`): copied back from Describe, it would cut the profile short.
 */
function checkCopied(value: unknown, path: string[]): void {
	if (path.length > MAX_DEPTH) throw problem(path, `is deeper than any part of the profile`);
	if (typeof value === 'string' && /^… and \d+ more$/.test(value))
		throw problem(
			path,
			'is where Describe shortened a long list: give the list in full, or leave it out to keep it as read',
		);
	if (!isRecord(value) && !Array.isArray(value)) return;
	for (const [key, entry] of Object.entries(value))
		checkCopied(key === '…' ? `… ${String(entry)}` : entry, [...path, key]);
}

/** The node's parameters an operation sends (a list's text search too), or those of any operation for `*`. */
function sentParameters(operation: string): string[] {
	const names = (key: OperationName) => [
		...Object.keys(BUILT_IN_PROFILE.operations[key].fields),
		...(OPERATIONS[key].verb === 'list' ? ['search'] : []),
	];
	return operation === EVERY
		? [...new Set(OPERATION_NAMES.flatMap(names))]
		: names(operation as OperationName);
}

/**
 * A field of an operation is one of the node's parameters it sends, and a spelling is of one of
 * its values where it takes listed ones: a misspelt one would be ignored. A place given as its
 * location alone, or null, is made whole.
 */
function readFields(operation: string, fields: unknown): void {
	if (!isRecord(fields)) return;
	const known = sentParameters(operation);
	const unknown = Object.keys(fields).find((field) => !known.includes(field));
	if (unknown !== undefined)
		throw problem(
			['operations', operation, 'fields', unknown],
			known.length === 0
				? 'is not a parameter of this operation: it sends none'
				: `is not a parameter of ${operation === EVERY ? 'any' : 'this'} operation; known: ${known.join(', ')}`,
		);
	for (const [field, place] of Object.entries(fields)) {
		const listed = own(LISTED_VALUES, field) as readonly string[] | undefined;
		const values = own(place, 'values');
		const value = isRecord(values)
			? Object.keys(values).find((node) => listed?.includes(node) === false)
			: undefined;
		if (listed !== undefined && value !== undefined)
			throw problem(
				['operations', operation, 'fields', field, 'values', value],
				`is not a value of "${field}"; known: ${listed.join(', ')}`,
			);
		fields[field] =
			place === null
				? { to: null, why: "The credential's Profile Overrides give it no place.", from: OVERRIDES }
				: typeof place === 'string'
					? { to: place, from: OVERRIDES }
					: isRecord(place)
						? { from: OVERRIDES, ...place }
						: place;
	}
}

/**
 * `change` over `base`, as a copy the checks may edit; `changed` gets the pointer of each value it
 * sets otherwise than `base` has it (so the profile Describe outputs, given back, changes nothing).
 */
function merge(base: unknown, change: unknown, path: string[], changed: string[]): unknown {
	if (isRecord(change) && (!isRecord(base) || otherKind(base, change)))
		return merge({}, change, path, changed);
	if (!isRecord(base) || !isRecord(change)) {
		if (JSON.stringify(base ?? null) !== JSON.stringify(change)) changed.push(pointerOf(path));
		return change;
	}
	const merged = { ...base };
	for (const [key, value] of Object.entries(change))
		setOwn(merged, key, merge(own(base, key), value, [...path, key], changed));
	return merged;
}

/** An object of another kind (a completion by a flag, not a status; another paging style): it replaces `base` whole. */
function otherKind(base: unknown, change: unknown): boolean {
	return ['by', 'style'].some(
		(key) =>
			own(change, key) !== undefined && ![undefined, own(change, key)].includes(own(base, key)),
	);
}

/**
 * The profile with `null` for each optional part the built-in profile has and it lacks (a
 * service that signs no timestamp, lists no events): copied into Profile Overrides, it removes
 * them again, rather than leaving the built-in ones in place.
 */
export function withRemovals(
	profile: unknown,
	base: unknown = BUILT_IN_PROFILE,
	shape: Shape = PROFILE,
): unknown {
	const parts = typeof shape === 'function' ? shape.parts : shape;
	if (parts === undefined || !isRecord(profile) || !isRecord(base) || otherKind(base, profile))
		return profile;
	const copy: Record<string, unknown> = { ...profile };
	for (const [key, inner] of Object.entries(parts)) {
		const name = key.replace(/\?$/, '');
		if (own(profile, name) !== undefined)
			copy[name] = withRemovals(profile[name], own(base, name), inner);
		else if (key.endsWith('?') && own(base, name) !== undefined) copy[name] = null;
	}
	return copy;
}

export function checkOverrides(raw: unknown, base: Profile) {
	try {
		const overrides = parseOverrides(raw);
		applyOverrides(base, overrides);
		return { overrides };
	} catch (error) {
		return { problem: error instanceof OverrideError ? error : problem([], String(error)) };
	}
}

// Overrides checked, by their text, the oldest dropped first.
const checked = new Map<string, ReturnType<typeof checkOverrides>>();
const MAX_CHECKED = 100;

/**
 * The credential's overrides checked over the built-in profile, without the service's document, and
 * remembered by the text: requests and the credential's `authenticate` ask on every request.
 */
export function checkedOverrides(raw: unknown): ReturnType<typeof checkOverrides> {
	const text = typeof raw === 'string' ? raw : JSON.stringify(raw ?? '');
	const found = checked.get(text);
	if (found !== undefined) return found;
	const result = checkOverrides(raw, BUILT_IN_PROFILE);
	// Too long a text fails at once, and is not kept.
	if (text.length > MAX_OVERRIDES_LENGTH) return result;
	return keepInMemory(checked, text, result, MAX_CHECKED);
}

/** What is wrong with the Profile Overrides, as the credential's Test shows it ("Profile Overrides: /operations/updatePost/method: must be …"), or nothing. */
export function overridesProblem(raw: unknown): string | undefined {
	const problem = checkedOverrides(raw).problem?.message;
	return problem?.replace(/^Profile Overrides /, 'Profile Overrides: ');
}

/** The profile with the overrides over it, checked as a whole; `overridden` lists what they set. */
export function applyOverrides(
	profile: Profile,
	overrides: Record<string, unknown> | undefined,
): Profile {
	if (overrides === undefined) return profile;
	const changed: string[] = [];
	const given = withEvery(profile, overrides);
	const merged = merge(profile, given, [], changed) as Profile;
	const found = checkProfile(merged, []);
	if (found) throw found;
	for (const name of OPERATION_NAMES) {
		const needsId = BUILT_IN_PROFILE.operations[name].path.includes('{id}');
		if (needsId !== merged.operations[name].path.includes('{id}'))
			throw problem(
				['operations', name, 'path'],
				needsId
					? 'must hold "{id}", where the id of the resource goes'
					: 'must not hold "{id}": this operation names no resource',
			);
		// A read stays a read: the methods a document's operation may have for this purpose.
		const [, methods] = VERBS[OPERATIONS[name].verb];
		if (!methods.includes(merged.operations[name].method))
			throw problem(
				['operations', name, 'method'],
				`must be ${methods.join(' or ')}, a method ${OPERATIONS[name].title} may use`,
			);
		unstate(merged.operations[name], name, changed);
	}
	const weakness = webhookWeakness(merged.webhooks);
	if (weakness !== undefined) throw problem(['webhooks', ...weakness.path], weakness.rule);
	// A required part the overrides now send (a constant, a parameter's place) is followed, and so
	// is a part they set or remove (the jobs' status where the document has none).
	merged.notFollowed = merged.notFollowed.filter(
		({ operation, place, of }) =>
			(of === undefined || (readAt(given, of) === undefined && readAt(merged, of) !== undefined)) &&
			(operation === undefined ||
				place === undefined ||
				!isFilled(filledPlaces(merged.operations[operation]), place)),
	);
	return changed.length > 0 ? { ...merged, overridden: changed } : merged;
}

/**
 * A constant, the id's place or a precondition the overrides change or remove is no longer as the
 * document states it: where it says so goes too.
 */
function unstate(operation: OperationProfile, name: OperationName, changed: string[]): void {
	const { stated, idAt, constants = {}, precondition } = operation;
	const at = (...part: string[]) => pointerOf(['operations', name, ...part]);
	if (stated === undefined || !changed.some((pointer) => pointer.startsWith(at('')))) return;
	operation.stated = Object.fromEntries(
		Object.entries(stated).filter(([place]) =>
			place === idAt
				? !changed.includes(at('idAt'))
				: precondition && place === pointerOf(['headers', precondition.header])
					? !changed.some((pointer) => pointer.startsWith(at('precondition')))
					: own(constants, place) !== undefined && !changed.includes(at('constants', place)),
		),
	);
}

/** `"*"` under operations: what every operation shares. */
const EVERY = '*';
const SHARED = ['fields', 'answer', 'mediaType', 'constants'];

/** The part of `change` that `target` has, key by key: `*` changes in each operation only what it has. */
function present(change: unknown, target: unknown): unknown {
	if (!isRecord(change) || !isRecord(target)) return change;
	return Object.fromEntries(
		Object.entries(change)
			.filter(([key]) => Object.prototype.hasOwnProperty.call(target, key))
			.map(([key, value]) => [key, present(value, target[key])]),
	);
}

const rootOf = (place: unknown) =>
	isRecord(place) && typeof place.to === 'string' ? place.to.split('/')[1] : undefined;

/**
 * The overrides with `*` spread over every operation, under each one's own: its fields where the
 * operation sends them in the same part of the request, its answer parts where it reads them.
 */
function withEvery(profile: Profile, overrides: Record<string, unknown>): Record<string, unknown> {
	const operations = isRecord(overrides.operations) ? overrides.operations : undefined;
	const every = operations?.[EVERY];
	if (operations === undefined || every === undefined) return overrides;
	if (!isRecord(every)) throw problem(['operations', EVERY], 'must be an object');
	for (const key of Object.keys(every))
		if (!SHARED.includes(key))
			throw problem(
				['operations', EVERY, key],
				`is not shared by every operation; shared: ${SHARED.join(', ')}`,
			);
	const { fields, constants: sent, ...rest } = every;
	// Headers only: a body member or a query parameter belongs to the operations that take it.
	const other = Object.keys(isRecord(sent) ? sent : {}).find(
		(place) => !place.startsWith('/headers/'),
	);
	if (other !== undefined)
		throw problem(
			['operations', EVERY, 'constants', other],
			'must be a header ("/headers/…"): under "*" only headers are sent by every operation',
		);
	const spread: Record<string, unknown> = {};
	for (const name of OPERATION_NAMES) {
		const operation = profile.operations[name];
		const shared = present(rest, operation) as Record<string, unknown>;
		if (isRecord(sent)) shared.constants = sent;
		if (isRecord(fields))
			shared.fields = Object.fromEntries(
				Object.entries(fields).filter(
					([field, place]) =>
						field in operation.fields &&
						(rootOf(place) === undefined ||
							rootOf(BUILT_IN_PROFILE.operations[name].fields[field]) === rootOf(place)),
				),
			);
		spread[name] = merge(shared, operations[name] ?? {}, [], []);
	}
	return { ...overrides, operations: spread };
}
