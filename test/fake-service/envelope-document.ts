import type { JsonSchema, OpenApiPathItem } from './openapi';
import {
	atLeastOneOf,
	BLOG_LENGTHS,
	closedObject as closed,
	dateTime,
	deliveryObject,
	described,
	everyProperty,
	GENERATION_OPTIONS,
	headerParameter,
	integerBetween as between,
	JOB_TYPES,
	jsonContent as json,
	nonEmptyText,
	oneOfValues,
	openApi30Document,
	operationObject,
	orNull,
	PAGE_PLATFORMS,
	queryParameter as query,
	schemaRef as ref,
	text,
	uri,
	VIDEO_ASPECT_RATIOS,
	parameterRef as parameter,
	pathParameter,
	responseRef,
} from './openapi';
import type { ContractDocument } from './request-validator';

/**
 * The OpenAPI 3.0.3 document of the envelope profile (envelope.ts): the same service, every open
 * point of the spec decided after a real API, named beside each decision.
 */

// Stripe's three-part event names (reporting.report_run.succeeded).
export const ENVELOPE_EVENTS = {
	'job.completed': 'task.run.succeeded',
	'job.failed': 'task.run.failed',
	'post.published': 'post.went_public',
} as const;
// WordPress REST post statuses.
export const PUBLICATIONS = { draft: 'draft', scheduled: 'future', published: 'publish' } as const;
// DigitalOcean action states, with Twilio's `scheduled` and Stripe report runs' `pending`.
export const STATES = {
	queued: 'pending',
	running: 'in-progress',
	succeeded: 'completed',
	failed: 'errored',
} as const;
// Twilio's integer error_code on resources; anything the table does not name is 2000.
export const JOB_ERROR_CODES: Record<string, number> = {
	generation_failed: 2001,
	post_not_found: 2404,
};
// GitHub's masked webhook secret (`webhook-config-secret` example).
export const MASKED_SECRET = '********';

// Cloudflare's `result: {type: object, nullable: true, enum: [null]}`: 3.0's way to say "always null".
const alwaysNull: JsonSchema = { type: 'object', nullable: true, enum: [null] };
const readOnly = (schema: JsonSchema): JsonSchema => ({ ...schema, readOnly: true });
const header = (name: string): JsonSchema => ({ $ref: `#/components/headers/${name}` });
const EVENT_NAMES: string[] = Object.values(ENVELOPE_EVENTS);
// `linkedin.publish` for the primary's `publish.linkedin`.
const TASKS = JOB_TYPES.map((type) => type.split('.').reverse().join('.'));

// Cloudflare v4: every answer is {success, errors, messages, result}; the resource is `result`.
const envelope = (result: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema => ({
	allOf: [
		ref('ApiResponseCommon'),
		{
			type: 'object',
			required: ['result', ...Object.keys(extra)],
			properties: { result, ...extra },
		},
	],
});

const postFields: Record<string, JsonSchema> = {
	body: described(nonEmptyText, 'Text of the post.'),
	subject: described(text, 'Title of the post.'),
	page: described(text, 'Id of the page the post belongs to.'),
	publication: {
		...oneOfValues(Object.values(PUBLICATIONS)),
		description: 'Publication status (WordPress post statuses).',
		'x-enumDescriptions': {
			draft: 'Not published and not planned.',
			future: 'Scheduled: goes out at publish_on.',
			publish: 'Published; published_on says when.',
		},
	},
	publish_on: described(dateTime, 'When a `future` post goes out.'),
	categories: described({ type: 'array', items: text }, 'Tags shown with the post.'),
	asset_urls: described({ type: 'array', items: uri }, 'Images or videos attached to the post.'),
};
const sourceFields: Record<string, JsonSchema> = {
	brief: described(nonEmptyText, 'The prompt: what to write about.'),
	source_copy: described(nonEmptyText, 'Text to adapt.'),
	based_on: described(text, 'Id of an existing post to adapt.'),
	style: described(text, 'Tone of voice.'),
	language_code: described(text, 'Language to write in, as a BCP 47 tag.'),
	page: described(text, 'Id of the page the content is for.'),
};
const fromSource = (extra: Record<string, JsonSchema> = {}) =>
	closed({ ...sourceFields, ...extra }, [], atLeastOneOf(['brief', 'source_copy', 'based_on']));
const webhookFields: Record<string, JsonSchema> = {
	address: described(uri, 'Where deliveries are sent (loopback hosts only, in this fake).'),
	// Svix: omit for all (there is no wildcard value).
	triggers: described(
		{ type: 'array', minItems: 1, uniqueItems: true, items: oneOfValues(EVENT_NAMES) },
		'Events to deliver; left out: all events.',
	),
	name: described(text, 'Name shown in lists.'),
	// Stripe's and Svix's inverted flag.
	disabled: described({ type: 'boolean' }, 'When true, nothing is delivered.'),
};
const webhookAnswer = (secret: JsonSchema) =>
	everyProperty({
		id: text,
		...webhookFields,
		name: orNull(text),
		secret,
		created_on: readOnly(dateTime),
		modified_on: readOnly(dateTime),
	});
const OUTPUTS = ['Blog', 'Linkedin', 'Twitter', 'Carousel', 'Video', 'Publish'].map(
	(kind) => `${kind}Output`,
);
const message: JsonSchema = closed(
	{
		code: { type: 'integer', minimum: 1000 },
		message: text,
		source: closed({
			pointer: described(
				text,
				'JSON Pointer into the body; `/query/<name>` or `/header/<name>` for those.',
			),
		}),
	},
	['code', 'message'],
);

const schemas: Record<string, JsonSchema> = {
	Messages: { type: 'array', items: message },
	// Open, for the members each operation adds (result, result_info).
	ApiResponseCommon: {
		type: 'object',
		required: ['success', 'errors', 'messages'],
		properties: {
			success: { type: 'boolean', enum: [true] },
			errors: ref('Messages'),
			messages: ref('Messages'),
		},
	},
	ApiResponseFailure: everyProperty({
		success: { type: 'boolean', enum: [false] },
		errors: ref('Messages'),
		messages: ref('Messages'),
		result: alwaysNull,
	}),
	Account: everyProperty({
		id: text,
		email: { type: 'string', format: 'email' },
		full_name: text,
		tier: text,
		created_on: readOnly(dateTime),
	}),
	Page: everyProperty({
		id: text,
		display_name: text,
		channel: oneOfValues(PAGE_PLATFORMS),
		permalink: uri,
		created_on: readOnly(dateTime),
	}),
	Post: everyProperty({
		id: text,
		...postFields,
		page: orNull(postFields.page),
		subject: orNull(postFields.subject),
		publish_on: orNull(postFields.publish_on),
		published_on: readOnly(orNull(dateTime)),
		created_on: readOnly(dateTime),
		modified_on: readOnly(dateTime),
	}),
	PostCreate: closed(
		{ ...postFields, publication: { ...postFields.publication, default: 'draft' } },
		['body'],
		{
			description: 'publish_on is required when publication is `future` (400 otherwise).',
		},
	),
	// Azure: PATCH with JSON Merge Patch (RFC 7396).
	PostPatch: closed(
		{
			...postFields,
			...Object.fromEntries(
				['subject', 'page', 'publish_on', 'categories', 'asset_urls'].map((name) => [
					name,
					orNull(postFields[name]),
				]),
			),
		},
		[],
		{
			description:
				'JSON Merge Patch: members given replace, `null` removes (empties) one, members left out stay.',
		},
	),
	BlogOutput: everyProperty({ subject: text, markdown: text, abstract: text }),
	LinkedinOutput: everyProperty({ body: text }),
	TwitterOutput: everyProperty({
		posts: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 280 } },
	}),
	CarouselOutput: everyProperty({
		cards: { type: 'array', items: everyProperty({ caption: text, text, png_url: uri }) },
	}),
	VideoOutput: everyProperty({
		mp4_url: uri,
		length_seconds: { type: 'integer' },
		format: oneOfValues(VIDEO_ASPECT_RATIOS),
	}),
	PublishOutput: everyProperty({
		channel: oneOfValues(['linkedin', 'twitter']),
		post: text,
		permalink: uri,
		published_on: dateTime,
	}),
	// Google's LRO `response`, Twilio's error_code/error_message, Cloudflare's *_on.
	Job: everyProperty({
		id: text,
		task: oneOfValues(TASKS),
		state: {
			type: 'string',
			enum: ['scheduled', ...Object.values(STATES)],
			'x-enumDescriptions': {
				scheduled:
					'Accepted; waits for its publish_on before it starts (this fake service keeps it scheduled until a test finishes it).',
				pending: 'Accepted; not started yet.',
				'in-progress': 'Running.',
				completed: 'Finished successfully; response holds the result.',
				errored: 'Failed; error_code and error_message say why.',
			},
		},
		percent_complete: between(0, 100),
		response: {
			description: 'Result of a completed job.',
			oneOf: [...OUTPUTS.map(ref), alwaysNull],
		},
		error_code: orNull(
			described(
				{ type: 'integer' },
				'Why an errored job failed: 2001 generation failed, 2404 the post was deleted first, 2000 anything else.',
			),
		),
		error_message: orNull(text),
		created_on: readOnly(dateTime),
		modified_on: readOnly(dateTime),
		completed_on: readOnly(orNull(dateTime)),
	}),
	BlogRequest: closed(
		{
			// The word "transcript" is only in the description.
			recording_text: described(
				{ type: 'string', minLength: 1 },
				'Transcript of the recording to turn into a blog post.',
			),
			subject: described(text, 'Title to use instead of a generated one.'),
			size: described(oneOfValues(BLOG_LENGTHS), 'Length of the blog post.'),
			style: sourceFields.style,
			language_code: sourceFields.language_code,
			page: sourceFields.page,
		},
		['recording_text'],
	),
	LinkedinRequest: fromSource(),
	TwitterRequest: fromSource({
		post_count: described(
			GENERATION_OPTIONS.threadLength,
			'Number of posts in the thread (thread length).',
		),
	}),
	CarouselRequest: fromSource({
		card_count: described(GENERATION_OPTIONS.slideCount, 'Number of cards (slides).'),
	}),
	VideoRequest: fromSource({
		length_seconds: described(
			GENERATION_OPTIONS.durationSeconds,
			'Length of the video, in seconds.',
		),
		format: described(GENERATION_OPTIONS.aspectRatio, 'Aspect ratio of the video.'),
	}),
	PublishRequest: closed(
		{
			post: described(text, 'Id of an existing post to publish.'),
			body: described(nonEmptyText, 'Text to publish as a new post.'),
			page: sourceFields.page,
			publish_on: described(
				dateTime,
				'When the post goes out; a future time makes the job `scheduled`.',
			),
		},
		[],
		atLeastOneOf(['post', 'body']),
	),
	Webhook: webhookAnswer(
		described(
			{ type: 'string', enum: [MASKED_SECRET] },
			'Masked; the full secret is only in the answer that created the webhook.',
		),
	),
	WebhookCreated: webhookAnswer(
		described(
			{ type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{32}$' },
			'The signing secret (Standard Webhooks: `whsec_` + base64 of 24 bytes). Only in this answer.',
		),
	),
	WebhookCreate: closed(webhookFields, ['address']),
	WebhookPatch: closed(
		{
			...webhookFields,
			triggers: orNull({
				...webhookFields.triggers,
				description: 'Events to deliver; null: all events.',
			}),
			name: orNull(webhookFields.name),
		},
		[],
		{
			description:
				'JSON Merge Patch: members given replace, `null` removes one, members left out stay.',
		},
	),
	// Standard Webhooks payload: {type, timestamp, data}; the event id is only the webhook-id header.
	TaskRunEvent: everyProperty({
		type: oneOfValues(EVENT_NAMES.slice(0, 2)),
		timestamp: dateTime,
		data: ref('Job'),
	}),
	PostEvent: everyProperty({
		type: oneOfValues([ENVELOPE_EVENTS['post.published']]),
		timestamp: dateTime,
		data: ref('Post'),
	}),
};

const rateLimited = {
	RateLimit: header('RateLimit'),
	'RateLimit-Policy': header('RateLimit-Policy'),
};
const headers: Record<string, JsonSchema> = {
	// IETF draft-ietf-httpapi-ratelimit-headers, as Cloudflare sends them.
	RateLimit: {
		required: true,
		description:
			'Quota left: `"default";r=<requests left>;t=<seconds until the quota is whole again>`.',
		schema: { type: 'string', pattern: '^"default";r=[0-9]+;t=[0-9]+$' },
	},
	'RateLimit-Policy': {
		required: true,
		description: 'The quota: `"default";q=<requests>;w=<window in seconds>`.',
		schema: { type: 'string', pattern: '^"default";q=[0-9]+;w=[0-9]+$' },
	},
	// GitHub's `components/headers/link`.
	Link: {
		description:
			'RFC 8288 links to the `next` page (when there is one) and the `last`, with the query kept.',
		schema: text,
	},
	Location: {
		required: true,
		description: 'Absolute URL of the job (GET /jobs/{job_id}).',
		schema: uri,
	},
	'Retry-After': {
		required: true,
		description: 'Seconds to wait before asking again.',
		schema: { type: 'integer', minimum: 0 },
	},
	// OASIS Repeatable Requests 1.0.
	'Repeatability-Result': {
		description: 'Whether a repeatable request was `accepted` (carried out once) or `rejected`.',
		schema: oneOfValues(['accepted', 'rejected']),
	},
};
const failure = (description: string, extra: Record<string, JsonSchema> = {}) => ({
	description,
	headers: { ...rateLimited, ...extra },
	content: json(ref('ApiResponseFailure')),
});
const responses: Record<string, JsonSchema> = {
	'400': failure(
		'1001: the body is not JSON. 1002: the request breaks this document (one error per field, `source.pointer` names it). 1003: a page or post id names nothing. 1004: a synchronous generation failed.',
		{ 'Repeatability-Result': header('Repeatability-Result') },
	),
	'401': failure('1401: missing or wrong API key.', {
		'WWW-Authenticate': { schema: oneOfValues(['Bearer']) },
	}),
	'403': failure('1403: authenticated, but this account is not approved for API access.'),
	'404': failure('1404: no such resource.'),
	'405': failure('1405: method not allowed on this path.', {
		Allow: { description: 'The methods this path takes.', schema: text },
	}),
	'412': failure(
		'1412: Repeatability-First-Sent is older than the 5 minutes this service remembers requests.',
		{ 'Repeatability-Result': header('Repeatability-Result') },
	),
	'415': failure('1415: a media type this operation does not take.'),
	'429': failure('1429: too many requests.', { 'Retry-After': header('Retry-After') }),
	'5XX': failure('1500: unexpected failure, or the service is unavailable.'),
};

const pageNumber = query('page', 'Page number, from 1.', {
	type: 'integer',
	minimum: 1,
	default: 1,
});
const perPage = (byDefault: number) =>
	query('per_page', 'Page size.', { ...between(1, 100), default: byDefault });
const parameters: Record<string, JsonSchema> = {
	// Azure REST guidelines / OASIS Repeatable Requests 1.0.
	RepeatabilityRequestId: {
		name: 'Repeatability-Request-ID',
		in: 'header',
		description:
			'A new UUID per request; sent again with the same Repeatability-First-Sent, the request is carried out once and its answer given again.',
		schema: text,
	},
	RepeatabilityFirstSent: {
		name: 'Repeatability-First-Sent',
		in: 'header',
		description:
			'When the request was first sent, as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`); at most 5 minutes ago.',
		schema: text,
	},
};

interface Spec {
	success: [string, string, JsonSchema?, Record<string, JsonSchema>?];
	parameters?: JsonSchema[];
	body?: string;
	mediaType?: string;
	anonymous?: boolean;
}

function operation(
	operationId: string,
	{ success: [status, description, schema, successHeaders], parameters = [], ...spec }: Spec,
) {
	const creates = spec.body !== undefined && spec.mediaType === undefined;
	const skipped = [
		...(spec.anonymous ? ['401', '403'] : []),
		...(spec.body ? [] : ['415']),
		...(creates ? [] : ['412']),
	];
	return operationObject({
		operationId,
		summary: operationId,
		parameters: creates
			? [...parameters, parameter('RepeatabilityRequestId'), parameter('RepeatabilityFirstSent')]
			: parameters,
		success: [
			status,
			description,
			schema,
			{
				...rateLimited,
				...successHeaders,
				...(creates ? { 'Repeatability-Result': header('Repeatability-Result') } : {}),
			},
		],
		errors: Object.fromEntries(
			Object.keys(responses)
				.filter((code) => !skipped.includes(code))
				.map((code) => [code, responseRef(code)]),
		),
		...spec,
	});
}

// Graph's LRO pattern: 202, no job in the body, the job at Location; Azure's Retry-After on the monitor.
const accepted = (operationId: string, body: string) =>
	operation(operationId, {
		success: [
			'202',
			'Accepted: the job is at Location; poll it after Retry-After seconds. The body holds no job.',
			envelope(alwaysNull),
			{ Location: header('Location'), 'Retry-After': header('Retry-After') },
		],
		body,
	});
// linkedin and twitter generation answer at once (DigitalOcean mixes synchronous CRUD with 202 work).
const synchronous = (operationId: string, body: string, output: string) =>
	operation(operationId, {
		success: [
			'200',
			'The finished content (a failed generation answers 400, code 1004).',
			envelope(ref(output)),
		],
		body,
	});
const one = (operationId: string, name: string, resource: string, extra: Partial<Spec> = {}) =>
	operation(operationId, {
		success: ['200', `The ${resource}.`, envelope(ref(resource))],
		parameters: [pathParameter(name)],
		...extra,
	});
// Cloudflare's api-response-single-id.
const deleted = (operationId: string, name: string) =>
	operation(operationId, {
		success: ['200', 'Deleted.', envelope(everyProperty({ id: text }))],
		parameters: [pathParameter(name)],
	});
const merged = { mediaType: 'application/merge-patch+json' };
const list = (item: string, info?: JsonSchema) =>
	envelope({ type: 'array', items: ref(item) }, info ? { result_info: info } : {});

function delivery(summary: string, payload: string): Record<string, OpenApiPathItem> {
	return {
		'{$request.body#/address}': deliveryObject({
			summary,
			parameters: [
				headerParameter('webhook-id', 'Event id; the same on every retry.', text),
				headerParameter('webhook-timestamp', 'Unix seconds when this delivery was signed.', {
					type: 'string',
					pattern: '^[0-9]+$',
				}),
				headerParameter(
					'webhook-signature',
					'Standard Webhooks (https://www.standardwebhooks.com): space-separated `v1,<base64 HMAC-SHA256>` entries over `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the base64-decoded part of the secret after `whsec_`. Entries of other versions (`v1a`) may appear; one matching `v1` entry suffices.',
					{ type: 'string', pattern: '^v1a?,[A-Za-z0-9+/=]+( v1a?,[A-Za-z0-9+/=]+)*$' },
				),
			],
			payload,
		}),
	};
}

const paths: Record<string, OpenApiPathItem> = {
	'/openapi.json': {
		get: operation('meta/openapi', {
			success: ['200', 'This document.', { type: 'object' }],
			anonymous: true,
		}),
	},
	'/me': {
		get: operation('account/get', { success: ['200', 'The account.', envelope(ref('Account'))] }),
	},
	'/pages': {
		get: operation('pages/list', {
			// Cloudflare's result_info.
			success: [
				'200',
				'One page of pages.',
				list(
					'Page',
					everyProperty({
						page: { type: 'integer' },
						per_page: { type: 'integer' },
						count: { type: 'integer' },
						total_count: { type: 'integer' },
						total_pages: { type: 'integer' },
					}),
				),
			],
			// WordPress's `search`.
			parameters: [
				pageNumber,
				perPage(20),
				query('search', 'Case-insensitive part of the display name.', text),
			],
		}),
	},
	'/pages/{page_id}': { get: one('pages/get', 'page_id', 'Page') },
	'/posts': {
		post: operation('posts/create', {
			success: ['200', 'The post.', envelope(ref('Post'))],
			body: 'PostCreate',
		}),
		get: operation('posts/list', {
			// GitHub: paging only in the Link header.
			success: [
				'200',
				'One page of posts, oldest first; the next and last pages are in Link.',
				list('Post'),
				{ Link: header('Link') },
			],
			parameters: [
				pageNumber,
				perPage(30),
				query(
					'publication',
					'Only posts with this publication status.',
					oneOfValues(Object.values(PUBLICATIONS)),
				),
				// Cloudflare's `account.id` filter on zones.
				query('page.id', 'Only posts of this page.', text),
			],
		}),
	},
	'/posts/{post_id}': {
		get: one('posts/get', 'post_id', 'Post'),
		patch: one('posts/update', 'post_id', 'Post', { body: 'PostPatch', ...merged }),
		delete: deleted('posts/delete', 'post_id'),
	},
	'/generate/blog': { post: accepted('generation/create-blog', 'BlogRequest') },
	'/generate/linkedin': {
		post: synchronous('generation/create-linkedin', 'LinkedinRequest', 'LinkedinOutput'),
	},
	'/generate/twitter': {
		post: synchronous('generation/create-twitter', 'TwitterRequest', 'TwitterOutput'),
	},
	'/generate/carousel': { post: accepted('generation/create-carousel', 'CarouselRequest') },
	'/generate/video': { post: accepted('generation/create-video', 'VideoRequest') },
	'/publish/linkedin': { post: accepted('publishing/create-linkedin', 'PublishRequest') },
	'/publish/twitter': { post: accepted('publishing/create-twitter', 'PublishRequest') },
	'/jobs/{job_id}': {
		get: one('jobs/get', 'job_id', 'Job', {
			// Azure: the status monitor sends Retry-After while the operation is not done.
			success: [
				'200',
				'The job.',
				envelope(ref('Job')),
				{
					'Retry-After': {
						description: 'While the job is not finished: seconds to wait before asking again.',
						schema: { type: 'integer', minimum: 0 },
					},
				},
			],
		}),
	},
	'/webhooks': {
		post: {
			...operation('webhooks/create', {
				success: [
					'200',
					'The webhook; `secret` holds the full signing secret here and only here.',
					envelope(ref('WebhookCreated')),
				],
				body: 'WebhookCreate',
			}),
			// OAS 3.0 Callback Objects: 3.0 has no `webhooks`.
			callbacks: {
				[ENVELOPE_EVENTS['job.completed']]: delivery('A task run succeeded', 'TaskRunEvent'),
				[ENVELOPE_EVENTS['job.failed']]: delivery('A task run failed', 'TaskRunEvent'),
				[ENVELOPE_EVENTS['post.published']]: delivery('A post went public', 'PostEvent'),
			},
		},
		get: operation('webhooks/list', {
			// Stripe's list semantics, in Cloudflare's result_info.
			success: [
				'200',
				'Webhooks, oldest first.',
				list(
					'Webhook',
					everyProperty({
						has_more: described(
							{ type: 'boolean' },
							'Whether starting_after=<id of the last one> gives more.',
						),
					}),
				),
			],
			parameters: [
				query('limit', 'Page size.', { ...between(1, 100), default: 10 }),
				query('starting_after', 'Id of the last webhook of the previous page.', text),
			],
		}),
	},
	'/webhooks/{webhook_id}': {
		get: one('webhooks/get', 'webhook_id', 'Webhook'),
		patch: one('webhooks/update', 'webhook_id', 'Webhook', { body: 'WebhookPatch', ...merged }),
		delete: deleted('webhooks/delete', 'webhook_id'),
	},
};

export function buildEnvelopeDocument(serverUrl?: string): ContractDocument {
	return openApi30Document(
		{
			title: 'Content Publishing API (fake, envelope conventions)',
			version: '3.0.0',
			description:
				'Every answer is `{success, errors, messages, result}`; errors have `success: false` and numeric codes in `errors`. Every answer carries RateLimit and RateLimit-Policy. Deliveries are described as callbacks of webhooks/create.',
		},
		serverUrl,
		paths,
		{ headers, parameters, responses, schemas },
	);
}
