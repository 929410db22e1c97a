import { pathProblem } from '../origin';
import { isRecord, own, pointerOf } from './pointer';

/**
 * The shape of a service profile (docs/service.md), written once: the checks Profile Overrides
 * pass (an error names the JSON path and what is allowed there), from which types.ts derives the
 * profile's TypeScript types. `from` says where a decision came from: a JSON Pointer into the
 * service's document (`#/paths/...`), or `built-in`. Beside an object's parts are the words
 * Service → Describe says of them (`said`).
 */

// No text of a profile may be longer: Profile Overrides check each one, and the reader keeps to it.
export const MAX_PROFILE_TEXT = 256;
export const capped = (text: string, max = MAX_PROFILE_TEXT) =>
	text.length > max ? `${text.slice(0, max - 1)}…` : text;
const MAX_LIST = 64;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const op = <V extends string, R extends string, Q extends string = never>(
	verb: V,
	resource: R,
	title: string,
	reads?: Q,
) => ({ verb, resource, title, reads });

/**
 * What the node asks of the service: what each operation does, to what, and its title in n8n; for a
 * write, the read that goes first where it needs the resource as it is (`reads`).
 */
export const OPERATIONS = {
	getAccount: op('get', 'account', 'Account → Get'),
	listPages: op('list', 'page', 'Page → Get Many'),
	getPage: op('get', 'page', 'Page → Get'),
	createPost: op('create', 'post', 'Post → Create'),
	listPosts: op('list', 'post', 'Post → Get Many'),
	getPost: op('get', 'post', 'Post → Get'),
	updatePost: op('update', 'post', 'Post → Update', 'getPost'),
	deletePost: op('delete', 'post', 'Post → Delete', 'getPost'),
	generateBlog: op('generate', 'blog', 'Content Generation → Generate Blog Post'),
	generateLinkedin: op('generate', 'linkedin', 'Content Generation → Generate LinkedIn Post'),
	generateTwitter: op('generate', 'twitter', 'Content Generation → Generate Twitter Thread'),
	generateCarousel: op('generate', 'carousel', 'Content Generation → Generate Carousel'),
	generateVideo: op('generate', 'video', 'Content Generation → Generate Video'),
	publishLinkedin: op('publish', 'linkedin', 'Publication → Publish to LinkedIn'),
	publishTwitter: op('publish', 'twitter', 'Publication → Publish to Twitter'),
	getJob: op('wait', 'job', 'Job → Get and Wait for Completion'),
	createWebhook: op('create', 'webhook', 'Webhook → Create (and the trigger’s registration)'),
	listWebhooks: op('list', 'webhook', 'Webhook → Get Many'),
	getWebhook: op('get', 'webhook', 'Webhook → Get'),
	updateWebhook: op('update', 'webhook', 'Webhook → Update', 'getWebhook'),
	deleteWebhook: op('delete', 'webhook', 'Webhook → Delete', 'getWebhook'),
};
export const OPERATION_NAMES = Object.keys(OPERATIONS) as Array<keyof typeof OPERATIONS>;

/** The events the node names itself, which a service may name otherwise. */
export const BUILT_IN_EVENTS = ['job.completed', 'job.failed', 'post.published'] as const;

/** Headers the node sets itself (the key, the media types, the length) or that steer the connection. */
export const OWN_HEADERS =
	/^(authorization|proxy-authorization|cookie|host|accept|content-type|content-length|transfer-encoding|connection|te|upgrade|expect)$/;

export class OverrideError extends Error {}

export function problem(path: string[], allowed: string): OverrideError {
	return new OverrideError(`Profile Overrides ${pointerOf(path) || '/'}: ${allowed}`);
}

type Test = (value: unknown, path: string[]) => OverrideError | undefined;
/**
 * A check of a value of type T (only a type: the check says what passes); `single`: a list of
 * places, which a single place given alone stands for; `parts`: the object's shape it checks;
 * `says`: Describe's lines of the object's parts, each with the path of the part it says.
 */
export type Check<T> = Test & { readonly __type?: T; single?: true; parts?: Parts; says?: Says };
type Says = (value: Record<string, unknown>, path: string[]) => Array<[string[], string[]]>;
/** A check, or an object as the checks of its properties; a key ending in `?` may be absent. */
export type Shape = Check<unknown> | Parts;
type Parts = { readonly [key: string]: Shape };

type Flat<T> = { [K in keyof T]: T[K] } & {};
export type Infer<S> =
	S extends Check<infer T>
		? T
		: Flat<
				{ -readonly [K in keyof S as K extends `${infer N}?` ? N : never]?: Infer<S[K]> } & {
					-readonly [K in keyof S as K extends `${string}?` ? never : K]: Infer<S[K]>;
				}
			>;

const text =
	(pattern?: RegExp, what = 'a text'): Check<string> =>
	(value, path) =>
		typeof value !== 'string' || pattern?.test(value) === false
			? problem(path, `must be ${what}`)
			: value.length > MAX_PROFILE_TEXT
				? problem(path, `must be at most ${MAX_PROFILE_TEXT} characters long`)
				: undefined;
const leaf =
	<T>(test: (value: unknown) => boolean, what: string): Check<T> =>
	(value, path) =>
		test(value) ? undefined : problem(path, `must be ${what}`);
const oneOf = <V extends string>(...values: readonly V[]) =>
	leaf<V>((value) => (values as readonly unknown[]).includes(value), `one of ${values.join(', ')}`);
const bool = leaf<boolean>((value) => typeof value === 'boolean', 'true or false');
const integer = (min: number, max: number) =>
	leaf<number>(
		(value) => Number.isInteger(value) && Number(value) >= min && Number(value) <= max,
		`a whole number from ${min} to ${max}`,
	);
/** A list or an object each of whose entries passes `entry`; `null` removes an object's entry. */
function each(container: (value: unknown) => value is object, what: string, entry: Shape): Test {
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
const list = <S extends Shape>(entry: S): Check<Array<Infer<S>>> =>
	each(
		(value): value is unknown[] => Array.isArray(value) && value.length <= MAX_LIST,
		`a list of at most ${MAX_LIST} entries`,
		entry,
	);
const record = <S extends Shape>(entry: S): Check<Record<string, Infer<S>>> =>
	each(isRecord, 'an object', entry);
const keyed = <K extends string, S extends Shape>(keys: readonly K[], shape: S) =>
	Object.fromEntries(keys.map((key) => [key, shape])) as { [key in K]: S };

function either<S extends Shape[]>(what: string, ...shapes: S): Check<Infer<S[number]>> {
	const checks = shapes.map(checkOf);
	return (value, path) =>
		checks.some((check) => check(value, path) === undefined) ? undefined : problem(path, what);
}

/**
 * An object of several kinds, told apart by its `tag` (a paging's `style`): the parts of `before`
 * and `after`, and those of its kind, which it must have (a `"style": "page"` without its `page`
 * would page by nothing). Another kind's parts are let pass.
 */
function kinds<
	Tag extends string,
	B extends Parts,
	V extends { [kind: string]: Parts },
	A extends Parts,
>(tag: Tag, before: B, variants: V, after: A): Check<Kinds<Tag, B & A, V>> {
	const optional = Object.values(variants).flatMap((parts) =>
		Object.entries(parts).map(([key, check]) => [`${key.replace(/\?$/, '')}?`, check]),
	);
	const parts: Parts = {
		[tag]: oneOf(...Object.keys(variants)),
		...before,
		...Object.fromEntries(optional),
		...after,
	};
	const flat: Test = checkOf(parts);
	const check: Test = (value, path) => {
		const found = flat(value, path);
		if (found !== undefined || !isRecord(value)) return found;
		const kind = String(value[tag]);
		const missing = Object.keys(variants[kind] ?? {}).find(
			(key) => !key.endsWith('?') && value[key] === undefined,
		);
		return missing === undefined
			? undefined
			: problem([...path, missing], `is missing: a ${tag} "${kind}" needs it`);
	};
	return Object.assign(check, { parts });
}
type Kinds<Tag extends string, C extends Parts, V> = {
	[K in keyof V]: Flat<Infer<C & V[K]> & { [T in Tag]: K }>;
}[keyof V];

/**
 * What Describe says of an object's parts, in the order it says them: a part's line or lines, from
 * its value, the object and the part's path; nothing of an absent part.
 */
type Words<T> = { [K in keyof T]?: Word<Exclude<T[K], undefined>, T> };
type Word<V = unknown, W = object> = (value: V, whole: W, path: string[]) => string | string[];

const said =
	<P extends Parts>(parts: P) =>
	(words: Words<Infer<P>>): Check<Infer<P>> & { parts: P } => {
		const says: Says = (value, path) =>
			Object.entries(words as Record<string, Word>)
				.filter(([key]) => value[key] !== undefined)
				.map(([key, word]) => [[...path, key], [word(value[key], value, [...path, key])].flat()]);
		return Object.assign(checkOf(parts), { parts, says });
	};

/** Places as Describe names them: each way the service may put it, or `nowhere` for none. */
const where = (places: string[]) => places.join(' or ') || 'nowhere';

function checkOf<S extends Shape>(shape: S): Check<Infer<S>>;
function checkOf(shape: Shape): Test {
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

// Members of a condition on a delivery, or beside a parameter's value: real ones have one to three.
const MAX_PAIRS = 8;

const pointer = text(/^(\/[^/]*)*$/, 'a JSON Pointer such as "/status" ("" for the object itself)');
const pointers = Object.assign(list(pointer), { single: true as const });
const location = text(
	/^(\/body(\/[^/]*)*|\/headers\/[a-z0-9-]+)$/,
	'a location in the answer such as "/body/data" or "/headers/link"',
);
const locations = Object.assign(list(location), { single: true as const });
// Where a request's values go: its body (objects below it, `-` for each entry of a list:
// `/body/tweets/-/text` sends `["a"]` as `[{"text": "a"}]`), or one query parameter.
const requestLocation = text(
	/^(\/body(\/[^/]+)+|\/query\/[^/]+)$/,
	'a place in the request such as "/body/input/text", "/body/tweets/-/text" or "/query/page_id"',
);
// A plain path below the Base URL (the document's paths follow the same rule) with at most one `{id}`.
const apiPath: Check<string> = (value, path) => {
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
/** How an answer (or a delivery's data) refers to a job: it holds it, names its id, or points at it. */
const reference = either(
	'must be {"job": location}, {"id": location} or {"address": location}',
	{ job: pointer },
	{ id: pointer },
	{ address: location },
);
const REFERENCES = { job: 'the job', id: 'its id', address: 'its address' };
const references = (jobs: Array<Infer<typeof reference>>) =>
	jobs
		.flatMap((one) => Object.entries(one))
		.map(([by, at]) => `${REFERENCES[by as keyof typeof REFERENCES]} at ${at || 'the data'}`)
		.join(', or ');

/**
 * A condition on a delivery: by place in it, the text the value there must be, or whether it must
 * be present (`true`) or absent or null (`false`).
 */
const conditions: Check<Record<string, string | boolean>> = (value, path) => {
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
/**
 * A service event that means one of the node's: its name, or its name and a condition, where the
 * delivery says so, as GitHub's per-resource events do (`job` with `"action": "completed"`).
 */
const meaning = either(
	'must be an event\'s name, or {"event": name, "when": {"/body/action": "completed"}}',
	text(),
	{ event: text(), when: conditions },
);
/** `job where /body/action is "completed" and /body/job/error is absent`. */
function meaningText(meant: Infer<typeof meaning>): string {
	if (typeof meant === 'string') return meant;
	const wanted = Object.entries(meant.when).map(
		([place, value]) =>
			`${place} is ${typeof value === 'string' ? `"${value}"` : value ? 'present' : 'absent'}`,
	);
	return `${meant.event} where ${wanted.join(' and ')}`;
}

type Scalar = string | number | boolean;
const constants: Check<Record<string, Scalar>> = (value, path) => {
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
const beside: Check<Record<string, Scalar>> = (value, path) =>
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
			);

const preconditionHeader: Check<string> = (value, path) =>
	header(value, path) ??
	(OWN_HEADERS.test(String(value))
		? problem(path, 'is a header the node sets itself: it cannot carry a precondition')
		: undefined);

/** Where a parameter goes; `to: null`, with why, for no place, which fails its item unless an optional extra. */
const placement = {
	to: either(
		'must be a place in the request such as "/body/input/text", or null',
		requestLocation,
		leaf<null>((value) => value === null, 'null'),
	),
	'why?': text(),
	/** The service's spelling of the node's values (`draft` → `DRAFT`); values not listed go as they are. */
	'values?': record(text()),
	/** A yes/no the service names by its opposite (`disabled` for `active`): sent negated. */
	'negate?': bool,
	/**
	 * Members sent beside the value, in the object that holds it, whenever the value is sent: a
	 * reference as an object, such as JSON:API's relationship `{"type": "pages", "id": …}` (for
	 * each entry of a list too).
	 */
	'beside?': beside,
	'from?': text(),
};
/**
 * A parameter's place in words, a guess marked as one: where a document's operation has no place
 * for it, it goes by the built-in name into a body or query that takes other members.
 */
function placed(
	field: string,
	{ to, values, negate, why, beside: members, from }: Infer<typeof placement>,
	documented: boolean,
): string {
	if (to === null) return `  ${field}: not sent${why ? `. ${why}` : ''}`;
	const spelt =
		values === undefined
			? ''
			: ` (${Object.entries(values)
					.map(([node, service]) => `${node} as ${service}`)
					.join(', ')})`;
	const besides =
		members === undefined
			? ''
			: `, with ${Object.entries(members)
					.map(([member, value]) => `${member} ${JSON.stringify(value)}`)
					.join(', ')} beside it`;
	const guess =
		documented && from?.startsWith('built-in') === true
			? ` (a guess, by its built-in name: ${from.replace(/^built-in \((.*)\)$/, '$1')})`
			: '';
	return `  ${field} → ${to}${negate ? ' (negated)' : ''}${spelt}${besides}${guess}`;
}

/**
 * How the next page of a list is asked for. `cursor`: a token from the answer goes into a query
 * parameter; `after`: the next page starts after the last item's id (Stripe); `page`: a page
 * number; `offset`: an item offset; `link`: the answer names the next page's address. `size`: the
 * page-size query parameter, `max` the largest size it takes.
 */
const paging = kinds(
	'style',
	{ 'size?': name, 'max?': integer(1, 1000) },
	{
		none: {},
		cursor: { cursor: name, next: locations },
		after: { cursor: name, 'more?': location },
		page: { page: name, first: integer(0, 1) },
		offset: { offset: name },
		link: { next: locations },
	},
	{ 'from?': text() },
);
function pagingText(rule: Infer<typeof paging>): string {
	const size =
		rule.size === undefined ? '' : `; page size \`${rule.size}\` up to ${rule.max ?? 100}`;
	switch (rule.style) {
		case 'cursor':
			return `cursor \`${rule.cursor}\` from ${where(rule.next)}${size}`;
		case 'after':
			return `\`${rule.cursor}\` the last item's id${rule.more ? `, while ${rule.more} is true` : ''}${size}`;
		case 'page':
			return `page number \`${rule.page}\` from ${rule.first}${size}`;
		case 'offset':
			return `offset \`${rule.offset}\`${size}`;
		case 'link':
			return `next page's address at ${where(rule.next)}${size}`;
		default:
			return 'none: one answer holds the whole list';
	}
}

/** An operation's entry in OPERATIONS, by the path of a part of its profile (`/operations/getJob/…`). */
export const operationAt = (path: string[]) => OPERATIONS[path[1] as keyof typeof OPERATIONS];
const statedAt = (stated: Record<string, string> | undefined, place: string) =>
	stated?.[place] === undefined ? '' : ` (from ${stated[place]})`;

const operation = said({
	method: oneOf(...HTTP_METHODS),
	/** Below the Base URL; `{id}` stands for the URL-encoded id of the resource. */
	path: apiPath,
	from: text(),
	'mediaType?': text(
		/^application\/(json|x-www-form-urlencoded|[\w.-]+\+json)$/i,
		'application/json, a +json type such as application/vnd.api+json, or application/x-www-form-urlencoded',
	),
	fields: record(placement),
	/** A header that makes a write idempotent, and (OASIS Repeatable Requests) when it was first sent. */
	'idempotency?': { header: name, 'firstSent?': name, 'from?': text() },
	/**
	 * An update that replaces the object (a PUT with required fields): it is read first, and these of
	 * its properties (writable ones, never a secret) are sent back with the changed ones.
	 */
	'replaces?': { keep: list(name) },
	/**
	 * Values sent as they are, by place: a member of the body (JSON:API's `/body/data/type`), a query
	 * parameter or a header (`/headers/x-api-version`). A document's required body member of one
	 * allowed value is one; Profile Overrides set any.
	 */
	'constants?': constants,
	/** Where the resource's id is sent in the body too, as JSON:API's update wants it (`/body/data/id`). */
	'idAt?': requestLocation,
	/** Where each constant and the id's place came from, by place: the document's member, or the overrides. */
	'stated?': record(text()),
	/**
	 * A conditional write (RFC 9110): the resource is read first, and the value at `from` in that
	 * answer (its ETag, `/headers/etag`) is sent in `header` (`if-match`), so that a change made
	 * meanwhile is refused (412) rather than overwritten. Only Profile Overrides set it.
	 */
	'precondition?': {
		header: preconditionHeader,
		from: location,
	},
	answer: said({
		/** Where the resource is, each way the service may answer, first found wins. */
		'resource?': locations,
		/** For a list: where its items are, and the property that identifies an item. */
		'items?': locations,
		'itemId?': pointer,
		'paging?': paging,
		/** For an answer that starts a job. */
		'jobs?': list(reference),
		'from?': text(),
	})({
		items: (items, { paging = { style: 'none' } }) =>
			`  items at ${where(items)}; paging: ${pagingText(paging)}`,
		jobs: (jobs, _, path) =>
			jobs.length === 0
				? '  answers with the result at once: no job'
				: `  ${operationAt(path).verb === 'wait' ? 'reads' : 'starts a job:'} ${references(jobs)}`,
		// No place (`[]`) reads the body as it is, as `/body` does: neither is a line of its own.
		resource: (resource, { jobs }) =>
			jobs || resource.length === 0 || resource.join() === '/body'
				? []
				: `  the resource at ${where(resource)}`,
	}),
})({
	method: (method, { path, from }, at) =>
		`${operationAt(at).title}: ${method} ${path}${from === 'built-in' ? ' (not in the document: built-in)' : ''}`,
	mediaType: (type) => (type === 'application/json' ? [] : `  sent as ${type}`),
	fields: (fields, { from }) =>
		Object.entries(fields).map(([field, place]) => placed(field, place, from !== 'built-in')),
	replaces: ({ keep }) =>
		`  replaces the whole object: the current one is read first, and its ${keep.join(', ') || 'nothing'} sent back with the changes`,
	constants: (constants, { stated }) =>
		Object.entries(constants).map(
			([place, value]) =>
				`  always sends ${JSON.stringify(value)} at ${place}${statedAt(stated, place)}`,
		),
	idAt: (idAt, { stated }) => `  sends the resource's id at ${idAt} too${statedAt(stated, idAt)}`,
	precondition: ({ from, header }, { stated }) =>
		`  reads the resource first and sends its ${from} in ${header} (412 if it changed meanwhile)${statedAt(stated, `/headers/${header}`)}`,
	idempotency: ({ header }) => `  idempotency key in header ${header}`,
});

/** The whole profile: everything the node decided about a service, as plain JSON data. */
export const PROFILE = said({
	/** Where it was read from: the document's address, or `built-in`. */
	source: text(),
	operations: keyed(OPERATION_NAMES, operation),
	jobs: said({
		id: pointers,
		/**
		 * How the node tells that a job finished: by a status whose values have states (the
		 * document's, then the built-in words; any other is pending, `scheduled` accepted to run
		 * later), or by a flag that turns true when it is done, failed where an error is then
		 * present (Google's long-running operations).
		 */
		completion: either(
			'must be {"by": "status", "status": [pointers], "states": {value: state}} or {"by": "flag", "done": [pointers]}',
			{
				by: oneOf('status'),
				status: pointers,
				states: record(oneOf('pending', 'scheduled', 'succeeded', 'failed')),
			},
			{ by: oneOf('flag'), done: pointers },
		),
		result: pointers,
		error: pointers,
		/** Where a job says why it failed beside an error object (Twilio's `error_message`, `error_code`). */
		errorMessage: pointers,
		errorCode: pointers,
		/** The kind of content, such as `generate.video`: its last word is the kind. */
		kind: pointers,
		/** Names of a result's properties (lower case, without separators) that hold media addresses. */
		media: list(text()),
		from: text(),
	})({
		completion: (completion, { error }) =>
			completion.by === 'flag'
				? `Jobs: finished when ${where(completion.done)} is true; failed if ${where(error)} is then present`
				: `Jobs: status at ${where(completion.status)}: ${
						Object.entries(completion.states)
							.map(([value, state]) => `${value} → ${state}`)
							.join('; ') || 'no values known'
					}; any other value → pending`,
		id: (id, { result, error }) =>
			`  id at ${where(id)}; result at ${where(result)}; error at ${where(error)}`,
	}),
	errors: {
		message: locations,
		code: locations,
		/** A list of field errors, and the properties of each entry. */
		details: locations,
		detailField: list(name),
		detailMessage: list(name),
		detailCode: list(name),
		from: text(),
	},
	webhooks: said({
		/** The events the service lists (absent: it lists none, the chosen ones go as they are). */
		'events?': list(text()),
		/** Whether `*` subscribes to every event. */
		wildcard: bool,
		/** The service's events for each event the node names itself. */
		meanings: keyed(BUILT_IN_EVENTS, list(meaning)),
		/** Where a registration as answered holds its address, events and switch; its longest address. */
		registration: {
			url: pointer,
			events: pointer,
			'active?': pointer,
			'negated?': bool,
			'maxUrlLength?': integer(1, 8000),
		},
		/** Who chooses the signing secret: the node, or the service, whose answer holds it `at` a place. */
		secret: either(
			'must be {"by": "node"}, {"by": "service", "at": pointer} or {"by": "none"}',
			{ by: oneOf('node', 'none') },
			{ by: oneOf('service'), at: pointer, 'pattern?': text() },
		),
		delivery: {
			type: locations,
			/** The delivery's id, only where the document names where it is: a repeat is recognised by it. */
			id: locations,
			time: locations,
			data: locations,
			/** Inside the data: the job it holds or names, or the post. */
			jobs: list(reference),
			post: pointers,
		},
		/**
		 * How deliveries are signed: an HMAC of their parts (id, timestamp, raw body; or, as Twilio's,
		 * the delivery's address and its form parameters), in a header.
		 */
		signature: {
			header,
			/** How the header holds its signatures; for `prefixed`, the text before the digest, such as `sha256=`. */
			format: oneOf('plain', 'prefixed', 'stripe', 'standard'),
			'prefix?': text(),
			algorithm: oneOf('sha256', 'sha512', 'sha1'),
			encoding: oneOf('hex', 'base64'),
			/**
			 * What is signed, in order, joined by `separator`: literals, and the delivery's parts. `url`
			 * is the address the trigger registered; `form` its form parameters sorted by name, each name
			 * then its value (Twilio's).
			 */
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
			/** How the secret becomes the HMAC key: as its text, or `whsec_` + base64 decoded. */
			secretEncoding: oneOf('text', 'whsec'),
			/** The HMAC's key: the registration's signing secret (the default), or the credential's API key (Twilio's auth token). */
			'key?': oneOf('secret', 'apiKey'),
		},
		from: text(),
	})({
		meanings: (meanings, { events }) => [
			`Events: ${events === undefined ? 'the service lists none (chosen events are sent as named)' : events.join(', ') || 'none'}`,
			...Object.entries(meanings).map(
				([event, meant]) =>
					`  ${event} is ${meant.length > 0 ? meant.map(meaningText).join(', ') : 'none of them'}`,
			),
		],
		registration: ({ url, events }) =>
			`Registration: address at ${url || 'the registration'}, events at ${events || 'the registration'}`,
		secret: (secret) =>
			`Signing secret: ${secret.by === 'node' ? 'chosen by the node' : secret.by === 'service' ? `chosen by the service, answered at ${secret.at || 'the registration'}` : 'none: the trigger cannot verify deliveries'}`,
		signature: ({ header, format, prefix, algorithm, encoding, signed, separator, key }) => {
			const parts = signed.map((part) => (typeof part === 'string' ? part : `"${part.text}"`));
			return `Signature: header ${header} (${format}${prefix ? ` ${prefix}` : ''}), HMAC-${algorithm.toUpperCase()} ${encoding} of ${parts.join(separator || ' then ')}${key === 'apiKey' ? ", keyed with the credential's API key" : ''}`;
		},
		delivery: ({ type, id, data }) =>
			`Deliveries: event at ${where(type)}, id at ${id.join(' or ') || 'nowhere signed (repeats are known by their body)'}, data at ${where(data)}`,
	}),
	/** Parts of the service's document the node could not follow, and why. */
	notFollowed: list({
		part: text(),
		why: text(),
		/** For a part an operation's request requires and its profile does not send: the operation and the place. */
		'operation?': oneOf(...OPERATION_NAMES),
		/** The part of the profile the built-in conventions stand in for (`/jobs/completion/status`): Profile Overrides that set it follow it. */
		'of?': text(),
		// A place holds a name of the document, which may be as long as a text.
		'place?': leaf<string>((value) => typeof value === 'string', 'a text'),
	}),
	/** What the credential's Profile Overrides changed, as the JSON Pointers of the profile they set. */
	'overridden?': list(text()),
})({
	notFollowed: (notFollowed) =>
		notFollowed.map(
			// A required part the profile does not send has nothing built-in standing in for it.
			({ part, why, place }) =>
				`Not followed: ${part}: ${why}${place === undefined ? '; the built-in conventions stand in' : ''}`,
		),
	source: (source) => `Read from: ${source}`,
	overridden: (overridden) =>
		overridden.length > 0
			? `Set by the credential's Profile Overrides: ${overridden.join(', ')}`
			: [],
});

export const checkProfile = checkOf(PROFILE);
