import type { IDataObject } from 'n8n-workflow';

import { headerValue, MAX_QUOTED_TEXT, type Headers } from '../http-values';
import { isRecord, nonEmptyText, own, pointerOf, readAt, readLocation } from '../profile/pointer';
import type {
	AnswerReading,
	DeliveryReading,
	ErrorProfile,
	JobProfile,
	JobReference,
	JobState,
	Location,
} from '../profile/types';

/** Reading what the service sends, by the profile. Every walk over a value has a bound. */

// A result is searched this deep, and this far, for media addresses.
const MAX_MEDIA_DEPTH = 5;
const MAX_MEDIA_VALUES = 10_000;

interface Message {
	body: unknown;
	headers?: Headers;
}

/** The value at the first location that holds one `wanted` takes: by default, anything but nothing. */
function firstAt(
	message: Message,
	locations: Location[] = [],
	wanted = (found: unknown) => found !== undefined && found !== null && found !== '',
): unknown {
	return locations.map((location) => readLocation(message, location)).find(wanted);
}

function firstIn(value: unknown, pointers: string[]): unknown {
	return pointers
		.map((pointer) => readAt(value, pointer))
		.find((found) => found !== undefined && found !== null);
}

/** The resource an answer holds, out of the envelope the service wraps it in. */
export function readResource(reading: AnswerReading, body: unknown): unknown {
	return firstAt({ body }, reading.resource, isRecord) ?? body;
}

// Lists

/** Where a list's next page is: a cursor, the id to start after, a page number, an offset or an address. */
export type PageToken =
	| { cursor: string }
	| { after: string }
	| { page: number }
	| { offset: number }
	| { url: string };

export interface ListPage {
	items: IDataObject[];
	next?: PageToken;
}

/** The `rel="next"` address of an RFC 8288 `Link` header. */
function nextLink(header: string): string | undefined {
	// Neither expression may start over at every character, or `<` without end (an address holds no
	// `<`) and `rel=` followed by spaces would take time growing with the square of the header's length.
	for (const [, target, parameters] of header
		.slice(0, 8192)
		.matchAll(/<([^<>]{1,4096})>([^<]*)/g)) {
		const rel = /;\s*rel\s*=\s*("[^"]*"|[^";,]*)/i.exec(parameters)?.[1];
		if (rel !== undefined && rel.replace(/"/g, '').toLowerCase().split(/\s+/).includes('next'))
			return target;
	}
	return undefined;
}

/** The next page's token or address at the first location that holds one. */
function pointed(message: Message, locations: Location[]): string | undefined {
	for (const location of locations) {
		const value = nonEmptyText(
			location === '/headers/link'
				? nextLink(headerValue(message.headers ?? {}, 'link'))
				: readLocation(message, location),
		);
		if (value !== undefined) return value;
	}
	return undefined;
}

export function itemIdOf(reading: AnswerReading, item: unknown): string | undefined {
	return nonEmptyText(readAt(item, reading.itemId ?? '/id'));
}

/** Reads one page of a list answer; `requested` is the token that asked for it. */
export function readListPage(
	reading: AnswerReading,
	message: Message,
	requested: PageToken | undefined,
): ListPage {
	const found = firstAt(message, reading.items, Array.isArray) ?? [];
	const items = (found as unknown[]).map((item) =>
		isRecord(item) ? item : { value: item },
	) as IDataObject[];
	const { paging } = reading;
	switch (paging?.style) {
		case 'cursor':
		case 'link': {
			const token = pointed(message, paging.next);
			if (token === undefined) return { items };
			return { items, next: paging.style === 'cursor' ? { cursor: token } : { url: token } };
		}
		case 'after': {
			const more =
				paging.more === undefined ? items.length > 0 : readLocation(message, paging.more) === true;
			const last = items.length > 0 ? itemIdOf(reading, items[items.length - 1]) : undefined;
			return { items, next: more && last !== undefined ? { after: last } : undefined };
		}
		case 'page': {
			const page = requested !== undefined && 'page' in requested ? requested.page : paging.first;
			return { items, next: { page: page + 1 } };
		}
		case 'offset': {
			const offset = requested !== undefined && 'offset' in requested ? requested.offset : 0;
			return { items, next: { offset: offset + items.length } };
		}
		default:
			return { items };
	}
}

// Jobs

export interface JobView {
	id: string;
	/** The status as the service writes it (`done` / `not done` for a completion flag). */
	status: string;
	state: JobState;
	result: unknown;
	error?: { message: string; code?: string };
	/** The kind of content, such as `video` for `generate.video`. */
	kind?: string;
	/** Where the profile's places held no state: the job cannot be read, not taken as pending. */
	unread?: string;
	/** A status the profile maps to no state, taken as pending (a service's intermediate step). */
	unmapped?: true;
}

function errorOf(value: unknown): { message: string; code?: string } | undefined {
	if (typeof value === 'string' && value !== '') return { message: value };
	if (Array.isArray(value)) return errorOf(value[0]);
	if (!isRecord(value) || Object.keys(value).length === 0) return undefined;
	const message = firstIn(value, ['/message', '/reason', '/detail', '/description', '/error']);
	const code = firstIn(value, ['/code', '/type', '/status']);
	return {
		message:
			typeof message === 'string' ? message : JSON.stringify(value).slice(0, MAX_QUOTED_TEXT),
		code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
	};
}

/** What a job's places hold no state at, or undefined where they hold a status (or a completion flag). */
function stateProblem({ completion }: JobProfile, job: unknown): string | undefined {
	return completion.by === 'status'
		? typeof firstIn(job, completion.status) === 'string'
			? undefined
			: `no status at ${completion.status.join(' or ')}`
		: typeof firstIn(job, completion.done) === 'boolean'
			? undefined
			: `no completion flag at ${completion.done.join(' or ')}`;
}

/** Why a value is not a job by the profile (no id, no status), or undefined for a job. */
export function jobProblem(jobs: JobProfile, value: unknown): string | undefined {
	if (!isRecord(value)) return 'no object';
	if (nonEmptyText(firstIn(value, jobs.id)) === undefined)
		return `no id at ${jobs.id.join(' or ')}`;
	return stateProblem(jobs, value);
}

// A list's items and an object's members looked at, at most.
const MAX_NAMES = 30;

/** The pointer to the first member (breadth first, three levels deep) that passes `test`. */
export function pointerToMember(
	value: unknown,
	test: (name: string, member: unknown) => boolean,
): string | undefined {
	let level: Array<[string[], unknown]> = [[[], value]];
	for (let depth = 0; depth < 3; depth++) {
		const next: Array<[string[], unknown]> = [];
		for (const [path, inner] of level.slice(0, MAX_NAMES))
			for (const [key, child] of isRecord(inner) ? Object.entries(inner).slice(0, MAX_NAMES) : []) {
				if (test(key, child)) return pointerOf([...path, key]);
				next.push([[...path, key], child]);
			}
		level = next;
	}
	return undefined;
}

export function readJob(jobs: JobProfile, job: IDataObject): JobView {
	const { completion } = jobs;
	const errorMessage = firstIn(job, jobs.errorMessage);
	const error =
		errorOf(firstIn(job, jobs.error)) ??
		(errorMessage === undefined
			? undefined
			: errorOf({ message: errorMessage, code: firstIn(job, jobs.errorCode) }));
	const unread = stateProblem(jobs, job);
	let status: string;
	let state: JobState;
	let unmapped = false;
	if (completion.by === 'flag') {
		const done = firstIn(job, completion.done) === true;
		status = done ? 'done' : 'not done';
		state = !done ? 'pending' : error !== undefined ? 'failed' : 'succeeded';
	} else {
		status = String(firstIn(job, completion.status) ?? '');
		const mapped = own(completion.states, status) as JobState | undefined;
		state = mapped ?? 'pending';
		unmapped = mapped === undefined && unread === undefined;
	}
	const kind = firstIn(job, jobs.kind);
	const lastWord = typeof kind === 'string' ? kind.split(/[^A-Za-z0-9]+/).pop() : undefined;
	return {
		id: nonEmptyText(firstIn(job, jobs.id)) ?? '',
		status,
		state,
		result: firstIn(job, jobs.result) ?? null,
		error,
		kind: lastWord?.toLowerCase() || undefined,
		...(unread === undefined ? {} : { unread }),
		...(unmapped ? { unmapped } : {}),
	};
}

/** The id in an address that points at a job (`/v1/jobs/job_1`), by the path of Job → Get. */
function jobIdFromAddress(address: string, jobPath: string): string | undefined {
	const [before, after = ''] = jobPath.split('{id}');
	try {
		const path = new URL(address, 'http://service.invalid').pathname;
		if (!path.startsWith(before) || !path.endsWith(after)) return undefined;
		const id = path.slice(before.length, path.length - after.length);
		return id !== '' && !id.includes('/') ? decodeURIComponent(id) : undefined;
	} catch {
		return undefined;
	}
}

interface FoundJob {
	id: string;
	job?: IDataObject;
	via: 'job' | 'id' | 'address';
}

/**
 * The job an answer started or names, by the references of its reading: the job itself where it is
 * there. `jobPath` is Job → Get's path, which an address of a job is read by.
 */
export function findJob(
	jobs: JobProfile,
	references: JobReference[] = [],
	message: Message,
	jobPath: string,
): FoundJob | undefined {
	for (const reference of references) {
		if ('job' in reference) {
			const job = readLocation(message, reference.job);
			if (isRecord(job) && jobProblem(jobs, job) === undefined)
				return { id: readJob(jobs, job).id, job, via: 'job' };
		} else if ('id' in reference) {
			const id = nonEmptyText(readLocation(message, reference.id));
			if (id !== undefined) return { id, via: 'id' };
		} else {
			const address = readLocation(message, reference.address);
			const id = typeof address === 'string' ? jobIdFromAddress(address, jobPath) : undefined;
			if (id !== undefined) return { id, via: 'address' };
		}
	}
	return undefined;
}

/** The media addresses in a job's result, in the order the result lists them, at most `limit`. */
export function mediaAddresses(jobs: JobProfile, result: unknown, limit: number): string[] {
	const found: string[] = [];
	const names = new Set(jobs.media);
	let visited = 0;
	const visit = (value: unknown, key: string, depth: number) => {
		if (found.length >= limit || ++visited > MAX_MEDIA_VALUES || depth > MAX_MEDIA_DEPTH) return;
		if (typeof value === 'string') {
			const name = key
				.slice(0, 256)
				.toLowerCase()
				.replace(/[^a-z0-9]/g, '');
			if (names.has(name) && /^https?:\/\//i.test(value) && !found.includes(value))
				found.push(value);
		} else if (Array.isArray(value)) for (const entry of value) visit(entry, key, depth + 1);
		else if (isRecord(value))
			for (const name of Object.keys(value)) visit(value[name], name, depth + 1);
	};
	visit(result, '', 0);
	return found;
}

// Errors

/** The service's own message, code and details, where its error profile puts them. */
export function describeError(
	errors: ErrorProfile,
	body: unknown,
): { message?: string; code?: string; details?: string } {
	if (typeof body === 'string') return { message: body.slice(0, MAX_QUOTED_TEXT) || undefined };
	if (!isRecord(body)) return {};
	const first = (locations: Location[]) =>
		locations.map((location) => nonEmptyText(readLocation({ body }, location))).find(Boolean);
	const list = firstAt({ body }, errors.details, Array.isArray) ?? [];
	const property = (detail: unknown, names: string[]) =>
		names.map((name) => nonEmptyText(own(detail, name))).find(Boolean);
	const details = (list as unknown[]).slice(0, 20).map((detail) => ({
		field: property(detail, errors.detailField),
		message: isRecord(detail) ? property(detail, errors.detailMessage) : String(detail),
		code: property(detail, errors.detailCode),
	}));
	// A service that reports errors only as a list (`errors: [{code, message}]`) says the first one in its main text.
	const message = first(errors.message) ?? details[0]?.message;
	// A problem type (RFC 9457) is a URI; its last segment reads as a code.
	const code = (first(errors.code) ?? details[0]?.code)?.replace(
		/^[a-z][\w+.-]*:\/\/.*\/([^/]+)\/?$/i,
		'$1',
	);
	const lines = details
		.map((detail) => [detail.field, detail.message].filter(Boolean).join(': '))
		.filter((line) => line.length > 0);
	return {
		message: message?.slice(0, MAX_QUOTED_TEXT),
		code: code?.slice(0, 100),
		details: lines.join('; ').slice(0, 2 * MAX_QUOTED_TEXT) || undefined,
	};
}

// Deliveries

/** A delivery's event type, id, time and data, and the post in its data, where the profile puts them. */
export function readDelivery(reading: DeliveryReading, message: Message) {
	const data = firstAt(message, reading.data, (found) => found !== undefined) ?? {};
	const post = reading.post.map((pointer) => readAt(data, pointer)).find(isRecord);
	const type = firstAt(message, reading.type);
	return {
		type: typeof type === 'string' ? type : '',
		id: nonEmptyText(firstAt(message, reading.id)),
		time: firstAt(message, reading.time),
		data,
		post,
	};
}

/** The job a delivery's data holds or names, by the delivery's references (pointers into the data). */
export function jobInDelivery(
	jobs: JobProfile,
	reading: DeliveryReading,
	data: unknown,
): FoundJob | undefined {
	const references = reading.jobs.map((reference) =>
		'job' in reference
			? { job: `/body${reference.job}` }
			: 'id' in reference
				? { id: `/body${reference.id}` }
				: reference,
	);
	return findJob(jobs, references, { body: data }, '');
}
