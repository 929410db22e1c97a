import { STATUS_CODES } from 'node:http';

import {
	ALTERNATE_DELIVERY_HEADER,
	ALTERNATE_EVENTS,
	ALTERNATE_PHASES,
	ALTERNATE_SIGNATURE_HEADER,
	buildAlternateDocument,
	PROBLEM_TYPE_BASE,
} from './alternate-document';
import { DEFAULT_PAGE_SIZE } from './openapi';
import {
	defineProfile,
	hexHmac,
	inverted,
	namesFor,
	pageSize,
	pointer,
	primaryOf,
	renamed,
	single,
	type Json,
} from './profile';
import type { Paging, Query } from './server';

/** The alternate profile, a translation at the edges (ProfileAdapter); alternate-document.ts describes it. */

/** Alternate field → primary field; values of `state`, `length` and `topics` are translated too. */
const INCOMING: Record<string, string> = {
	text: 'content',
	headline: 'title',
	pageId: 'page_id',
	state: 'status',
	publishAt: 'scheduled_at',
	labels: 'tags',
	mediaUrls: 'media_urls',
	transcriptText: 'transcript',
	voice: 'tone',
	locale: 'language',
	instructions: 'prompt',
	sourceText: 'source_text',
	sourcePostId: 'source_post_id',
	tweetCount: 'thread_length',
	slideCount: 'slide_count',
	durationSeconds: 'duration_seconds',
	aspectRatio: 'aspect_ratio',
	postId: 'post_id',
	parts: 'thread',
	callbackUrl: 'url',
	topics: 'events',
	label: 'description',
	enabled: 'active',
};

/** Primary field → alternate field, for the errors a handler reports in primary terms. */
const OUTGOING = inverted(INCOMING);
const alternateEvent = (event: string) =>
	ALTERNATE_EVENTS[event as keyof typeof ALTERNATE_EVENTS] ?? event;

// A PUT replaces: what it leaves out is emptied, as the document says.
const EMPTIED: Record<string, Json> = {
	updatePost: { title: null, page_id: null, tags: [], media_urls: [], scheduled_at: null },
	updateWebhook: { description: null, active: true },
};

/** A request's body and query in the primary's terms. */
function incoming(primaryOperation: string, body: unknown, query: Query) {
	const translate = (fields: Json): Json =>
		renamed(fields, INCOMING, (primary, value) => {
			if (primary === 'status' || primary === 'length') return String(value).toLowerCase();
			return primary === 'events'
				? (value as string[]).map((name) => primaryOf(ALTERNATE_EVENTS, name))
				: value;
		});
	const translatedBody =
		body !== null && typeof body === 'object'
			? { ...EMPTIED[primaryOperation], ...translate(body as Json) }
			: body;
	const filters = translate(
		Object.fromEntries(
			Object.entries(query).filter(([name]) => name === 'state' || name === 'pageId'),
		),
	);
	return { body: translatedBody, query: { ...query, ...filters } as Query };
}

/** The names of job results' fields that are not just camelCase. */
const RESULTS: Record<string, Record<string, string>> = {
	'generate.blog': { title: 'headline', content: 'body' },
	'generate.linkedin': { content: 'text' },
	publish: { platform: 'network', url: 'link', thread_urls: 'partLinks' },
};

const camelCase = (name: string) =>
	name.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase());

/** The fields under their names in `names`, else in camelCase. */
const alternateFields = (fields: Json, names: Record<string, string> = {}) =>
	Object.fromEntries(
		Object.entries(fields).map(([name, value]) => [names[name] ?? camelCase(name), value]),
	);

function alternateJob(job: Json): Json {
	const type = String(job.type);
	const result = job.result as Json | null;
	const output =
		result === null
			? null
			: type === 'generate.carousel'
				? {
						slides: (result.slides as Json[]).map((slide) =>
							alternateFields(slide, { title: 'heading' }),
						),
					}
				: alternateFields(result, RESULTS[type] ?? RESULTS[type.split('.')[0]]);
	const error = job.error as { code: string; message: string } | null;
	return {
		jobId: job.id,
		kind: type.replace('.', '/'),
		phase: ALTERNATE_PHASES[job.status as keyof typeof ALTERNATE_PHASES],
		percent: job.progress,
		output,
		failure: error === null ? null : { code: error.code, reason: error.message },
		createdAt: job.created_at,
		updatedAt: job.updated_at,
		finishedAt: job.finished_at,
	};
}

function alternatePost(post: Json): Json {
	return { ...alternateFields(post, OUTGOING), state: String(post.status).toUpperCase() };
}

/**
 * One page of a list, in the list's own paging style: page and per_page with a total (pages),
 * offset and limit with a total (posts), or a limit with a next link (webhooks).
 */
function alternatePage(
	list: string,
	items: Array<{ id: string }>,
	query: Query,
	{ maxPageSize, baseUrl, afterCursor }: Paging,
): Json {
	const sizeName = list === 'listPages' ? 'per_page' : 'limit';
	const size = pageSize(query, sizeName, DEFAULT_PAGE_SIZE, maxPageSize);
	if (list === 'listWebhooks') {
		const after = single(query, 'after');
		const { items: results, next } = afterCursor(items, after, size, 'query.after');
		const link = next === null ? null : `${baseUrl}/v1/webhooks?limit=${size}&after=${next}`;
		return { results, links: { next: link } };
	}
	const page = Number(single(query, 'page') ?? 1);
	const offset = list === 'listPages' ? (page - 1) * size : Number(single(query, 'offset') ?? 0);
	const results = items.slice(offset, offset + size);
	return list === 'listPages'
		? { results, page, per_page: size, total: items.length }
		: { results, offset, limit: size, total: items.length };
}

const PROBLEM_SLUGS: Record<number, string> = {
	400: 'bad-request',
	401: 'unauthorized',
	404: 'not-found',
	405: 'method-not-allowed',
	422: 'validation-failed',
	429: 'rate-limited',
};

/** An error as application/problem+json (RFC 9457). */
function problem(
	status: number,
	detail: string,
	details?: Array<{ field: string; message: string }>,
): Json {
	const [first] = details ?? [];
	const names = namesFor(detail, details, OUTGOING);
	const fromHandler = names === OUTGOING;
	return {
		type: `${PROBLEM_TYPE_BASE}${PROBLEM_SLUGS[status] ?? (status >= 500 ? 'internal-error' : 'bad-request')}`,
		title: STATUS_CODES[status] ?? 'Error',
		status,
		detail: fromHandler
			? `${pointer(first.field, names).slice(1).replace(/\//g, '.')} ${first.message}`
			: detail,
		...(details
			? {
					errors: details.map(({ field, message }) => ({
						pointer: pointer(field, names),
						detail: message,
					})),
				}
			: {}),
	};
}

/** Answers enveloped in `data`, lists in `results`, deletes with a body. */
export const ALTERNATE = defineProfile({
	pathParameter: (resource) => `${resource}Id`,
	updateMethod: 'PUT',
	document: buildAlternateDocument,
	incoming,
	resources: () => ({
		Account: (account) => alternateFields(account, { name: 'displayName' }),
		Page: (page) => alternateFields(page, { name: 'title', platform: 'network', url: 'link' }),
		Post: alternatePost,
		Job: alternateJob,
		Webhook: ({ secret, ...webhook }) => ({
			...alternateFields(webhook, OUTGOING),
			topics: (webhook.events as string[]).map(alternateEvent),
			...(secret === undefined ? {} : { signingSecret: secret }),
		}),
	}),
	items: () => 'results',
	deleted: (id) => ({ data: { id, deleted: true } }),
	one: ({ status, answer, resource }) => ({ status, body: { data: resource(answer) } }),
	page: alternatePage,
	error: ({ status, message, details }) => ({
		status,
		body: problem(status, message, details),
		contentType: 'application/problem+json',
	}),
	delivery: {
		name: alternateEvent,
		job: alternateJob,
		post: alternatePost,
		body: (payload, type, event) => ({
			eventId: event.id,
			eventType: type,
			occurredAt: event.created_at,
			payload,
		}),
	},
	// `Webhook-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
	sign: (secret, rawBody, { eventId, timestamp }) => ({
		...(eventId === undefined ? {} : { [ALTERNATE_DELIVERY_HEADER]: eventId }),
		[ALTERNATE_SIGNATURE_HEADER]: `t=${timestamp},v1=${hexHmac(secret, `${timestamp}.${rawBody}`)}`,
	}),
});
