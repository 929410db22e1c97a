import type { IDataObject } from 'n8n-workflow';

import { ENDPOINTS } from './catalog';
import { stateFromText } from './operations';
import { isRecord, normalizeName, own, ownAt } from './schema';
import type {
	DeliveryReading,
	ErrorReading,
	JobReading,
	JobReference,
	JobState,
	Paging,
	Path,
	Pointer,
	ResolvedEndpoint,
} from './types';

/**
 * Reading what the service sends, by the contract: the resource out of its envelope, a page of a
 * list and where the next one is, the job an answer started and what state it is in, the service's
 * error message, a job's media addresses, and a webhook delivery. Only own properties are read, and
 * every walk over a value has a bound.
 */

export type Headers = Record<string, string | string[] | undefined>;

// A result is searched this deep, and this far, for media addresses.
const MAX_MEDIA_DEPTH = 5;
const MAX_MEDIA_VALUES = 10_000;
const MAX_QUOTED_TEXT = 300;

export function headerValue(headers: Headers, name: string): string {
	const value = own(headers, name.toLowerCase()) as string | string[] | undefined;
	return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

function at(body: unknown, path: Path): unknown {
	return path.length === 0 ? body : ownAt(body, path);
}

/** The resource an answer holds, out of the envelope the service wraps it in. */
export function readResource(endpoint: ResolvedEndpoint, body: unknown): unknown {
	for (const path of endpoint.answer.resource) {
		const found = at(body, path);
		if (isRecord(found)) return found;
	}
	return body;
}

// ------------------------------------------------------------------------------------------------
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
	/** How many items the whole list has, when the service says; a hint, never a reason to drop items. */
	total?: number;
}

/** The `rel="next"` address of an RFC 8288 `Link` header. */
export function nextLink(header: string): string | undefined {
	// Neither expression may start over at every character: `<` without end (an address holds no `<`)
	// and `rel=` followed by spaces each held n8n's event loop for 50-100 ms in an 8 KB header.
	for (const [, target, parameters] of header
		.slice(0, 8192)
		.matchAll(/<([^<>]{1,4096})>([^<]*)/g)) {
		const rel = /;\s*rel\s*=\s*("[^"]*"|[^";,]*)/i.exec(parameters)?.[1];
		if (rel !== undefined && rel.replace(/"/g, '').toLowerCase().split(/\s+/).includes('next'))
			return target;
	}
	return undefined;
}

function pointed(pointers: Pointer[], body: unknown, headers: Headers): string | undefined {
	for (const pointer of pointers) {
		const value =
			pointer.in === 'body'
				? at(body, pointer.path)
				: pointer.link
					? nextLink(headerValue(headers, pointer.name))
					: headerValue(headers, pointer.name);
		if ((typeof value === 'string' && value !== '') || typeof value === 'number')
			return String(value);
	}
	return undefined;
}

function numberAt(body: unknown, path: Path | undefined): number | undefined {
	const value = path === undefined ? undefined : Number(at(body, path));
	return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/** Reads one page of a list answer; `requested` is the token that asked for it. */
export function readListPage(
	endpoint: ResolvedEndpoint,
	body: unknown,
	headers: Headers,
	requested: PageToken | undefined,
): ListPage {
	const found = endpoint.answer.items.map((path) => at(body, path)).find(Array.isArray) ?? [];
	const items = (found as unknown[]).map((item) =>
		isRecord(item) ? item : { value: item },
	) as IDataObject[];
	const paging: Paging = endpoint.paging;
	const total = 'total' in paging ? numberAt(body, paging.total) : undefined;
	switch (paging.style) {
		case 'cursor': {
			const cursor = pointed(paging.next, body, headers);
			return { items, total, next: cursor === undefined ? undefined : { cursor } };
		}
		case 'after': {
			const more = paging.more === undefined ? items.length > 0 : at(body, paging.more) === true;
			const last =
				items.length > 0 ? own(items[items.length - 1], endpoint.answer.itemId) : undefined;
			return {
				items,
				next:
					more && (typeof last === 'string' || typeof last === 'number')
						? { after: String(last) }
						: undefined,
			};
		}
		case 'link': {
			const url = pointed(paging.next, body, headers);
			return { items, next: url === undefined ? undefined : { url } };
		}
		case 'page': {
			const page = requested !== undefined && 'page' in requested ? requested.page : paging.first;
			return { items, total, next: { page: page + 1 } };
		}
		case 'offset': {
			const offset = requested !== undefined && 'offset' in requested ? requested.offset : 0;
			return { items, total, next: { offset: offset + items.length } };
		}
		default:
			return { items };
	}
}

// ------------------------------------------------------------------------------------------------
// Jobs

export interface JobView {
	id: string;
	/** The status as the service writes it. */
	status: string;
	state: JobState;
	result: unknown;
	error?: { message: string; code?: string };
	/** The kind of content, such as `video` for `generate.video`. */
	kind?: string;
}

function first(value: unknown, paths: Path[]): unknown {
	return paths
		.map((path) => at(value, path))
		.find((found) => found !== undefined && found !== null);
}

function idOf(value: unknown): string | undefined {
	return (typeof value === 'string' && value !== '') || typeof value === 'number'
		? String(value)
		: undefined;
}

/** Whether a value is a job: an object with an id and a status. */
export function isJob(jobs: JobReading, value: unknown): value is IDataObject {
	return (
		isRecord(value) &&
		idOf(first(value, jobs.id)) !== undefined &&
		typeof first(value, jobs.status) === 'string'
	);
}

export function stateOf(jobs: JobReading, status: string): JobState {
	if (Object.prototype.hasOwnProperty.call(jobs.states, status)) return jobs.states[status];
	const same = Object.keys(jobs.states).find(
		(value) => normalizeName(value) === normalizeName(status),
	);
	return (same ? jobs.states[same] : stateFromText(status)) ?? 'pending';
}

function errorOf(value: unknown): { message: string; code?: string } | undefined {
	if (typeof value === 'string' && value !== '') return { message: value };
	if (Array.isArray(value)) return errorOf(value[0]);
	if (!isRecord(value)) return undefined;
	const message = first(value, [['message'], ['reason'], ['detail'], ['description'], ['error']]);
	const code = first(value, [['code'], ['type']]);
	return {
		message:
			typeof message === 'string' ? message : JSON.stringify(value).slice(0, MAX_QUOTED_TEXT),
		code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
	};
}

export function readJob(jobs: JobReading, job: IDataObject): JobView {
	const status = String(first(job, jobs.status) ?? '');
	const kind = first(job, jobs.kind);
	return {
		id: idOf(first(job, jobs.id)) ?? '',
		status,
		state: stateOf(jobs, status),
		result: first(job, jobs.result) ?? null,
		error:
			errorOf(first(job, jobs.error)) ??
			errorOf(
				first(job, jobs.errorMessage) === undefined
					? undefined
					: { message: first(job, jobs.errorMessage), code: first(job, jobs.errorCode) },
			),
		kind:
			typeof kind === 'string'
				? kind
						.split(/[^A-Za-z0-9]+/)
						.pop()
						?.toLowerCase() || undefined
				: undefined,
	};
}

/** The id in a `Location` that points at a job, such as `/v1/jobs/job_1`. */
function jobIdFromLocation(location: string): string | undefined {
	let path: string;
	try {
		path = new URL(location, 'http://service.invalid').pathname;
	} catch {
		return undefined;
	}
	const [before, after] = ENDPOINTS.getJob.path.split('{id}');
	if (!path.startsWith(before) || !path.endsWith(after)) return undefined;
	const id = path.slice(before.length, path.length - after.length);
	try {
		return id !== '' && !id.includes('/') ? decodeURIComponent(id) : undefined;
	} catch {
		return undefined;
	}
}

/** The job an answer or a delivery started or names: its id, and the job itself where it is there. */
export function findJob(
	jobs: JobReading,
	references: JobReference[],
	body: unknown,
	headers: Headers = {},
): { id: string; job?: IDataObject; via: JobReference['kind'] } | undefined {
	for (const reference of references) {
		if (reference.kind === 'job') {
			const job = at(body, reference.path);
			if (isJob(jobs, job)) return { id: readJob(jobs, job).id, job, via: 'job' };
		} else if (reference.kind === 'id') {
			const id = idOf(at(body, reference.path));
			if (id !== undefined) return { id, via: 'id' };
		} else {
			const id = jobIdFromLocation(headerValue(headers, 'location'));
			if (id !== undefined) return { id, via: 'location' };
		}
	}
	return undefined;
}

/** The media addresses in a job's result, in the order the result lists them, at most `limit`. */
export function mediaAddresses(jobs: JobReading, result: unknown, limit: number): string[] {
	const found: string[] = [];
	let visited = 0;
	const visit = (value: unknown, key: string, depth: number) => {
		if (found.length >= limit || ++visited > MAX_MEDIA_VALUES || depth > MAX_MEDIA_DEPTH) return;
		if (typeof value === 'string') {
			if (
				jobs.media.includes(normalizeName(key)) &&
				/^https?:\/\//i.test(value) &&
				!found.includes(value)
			)
				found.push(value);
		} else if (Array.isArray(value)) {
			for (const entry of value) visit(entry, key, depth + 1);
		} else if (isRecord(value)) {
			for (const name of Object.keys(value)) visit(value[name], name, depth + 1);
		}
	};
	visit(result, '', 0);
	return found;
}

// ------------------------------------------------------------------------------------------------
// Errors

function firstText(value: unknown, paths: Path[]): string | undefined {
	for (const path of paths) {
		const found = at(value, path);
		if ((typeof found === 'string' && found !== '') || typeof found === 'number')
			return String(found);
	}
	return undefined;
}

/** The service's own message, code and details, where its error schema puts them. */
export function describeError(
	errors: ErrorReading,
	body: unknown,
): { message?: string; code?: string; details?: string } {
	if (typeof body === 'string') return { message: body.slice(0, MAX_QUOTED_TEXT) || undefined };
	if (!isRecord(body)) return {};
	const list = errors.details.map((path) => at(body, path)).find(Array.isArray) ?? [];
	const details = (list as unknown[]).slice(0, 20).map((detail) => ({
		field: firstText(
			detail,
			errors.detailField.map((key) => [key]),
		),
		message: isRecord(detail)
			? firstText(
					detail,
					errors.detailMessage.map((key) => [key]),
				)
			: String(detail),
		code: firstText(
			detail,
			errors.detailCode.map((key) => [key]),
		),
	}));
	// A service that reports errors only as a list (`errors: [{code, message}]`) says the first one in its main text.
	const message = firstText(body, errors.message) ?? details[0]?.message;
	// A problem type (RFC 9457) is a URI; its last segment reads as a code.
	const code = (firstText(body, errors.code) ?? details[0]?.code)?.replace(
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

// ------------------------------------------------------------------------------------------------
// Deliveries

export interface DeliveryView {
	type: string;
	/** The delivery's id, only where the document names where it is. */
	id?: string;
	time?: unknown;
	data: unknown;
	post?: unknown;
}

export function readDelivery(
	reading: DeliveryReading,
	body: unknown,
	headers: Headers,
): DeliveryView {
	const data =
		reading.data.map((path) => at(body, path)).find((value) => value !== undefined) ?? {};
	const post = reading.post.map((path) => at(data, path)).find(isRecord);
	return {
		type: pointed(reading.type, body, headers) ?? '',
		id: pointed(reading.id, body, headers),
		time: first(body, reading.time),
		data,
		post,
	};
}
