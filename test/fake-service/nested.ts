import { randomUUID } from 'node:crypto';

import { MASKED_SECRET } from './envelope-document';
import {
	ACTIONS,
	BAD_REQUEST_TYPE,
	buildNestedDocument,
	DELIVERY_HEADERS,
	ERROR_DOMAIN,
	ERROR_INFO_TYPE,
	METADATA_TYPE,
	NESTED_DEFAULT_LIMIT,
	NESTED_EVENTS,
	responseType,
	RPC_CODES,
	STATUS_OF_HTTP,
	UNKNOWN_RPC_CODE,
	USER_AGENT_PREFIX,
} from './nested-document';
import {
	defineProfile,
	LISTS,
	eventsIn,
	hexHmac,
	namesFor,
	pageSize,
	primaryOf,
	renamed,
	single,
	type Json,
} from './profile';
import type { ApiError, Paging, Query } from './server';

/** The nested profile, a translation at the edges (ProfileAdapter): every open point decided after a real, published API, named in nested-document.ts. */

/** Nested field → primary field, at the top of a body. */
const INCOMING: Record<string, string> = {
	page: 'page_id',
	post: 'post_id',
	text: 'content',
	tweets: 'thread',
};
/** Nested field → primary field, inside a generation's `input` (Replicate). */
const INPUT: Record<string, string> = { text: 'transcript', source_post: 'source_post_id' };
const REFERENCES = ['page_id', 'post_id', 'source_post_id'];
// Stripe: an empty string unsets a field.
const UNSETTABLE = [...REFERENCES, 'title', 'scheduled_at', 'description'];

function convert(primary: string, value: unknown): unknown {
	if (value === '' && UNSETTABLE.includes(primary)) return null;
	// Box: `{id}` names the object; the primary keeps its id.
	if (REFERENCES.includes(primary)) return (value as { id: string }).id;
	if (primary === 'thread') return (value as Array<{ text: string }>).map(({ text }) => text);
	return primary === 'events'
		? (value as string[]).map((name) => primaryOf(NESTED_EVENTS, name))
		: value;
}

function incoming(primaryOperation: string, body: unknown, query: Query) {
	const filters: Query = query.page === undefined ? {} : { page_id: query.page };
	if (body === null || typeof body !== 'object') return { body, query: { ...query, ...filters } };
	const { input, config, ...top } = body as Json;
	// GitHub's config holds the URL and secret; `json` is its only content type here.
	const settings = Object.fromEntries(
		Object.entries((config ?? {}) as Json).filter(([name]) => name !== 'content_type'),
	);
	const translated: Json = {
		...renamed(top, INCOMING, convert),
		...(input === undefined ? {} : renamed(input as Json, INPUT, convert)),
		...settings,
	};
	// GitHub: without a secret, deliveries go unsigned; the primary keeps that as an empty secret.
	if (primaryOperation === 'createWebhook') translated.secret ??= '';
	return { body: translated, query: { ...query, ...filters } };
}

const mini = (type: string, id: unknown) => (id === null ? null : { type, id });

function nestedPost(post: Json): Json {
	return {
		type: 'post',
		...renamed(post, { page_id: 'page' }, (name, value) =>
			name === 'page' ? mini('page', value) : value,
		),
	};
}

/** AIP-193's ErrorInfo: the cause as an UPPER_SNAKE_CASE reason. */
function errorInfo(code: string): Json {
	const reason = code.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
	return {
		'@type': ERROR_INFO_TYPE,
		reason: /^[A-Z][A-Z0-9_]+[A-Z0-9]$/.test(reason) ? reason : 'UNKNOWN',
		domain: ERROR_DOMAIN,
	};
}

function responseOf(type: string, result: Json): Json {
	const fields =
		type === 'generate.twitter'
			? { tweets: (result.tweets as string[]).map((text) => ({ text })) }
			: renamed(result, { post_id: 'post' }, (name, value) =>
					name === 'post' ? mini('post', value) : value,
				);
	return { '@type': responseType(type), ...fields };
}

/** A job as a google.longrunning.Operation: `response` or `error` only once it is done. */
function operationOf(job: Json): Json {
	const done = job.status === 'succeeded' || job.status === 'failed';
	const error = job.error as { code: string; message: string } | null;
	return {
		id: job.id,
		done,
		metadata: {
			'@type': METADATA_TYPE,
			type: job.type,
			progress: job.progress,
			create_time: job.created_at,
			update_time: job.updated_at,
			...(done ? { end_time: job.finished_at } : {}),
		},
		...(job.result === null ? {} : { response: responseOf(String(job.type), job.result as Json) }),
		...(error === null
			? {}
			: {
					error: {
						code: RPC_CODES[error.code] ?? UNKNOWN_RPC_CODE,
						message: error.message,
						details: [errorInfo(error.code)],
					},
				}),
	};
}

/** Slack's cursor paging: `{ok, <items>, response_metadata: {next_cursor}}`, the cursor empty at the end. */
function page(
	list: string,
	items: Array<{ id: string }>,
	query: Query,
	{ maxPageSize, afterCursor }: Paging,
): Json {
	const size = pageSize(query, 'limit', NESTED_DEFAULT_LIMIT, maxPageSize);
	// Slack takes an empty cursor as none: the first portion.
	const cursor = single(query, 'cursor') || undefined;
	const { items: portion, next } = afterCursor(items, cursor, size, 'query.cursor');
	return { ok: true, [LISTS[list]]: portion, response_metadata: { next_cursor: next ?? '' } };
}

/** A handler's fields, named in its own error (`<primary field> <message>`), by their nested paths. */
const OUTGOING: Record<string, string> = {
	page_id: 'page.id',
	post_id: 'post.id',
	source_post_id: 'input.source_post.id',
	thread: 'tweets',
};
const MESSAGES: Record<string, string> = {
	'takes the place of content and post_id: send one of the three':
		'takes the place of text and post: send one of the three',
};

/** AIP-193: `{error: {code, message, status, details}}`, with a BadRequest naming the fields. */
function error({ status, code, message, details }: ApiError): { status: number; body: unknown } {
	const http = status === 422 ? 400 : status;
	const names = namesFor(message, details, OUTGOING);
	const violations = details?.map(({ field, message: description }) => ({
		field: field === 'body' ? '' : (names[field] ?? field).replace(/^query\./, ''),
		description: MESSAGES[description] ?? description,
	}));
	const [single] = violations ?? [];
	return {
		status: http,
		body: {
			error: {
				code: http,
				message: names === OUTGOING ? `${single.field} ${single.description}` : message,
				status: STATUS_OF_HTTP[http] ?? (http >= 500 ? 'INTERNAL' : 'UNKNOWN'),
				details: [
					errorInfo(http === 405 ? 'method_not_allowed' : code),
					...(violations ? [{ '@type': BAD_REQUEST_TYPE, fieldViolations: violations }] : []),
				],
			},
		},
	};
}

// GitHub's User-Agent names the sending build: `GitHub-Hookshot/<short commit>`.
const USER_AGENT = `${USER_AGENT_PREFIX}4a9c1e7`;

export const NESTED = defineProfile({
	// Stripe: `/v1/customers/{customer}`.
	pathParameter: (resource) => resource,
	updateMethod: 'POST',
	document: buildNestedDocument,
	incoming,
	resources: (service) => ({
		Account: (account) => account,
		Page: (page) => ({ type: 'page', ...page }),
		Post: nestedPost,
		Job: operationOf,
		// GitHub never returns a secret: `********` says there is one.
		Webhook: (webhook) => ({
			id: webhook.id,
			active: webhook.active,
			events: eventsIn(webhook.events as string[], NESTED_EVENTS),
			description: webhook.description,
			config: {
				url: webhook.url,
				content_type: 'json',
				...(service.webhooks.get(String(webhook.id))?.secret ? { secret: MASKED_SECRET } : {}),
			},
			created_at: webhook.created_at,
			updated_at: webhook.updated_at,
		}),
	}),
	items: (operation) => LISTS[operation],
	// AIP-151: a long-running method returns the Operation (200), not an acceptance.
	one: ({ status, answer, resource }) => ({
		status: status === 202 ? 200 : status,
		body: resource(answer),
	}),
	page,
	error,
	delivery: {
		name: (type) => NESTED_EVENTS[type as keyof typeof NESTED_EVENTS],
		job: operationOf,
		post: nestedPost,
		body: (payload, _name, event, of) => ({
			action: ACTIONS[event.type],
			[of === 'job' ? 'operation' : 'post']: payload,
		}),
	},
	// One GUID per delivery: retries and redeliveries send the recorded headers again, so it stays.
	deliveryHeaders: ({ type, webhookId }) => ({
		[DELIVERY_HEADERS.hook]: webhookId,
		[DELIVERY_HEADERS.event]: type,
		[DELIVERY_HEADERS.delivery]: randomUUID(),
		[DELIVERY_HEADERS.agent]: USER_AGENT,
	}),
	// GitHub: the hex HMAC-SHA256 of the raw body alone, and none without a secret.
	sign: (secret, rawBody): Record<string, string> =>
		secret === ''
			? {}
			: {
					[DELIVERY_HEADERS.signature]: `sha256=${hexHmac(secret, rawBody)}`,
				},
});
