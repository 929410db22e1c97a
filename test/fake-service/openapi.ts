import type { ContractDocument } from './request-validator';

export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethodName = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface OpenApiOperation {
	operationId?: string;
	summary: string;
	description?: string;
	tags?: string[];
	security?: Array<Record<string, string[]>>;
	parameters?: JsonSchema[];
	requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
	responses: Record<string, JsonSchema>;
	/** 3.0's description of deliveries: event name → URL expression → the delivery. */
	callbacks?: Record<string, Record<string, OpenApiPathItem>>;
}

export type OpenApiPathItem = Partial<Record<HttpMethodName, OpenApiOperation>>;

export interface OpenApiDocument {
	openapi: '3.1.0';
	info: { title: string; version: string; description: string };
	jsonSchemaDialect: string;
	servers: Array<{ url: string; description?: string }>;
	security: Array<Record<string, string[]>>;
	tags: Array<{ name: string; description: string }>;
	paths: Record<string, OpenApiPathItem>;
	webhooks: Record<string, OpenApiPathItem>;
	components: {
		securitySchemes: Record<string, JsonSchema>;
		parameters: Record<string, JsonSchema>;
		responses: Record<string, JsonSchema>;
		schemas: Record<string, JsonSchema>;
	};
	'x-webhook-signature': JsonSchema;
}

export const ERROR_CODES = [
	'bad_request',
	'unauthorized',
	'not_found',
	'validation_error',
	'rate_limited',
	'internal_error',
] as const;
export const PAGE_PLATFORMS = ['blog', 'linkedin', 'twitter'] as const;
export const POST_STATUSES = ['draft', 'scheduled', 'published'] as const;
export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export const JOB_TYPES = [
	'generate.blog',
	'generate.linkedin',
	'generate.twitter',
	'generate.carousel',
	'generate.video',
	'publish.linkedin',
	'publish.twitter',
] as const;
export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'post.published'] as const;
const WEBHOOK_SUBSCRIPTIONS = [...WEBHOOK_EVENT_TYPES, '*'] as const;
export const VIDEO_ASPECT_RATIOS = ['16:9', '9:16', '1:1'] as const;
export const BLOG_LENGTHS = ['short', 'medium', 'long'] as const;

export const WEBHOOK_HEADERS = {
	event: 'X-Content-Publishing-Event',
	delivery: 'X-Content-Publishing-Delivery',
	timestamp: 'X-Content-Publishing-Timestamp',
	signature: 'X-Content-Publishing-Signature',
} as const;
export const WEBHOOK_MAX_ATTEMPTS = 3;
export const WEBHOOK_RETRY_DELAY_MS = 100;
export const WEBHOOK_TIMEOUT_MS = 2000;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

// Schema helpers, shared by the profiles' documents.
const componentRef =
	(kind: string) =>
	(name: string): JsonSchema => ({ $ref: `#/components/${kind}/${name}` });
export const schemaRef = componentRef('schemas');
export const parameterRef = componentRef('parameters');
export const responseRef = componentRef('responses');
export const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });

export const text: JsonSchema = { type: 'string' };
export const nonEmptyText: JsonSchema = { type: 'string', minLength: 1 };
export const uri: JsonSchema = { type: 'string', format: 'uri' };
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const nullableDateTime: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const nullableText: JsonSchema = { type: ['string', 'null'] };
/** OpenAPI 3.0's way to let a value be null. */
export const orNull = (schema: JsonSchema): JsonSchema => ({ ...schema, nullable: true });
const idOf = (prefix: string): JsonSchema => ({ type: 'string', pattern: `^${prefix}_` });
export const oneOfValues = (values: readonly string[]): JsonSchema => ({
	type: 'string',
	enum: [...values],
});
export const integerBetween = (minimum: number, maximum: number): JsonSchema => ({
	type: 'integer',
	minimum,
	maximum,
});
export const described = (schema: JsonSchema, description: string): JsonSchema => ({
	...schema,
	description,
});

/** The options of the generations, with their bounds and defaults: the same in every profile's document. */
export const GENERATION_OPTIONS = {
	threadLength: { ...integerBetween(1, 25), default: 3 },
	slideCount: { ...integerBetween(2, 20), default: 5 },
	durationSeconds: { ...integerBetween(5, 600), default: 30 },
	aspectRatio: { ...oneOfValues(VIDEO_ASPECT_RATIOS), default: '16:9' },
} satisfies Record<string, JsonSchema>;

export function closedObject(
	properties: Record<string, JsonSchema>,
	required: string[] = [],
	extra: JsonSchema = {},
): JsonSchema {
	return {
		type: 'object',
		additionalProperties: false,
		...(required.length > 0 ? { required } : {}),
		properties,
		...extra,
	};
}

export const everyProperty = (properties: Record<string, JsonSchema>) =>
	closedObject(properties, Object.keys(properties));

export function atLeastOneOf(fields: string[]): JsonSchema {
	return { anyOf: fields.map((field) => ({ required: [field] })) };
}

export const pathParameter = (name: string) => ({ name, in: 'path', required: true, schema: text });
export const queryParameter = (name: string, description: string, schema: JsonSchema) => ({
	name,
	in: 'query',
	description,
	schema,
});

export const headerParameter = (
	name: string,
	description: string,
	schema: JsonSchema,
	required = true,
) => ({ name, in: 'header', required, description, schema });

/** An operation object: what every profile's operations have in common. */
export function operationObject({
	operationId,
	summary,
	description,
	tags,
	anonymous,
	parameters = [],
	body,
	mediaType = 'application/json',
	success: [status, answer, schema, headers],
	errors,
}: {
	operationId: string;
	summary: string;
	description?: string;
	tags?: string[];
	anonymous?: boolean;
	parameters?: JsonSchema[];
	/** The name of the request body's schema. */
	body?: string;
	mediaType?: string;
	success: [status: string, description: string, schema?: JsonSchema, headers?: JsonSchema];
	errors: Record<string, JsonSchema>;
}): OpenApiOperation {
	return {
		operationId,
		summary,
		...(description ? { description } : {}),
		...(tags ? { tags } : {}),
		...(anonymous ? { security: [] } : {}),
		...(parameters.length > 0 ? { parameters } : {}),
		...(body
			? { requestBody: { required: true, content: { [mediaType]: { schema: schemaRef(body) } } } }
			: {}),
		responses: {
			[status]: {
				description: answer,
				...(headers ? { headers } : {}),
				...(schema ? { content: jsonContent(schema) } : {}),
			},
			...errors,
		},
	};
}

/** A delivery of webhook events, as a POST to the subscriber that any 2xx acknowledges. */
export function deliveryObject({
	summary,
	description = `Sent as a POST; any 2xx acknowledges it, anything else is retried (${WEBHOOK_MAX_ATTEMPTS} attempts in all).`,
	tags,
	anonymous,
	parameters,
	payload,
	retried = 'Retried.',
}: {
	summary: string;
	description?: string;
	tags?: string[];
	anonymous?: boolean;
	parameters: JsonSchema[];
	payload: string;
	retried?: string;
}): OpenApiPathItem {
	return {
		post: {
			summary,
			description,
			...(tags ? { tags } : {}),
			...(anonymous ? { security: [] } : {}),
			parameters,
			requestBody: { required: true, content: jsonContent(schemaRef(payload)) },
			responses: { '2XX': { description: 'Acknowledged.' }, default: { description: retried } },
		},
	};
}

function listOf(itemSchemaName: string): JsonSchema {
	return everyProperty({
		data: { type: 'array', items: schemaRef(itemSchemaName) },
		next_cursor: {
			type: ['string', 'null'],
			description: 'Pass as `cursor` to get the next page; null on the last page.',
		},
	});
}

/** The Retry-After of a 429 answer, in whole seconds. */
export const RETRY_AFTER_HEADER = {
	'Retry-After': {
		description: 'Seconds to wait before retrying.',
		schema: { type: 'string', pattern: '^[0-9]+$' },
	},
};

export function errorResponse(
	description: string,
	headers?: Record<string, JsonSchema>,
): JsonSchema {
	return { description, ...(headers ? { headers } : {}), content: jsonContent(schemaRef('Error')) };
}

const postFields: Record<string, JsonSchema> = {
	content: nonEmptyText,
	title: text,
	page_id: described(idOf('page'), 'Must name an existing page (422 otherwise).'),
	status: { ...oneOfValues(POST_STATUSES), default: 'draft' },
	scheduled_at: dateTime,
	tags: { type: 'array', items: text },
	media_urls: { type: 'array', items: uri },
};

const generationSourceFields: Record<string, JsonSchema> = {
	prompt: nonEmptyText,
	source_text: nonEmptyText,
	source_post_id: described(idOf('post'), 'Must name an existing post (422 otherwise).'),
	tone: text,
	language: text,
	page_id: postFields.page_id,
};
const fromSources = (options: Record<string, JsonSchema> = {}) =>
	closedObject(
		{ ...generationSourceFields, ...options },
		[],
		atLeastOneOf(['prompt', 'source_text', 'source_post_id']),
	);

const publishFields: Record<string, JsonSchema> = {
	post_id: generationSourceFields.source_post_id,
	content: described(nonEmptyText, 'Publishes a new post with this content.'),
	page_id: postFields.page_id,
	scheduled_at: described(
		dateTime,
		'Recorded on the post; the post is published when the job succeeds.',
	),
};

const webhookFields: Record<string, JsonSchema> = {
	url: described(
		uri,
		'Events are only ever sent to loopback hosts (127.0.0.0/8, localhost, [::1]) by this service.',
	),
	events: {
		type: 'array',
		minItems: 1,
		uniqueItems: true,
		items: oneOfValues(WEBHOOK_SUBSCRIPTIONS),
	},
	description: text,
	active: { type: 'boolean', default: true },
	secret: { type: 'string', minLength: 16 },
};

const webhookResponseFields: Record<string, JsonSchema> = {
	id: idOf('wh'),
	url: uri,
	events: webhookFields.events,
	description: nullableText,
	active: { type: 'boolean' },
	created_at: dateTime,
	updated_at: dateTime,
};

function eventSchema(type: string, dataProperty: string, dataSchemaName: string): JsonSchema {
	return everyProperty({
		id: idOf('evt'),
		type: { type: 'string', const: type },
		created_at: dateTime,
		data: everyProperty({ [dataProperty]: schemaRef(dataSchemaName) }),
	});
}

/** The fields of a carousel's and a video's result, in the primary's and the nested profile's names. */
export const RESULT_FIELDS = {
	carousel: {
		slides: {
			type: 'array',
			minItems: 2,
			maxItems: 20,
			items: everyProperty({
				title: text,
				body: text,
				image_url: described(uri, 'The slide as a PNG image.'),
			}),
		},
	},
	video: {
		video_url: described(uri, 'The video as an MP4 file (H.264), as long as `duration_seconds`.'),
		duration_seconds: integerBetween(5, 600),
		aspect_ratio: oneOfValues(VIDEO_ASPECT_RATIOS),
	},
} satisfies Record<string, Record<string, JsonSchema>>;

const JOB_RESULT_SCHEMAS = ['Blog', 'Linkedin', 'Twitter', 'Carousel', 'Video', 'Publish'].map(
	(kind) => `${kind}Result`,
);

const schemas: Record<string, JsonSchema> = {
	Error: everyProperty({
		error: closedObject(
			{
				code: oneOfValues(ERROR_CODES),
				message: text,
				details: { type: 'array', items: schemaRef('ValidationDetail') },
			},
			['code', 'message'],
		),
	}),
	ValidationDetail: everyProperty({
		field: described(
			text,
			'Body fields by name or path (`title`, `media_urls[0]`), `body` for the whole body, `query.<name>` for query parameters, `header.content-type` for the content type.',
		),
		message: text,
	}),
	Account: everyProperty({
		id: idOf('acc'),
		email: { type: 'string', format: 'email' },
		name: text,
		plan: oneOfValues(['free', 'pro', 'business']),
		created_at: dateTime,
	}),
	Page: everyProperty({
		id: idOf('page'),
		name: text,
		platform: oneOfValues(PAGE_PLATFORMS),
		url: uri,
		created_at: dateTime,
	}),
	PageList: listOf('Page'),
	Post: everyProperty({
		id: idOf('post'),
		page_id: { type: ['string', 'null'] },
		title: nullableText,
		content: text,
		status: oneOfValues(POST_STATUSES),
		tags: { type: 'array', items: text },
		media_urls: { type: 'array', items: uri },
		scheduled_at: nullableDateTime,
		published_at: nullableDateTime,
		created_at: dateTime,
		updated_at: dateTime,
	}),
	PostList: listOf('Post'),
	CreatePostRequest: closedObject(postFields, ['content'], {
		if: { required: ['status'], properties: { status: { const: 'scheduled' } } },
		then: { description: 'is required when status is "scheduled"', required: ['scheduled_at'] },
	}),
	UpdatePostRequest: closedObject(postFields, [], {
		minProperties: 1,
		description:
			'Only the given fields change. A post whose resulting status is "scheduled" must have scheduled_at (422 otherwise).',
	}),
	JobError: everyProperty({ code: text, message: text }),
	BlogResult: everyProperty({
		title: text,
		content: { type: 'string', contentMediaType: 'text/markdown' },
		summary: text,
	}),
	LinkedinResult: everyProperty({ content: text }),
	TwitterResult: everyProperty({
		tweets: { type: 'array', minItems: 1, maxItems: 25, items: { type: 'string', maxLength: 280 } },
	}),
	CarouselResult: everyProperty(RESULT_FIELDS.carousel),
	VideoResult: everyProperty(RESULT_FIELDS.video),
	PublishResult: closedObject(
		{
			platform: oneOfValues(['linkedin', 'twitter']),
			post_id: idOf('post'),
			url: uri,
			published_at: dateTime,
			thread_urls: described(
				{ type: 'array', items: uri },
				'Only for a thread: the address of each of its tweets, in order (`url` is the first).',
			),
		},
		['platform', 'post_id', 'url', 'published_at'],
	),
	Job: everyProperty({
		id: idOf('job'),
		type: oneOfValues(JOB_TYPES),
		status: oneOfValues(JOB_STATUSES),
		progress: integerBetween(0, 100),
		result: {
			description: 'Set when status is "succeeded"; its shape depends on the job type.',
			oneOf: [...JOB_RESULT_SCHEMAS.map(schemaRef), { type: 'null' }],
		},
		error: {
			description: 'Set when status is "failed".',
			oneOf: [schemaRef('JobError'), { type: 'null' }],
		},
		created_at: dateTime,
		updated_at: dateTime,
		finished_at: nullableDateTime,
	}),
	GenerateBlogRequest: closedObject(
		{
			transcript: nonEmptyText,
			title: text,
			tone: text,
			language: text,
			length: oneOfValues(BLOG_LENGTHS),
			page_id: generationSourceFields.page_id,
		},
		['transcript'],
	),
	GenerateLinkedinRequest: fromSources(),
	GenerateTwitterRequest: fromSources({ thread_length: GENERATION_OPTIONS.threadLength }),
	GenerateCarouselRequest: fromSources({ slide_count: GENERATION_OPTIONS.slideCount }),
	GenerateVideoRequest: fromSources({
		duration_seconds: GENERATION_OPTIONS.durationSeconds,
		aspect_ratio: GENERATION_OPTIONS.aspectRatio,
	}),
	PublishRequest: closedObject(publishFields, [], atLeastOneOf(['post_id', 'content'])),
	PublishTwitterRequest: closedObject(
		{
			...publishFields,
			thread: described(
				{ type: 'array', minItems: 1, maxItems: 25, items: { ...nonEmptyText, maxLength: 280 } },
				'Publishes a thread: one tweet per text, in order, each a reply to the one before. Takes the place of `content` and `post_id` (422 with either); the new post holds the texts, a blank line between them.',
			),
		},
		[],
		atLeastOneOf(['post_id', 'content', 'thread']),
	),
	Webhook: everyProperty(webhookResponseFields),
	WebhookWithSecret: everyProperty({
		...webhookResponseFields,
		secret: { type: 'string', minLength: 16, description: 'Only ever returned here.' },
	}),
	WebhookList: listOf('Webhook'),
	CreateWebhookRequest: closedObject(webhookFields, ['url', 'events']),
	UpdateWebhookRequest: closedObject(webhookFields, [], { minProperties: 1 }),
	JobCompletedEvent: eventSchema('job.completed', 'job', 'Job'),
	JobFailedEvent: eventSchema('job.failed', 'job', 'Job'),
	PostPublishedEvent: eventSchema('post.published', 'post', 'Post'),
};

function pathId(resource: string, prefix: string): JsonSchema {
	return {
		name: 'id',
		in: 'path',
		required: true,
		description: `The ${resource} id (\`${prefix}_…\`). Any other value is simply not found (404).`,
		schema: text,
	};
}

const parameters: Record<string, JsonSchema> = {
	PageId: pathId('page', 'page'),
	PostId: pathId('post', 'post'),
	JobId: pathId('job', 'job'),
	WebhookId: pathId('webhook', 'wh'),
	Limit: queryParameter(
		'limit',
		`Page size, default ${DEFAULT_PAGE_SIZE}. The service may return fewer items than asked for.`,
		{ ...integerBetween(1, MAX_PAGE_SIZE), default: DEFAULT_PAGE_SIZE },
	),
	Cursor: queryParameter(
		'cursor',
		'Opaque `next_cursor` of the previous page (422 for anything else).',
		text,
	),
	IdempotencyKey: headerParameter(
		'Idempotency-Key',
		'Any string up to 255 characters. A create repeated on the same path with the same key is not carried out again: it gets the answer of the first one.',
		{ type: 'string', minLength: 1, maxLength: 255 },
		false,
	),
	PageSearch: queryParameter('q', 'Case-insensitive substring of the page name.', text),
	PostStatusFilter: { name: 'status', in: 'query', schema: oneOfValues(POST_STATUSES) },
	PostPageFilter: { name: 'page_id', in: 'query', schema: text },
	EventTypeHeader: headerParameter(
		WEBHOOK_HEADERS.event,
		'The event type.',
		oneOfValues(WEBHOOK_EVENT_TYPES),
	),
	DeliveryIdHeader: headerParameter(
		WEBHOOK_HEADERS.delivery,
		'The event id (same as `id` in the body).',
		idOf('evt'),
	),
	TimestampHeader: headerParameter(
		WEBHOOK_HEADERS.timestamp,
		'Unix time in seconds when the event was signed.',
		{ type: 'string', pattern: '^[0-9]+$' },
	),
	SignatureHeader: headerParameter(
		WEBHOOK_HEADERS.signature,
		'`sha256=` + lowercase hex HMAC-SHA256, keyed with the webhook secret, of `<timestamp>.<raw body>`.',
		{ type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
	),
};

const responses: Record<string, JsonSchema> = {
	BadRequest: errorResponse('The body is not valid JSON (`bad_request`).'),
	Unauthorized: errorResponse('Missing or wrong API key (`unauthorized`).', {
		'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } },
	}),
	NotFound: errorResponse('No resource with this id (`not_found`).'),
	ValidationError: errorResponse(
		'The request does not match this document, or names a page or post that does not exist (`validation_error`, with `details`).',
	),
	RateLimited: errorResponse('Too many requests (`rate_limited`).', RETRY_AFTER_HEADER),
	InternalError: errorResponse('Unexpected failure (`internal_error`); safe to retry.'),
};

interface OperationOptions {
	description?: string;
	/** The path parameter's component. */
	pathId?: string;
	query?: string[];
	requestBody?: string;
	anonymous?: boolean;
}

function operation(
	operationId: string,
	summary: string,
	tag: string,
	/** The answer's status, description, and schema (a component's name, or the schema itself). */
	[status, answer, schema]: [
		status: '200' | '201' | '202' | '204',
		description: string,
		schema?: string | JsonSchema,
	],
	{ description, pathId, query = [], requestBody, anonymous }: OperationOptions = {},
): OpenApiOperation {
	const errors: Array<[string, string, boolean]> = [
		['400', 'BadRequest', requestBody !== undefined],
		['401', 'Unauthorized', !anonymous],
		['404', 'NotFound', pathId !== undefined],
		['422', 'ValidationError', requestBody !== undefined || query.length > 0],
		['429', 'RateLimited', true],
		['500', 'InternalError', true],
	];
	return operationObject({
		operationId,
		summary,
		description,
		tags: [tag],
		anonymous,
		parameters: [
			...(pathId ? [pathId] : []),
			...query,
			// Creates (a body, answered 201 or 202) honour an Idempotency-Key.
			...(requestBody !== undefined && status !== '200' ? ['IdempotencyKey'] : []),
		].map(parameterRef),
		body: requestBody,
		success: [status, answer, typeof schema === 'string' ? schemaRef(schema) : schema],
		errors: Object.fromEntries(
			errors
				.filter(([, , applies]) => applies)
				.map(([status, name]) => [status, responseRef(name)]),
		),
	});
}

const listQuery = ['Limit', 'Cursor'];
const queuedJob: ['202', string, string] = ['202', 'The queued job.', 'Job'];
export const capitalized = (word: string) => `${word[0].toUpperCase()}${word.slice(1)}`;

function generation(kind: string, summary: string): OpenApiPathItem {
	return {
		post: operation(`generate${capitalized(kind)}`, summary, 'Generation', queuedJob, {
			description: `Starts a \`generate.${kind}\` job; poll it with getJob or subscribe to job events.`,
			requestBody: `Generate${capitalized(kind)}Request`,
		}),
	};
}

function publication(platform: 'linkedin' | 'twitter', name: string): OpenApiPathItem {
	return {
		post: operation(
			`publish${capitalized(platform)}`,
			`Publish a post on ${name}`,
			'Publishing',
			queuedJob,
			{
				description: `Starts a \`publish.${platform}\` job. When it succeeds the post (the given one, or a new one made from \`content\`) has status "published" and a \`post.published\` event is sent.`,
				requestBody: platform === 'twitter' ? 'PublishTwitterRequest' : 'PublishRequest',
			},
		),
	};
}

/** A post's or webhook's own path: get, update and delete; `note` says what its answers leave out. */
function resource(name: 'post' | 'webhook', update: string, note = ''): OpenApiPathItem {
	const Name = capitalized(name);
	const [tag, pathId] = [`${Name}s`, `${Name}Id`];
	return {
		get: operation(`get${Name}`, `Get a ${name}`, tag, ['200', `The ${name}${note}.`, Name], {
			pathId,
		}),
		patch: operation(
			`update${Name}`,
			`Update a ${name}`,
			tag,
			['200', `The updated ${name}${note}.`, Name],
			{ pathId, requestBody: update },
		),
		delete: operation(`delete${Name}`, `Delete a ${name}`, tag, ['204', 'Deleted; no body.'], {
			pathId,
		}),
	};
}

const paths: Record<string, OpenApiPathItem> = {
	'/v1/openapi.json': {
		get: operation(
			'getOpenApiDocument',
			'This document',
			'Meta',
			['200', 'The OpenAPI document.', { type: 'object' }],
			{ anonymous: true },
		),
	},
	'/v1/me': {
		get: operation('getAccount', 'The account that owns the API key', 'Account', [
			'200',
			'The account.',
			'Account',
		]),
	},
	'/v1/pages': {
		get: operation('listPages', 'List pages', 'Pages', ['200', 'A page of pages.', 'PageList'], {
			query: [...listQuery, 'PageSearch'],
		}),
	},
	'/v1/pages/{id}': {
		get: operation('getPage', 'Get a page', 'Pages', ['200', 'The page.', 'Page'], {
			pathId: 'PageId',
		}),
	},
	'/v1/posts': {
		get: operation(
			'listPosts',
			'List posts',
			'Posts',
			['200', 'A page of posts, oldest first.', 'PostList'],
			{ query: [...listQuery, 'PostStatusFilter', 'PostPageFilter'] },
		),
		post: operation('createPost', 'Create a post', 'Posts', ['201', 'The new post.', 'Post'], {
			requestBody: 'CreatePostRequest',
		}),
	},
	'/v1/posts/{id}': resource('post', 'UpdatePostRequest'),
	'/v1/generate/blog': generation('blog', 'Write a blog post from a transcript'),
	'/v1/generate/linkedin': generation('linkedin', 'Write a LinkedIn post'),
	'/v1/generate/twitter': generation('twitter', 'Write a Twitter thread'),
	'/v1/generate/carousel': generation('carousel', 'Write carousel slides'),
	'/v1/generate/video': generation('video', 'Render a short video'),
	'/v1/publish/linkedin': publication('linkedin', 'LinkedIn'),
	'/v1/publish/twitter': publication('twitter', 'Twitter'),
	'/v1/jobs/{id}': {
		get: operation('getJob', 'Get a job', 'Jobs', ['200', 'The job.', 'Job'], {
			pathId: 'JobId',
		}),
	},
	'/v1/webhooks': {
		get: operation(
			'listWebhooks',
			'List webhooks',
			'Webhooks',
			['200', 'A page of webhooks (without secrets).', 'WebhookList'],
			{ query: listQuery },
		),
		post: operation(
			'createWebhook',
			'Subscribe a URL to events',
			'Webhooks',
			[
				'201',
				'The new webhook, including its signing secret (generated when none was given).',
				'WebhookWithSecret',
			],
			{ requestBody: 'CreateWebhookRequest' },
		),
	},
	'/v1/webhooks/{id}': resource('webhook', 'UpdateWebhookRequest', ' (without secret)'),
};

const signatureScheme = [
	`Every delivery is a POST with \`Content-Type: application/json\` and the headers \`${WEBHOOK_HEADERS.event}\` (event type), \`${WEBHOOK_HEADERS.delivery}\` (event id), \`${WEBHOOK_HEADERS.timestamp}\` (unix seconds) and \`${WEBHOOK_HEADERS.signature}\`.`,
	`The signature is \`sha256=\` followed by the lowercase hex HMAC-SHA256 of \`<timestamp>.<raw body>\`, keyed with the webhook secret. Compare it in constant time and reject old timestamps.`,
	`Any 2xx answer acknowledges the delivery. Anything else, a network error or no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s is retried with the identical request, ${WEBHOOK_MAX_ATTEMPTS} attempts in total, about ${WEBHOOK_RETRY_DELAY_MS} ms apart.`,
	'This service only sends to loopback hosts (127.0.0.0/8, localhost, [::1]); deliveries to any other host are recorded as not delivered and never sent.',
].join('\n\n');

function webhookEvent(summary: string, payload: string): OpenApiPathItem {
	return deliveryObject({
		summary,
		description: signatureScheme,
		tags: ['Webhooks'],
		anonymous: true,
		parameters: ['EventTypeHeader', 'DeliveryIdHeader', 'TimestampHeader', 'SignatureHeader'].map(
			parameterRef,
		),
		payload,
		retried: 'Not acknowledged; the delivery is retried.',
	});
}

const apiDescription = `Generate blog posts and social content with jobs, manage posts and pages, publish to LinkedIn and Twitter, and receive signed webhook events.

## Authentication
Every \`/v1\` operation except getOpenApiDocument needs \`Authorization: Bearer <API key>\`.

## Errors
Errors are \`{"error": {"code", "message", "details"?}}\` with the codes ${ERROR_CODES.map((code) => `\`${code}\``).join(', ')}. \`details\` lists \`{field, message}\` for \`validation_error\`. Requests are checked strictly against this document: unknown body properties, unknown query parameters, a body on an operation that takes none, and a body that is not \`application/json\` are all \`validation_error\`.

## Pagination
List operations take \`limit\` (1-${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and \`cursor\`, and answer \`{"data": [...], "next_cursor": string | null}\`. Items come oldest first; a cursor stays valid when items are deleted.

## Jobs
Generation and publishing answer 202 with a job. Jobs go \`queued\` → \`running\` → \`succeeded\` | \`failed\`; \`result\` is set on success and \`error\` on failure.

## Webhook signatures
${signatureScheme}`;

/**
 * An OpenAPI 3.0.3 document (the envelope's and nested profile's): paths below `<server>/v1`, every
 * operation Bearer-authenticated unless it says otherwise; paths and components copied, so a caller
 * may change its copy.
 */
export function openApi30Document(
	info: { title: string; version: string; description: string },
	serverUrl: string | undefined,
	paths: Record<string, OpenApiPathItem>,
	components: Record<string, Record<string, JsonSchema>>,
): ContractDocument {
	return {
		openapi: '3.0.3',
		info,
		servers: [{ url: `${serverUrl ?? 'http://127.0.0.1'}/v1` }],
		security: [{ bearer: [] }],
		paths: structuredClone(paths),
		components: structuredClone({
			securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
			...components,
		}),
	} as ContractDocument;
}

export function buildOpenApiDocument(serverUrl?: string): OpenApiDocument {
	return {
		openapi: '3.1.0',
		info: { title: 'Content Publishing API (fake)', version: '1.0.0', description: apiDescription },
		jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
		servers: [
			{
				url: serverUrl ?? 'http://127.0.0.1',
				description: 'Fake service on the loopback interface',
			},
		],
		security: [{ bearerAuth: [] }],
		tags: [
			{ name: 'Meta', description: 'The API description.' },
			{ name: 'Account', description: 'The calling account.' },
			{ name: 'Pages', description: 'Destinations posts are published to.' },
			{ name: 'Posts', description: 'Drafts, scheduled and published posts.' },
			{ name: 'Generation', description: 'Jobs that write content.' },
			{ name: 'Publishing', description: 'Jobs that publish posts.' },
			{ name: 'Jobs', description: 'Progress and results of asynchronous work.' },
			{ name: 'Webhooks', description: 'Event subscriptions and deliveries.' },
		],
		paths: structuredClone(paths),
		webhooks: {
			'job.completed': webhookEvent('A job succeeded', 'JobCompletedEvent'),
			'job.failed': webhookEvent('A job failed', 'JobFailedEvent'),
			'post.published': webhookEvent('A publish job published a post', 'PostPublishedEvent'),
		},
		components: structuredClone({
			securitySchemes: {
				bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key.' },
			},
			parameters,
			responses,
			schemas,
		}),
		'x-webhook-signature': {
			algorithm: 'HMAC-SHA256',
			header: WEBHOOK_HEADERS.signature,
			format: 'sha256=<lowercase hex digest>',
			signedPayload: '<timestamp>.<raw body>',
			timestampHeader: WEBHOOK_HEADERS.timestamp,
			timestampUnit: 'unix seconds',
			key: 'the webhook secret (returned once, by createWebhook)',
			maxAttempts: WEBHOOK_MAX_ATTEMPTS,
			retryDelayMs: WEBHOOK_RETRY_DELAY_MS,
			timeoutMs: WEBHOOK_TIMEOUT_MS,
			loopbackOnly: true,
		},
	};
}
