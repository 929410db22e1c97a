import { STATUS_CODES } from 'node:http';

import {
	ATTRIBUTE_NAMES,
	buildJsonApiDocument,
	JSONAPI_DEFAULT_PAGE_SIZE,
	JSONAPI_DELIVERY_HEADERS,
	JSONAPI_MEDIA_TYPE,
	QUERY_NAMES,
} from './jsonapi-document';
import { perResourceWire } from './per-resource';
import {
	defineProfile,
	LISTS,
	hexHmac,
	namesFor,
	pageSize,
	pointer,
	primaryOf,
	renamed,
	single,
	type Json,
} from './profile';
import { ApiError, type Paging, type Query } from './server';

/**
 * The jsonapi profile, a translation at the edges (ProfileAdapter): JSON:API 1.1 as Lemon Squeezy's API
 * follows it (jsonapi-document.ts names where it states each convention), events per resource as GitHub's.
 */

/** A primary object as a JSON:API resource object of `type`. */
function resourceObject(type: string, object: Json, baseUrl: string): Json {
	const { id, ...fields } = object;
	return {
		type,
		id,
		attributes: renamed(fields, ATTRIBUTE_NAMES),
		...(type === 'posts'
			? {
					relationships: {
						page: { data: object.page_id == null ? null : { type: 'pages', id: object.page_id } },
					},
				}
			: {}),
		links: { self: `${baseUrl}/v1/${type === 'accounts' ? 'me' : `${type}/${String(id)}`}` },
	};
}

/** A request document's attributes in the primary's terms, its page relationship as `page_id`. */
function incoming(_operation: string, body: unknown, query: Query, id?: string) {
	const translated = Object.fromEntries(
		Object.entries(query).map(([name, value]) => [primaryOf(QUERY_NAMES, name), value]),
	);
	if (body === null || typeof body !== 'object') return { body, query: translated };
	const { data } = body as { data: Json };
	// JSON:API 1.1: an update whose `data.id` is not the path's is refused with 409.
	if (id !== undefined && data.id !== id)
		throw new ApiError(409, 'validation_error', `data.id must be "${id}", the id of the path`, [
			{ field: 'data.id', message: `must be "${id}", the id of the path` },
		]);
	const page = (data.relationships as { page?: { data: { id: string } | null } } | undefined)?.page;
	return {
		body: {
			...(data.attributes as Json | undefined),
			...(page === undefined ? {} : { page_id: page.data?.id ?? null }),
		},
		query: translated,
	};
}

/** Lemon Squeezy's pagination: `page[number]` and `page[size]`, `meta.page` and `links`. */
function page(list: string, items: Array<{ id: string }>, query: Query, paging: Paging): Json {
	const size = pageSize(query, 'limit', JSONAPI_DEFAULT_PAGE_SIZE, paging.maxPageSize);
	const number = Number(single(query, 'cursor') ?? 1);
	const lastPage = Math.max(1, Math.ceil(items.length / size));
	const data = items.slice((number - 1) * size, number * size);
	const filters = Object.entries(query)
		.filter(([name]) => name !== 'limit' && name !== 'cursor')
		.map(
			([name, value]) =>
				`&${encodeURIComponent(QUERY_NAMES[name] ?? name)}=${encodeURIComponent(String(value))}`,
		)
		.join('');
	const link = (to: number) =>
		`${paging.baseUrl}/v1/${LISTS[list]}?${encodeURIComponent('page[number]')}=${to}&${encodeURIComponent('page[size]')}=${size}${filters}`;
	const from = data.length === 0 ? null : (number - 1) * size + 1;
	return {
		data,
		meta: {
			page: {
				currentPage: number,
				from,
				lastPage,
				perPage: size,
				to: from === null ? null : from + data.length - 1,
				total: items.length,
			},
		},
		links: {
			first: link(1),
			last: link(lastPage),
			...(number < lastPage ? { next: link(number + 1) } : {}),
			...(number > 1 ? { prev: link(number - 1) } : {}),
		},
	};
}

/** The status JSON:API 1.1 gives a refused request: 415 for another media type, 409 for a wrong type or id, 400 for none. */
function statusOf({ status, details = [] }: ApiError): number {
	if (status !== 422) return status;
	const fields = details.map(({ field }) => field);
	if (fields.includes('header.content-type')) return 415;
	if (details.some(({ field, message }) => field === 'data.type' && message === 'is required'))
		return 400;
	return fields.some((field) => field === 'data.type' || field === 'data.id') ? 409 : 422;
}

/** A handler's own fields keep their names. */
const OUTGOING: Record<string, string> = {};

/** Lemon Squeezy's errors: `{jsonapi, errors: [{status, title, detail, source}]}`. */
function error(apiError: ApiError): { status: number; body: unknown; contentType: string } {
	const { code, message, details } = apiError;
	const status = statusOf(apiError);
	const names = namesFor(message, details, OUTGOING);
	const title = STATUS_CODES[status] ?? 'Error';
	const entry = (detail: string, source?: Json) => ({
		status: String(status),
		code,
		title,
		detail,
		...(source ? { source } : {}),
	});
	// A handler's field is an attribute, or the page's relationship; `data.id` is the document's own.
	const handlerField = (field: string) =>
		field === 'page_id'
			? '/data/relationships/page'
			: field.startsWith('data.')
				? pointer(field)
				: `/data/attributes${pointer(field, names)}`;
	const sourceOf = (field: string): Json =>
		field.startsWith('query.')
			? { parameter: QUERY_NAMES[field.slice(6)] ?? field.slice(6) }
			: field.startsWith('header.')
				? { header: field.slice(7) }
				: { pointer: names === OUTGOING ? handlerField(field) : pointer(field) };
	return {
		status,
		contentType: JSONAPI_MEDIA_TYPE,
		body: {
			jsonapi: { version: '1.1' },
			errors: details?.length
				? details.map(({ field, message: detail }) =>
						entry(names === OUTGOING ? message : `${field} ${detail}`, sourceOf(field)),
					)
				: [entry(message)],
		},
	};
}

/** Every answer a JSON:API document of resource objects; a delete's 204 stays bodiless. */
export const JSONAPI = defineProfile({
	pathParameter: () => 'id',
	updateMethod: 'PATCH',
	document: buildJsonApiDocument,
	incoming,
	resources: (service) => {
		const as = (type: string) => (object: Json) => resourceObject(type, object, service.url);
		return {
			Account: as('accounts'),
			Page: as('pages'),
			Post: as('posts'),
			Job: as('jobs'),
			Webhook: as('webhooks'),
		};
	},
	items: () => 'data',
	one: ({ status, answer, resource }) => ({ status, body: { data: resource(answer) } }),
	contentType: JSONAPI_MEDIA_TYPE,
	page,
	error,
	eventsPerResource: true,
	event: (event, service) => {
		const { type, body } = perResourceWire(event);
		const { action, ...object } = body as { action: string } & Record<string, Json>;
		return {
			type,
			body: { action, [type]: resourceObject(`${type}s`, object[type], service.url) },
		};
	},
	deliveryHeaders: ({ type }) => ({ [JSONAPI_DELIVERY_HEADERS.event]: type }),
	// Lemon Squeezy: the hex HMAC-SHA256 of the raw body alone.
	sign: (secret, rawBody) => ({ [JSONAPI_DELIVERY_HEADERS.signature]: hexHmac(secret, rawBody) }),
});
