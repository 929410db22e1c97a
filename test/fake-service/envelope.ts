import { createHash, createHmac, randomBytes } from 'node:crypto';

import {
	buildEnvelopeDocument,
	ENVELOPE_EVENTS,
	JOB_ERROR_CODES,
	MASKED_SECRET,
	PUBLICATIONS,
	STATES,
} from './envelope-document';
import {
	defineProfile,
	eventsIn,
	inverted,
	namesFor,
	pageSize,
	pointer,
	primaryOf,
	renamed,
	single as first,
	type Answered,
	type Json,
} from './profile';
import type { ApiError, FakeService, Paging, Query, RouteResult } from './server';

/** The envelope profile, a translation at the edges (ProfileAdapter): every open point decided after a real API, named in envelope-document.ts. */

/** Envelope field (body or filter) → primary field. */
const INCOMING: Record<string, string> = {
	body: 'content',
	subject: 'title',
	page: 'page_id',
	publication: 'status',
	publish_on: 'scheduled_at',
	categories: 'tags',
	asset_urls: 'media_urls',
	recording_text: 'transcript',
	brief: 'prompt',
	source_copy: 'source_text',
	based_on: 'source_post_id',
	style: 'tone',
	language_code: 'language',
	size: 'length',
	post_count: 'thread_length',
	card_count: 'slide_count',
	length_seconds: 'duration_seconds',
	format: 'aspect_ratio',
	post: 'post_id',
	address: 'url',
	triggers: 'events',
	name: 'description',
	disabled: 'active',
	search: 'q',
	'page.id': 'page_id',
};
const OUTGOING: Record<string, string> = {
	...inverted(INCOMING),
	page_id: 'page',
};
const FILTERS = ['publication', 'page.id', 'search'];
const ALL_EVENTS = Object.keys(ENVELOPE_EVENTS);
const envelopeEvent = (event: string) => ENVELOPE_EVENTS[event as keyof typeof ENVELOPE_EVENTS];
// Merge patch (RFC 7396): null removes a member, which leaves the primary's empty value.
const REMOVED: Json = { tags: [], media_urls: [], events: ALL_EVENTS };

function incoming(
	primaryOperation: string,
	body: unknown,
	query: Query,
): { body: unknown; query: Query } {
	const translate = (fields: Json) =>
		renamed(fields, INCOMING, (primary, value) => {
			if (value === null) return REMOVED[primary] ?? null;
			if (primary === 'status') return primaryOf(PUBLICATIONS, value);
			if (primary === 'events')
				return (value as string[]).map((name) => primaryOf(ENVELOPE_EVENTS, name));
			return primary === 'active' ? !value : value;
		});
	// Standard Webhooks: the service makes the secret, whsec_ + base64 of 24 random bytes.
	const made =
		primaryOperation === 'createWebhook'
			? { events: ALL_EVENTS, secret: `whsec_${randomBytes(24).toString('base64')}` }
			: {};
	const translated =
		body !== null && typeof body === 'object' ? { ...made, ...translate(body as Json) } : body;
	const filters = translate(
		Object.fromEntries(Object.entries(query).filter(([name]) => FILTERS.includes(name))),
	);
	return { body: translated, query: { ...query, ...filters } as Query };
}

const OUTPUTS: Record<string, Record<string, string>> = {
	'generate.blog': { title: 'subject', content: 'markdown', summary: 'abstract' },
	'generate.linkedin': { content: 'body' },
	'generate.twitter': { tweets: 'posts' },
	'generate.video': {
		video_url: 'mp4_url',
		duration_seconds: 'length_seconds',
		aspect_ratio: 'format',
	},
	publish: { platform: 'channel', post_id: 'post', url: 'permalink', published_at: 'published_on' },
};

function output(type: string, result: Json): Json {
	if (type !== 'generate.carousel') return renamed(result, OUTPUTS[type] ?? OUTPUTS.publish);
	return {
		cards: (result.slides as Json[]).map(({ title, body, image_url }) => ({
			caption: title,
			text: body,
			png_url: image_url,
		})),
	};
}

function envelopeJob(job: Json, scheduled: boolean): Json {
	const [verb, kind] = String(job.type).split('.');
	const error = job.error as { code: string; message: string } | null;
	return {
		id: job.id,
		task: `${kind}.${verb}`,
		state:
			scheduled && job.status === 'queued'
				? 'scheduled'
				: STATES[job.status as keyof typeof STATES],
		percent_complete: job.progress,
		response: job.result === null ? null : output(String(job.type), job.result as Json),
		error_code: error === null ? null : (JOB_ERROR_CODES[error.code] ?? 2000),
		error_message: error?.message ?? null,
		created_on: job.created_at,
		modified_on: job.updated_at,
		completed_on: job.finished_at,
	};
}

// Cloudflare's *_on, for the times every resource has.
const TIMES = { created_at: 'created_on', updated_at: 'modified_on', published_at: 'published_on' };

const envelopePost = (post: Json): Json =>
	renamed(post, { ...OUTGOING, ...TIMES }, (name, value) =>
		name === 'publication' ? PUBLICATIONS[value as keyof typeof PUBLICATIONS] : value,
	);

const succeeded = (result: unknown, extra: Json = {}) => ({
	success: true,
	errors: [],
	messages: [],
	result,
	...extra,
});
const failed = (errors: Json[]) => ({ success: false, errors, messages: [], result: null });
const SYNCHRONOUS = ['generateLinkedin', 'generateTwitter'];

/** An answer of one resource; a 202 as a Location to poll, or the result itself where the API is synchronous. */
function one({ operation, status, answer, resource, request, service }: Answered) {
	if (status !== 202) {
		const retry: Record<string, string> =
			operation === 'getJob' && answer.finished_at === null ? { 'Retry-After': '1' } : {};
		return { status: 200, body: succeeded(resource(answer)), headers: retry };
	}
	const jobId = String(answer.id);
	if (SYNCHRONOUS.includes(operation)) {
		// The job object is the service's own, so it is finished once finishJob has been called.
		if (answer.finished_at === null) void service.finishJob(jobId);
		const error = answer.error as { message: string } | null;
		if (error)
			return {
				status: 400,
				body: failed([{ code: 1004, message: `Generation failed: ${error.message}` }]),
			};
		return { status: 200, body: succeeded(output(String(answer.type), answer.result as Json)) };
	}
	const publishOn = (request.body as { scheduled_at?: string }).scheduled_at;
	if (publishOn !== undefined && Date.parse(publishOn) > Date.now()) service.holdJob(jobId);
	return {
		status,
		body: succeeded(null, {
			messages: [{ code: 1202, message: 'Accepted; the job is at Location.' }],
		}),
		headers: { Location: `${service.url}/v1/jobs/${jobId}`, 'Retry-After': '1' },
	};
}

const ENVELOPE_PAGE_SIZES: Record<string, number> = {
	listPages: 20,
	listPosts: 30,
	listWebhooks: 10,
};

/** One page in the list's own style: result_info totals (pages), a Link header (posts), has_more after an id (webhooks). */
function envelopePage(
	list: string,
	items: Array<{ id: string }>,
	query: Query,
	{ maxPageSize, baseUrl }: Paging,
): Json {
	const single = (name: string) => first(query, name);
	const sizeName = list === 'listWebhooks' ? 'limit' : 'per_page';
	const size = pageSize(query, sizeName, ENVELOPE_PAGE_SIZES[list], maxPageSize);
	if (list === 'listWebhooks') {
		const after = single('starting_after');
		const rest = after === undefined ? items : items.filter((item) => item.id > after);
		return { results: rest.slice(0, size), result_info: { has_more: rest.length > size } };
	}
	const page = Number(single('page') ?? 1);
	const results = items.slice((page - 1) * size, page * size);
	const last = Math.max(1, Math.ceil(items.length / size));
	if (list === 'listPages')
		return {
			results,
			result_info: {
				page,
				per_page: size,
				count: results.length,
				total_count: items.length,
				total_pages: last,
			},
		};
	const link = (number: number, rel: string) => {
		const kept = FILTERS.flatMap(
			(name): Array<[string, string]> =>
				single(name) === undefined ? [] : [[name, String(single(name))]],
		);
		return `<${baseUrl}/v1/posts?${new URLSearchParams([...kept, ['page', String(number)], ['per_page', String(size)]])}>; rel="${rel}"`;
	};
	return {
		results,
		link: [...(page < last ? [link(page + 1, 'next')] : []), link(last, 'last')].join(', '),
	};
}

const MESSAGES: Record<string, string> = {
	'is required when status is "scheduled"': 'is required when publication is "future"',
};

/** Cloudflare's failure envelope; codes 1000 + the status, except 1001 (not JSON), 1002 (per field), 1003 (unknown reference), 1500. */
function error({ status, message, details }: ApiError): { status: number; body: unknown } {
	if (details?.some(({ field }) => field === 'header.content-type'))
		return { status: 415, body: failed([{ code: 1415, message }]) };
	if (details === undefined || (status !== 400 && status !== 422)) {
		return {
			status,
			body: failed([
				{ code: status === 400 ? 1001 : status >= 500 ? 1500 : 1000 + status, message },
			]),
		};
	}
	const names = namesFor(message, details, OUTGOING);
	const entries = details.map(({ field, message: detail, pointer: at }) => {
		const text = MESSAGES[detail] ?? detail;
		return {
			code: detail.startsWith('does not name an existing') ? 1003 : 1002,
			message: `${names[field] ?? field} ${text}`,
			source: { pointer: at ?? pointer(field, names) },
		};
	});
	return { status: status === 422 ? 400 : status, body: failed(entries) };
}

/**
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` entries, keyed with the base64-decoded secret after `whsec_`.
 * Every delivery has two: one with a key being rotated out (derived from the secret, so unknown to
 * the receiver but the same every time), then the real one; every second delivery also has a
 * `v1a` (asymmetric) entry, which a receiver without its public key must skip.
 */
function sign(
	secret: string,
	rawBody: string,
	{
		eventId = `evt_${randomBytes(12).toString('hex')}`,
		timestamp,
		nth,
	}: { eventId?: string; timestamp: number; nth: number },
) {
	const content = `${eventId}.${timestamp}.${rawBody}`;
	const oldKey = createHash('sha256').update(`rotated out: ${secret}`).digest();
	const entry = (key: Buffer) => `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
	const entries = [entry(oldKey), entry(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))];
	if (nth % 2 === 1)
		entries.splice(1, 0, `v1a,${createHmac('sha512', oldKey).update(content).digest('base64')}`);
	return {
		'webhook-id': eventId,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': entries.join(' '),
	};
}

export const ENVELOPE = defineProfile({
	// GitHub's {hook_id}, DigitalOcean's {droplet_id}.
	pathParameter: (resource) => `${resource}_id`,
	updateMethod: 'PATCH',
	document: buildEnvelopeDocument,
	incoming,
	resources: (service: FakeService) => ({
		Account: (account) => renamed(account, { name: 'full_name', plan: 'tier', ...TIMES }),
		Page: (page) =>
			renamed(page, { name: 'display_name', platform: 'channel', url: 'permalink', ...TIMES }),
		Post: envelopePost,
		Job: (job) => envelopeJob(job, service.heldJobs.has(String(job.id))),
		Webhook: (webhook) => ({
			...renamed(webhook, { ...OUTGOING, ...TIMES }, (name, value) => {
				if (name === 'disabled') return !value;
				return name === 'triggers' ? eventsIn(value as string[], ENVELOPE_EVENTS) : value;
			}),
			secret: webhook.secret ?? MASKED_SECRET,
		}),
	}),
	items: () => 'results',
	// Cloudflare's api-response-single-id.
	deleted: (id) => succeeded({ id }),
	list: ({ status }, items, { link, ...info }): RouteResult => ({
		status,
		body: succeeded(items, info),
		headers: link === undefined ? {} : { Link: String(link) },
	}),
	one,
	page: envelopePage,
	error,
	delivery: {
		name: envelopeEvent,
		job: (job) => envelopeJob(job, false),
		post: envelopePost,
		body: (data, type, event) => ({ type, timestamp: event.created_at, data }),
	},
	sign,
	repeatability: true,
	approval: true,
	// IETF RateLimit fields, as Cloudflare sends them: r requests left, t seconds until the quota is whole.
	rateLimitFields: (bucket) => ({
		RateLimit: `"default";r=${bucket.remaining};t=${bucket.secondsUntil(bucket.quota)}`,
		'RateLimit-Policy': `"default";q=${bucket.quota};w=${bucket.windowSeconds}`,
	}),
});
