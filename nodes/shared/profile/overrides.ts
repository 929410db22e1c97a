import { BUILT_IN_PROFILE } from './builtIn';
import { isRecord, pointerOf, segmentsOf } from './pointer';
import {
	BUILT_IN_EVENTS,
	HTTP_METHODS,
	OPERATION_NAMES,
	type JobState,
	type OperationName,
	type Profile,
} from './types';

/**
 * The credential's Profile Overrides: JSON in the shape of the profile (Service → Describe shows
 * it), merged over the profile the node read, for the action node and the trigger alike. Objects
 * merge, anything else replaces. Shorthands: a parameter's place as its location alone
 * (`"transcript": "/body/input/text"`) or `null` for no place; a list of places as one place.
 *
 * The merged profile is checked as a whole before any request, with errors naming the JSON path
 * and what is allowed there. Nothing in it can step around the node's safety rules: paths stay
 * below the Base URL (the transport adds it and checks origins), values are bounded, and the
 * signing secret is checked as any other.
 */

export class OverrideError extends Error {
	constructor(
		readonly path: string,
		readonly allowed: string,
	) {
		super(`Profile Overrides ${path || '/'}: ${allowed}`);
	}
}

const MAX_OVERRIDES_LENGTH = 64 * 1024;
const MAX_TEXT = 256;
const MAX_LIST = 64;

/** What is wrong at a path of the overrides, or undefined. */
type Problem = OverrideError | undefined;
type Check = (value: unknown, path: string[]) => Problem;

function problem(path: string[], allowed: string): OverrideError {
	return new OverrideError(pointerOf(path), allowed);
}

function fail(path: string[], allowed: string): never {
	throw problem(path, allowed);
}

const text =
	(test: (value: string) => boolean = () => true, what = 'a text'): Check =>
	(value, path) =>
		typeof value !== 'string' || !test(value)
			? problem(path, `must be ${what}`)
			: value.length > MAX_TEXT
				? problem(path, `must be at most ${MAX_TEXT} characters long`)
				: undefined;
const oneOf =
	(...values: readonly string[]): Check =>
	(value, path) =>
		typeof value !== 'string' || !values.includes(value)
			? problem(path, `must be one of ${values.join(', ')}`)
			: undefined;
const bool: Check = (value, path) =>
	typeof value !== 'boolean' ? problem(path, 'must be true or false') : undefined;
const integer =
	(min: number, max: number): Check =>
	(value, path) =>
		typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max
			? problem(path, `must be a whole number from ${min} to ${max}`)
			: undefined;
const list =
	(entry: Check): Check =>
	(value, path) => {
		if (!Array.isArray(value) || value.length > MAX_LIST)
			return problem(path, `must be a list of at most ${MAX_LIST} entries`);
		for (const [index, item] of value.entries()) {
			const found = entry(item, [...path, String(index)]);
			if (found) return found;
		}
		return undefined;
	};
const object =
	(
		fields: Record<string, Check>,
		{ optional = [] as string[], rest }: { optional?: string[]; rest?: Check } = {},
	): Check =>
	(value, path) => {
		if (!isRecord(value)) return problem(path, 'must be an object');
		for (const [key, check] of Object.entries(fields)) {
			const found =
				value[key] === undefined
					? optional.includes(key)
						? undefined
						: problem([...path, key], 'is missing')
					: check(value[key], [...path, key]);
			if (found) return found;
		}
		for (const key of Object.keys(value)) {
			if (key in fields) continue;
			const found =
				rest === undefined
					? problem(
							[...path, key],
							`is not a part of the profile here; known: ${Object.keys(fields).join(', ')}`,
						)
					: rest(value[key], [...path, key]);
			if (found) return found;
		}
		return undefined;
	};
const either =
	(what: string, ...checks: Check[]): Check =>
	(value, path) =>
		checks.some((check) => check(value, path) === undefined) ? undefined : problem(path, what);

// A JSON Pointer into an object; `""` is the object itself.
const POINTER = /^(\/[^/]*)*$/;
const pointer = text(
	(value) => POINTER.test(value),
	'a JSON Pointer such as "/status" ("" for the object itself)',
);
const pointers = list(pointer);
// Where an answer's values are: its body, or one of its headers.
const location = text(
	(value) => /^\/body(\/[^/]*)*$/.test(value) || /^\/headers\/[a-z0-9-]+$/.test(value),
	'a location in the answer such as "/body/data" or "/headers/link"',
);
const locations = list(location);
// Where a request's values go: its body (objects below it, `-` for each entry of a list), or one query parameter.
const requestLocation = text(
	(value) => /^\/body(\/[^/]+)+$/.test(value) || /^\/query\/[^/]+$/.test(value),
	'a place in the request such as "/body/input/text", "/body/tweets/-/text" or "/query/page_id"',
);
// A path below the Base URL, with at most one `{id}`: no `..`, no address of another host.
const PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(\{id\}[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*)?$/;
const apiPath = text(
	(value) =>
		PATH.test(value) &&
		!segmentsOf(value).some((segment) => segment === '.' || segment === '..' || segment === ''),
	'a path below the Base URL such as "/v1/posts/{id}", with no "." or ".." segment',
);
const name = text((value) => /^[A-Za-z0-9_.\-[\]$@]+$/.test(value), 'a parameter or property name');
const source = text();

const placement = object(
	{
		to: either(
			'must be a place in the request such as "/body/input/text", or null',
			requestLocation,
			(value, path) => (value === null ? undefined : problem(path, 'must be null')),
		),
		why: text(),
		values: object({}, { rest: text() }),
		negate: bool,
		from: source,
	},
	{ optional: ['why', 'values', 'negate', 'from'] },
);
const reference = either(
	'must be {"job": location}, {"id": location} or {"address": location}',
	object({ job: either('a location', location, pointer) }),
	object({ id: either('a location', location, pointer) }),
	object({ address: location }),
);
const paging = object(
	{
		style: oneOf('none', 'cursor', 'after', 'page', 'offset', 'link'),
		size: name,
		max: integer(1, 1000),
		cursor: name,
		next: locations,
		more: location,
		page: name,
		first: integer(0, 1),
		offset: name,
		from: source,
	},
	{
		optional: ['size', 'max', 'cursor', 'next', 'more', 'page', 'first', 'offset', 'from'],
	},
);
const operation = object(
	{
		method: oneOf(...HTTP_METHODS),
		path: apiPath,
		from: source,
		mediaType: oneOf(
			'application/json',
			'application/merge-patch+json',
			'application/x-www-form-urlencoded',
		),
		fields: object({}, { rest: placement }),
		idempotency: object(
			{ header: name, firstSent: name, from: source },
			{ optional: ['firstSent', 'from'] },
		),
		replaces: object({ keep: list(name) }),
		answer: object(
			{
				resource: locations,
				items: locations,
				itemId: pointer,
				paging,
				jobs: list(reference),
				from: source,
			},
			{ optional: ['resource', 'items', 'itemId', 'paging', 'jobs', 'from'] },
		),
	},
	{ optional: ['mediaType', 'idempotency', 'replaces'] },
);
const states = object(
	{},
	{ rest: oneOf(...(['pending', 'scheduled', 'succeeded', 'failed'] satisfies JobState[])) },
);
const checkProfile = object(
	{
		source: text(),
		operations: object(Object.fromEntries(OPERATION_NAMES.map((name) => [name, operation]))),
		jobs: object({
			id: pointers,
			completion: either(
				'must be {"by": "status", "status": [pointers], "states": {value: state}} or {"by": "flag", "done": [pointers]}',
				object({ by: oneOf('status'), status: pointers, states }),
				object({ by: oneOf('flag'), done: pointers }),
			),
			result: pointers,
			error: pointers,
			errorMessage: pointers,
			errorCode: pointers,
			kind: pointers,
			media: list(text()),
			from: source,
		}),
		errors: object({
			message: locations,
			code: locations,
			details: locations,
			detailField: list(name),
			detailMessage: list(name),
			detailCode: list(name),
			from: source,
		}),
		webhooks: object(
			{
				events: list(text()),
				wildcard: bool,
				meanings: object(Object.fromEntries(BUILT_IN_EVENTS.map((event) => [event, list(text())]))),
				registration: object(
					{
						url: pointer,
						events: pointer,
						active: pointer,
						negated: bool,
						maxUrlLength: integer(1, 8000),
					},
					{ optional: ['active', 'negated', 'maxUrlLength'] },
				),
				secret: either(
					'must be {"by": "node"}, {"by": "service", "at": pointer} or {"by": "none"}',
					object({ by: oneOf('node', 'none') }),
					object({ by: oneOf('service'), at: pointer, pattern: text() }, { optional: ['pattern'] }),
				),
				delivery: object({
					type: locations,
					id: locations,
					time: locations,
					data: locations,
					jobs: list(reference),
					post: pointers,
				}),
				signature: object(
					{
						header: text((value) => /^[a-z0-9-]+$/.test(value), 'a lower-case header name'),
						format: oneOf('plain', 'prefixed', 'stripe', 'standard'),
						prefix: text(),
						algorithm: oneOf('sha256', 'sha512', 'sha1'),
						encoding: oneOf('hex', 'base64'),
						signed: list(
							either(
								'must be "id", "timestamp", "body" or {"text": …}',
								oneOf('id', 'timestamp', 'body'),
								object({ text: text() }),
							),
						),
						separator: text(),
						timestampHeader: text(
							(value) => /^[a-z0-9-]+$/.test(value),
							'a lower-case header name',
						),
						idHeader: text((value) => /^[a-z0-9-]+$/.test(value), 'a lower-case header name'),
						secretEncoding: oneOf('text', 'whsec'),
					},
					{ optional: ['prefix', 'timestampHeader', 'idHeader'] },
				),
				from: source,
			},
			{ optional: ['events'] },
		),
		notFollowed: list(object({ part: text(), why: text() })),
		overridden: list(text()),
	},
	{ optional: ['overridden'] },
);

/** Wraps a single place in a list where the profile has a list of places. */
function wrap(value: unknown, keys: string[]): void {
	if (!isRecord(value)) return;
	for (const key of keys) if (typeof value[key] === 'string') value[key] = [value[key]];
}

/** Places given as their location alone, or null; single places where lists are expected. */
function expandShorthands(overrides: Record<string, unknown>): void {
	const operations = isRecord(overrides.operations) ? overrides.operations : {};
	for (const operation of Object.values(operations)) {
		if (!isRecord(operation)) continue;
		if (isRecord(operation.fields)) {
			for (const [field, place] of Object.entries(operation.fields)) {
				operation.fields[field] =
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
		wrap(operation.answer, ['resource', 'items']);
		if (isRecord(operation.answer)) wrap(operation.answer.paging, ['next']);
	}
	const { jobs, errors, webhooks } = overrides;
	wrap(jobs, ['id', 'result', 'error', 'errorMessage', 'errorCode', 'kind']);
	if (isRecord(jobs)) wrap(jobs.completion, ['status', 'done']);
	wrap(errors, ['message', 'code', 'details']);
	if (isRecord(webhooks)) wrap(webhooks.delivery, ['type', 'id', 'time', 'data', 'post']);
}

const OVERRIDES = "the credential's Profile Overrides";

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		return error;
	}
}

/** Reads the credential's Profile Overrides text: empty is none. */
export function parseOverrides(raw: unknown): Record<string, unknown> | undefined {
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
		return undefined;
	let value: unknown = raw;
	if (typeof raw === 'string') {
		if (raw.length > MAX_OVERRIDES_LENGTH)
			fail([], `must be at most ${MAX_OVERRIDES_LENGTH / 1024} KB of JSON`);
		value = parseJson(raw);
		if (value instanceof SyntaxError) fail([], `must be JSON: ${value.message}`);
	}
	if (!isRecord(value))
		fail([], 'must be a JSON object, such as {"operations": {"updatePost": {"method": "POST"}}}');
	for (const key of Object.keys(value))
		if (!['operations', 'jobs', 'errors', 'webhooks'].includes(key))
			fail(
				[key],
				'is not a part of the profile that can be set; known: operations, jobs, errors, webhooks',
			);
	for (const key of Object.keys(value.operations ?? {}))
		if (key !== EVERY && !(OPERATION_NAMES as readonly string[]).includes(key))
			fail(
				['operations', key],
				`is not an operation of the node; known: ${EVERY} (every operation), ${OPERATION_NAMES.join(', ')}`,
			);
	expandShorthands(value);
	return value;
}

function merge(base: unknown, change: unknown, path: string[], changed: string[]): unknown {
	if (!isRecord(base) || !isRecord(change)) {
		changed.push(pointerOf(path));
		return change;
	}
	const merged: Record<string, unknown> = { ...base };
	for (const [key, value] of Object.entries(change)) {
		// Set as own data properties, whatever the key (even `__proto__`).
		Object.defineProperty(merged, key, {
			value: merge(
				Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined,
				value,
				[...path, key],
				changed,
			),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return merged;
}

/**
 * The credential's overrides, parsed and checked over `base` before any request, or what is wrong
 * with them.
 */
export function checkOverrides(
	raw: unknown,
	base: Profile,
): { overrides?: Record<string, unknown>; problem?: OverrideError } {
	try {
		const overrides = parseOverrides(raw);
		applyOverrides(base, overrides);
		return { overrides };
	} catch (error) {
		return {
			problem: error instanceof OverrideError ? error : new OverrideError('', String(error)),
		};
	}
}

/** The profile with the overrides over it, checked as a whole; `overridden` lists what they set. */
export function applyOverrides(
	profile: Profile,
	overrides: Record<string, unknown> | undefined,
): Profile {
	if (overrides === undefined) return profile;
	const changed: string[] = [];
	const merged = merge(profile, withEvery(profile, overrides), [], changed) as Profile;
	const found = checkProfile(merged, []);
	if (found) throw found;
	for (const name of OPERATION_NAMES) {
		const operation = merged.operations[name as OperationName];
		const needsId = BUILT_ID_OPERATIONS.has(name);
		if (needsId !== operation.path.includes('{id}'))
			fail(
				['operations', name, 'path'],
				needsId
					? 'must hold "{id}", where the id of the resource goes'
					: 'must not hold "{id}": this operation names no resource',
			);
	}
	return { ...merged, overridden: changed };
}

const BUILT_IN_PLACES = Object.fromEntries(
	OPERATION_NAMES.map((name) => [name, BUILT_IN_PROFILE.operations[name].fields]),
) as Record<OperationName, Record<string, unknown>>;

/** `"*"` under operations: what every operation shares. */
const EVERY = '*';
const SHARED = ['fields', 'answer', 'mediaType'];

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
 * The overrides with `*` spread over every operation, before each operation's own: its fields go
 * where the operation sends that parameter in the same part of the request (a body field never
 * becomes a list's query parameter), its answer parts where the operation reads them.
 */
function withEvery(profile: Profile, overrides: Record<string, unknown>): Record<string, unknown> {
	const operations = isRecord(overrides.operations) ? overrides.operations : undefined;
	const every = operations?.[EVERY];
	if (operations === undefined || every === undefined) return overrides;
	if (!isRecord(every)) fail(['operations', EVERY], 'must be an object');
	for (const key of Object.keys(every))
		if (!SHARED.includes(key))
			fail(
				['operations', EVERY, key],
				`is not shared by every operation; shared: ${SHARED.join(', ')}`,
			);
	const spread: Record<string, unknown> = {};
	for (const name of OPERATION_NAMES) {
		const operation = profile.operations[name];
		const { fields, ...rest } = every;
		const shared = present(rest, operation) as Record<string, unknown>;
		if (isRecord(fields))
			shared.fields = Object.fromEntries(
				Object.entries(fields).filter(
					([field, place]) =>
						field in operation.fields &&
						(rootOf(place) === undefined || rootOf(BUILT_IN_PLACES[name][field]) === rootOf(place)),
				),
			);
		spread[name] = merge(shared, operations[name] ?? {}, [], []);
	}
	return { ...overrides, operations: spread };
}

const BUILT_ID_OPERATIONS = new Set<string>([
	'getPage',
	'getPost',
	'updatePost',
	'deletePost',
	'getJob',
	'getWebhook',
	'updateWebhook',
	'deleteWebhook',
]);
