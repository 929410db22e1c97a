import type { JsonSchema, OpenApiDocument, OpenApiPathItem } from './openapi';
import {
	atLeastOneOf as oneOfRequired,
	BLOG_LENGTHS,
	closedObject as closed,
	dateTime,
	deliveryObject,
	described,
	everyProperty,
	GENERATION_OPTIONS,
	DEFAULT_PAGE_SIZE,
	headerParameter,
	integerBetween as between,
	JOB_TYPES,
	MAX_PAGE_SIZE,
	nonEmptyText,
	oneOfValues,
	operationObject,
	PAGE_PLATFORMS,
	queryParameter as query,
	schemaRef as ref,
	text,
	uri,
	VIDEO_ASPECT_RATIOS,
	pathParameter,
} from './openapi';

/**
 * The OpenAPI document of the alternate profile: the same service, with other conventions on
 * every point the spec leaves open (see alternate.ts). It is the only description of them.
 */

export const ALTERNATE_EVENTS = {
	'job.completed': 'JOB_READY',
	'job.failed': 'JOB_BROKEN',
	'post.published': 'POST_LIVE',
} as const;
export const ALTERNATE_PHASES = {
	queued: 'WAITING',
	running: 'RENDERING',
	succeeded: 'READY',
	failed: 'BROKEN',
} as const;
export const ALTERNATE_SIGNATURE_HEADER = 'Webhook-Signature';
export const ALTERNATE_DELIVERY_HEADER = 'Webhook-Id';
export const PROBLEM_TYPE_BASE = 'https://problems.content-publishing.example/';

const nullable = (type: string, extra: JsonSchema = {}): JsonSchema => ({
	type: [type, 'null'],
	...extra,
});

const POST_STATES = ['DRAFT', 'SCHEDULED', 'PUBLISHED'];
const JOB_KINDS = JOB_TYPES.map((type) => type.replace('.', '/'));
const EVENT_NAMES = Object.values(ALTERNATE_EVENTS);

const postWriteFields: Record<string, JsonSchema> = {
	text: described(nonEmptyText, 'Text of the post.'),
	headline: described(text, 'Title of the post.'),
	pageId: described(text, 'Page the post belongs to.'),
	state: described(oneOfValues(POST_STATES), 'Lifecycle state of the post.'),
	publishAt: described(
		dateTime,
		'When a scheduled post goes out (required when state is SCHEDULED).',
	),
	labels: described({ type: 'array', items: text }, 'Tags shown with the post.'),
	mediaUrls: described({ type: 'array', items: uri }, 'Images or videos attached to the post.'),
};
const scheduledNeedsTime: JsonSchema = {
	if: { required: ['state'], properties: { state: { const: 'SCHEDULED' } } },
	then: { description: 'is required when state is "SCHEDULED"', required: ['publishAt'] },
};
const commonGeneration: Record<string, JsonSchema> = {
	voice: described(text, 'Tone of voice.'),
	locale: described(text, 'Language to write in, as a BCP 47 tag.'),
	pageId: described(text, 'Page the content is for.'),
};
const promptFields: Record<string, JsonSchema> = {
	instructions: described(nonEmptyText, 'The prompt: what to write about.'),
	sourceText: described(nonEmptyText, 'Text to adapt.'),
	sourcePostId: described(text, 'An existing post to adapt.'),
	...commonGeneration,
};
const fromPrompt = (extra: Record<string, JsonSchema> = {}) =>
	closed(
		{ ...promptFields, ...extra },
		[],
		oneOfRequired(['instructions', 'sourceText', 'sourcePostId']),
	);
const publishFields: Record<string, JsonSchema> = {
	postId: described(text, 'An existing post to publish.'),
	text: described(nonEmptyText, 'Text to publish as a new post.'),
	pageId: commonGeneration.pageId,
	publishAt: described(dateTime, 'When the post goes out.'),
};
const webhookFields: Record<string, JsonSchema> = {
	callbackUrl: described(uri, 'Where deliveries are sent (loopback hosts only, in this fake).'),
	topics: described(
		{ type: 'array', minItems: 1, uniqueItems: true, items: oneOfValues(EVENT_NAMES) },
		'Events to deliver.',
	),
	label: described(text, 'Description shown in lists.'),
	enabled: described({ type: 'boolean' }, 'Whether deliveries are sent.'),
};
const webhookAnswerFields: Record<string, JsonSchema> = {
	id: text,
	callbackUrl: webhookFields.callbackUrl,
	topics: webhookFields.topics,
	label: nullable('string'),
	enabled: { type: 'boolean' },
	createdAt: dateTime,
	updatedAt: dateTime,
};
const OUTPUTS = [
	'BlogOutput',
	'TextOutput',
	'ThreadOutput',
	'CarouselOutput',
	'VideoOutput',
	'PublishOutput',
];

const schemas: Record<string, JsonSchema> = {
	Problem: closed(
		{
			type: described(uri, `Kind of problem: ${PROBLEM_TYPE_BASE}<slug>.`),
			title: described(text, 'The HTTP status, in words.'),
			status: described({ type: 'integer' }, 'The HTTP status code.'),
			detail: described(text, 'What went wrong with this request.'),
			errors: described(
				{ type: 'array', items: closed({ pointer: text, detail: text }, ['pointer', 'detail']) },
				'Each field in error: `pointer` is a JSON Pointer into the body (`/query/<name>` for a query parameter).',
			),
		},
		['type', 'title', 'status', 'detail'],
	),
	Account: everyProperty({
		id: text,
		displayName: text,
		email: { type: 'string', format: 'email' },
		plan: text,
		createdAt: dateTime,
	}),
	Page: everyProperty({
		id: text,
		title: text,
		network: oneOfValues(PAGE_PLATFORMS),
		link: uri,
		createdAt: dateTime,
	}),
	Post: everyProperty({
		...postWriteFields,
		id: text,
		pageId: { ...postWriteFields.pageId, type: ['string', 'null'] },
		headline: { ...postWriteFields.headline, type: ['string', 'null'] },
		text: described(text, 'Text of the post.'),
		publishAt: { ...postWriteFields.publishAt, type: ['string', 'null'] },
		publishedAt: nullable('string', {
			format: 'date-time',
			description: 'When the post went live.',
		}),
		createdAt: dateTime,
		updatedAt: dateTime,
	}),
	NewPost: closed(
		{ ...postWriteFields, state: { ...postWriteFields.state, default: 'DRAFT' } },
		['text'],
		scheduledNeedsTime,
	),
	PostReplacement: closed(postWriteFields, ['text', 'state'], {
		...scheduledNeedsTime,
		description: 'Replaces the post: fields left out are emptied.',
	}),
	BlogOutput: everyProperty({
		headline: text,
		body: { type: 'string', contentMediaType: 'text/markdown' },
		summary: text,
	}),
	TextOutput: everyProperty({ text }),
	ThreadOutput: everyProperty({
		tweets: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 280 } },
	}),
	CarouselOutput: everyProperty({
		slides: {
			type: 'array',
			items: everyProperty({
				heading: text,
				body: text,
				imageUrl: described(uri, 'The slide as a PNG image.'),
			}),
		},
	}),
	VideoOutput: everyProperty({
		videoUrl: described(uri, 'The video as an MP4 file (H.264), as long as `durationSeconds`.'),
		durationSeconds: { type: 'integer' },
		aspectRatio: oneOfValues(VIDEO_ASPECT_RATIOS),
	}),
	PublishOutput: closed(
		{
			network: oneOfValues(['linkedin', 'twitter']),
			postId: text,
			link: uri,
			publishedAt: dateTime,
			partLinks: described(
				{ type: 'array', items: uri },
				'Only for a thread: the link of each part, in order.',
			),
		},
		['network', 'postId', 'link', 'publishedAt'],
	),
	Job: everyProperty({
		jobId: text,
		kind: oneOfValues(JOB_KINDS),
		phase: described(
			oneOfValues(Object.values(ALTERNATE_PHASES)),
			'`WAITING`: accepted, not started yet. `RENDERING`: in progress. `READY`: finished successfully; `output` holds the result. `BROKEN`: failed; `failure` says why.',
		),
		percent: between(0, 100),
		output: {
			description: 'Result of a READY job.',
			oneOf: [...OUTPUTS.map(ref), { type: 'null' }],
		},
		failure: {
			description: 'Why a BROKEN job failed.',
			oneOf: [everyProperty({ code: text, reason: text }), { type: 'null' }],
		},
		createdAt: dateTime,
		updatedAt: dateTime,
		finishedAt: nullable('string', { format: 'date-time' }),
	}),
	BlogRequest: closed(
		{
			transcriptText: described(
				{ type: 'string', minLength: 1 },
				'Transcript to turn into a blog post.',
			),
			headline: described(text, 'Title to use instead of a generated one.'),
			length: described(
				oneOfValues(BLOG_LENGTHS.map((length) => length.toUpperCase())),
				'Length of the blog post.',
			),
			...commonGeneration,
		},
		['transcriptText'],
	),
	LinkedinRequest: fromPrompt(),
	TwitterRequest: fromPrompt({
		tweetCount: described(
			GENERATION_OPTIONS.threadLength,
			'Number of tweets in the thread (thread length).',
		),
	}),
	CarouselRequest: fromPrompt({
		slideCount: described(GENERATION_OPTIONS.slideCount, 'Number of slides.'),
	}),
	VideoRequest: fromPrompt({
		durationSeconds: described(
			GENERATION_OPTIONS.durationSeconds,
			'Length of the video, in seconds.',
		),
		aspectRatio: described(GENERATION_OPTIONS.aspectRatio, 'Shape of the video.'),
	}),
	PublishRequest: closed(publishFields, [], oneOfRequired(['postId', 'text'])),
	TwitterPublishRequest: closed(
		{
			...publishFields,
			parts: described(
				{
					type: 'array',
					minItems: 1,
					maxItems: 25,
					items: { type: 'string', minLength: 1, maxLength: 280 },
				},
				'Tweets to post as a thread, in order, instead of text or postId.',
			),
		},
		[],
		oneOfRequired(['postId', 'text', 'parts']),
	),
	Webhook: everyProperty(webhookAnswerFields),
	NewWebhook: everyProperty({
		...webhookAnswerFields,
		signingSecret: {
			type: 'string',
			readOnly: true,
			description: 'Signing secret for deliveries; only returned on creation.',
		},
	}),
	WebhookInput: closed(webhookFields, ['callbackUrl', 'topics']),
	Deleted: everyProperty({ id: text, deleted: { const: true } }),
	PageList: everyProperty({
		results: described({ type: 'array', items: ref('Page') }, 'The pages on this page of results.'),
		page: described({ type: 'integer' }, 'This page number, from 1.'),
		per_page: described({ type: 'integer' }, 'Page size used.'),
		total: described({ type: 'integer' }, 'Number of pages in the whole list.'),
	}),
	PostList: everyProperty({
		results: described({ type: 'array', items: ref('Post') }, 'The posts from `offset` on.'),
		offset: described({ type: 'integer' }, 'How many posts were skipped.'),
		limit: described({ type: 'integer' }, 'Page size used.'),
		total: described({ type: 'integer' }, 'Number of posts in the whole (filtered) list.'),
	}),
	WebhookList: everyProperty({
		results: described({ type: 'array', items: ref('Webhook') }, 'The webhooks on this page.'),
		links: described(
			everyProperty({
				next: nullable('string', {
					format: 'uri',
					description: 'Absolute URL of the next page, query included; null on the last one.',
				}),
			}),
			'Links to other pages.',
		),
	}),
	JobEvent: everyProperty({
		eventId: text,
		eventType: oneOfValues(['JOB_READY', 'JOB_BROKEN']),
		occurredAt: dateTime,
		payload: ref('Job'),
	}),
	PostEvent: everyProperty({
		eventId: text,
		eventType: { type: 'string', const: 'POST_LIVE' },
		occurredAt: dateTime,
		payload: ref('Post'),
	}),
};

const size = (name: string) =>
	query(name, 'Page size.', { ...between(1, MAX_PAGE_SIZE), default: DEFAULT_PAGE_SIZE });

const problem = (description: string, headers?: Record<string, JsonSchema>) => ({
	description,
	...(headers ? { headers } : {}),
	content: { 'application/problem+json': { schema: ref('Problem') } },
});
const problems: Record<string, JsonSchema> = {
	'400': problem('The body is not JSON.'),
	'401': problem('Missing or wrong API key.'),
	'404': problem('No such resource.'),
	'405': problem('Method not allowed on this path.', {
		Allow: { description: 'The methods this path takes.', schema: text },
	}),
	'422': problem('The request breaks this document.'),
	'429': problem('Too many requests; see Retry-After.', {
		'Retry-After': {
			description: 'Seconds to wait before trying again.',
			schema: { type: 'integer' },
		},
	}),
	'5XX': problem('Unexpected failure, or the service is unavailable.'),
};

function operation(
	operationId: string,
	success: [string, string, JsonSchema?],
	options: { parameters?: JsonSchema[]; body?: string; anonymous?: boolean } = {},
) {
	return operationObject({
		operationId,
		summary: operationId,
		success,
		errors: Object.fromEntries(
			Object.entries(problems).filter(([code]) => !(options.anonymous && code === '401')),
		),
		...options,
	});
}

const data = (name: string): JsonSchema => everyProperty({ data: ref(name) });
const job = (operationId: string, body: string) => ({
	post: operation(operationId, ['202', 'The started job.', data('Job')], { body }),
});
/** A resource's own path: get, replace (PUT) and remove. */
function resource(
	name: string,
	operations: string,
	schema: string,
	replacement: string,
): OpenApiPathItem {
	const parameters = [pathParameter(`${name}Id`)];
	return {
		get: operation(`${operations}.get`, ['200', `The ${name}.`, data(schema)], { parameters }),
		put: operation(`${operations}.replace`, ['200', `The replaced ${name}.`, data(schema)], {
			parameters,
			body: replacement,
		}),
		delete: operation(`${operations}.remove`, ['200', 'Deleted.', data('Deleted')], { parameters }),
	};
}

const paths: Record<string, OpenApiPathItem> = {
	'/v1/openapi.json': {
		get: operation('meta.openapi', ['200', 'This document.', { type: 'object' }], {
			anonymous: true,
		}),
	},
	'/v1/me': { get: operation('account.get', ['200', 'The account.', data('Account')]) },
	'/v1/pages': {
		get: operation('pages.list', ['200', 'One page of pages.', ref('PageList')], {
			parameters: [
				query('page', 'Page number, from 1.', { type: 'integer', minimum: 1, default: 1 }),
				size('per_page'),
			],
		}),
	},
	'/v1/pages/{pageId}': {
		get: operation('pages.get', ['200', 'The page.', data('Page')], {
			parameters: [pathParameter('pageId')],
		}),
	},
	'/v1/posts': {
		post: operation('posts.create', ['201', 'The post.', data('Post')], { body: 'NewPost' }),
		get: operation('posts.list', ['200', 'Posts from an offset.', ref('PostList')], {
			parameters: [
				query('offset', 'How many posts to skip.', { type: 'integer', minimum: 0, default: 0 }),
				size('limit'),
				query('state', 'Only posts in this state.', oneOfValues(POST_STATES)),
				query('pageId', 'Only posts of this page.', text),
			],
		}),
	},
	'/v1/posts/{postId}': resource('post', 'posts', 'Post', 'PostReplacement'),
	'/v1/generate/blog': job('content.blog', 'BlogRequest'),
	'/v1/generate/linkedin': job('content.linkedin', 'LinkedinRequest'),
	'/v1/generate/twitter': job('content.twitter', 'TwitterRequest'),
	'/v1/generate/carousel': job('content.carousel', 'CarouselRequest'),
	'/v1/generate/video': job('content.video', 'VideoRequest'),
	'/v1/publish/linkedin': job('publishing.linkedin', 'PublishRequest'),
	'/v1/publish/twitter': job('publishing.twitter', 'TwitterPublishRequest'),
	'/v1/jobs/{jobId}': {
		get: operation('jobs.get', ['200', 'The job.', data('Job')], {
			parameters: [pathParameter('jobId')],
		}),
	},
	'/v1/webhooks': {
		post: operation(
			'hooks.create',
			['201', 'The webhook, with its signing secret.', data('NewWebhook')],
			{ body: 'WebhookInput' },
		),
		get: operation('hooks.list', ['200', 'One page of webhooks.', ref('WebhookList')], {
			parameters: [
				size('limit'),
				query('after', 'Opaque position; follow links.next instead of building it.', text),
			],
		}),
	},
	'/v1/webhooks/{webhookId}': resource('webhook', 'hooks', 'Webhook', 'WebhookInput'),
};

function delivery(summary: string, payload: string): OpenApiPathItem {
	return deliveryObject({
		summary,
		anonymous: true,
		parameters: [
			headerParameter(ALTERNATE_DELIVERY_HEADER, 'The event id; the same for every retry.', text),
			headerParameter(
				ALTERNATE_SIGNATURE_HEADER,
				'`t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>", keyed with the signingSecret>`.',
				{ type: 'string', pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$' },
			),
		],
		payload,
	});
}

export function buildAlternateDocument(serverUrl?: string): OpenApiDocument {
	return {
		openapi: '3.1.0',
		info: {
			title: 'Content Publishing API (fake, alternate conventions)',
			version: '2.0.0',
			description:
				'Single objects come as `{"data": …}`, lists as `{"results": …}` with per-list paging, errors as application/problem+json.',
		},
		jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
		servers: [{ url: serverUrl ?? 'http://127.0.0.1' }],
		security: [{ bearer: [] }],
		tags: [],
		paths: structuredClone(paths),
		webhooks: {
			JOB_READY: delivery('A job is READY', 'JobEvent'),
			JOB_BROKEN: delivery('A job is BROKEN', 'JobEvent'),
			POST_LIVE: delivery('A post went live', 'PostEvent'),
		},
		components: structuredClone({
			securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
			parameters: {},
			responses: {},
			schemas,
		}),
	} as unknown as OpenApiDocument;
}
