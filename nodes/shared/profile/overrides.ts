import { pathProblem } from '../origin';
import { BUILT_IN_PROFILE } from './builtIn';
import { isRecord, own, pointerOf, readAt, setOwn } from './pointer';
import { LISTED_VALUES } from './read/fields';
import { VERBS } from './read/operations';
import { filledPlaces, isFilled, OWN_HEADERS } from './read/required';
import { webhookWeakness } from './signing';
import {
	BUILT_IN_EVENTS,
	HTTP_METHODS,
	MAX_PROFILE_TEXT,
	OPERATION_NAMES,
	OPERATIONS,
	type JobState,
	type OperationName,
	type OperationProfile,
	type Profile,
} from './types';

/**
 * The credential's Profile Overrides (docs/service.md): merged over the profile the node read and
 * checked as a whole before any request, an error naming the JSON path and what is allowed there.
 */

class OverrideError extends Error {}

const MAX_OVERRIDES_LENGTH = 64 * 1024;
const MAX_LIST = 64;
const MAX_DEPTH = 12;

/** A check of a value; `single`: a list of places, which a single place given alone stands for. */
type Check = ((value: unknown, path: string[]) => OverrideError | undefined) & { single?: true };
/** A check, or an object as the checks of its properties; a key ending in `?` may be absent. */
type Shape = Check | { [key: string]: Shape };

function problem(path: string[], allowed: string): OverrideError {
	return new OverrideError(`Profile Overrides ${pointerOf(path) || '/'}: ${allowed}`);
}

const text =
	(pattern?: RegExp, what = 'a text'): Check =>
	(value, path) =>
		typeof value !== 'string' || pattern?.test(value) === false
			? problem(path, `must be ${what}`)
			: value.length > MAX_PROFILE_TEXT
				? problem(path, `must be at most ${MAX_PROFILE_TEXT} characters long`)
				: undefined;
const leaf =
	(test: (value: unknown) => boolean, what: string): Check =>
	(value, path) =>
		test(value) ? undefined : problem(path, `must be ${what}`);
const oneOf = (...values: readonly unknown[]) =>
	leaf((value) => values.includes(value), `one of ${values.join(', ')}`);
const bool = leaf((value) => typeof value === 'boolean', 'true or false');
const integer = (min: number, max: number) =>
	leaf(
		(value) => Number.isInteger(value) && Number(value) >= min && Number(value) <= max,
		`a whole number from ${min} to ${max}`,
	);
/** A list or an object each of whose entries passes `entry`; `null` removes an object's entry. */
function each(container: (value: unknown) => value is object, what: string, entry: Shape): Check {
	const check = checkOf(entry);
	return (value, path) =>
		!container(value)
			? problem(path, `must be ${what}`)
			: Object.entries(value)
					.map(([key, item]) => (removed(value, key) ? undefined : check(item, [...path, key])))
					.find(Boolean);
}

/** Removes an object's member that is `null` (what the overrides remove); whether it did. */
function removed(value: object, key: string): boolean {
	if (Array.isArray(value) || own(value, key) !== null) return false;
	delete (value as Record<string, unknown>)[key];
	return true;
}
const list = (entry: Shape) =>
	each(
		(value): value is unknown[] => Array.isArray(value) && value.length <= MAX_LIST,
		`a list of at most ${MAX_LIST} entries`,
		entry,
	);
const record = (entry: Shape) => each(isRecord, 'an object', entry);

function either(what: string, ...shapes: Shape[]): Check {
	const checks = shapes.map(checkOf);
	return (value, path) =>
		checks.some((check) => check(value, path) === undefined) ? undefined : problem(path, what);
}

function checkOf(shape: Shape): Check {
	if (typeof shape === 'function') return shape;
	const fields = Object.entries(shape).map(([key, inner]) => ({
		key: key.replace(/\?$/, ''),
		optional: key.endsWith('?'),
		check: checkOf(inner),
	}));
	const known = fields.map(({ key }) => key);
	return (value, path) => {
		if (!isRecord(value)) return problem(path, 'must be an object');
		const unknown = Object.keys(value).find((key) => !known.includes(key));
		return (
			fields
				.map(({ key, optional, check }) => {
					if (check.single && typeof value[key] === 'string') value[key] = [value[key]];
					if (optional && removed(value, key)) return undefined;
					if (value[key] === undefined)
						return optional ? undefined : problem([...path, key], 'is missing');
					const found = check(value[key], [...path, key]);
					return found && value[key] === null
						? problem([...path, key], 'is required here: null cannot remove it')
						: found;
				})
				.find(Boolean) ??
			(unknown === undefined
				? undefined
				: problem(
						[...path, unknown],
						`is not a part of the profile here; known: ${known.join(', ')}`,
					))
		);
	};
}

// A JSON Pointer into an object; `""` is the object itself.
const pointer = text(/^(\/[^/]*)*$/, 'a JSON Pointer such as "/status" ("" for the object itself)');
const pointers = Object.assign(list(pointer), { single: true as const });
// Where an answer's values are: its body, or one of its headers.
const location = text(
	/^(\/body(\/[^/]*)*|\/headers\/[a-z0-9-]+)$/,
	'a location in the answer such as "/body/data" or "/headers/link"',
);
const locations = Object.assign(list(location), { single: true as const });
// Where a request's values go: its body (objects below it, `-` for each entry of a list), or one query parameter.
const requestLocation = text(
	/^(\/body(\/[^/]+)+|\/query\/[^/]+)$/,
	'a place in the request such as "/body/input/text", "/body/tweets/-/text" or "/query/page_id"',
);
// A plain path below the Base URL (the document's paths follow the same rule) with at most one `{id}`.
const apiPath: Check = (value, path) => {
	const why =
		typeof value !== 'string'
			? 'it is not a text'
			: (pathProblem(value) ??
				(/[{}]/.test(value.replace('{id}', ''))
					? 'it has braces other than one "{id}"'
					: undefined));
	return why === undefined
		? undefined
		: problem(path, `must be a path below the Base URL such as "/v1/posts/{id}" (${why})`);
};
const name = text(/^[A-Za-z0-9_.\-[\]$@]+$/, 'a parameter or property name');
const header = text(/^[a-z0-9-]+$/, 'a lower-case header name');
const reference = either(
	'must be {"job": location}, {"id": location} or {"address": location}',
	{ job: pointer },
	{ id: pointer },
	{ address: location },
);

// Members of a condition on a delivery, or beside a parameter's value: real ones have one to three.
const MAX_PAIRS = 8;
// A condition on a delivery: places in it and the text each must be, or whether it is present.
const conditions: Check = (value, path) => {
	if (!isRecord(value) || Object.keys(value).length === 0)
		return problem(path, 'must be an object of places in the delivery and their values');
	if (Object.keys(value).length > MAX_PAIRS)
		return problem(path, `must hold at most ${MAX_PAIRS} places`);
	for (const [place, wanted] of Object.entries(value)) {
		const at = [...path, place];
		const wrong = location(place, at);
		if (wrong !== undefined) return wrong;
		if (typeof wanted !== 'boolean' && text()(wanted, at) !== undefined)
			return problem(at, 'must be a text the value must be, or true (present) or false (absent)');
	}
	return undefined;
};
const meaning = either(
	'must be an event\'s name, or {"event": name, "when": {"/body/action": "completed"}}',
	text(),
	{ event: text(), when: conditions },
);

/** Constants by place: a member of the body, a query parameter or a header, each a short scalar. */
const constants: Check = (value, path) => {
	if (!isRecord(value) || Object.keys(value).length > MAX_LIST)
		return problem(path, `must be an object of at most ${MAX_LIST} places and their values`);
	for (const [place, constant] of Object.entries(value)) {
		if (removed(value, place)) continue;
		const at = [...path, place];
		const header = /^\/headers\/([a-z0-9-]+)$/.exec(place)?.[1];
		if (header === undefined && requestLocation(place, at) !== undefined)
			return problem(
				at,
				'must be a place in the request such as "/body/data/type", "/query/version" or "/headers/x-api-version"',
			);
		if (header !== undefined && OWN_HEADERS.test(header))
			return problem(at, 'is a header the node sets itself: it cannot be a constant');
		if (!['string', 'number', 'boolean'].includes(typeof constant))
			return problem(at, 'must be a text, a number, or true or false');
		if (String(constant).length > MAX_PROFILE_TEXT)
			return problem(at, `must be at most ${MAX_PROFILE_TEXT} characters long`);
	}
	return undefined;
};

const operation: Shape = {
	method: oneOf(...HTTP_METHODS),
	path: apiPath,
	from: text(),
	'mediaType?': text(
		/^application\/(json|x-www-form-urlencoded|[\w.-]+\+json)$/i,
		'application/json, a +json type such as application/vnd.api+json, or application/x-www-form-urlencoded',
	),
	fields: record({
		to: either(
			'must be a place in the request such as "/body/input/text", or null',
			requestLocation,
			(value, path) => (value === null ? undefined : problem(path, 'must be null')),
		),
		'why?': text(),
		'values?': record(text()),
		'negate?': bool,
		'beside?': (value: unknown, path: string[]) =>
			isRecord(value) &&
			Object.keys(value).length <= MAX_PAIRS &&
			Object.entries(value).every(
				([member, constant]) =>
					name(member, path) === undefined &&
					['string', 'number', 'boolean'].includes(typeof constant) &&
					String(constant).length <= MAX_PROFILE_TEXT,
			)
				? undefined
				: problem(
						path,
						`must be an object of at most ${MAX_PAIRS} names and their texts, numbers or true/false, such as {"type": "pages"}`,
					),
		'from?': text(),
	}),
	'idempotency?': { header: name, 'firstSent?': name, 'from?': text() },
	'replaces?': { keep: list(name) },
	'constants?': constants,
	'idAt?': requestLocation,
	'stated?': record(text()),
	'precondition?': {
		header: (value, path) =>
			header(value, path) ??
			(OWN_HEADERS.test(String(value))
				? problem(path, 'is a header the node sets itself: it cannot carry a precondition')
				: undefined),
		from: location,
	},
	answer: {
		'resource?': locations,
		'items?': locations,
		'itemId?': pointer,
		'paging?': {
			style: oneOf('none', 'cursor', 'after', 'page', 'offset', 'link'),
			'size?': name,
			'max?': integer(1, 1000),
			'cursor?': name,
			'next?': locations,
			'more?': location,
			'page?': name,
			'first?': integer(0, 1),
			'offset?': name,
			'from?': text(),
		},
		'jobs?': list(reference),
		'from?': text(),
	},
};

const checkProfile = checkOf({
	source: text(),
	operations: Object.fromEntries(OPERATION_NAMES.map((key) => [key, operation])),
	jobs: {
		id: pointers,
		completion: either(
			'must be {"by": "status", "status": [pointers], "states": {value: state}} or {"by": "flag", "done": [pointers]}',
			{
				by: oneOf('status'),
				status: pointers,
				states: record(
					oneOf(...(['pending', 'scheduled', 'succeeded', 'failed'] satisfies JobState[])),
				),
			},
			{ by: oneOf('flag'), done: pointers },
		),
		result: pointers,
		error: pointers,
		errorMessage: pointers,
		errorCode: pointers,
		kind: pointers,
		media: list(text()),
		from: text(),
	},
	errors: {
		message: locations,
		code: locations,
		details: locations,
		detailField: list(name),
		detailMessage: list(name),
		detailCode: list(name),
		from: text(),
	},
	webhooks: {
		'events?': list(text()),
		wildcard: bool,
		meanings: Object.fromEntries(BUILT_IN_EVENTS.map((event) => [event, list(meaning)])),
		registration: {
			url: pointer,
			events: pointer,
			'active?': pointer,
			'negated?': bool,
			'maxUrlLength?': integer(1, 8000),
		},
		secret: either(
			'must be {"by": "node"}, {"by": "service", "at": pointer} or {"by": "none"}',
			{ by: oneOf('node', 'none') },
			{ by: oneOf('service'), at: pointer, 'pattern?': text() },
		),
		delivery: {
			type: locations,
			id: locations,
			time: locations,
			data: locations,
			jobs: list(reference),
			post: pointers,
		},
		signature: {
			header,
			format: oneOf('plain', 'prefixed', 'stripe', 'standard'),
			'prefix?': text(),
			algorithm: oneOf('sha256', 'sha512', 'sha1'),
			encoding: oneOf('hex', 'base64'),
			signed: list(
				either(
					'must be "id", "timestamp", "body", "url", "form" or {"text": …}',
					oneOf('id', 'timestamp', 'body', 'url', 'form'),
					{ text: text() },
				),
			),
			separator: text(),
			'timestampHeader?': header,
			'idHeader?': header,
			secretEncoding: oneOf('text', 'whsec'),
			'key?': oneOf('secret', 'apiKey'),
		},
		from: text(),
	},
	notFollowed: list({
		part: text(),
		why: text(),
		'operation?': oneOf(...OPERATION_NAMES),
		'of?': text(),
		// A place holds a name of the document, which may be as long as a text.
		'place?': leaf((value) => typeof value === 'string', 'a text'),
	}),
	'overridden?': list(text()),
});

/** Places given as their location alone, or null. */
function expandShorthands(operations: unknown): void {
	for (const operation of isRecord(operations) ? Object.values(operations) : []) {
		const fields = own(operation, 'fields');
		if (!isRecord(fields)) continue;
		for (const [field, place] of Object.entries(fields)) {
			fields[field] =
				place === null
					? {
							to: null,
							why: "The credential's Profile Overrides give it no place.",
							from: OVERRIDES,
						}
					: typeof place === 'string'
						? { to: place, from: OVERRIDES }
						: isRecord(place)
							? { from: OVERRIDES, ...place }
							: place;
		}
	}
}

const OVERRIDES = "the credential's Profile Overrides";
/** What Describe's profile says of its reading, not how to send: taken and left as read, so that it can be copied whole. */
const DESCRIBED_ONLY = ['source', 'notFollowed', 'overridden'];

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
		if (!['operations', 'jobs', 'errors', 'webhooks'].includes(key))
			throw problem(
				[key],
				`is not a part of the profile that can be set; known: operations, jobs, errors, webhooks (and ${DESCRIBED_ONLY.join(', ')}, which Describe outputs and overrides leave as read)`,
			);
	for (const key of Object.keys(overrides.operations ?? {}))
		if (key !== EVERY && !(OPERATION_NAMES as readonly string[]).includes(key))
			throw problem(
				['operations', key],
				`is not an operation of the node; known: ${EVERY} (every operation), ${OPERATION_NAMES.join(', ')}`,
			);
	checkCopied(overrides, []);
	for (const [key, operation] of Object.entries(
		isRecord(overrides.operations) ? overrides.operations : {},
	))
		checkFieldNames(key, own(operation, 'fields'));
	expandShorthands(overrides.operations);
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
function parametersOf(operation: string): string[] {
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
 * its values where it takes listed ones: a misspelt one would be ignored.
 */
function checkFieldNames(operation: string, fields: unknown): void {
	if (!isRecord(fields)) return;
	const known = parametersOf(operation);
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
	}
}

/**
 * `change` over `base`, as a copy the checks may edit; `changed` gets the pointer of each value it
 * sets otherwise than `base` has it (so the profile Describe outputs, given back, changes nothing).
 */
function merge(base: unknown, change: unknown, path: string[], changed: string[]): unknown {
	// An object of another kind (a completion by a flag, not a status; another paging style) replaces it.
	const otherKind = ['by', 'style'].some(
		(key) =>
			own(change, key) !== undefined && ![undefined, own(change, key)].includes(own(base, key)),
	);
	if (isRecord(change) && (!isRecord(base) || otherKind)) return merge({}, change, path, changed);
	if (!isRecord(base) || !isRecord(change)) {
		if (JSON.stringify(base ?? null) !== JSON.stringify(change)) changed.push(pointerOf(path));
		return change;
	}
	const merged = { ...base };
	for (const [key, value] of Object.entries(change))
		setOwn(merged, key, merge(own(base, key), value, [...path, key], changed));
	return merged;
}

/** The credential's overrides, parsed and checked over `base`, or what is wrong with them. */
export function checkOverrides(
	raw: unknown,
	base: Profile,
): { overrides?: Record<string, unknown>; problem?: OverrideError } {
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
	if (checked.size >= MAX_CHECKED) checked.delete(checked.keys().next().value as string);
	checked.set(text, result);
	return result;
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
	}
	for (const name of OPERATION_NAMES) unstate(merged.operations[name], name, changed);
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
	const preconditionAt = precondition && pointerOf(['headers', precondition.header]);
	const conditionChanged = changed.some((pointer) =>
		pointer.startsWith(pointerOf(['operations', name, 'precondition'])),
	);
	if (
		stated === undefined ||
		!changed.some((pointer) => pointer.startsWith(`/operations/${name}/`))
	)
		return;
	operation.stated = Object.fromEntries(
		Object.entries(stated).filter(([place]) =>
			place === idAt
				? !changed.includes(pointerOf(['operations', name, 'idAt']))
				: place === preconditionAt
					? !conditionChanged
					: own(constants, place) !== undefined &&
						!changed.includes(pointerOf(['operations', name, 'constants', place])),
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

/** The root (`body`, `query`) of a place. */
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
	const spread: Record<string, unknown> = {};
	for (const name of OPERATION_NAMES) {
		const operation = profile.operations[name];
		const { fields, constants: sent, ...rest } = every;
		const shared = present(rest, operation) as Record<string, unknown>;
		// Headers only: a body member or a query parameter belongs to the operations that take it.
		if (isRecord(sent)) {
			const other = Object.keys(sent).find((place) => !place.startsWith('/headers/'));
			if (other !== undefined)
				throw problem(
					['operations', EVERY, 'constants', other],
					'must be a header ("/headers/…"): under "*" only headers are sent by every operation',
				);
			shared.constants = sent;
		}
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
