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
export const WEBHOOK_SUBSCRIPTIONS = [...WEBHOOK_EVENT_TYPES, '*'] as const;
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
export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const parameterRef = (name: string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });
const responseRef = (name: string): JsonSchema => ({ $ref: `#/components/responses/${name}` });
export const jsonContent = (schema: JsonSchema) => ({ 'application/json': { schema } });

export const text: JsonSchema = { type: 'string' };
const nonEmptyText: JsonSchema = { type: 'string', minLength: 1 };
export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
const nullableDateTime: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const nullableText: JsonSchema = { type: ['string', 'null'] };
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

export function atLeastOneOf(fields: string[]): JsonSchema {
	return { anyOf: fields.map((field) => ({ required: [field] })) };
}

function listOf(itemSchemaName: string): JsonSchema {
	return closedObject(
		{
			data: { type: 'array', items: schemaRef(itemSchemaName) },
			next_cursor: {
				type: ['string', 'null'],
				description: 'Pass as `cursor` to get the next page; null on the last page.',
			},
		},
		['data', 'next_cursor'],
	);
}

function errorResponse(description: string, headers?: Record<string, JsonSchema>): JsonSchema {
	return { description, ...(headers ? { headers } : {}), content: jsonContent(schemaRef('Error')) };
}

const postFields: Record<string, JsonSchema> = {
	content: nonEmptyText,
	title: text,
	page_id: { ...idOf('page'), description: 'Must name an existing page (422 otherwise).' },
	status: { ...oneOfValues(POST_STATUSES), default: 'draft' },
	scheduled_at: dateTime,
	tags: { type: 'array', items: text },
	media_urls: { type: 'array', items: { type: 'string', format: 'uri' } },
};

const generationSourceFields: Record<string, JsonSchema> = {
	prompt: nonEmptyText,
	source_text: nonEmptyText,
	source_post_id: { ...idOf('post'), description: 'Must name an existing post (422 otherwise).' },
	tone: text,
	language: text,
	page_id: { ...idOf('page'), description: 'Must name an existing page (422 otherwise).' },
};
const generationSources = atLeastOneOf(['prompt', 'source_text', 'source_post_id']);

const publishFields: Record<string, JsonSchema> = {
	post_id: { ...idOf('post'), description: 'Must name an existing post (422 otherwise).' },
	content: { ...nonEmptyText, description: 'Publishes a new post with this content.' },
	page_id: generationSourceFields.page_id,
	scheduled_at: {
		...dateTime,
		description: 'Recorded on the post; the post is published when the job succeeds.',
	},
};

const webhookFields: Record<string, JsonSchema> = {
	url: {
		type: 'string',
		format: 'uri',
		description:
			'Events are only ever sent to loopback hosts (127.0.0.0/8, localhost, [::1]) by this service.',
	},
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
	url: { type: 'string', format: 'uri' },
	events: webhookFields.events,
	description: nullableText,
	active: { type: 'boolean' },
	created_at: dateTime,
	updated_at: dateTime,
};

function eventSchema(type: string, dataProperty: string, dataSchemaName: string): JsonSchema {
	return closedObject(
		{
			id: idOf('evt'),
			type: { type: 'string', const: type },
			created_at: dateTime,
			data: closedObject({ [dataProperty]: schemaRef(dataSchemaName) }, [dataProperty]),
		},
		['id', 'type', 'created_at', 'data'],
	);
}

const JOB_RESULT_SCHEMAS = [
	'BlogResult',
	'LinkedinResult',
	'TwitterResult',
	'CarouselResult',
	'VideoResult',
	'PublishResult',
];

const schemas: Record<string, JsonSchema> = {
	Error: closedObject(
		{
			error: closedObject(
				{
					code: oneOfValues(ERROR_CODES),
					message: text,
					details: { type: 'array', items: schemaRef('ValidationDetail') },
				},
				['code', 'message'],
			),
		},
		['error'],
	),
	ValidationDetail: closedObject(
		{
			field: {
				type: 'string',
				description:
					'Body fields by name or path (`title`, `media_urls[0]`), `body` for the whole body, `query.<name>` for query parameters, `header.content-type` for the content type.',
			},
			message: text,
		},
		['field', 'message'],
	),
	Account: closedObject(
		{
			id: idOf('acc'),
			email: { type: 'string', format: 'email' },
			name: text,
			plan: oneOfValues(['free', 'pro', 'business']),
			created_at: dateTime,
		},
		['id', 'email', 'name', 'plan', 'created_at'],
	),
	Page: closedObject(
		{
			id: idOf('page'),
			name: text,
			platform: oneOfValues(PAGE_PLATFORMS),
			url: { type: 'string', format: 'uri' },
			created_at: dateTime,
		},
		['id', 'name', 'platform', 'url', 'created_at'],
	),
	PageList: listOf('Page'),
	Post: closedObject(
		{
			id: idOf('post'),
			page_id: { type: ['string', 'null'] },
			title: nullableText,
			content: text,
			status: oneOfValues(POST_STATUSES),
			tags: { type: 'array', items: text },
			media_urls: { type: 'array', items: { type: 'string', format: 'uri' } },
			scheduled_at: nullableDateTime,
			published_at: nullableDateTime,
			created_at: dateTime,
			updated_at: dateTime,
		},
		[
			'id',
			'page_id',
			'title',
			'content',
			'status',
			'tags',
			'media_urls',
			'scheduled_at',
			'published_at',
			'created_at',
			'updated_at',
		],
	),
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
	JobError: closedObject({ code: text, message: text }, ['code', 'message']),
	BlogResult: closedObject(
		{ title: text, content: { type: 'string', contentMediaType: 'text/markdown' }, summary: text },
		['title', 'content', 'summary'],
	),
	LinkedinResult: closedObject({ content: text }, ['content']),
	TwitterResult: closedObject(
		{
			tweets: {
				type: 'array',
				minItems: 1,
				maxItems: 25,
				items: { type: 'string', maxLength: 280 },
			},
		},
		['tweets'],
	),
	CarouselResult: closedObject(
		{
			slides: {
				type: 'array',
				minItems: 2,
				maxItems: 20,
				items: closedObject(
					{
						title: text,
						body: text,
						image_url: { type: 'string', format: 'uri', description: 'The slide as a PNG image.' },
					},
					['title', 'body', 'image_url'],
				),
			},
		},
		['slides'],
	),
	VideoResult: closedObject(
		{
			video_url: {
				type: 'string',
				format: 'uri',
				description: 'The video as an MP4 file (H.264), as long as `duration_seconds`.',
			},
			duration_seconds: integerBetween(5, 600),
			aspect_ratio: oneOfValues(VIDEO_ASPECT_RATIOS),
		},
		['video_url', 'duration_seconds', 'aspect_ratio'],
	),
	PublishResult: closedObject(
		{
			platform: oneOfValues(['linkedin', 'twitter']),
			post_id: idOf('post'),
			url: { type: 'string', format: 'uri' },
			published_at: dateTime,
			thread_urls: {
				type: 'array',
				items: { type: 'string', format: 'uri' },
				description:
					'Only for a thread: the address of each of its tweets, in order (`url` is the first).',
			},
		},
		['platform', 'post_id', 'url', 'published_at'],
	),
	Job: closedObject(
		{
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
		},
		[
			'id',
			'type',
			'status',
			'progress',
			'result',
			'error',
			'created_at',
			'updated_at',
			'finished_at',
		],
	),
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
	GenerateLinkedinRequest: closedObject(generationSourceFields, [], generationSources),
	GenerateTwitterRequest: closedObject(
		{ ...generationSourceFields, thread_length: GENERATION_OPTIONS.threadLength },
		[],
		generationSources,
	),
	GenerateCarouselRequest: closedObject(
		{ ...generationSourceFields, slide_count: GENERATION_OPTIONS.slideCount },
		[],
		generationSources,
	),
	GenerateVideoRequest: closedObject(
		{
			...generationSourceFields,
			duration_seconds: GENERATION_OPTIONS.durationSeconds,
			aspect_ratio: GENERATION_OPTIONS.aspectRatio,
		},
		[],
		generationSources,
	),
	PublishRequest: closedObject(publishFields, [], atLeastOneOf(['post_id', 'content'])),
	PublishTwitterRequest: closedObject(
		{
			...publishFields,
			thread: {
				type: 'array',
				minItems: 1,
				maxItems: 25,
				items: { type: 'string', minLength: 1, maxLength: 280 },
				description:
					'Publishes a thread: one tweet per text, in order, each a reply to the one before. Takes the place of `content` and `post_id` (422 with either); the new post holds the texts, a blank line between them.',
			},
		},
		[],
		atLeastOneOf(['post_id', 'content', 'thread']),
	),
	Webhook: closedObject(webhookResponseFields, Object.keys(webhookResponseFields)),
	WebhookWithSecret: closedObject(
		{
			...webhookResponseFields,
			secret: { type: 'string', minLength: 16, description: 'Only ever returned here.' },
		},
		[...Object.keys(webhookResponseFields), 'secret'],
	),
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

function deliveryHeader(name: string, description: string, schema: JsonSchema): JsonSchema {
	return { name, in: 'header', required: true, description, schema };
}

const parameters: Record<string, JsonSchema> = {
	PageId: pathId('page', 'page'),
	PostId: pathId('post', 'post'),
	JobId: pathId('job', 'job'),
	WebhookId: pathId('webhook', 'wh'),
	Limit: {
		name: 'limit',
		in: 'query',
		description: `Page size, default ${DEFAULT_PAGE_SIZE}. The service may return fewer items than asked for.`,
		schema: { ...integerBetween(1, MAX_PAGE_SIZE), default: DEFAULT_PAGE_SIZE },
	},
	Cursor: {
		name: 'cursor',
		in: 'query',
		description: 'Opaque `next_cursor` of the previous page (422 for anything else).',
		schema: text,
	},
	IdempotencyKey: {
		name: 'Idempotency-Key',
		in: 'header',
		required: false,
		description:
			'Any string up to 255 characters. A create repeated on the same path with the same key is not carried out again: it gets the answer of the first one.',
		schema: { type: 'string', minLength: 1, maxLength: 255 },
	},
	PageSearch: {
		name: 'q',
		in: 'query',
		description: 'Case-insensitive substring of the page name.',
		schema: text,
	},
	PostStatusFilter: { name: 'status', in: 'query', schema: oneOfValues(POST_STATUSES) },
	PostPageFilter: { name: 'page_id', in: 'query', schema: text },
	EventTypeHeader: deliveryHeader(
		WEBHOOK_HEADERS.event,
		'The event type.',
		oneOfValues(WEBHOOK_EVENT_TYPES),
	),
	DeliveryIdHeader: deliveryHeader(
		WEBHOOK_HEADERS.delivery,
		'The event id (same as `id` in the body).',
		idOf('evt'),
	),
	TimestampHeader: deliveryHeader(
		WEBHOOK_HEADERS.timestamp,
		'Unix time in seconds when the event was signed.',
		{
			type: 'string',
			pattern: '^[0-9]+$',
		},
	),
	SignatureHeader: deliveryHeader(
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
	RateLimited: errorResponse('Too many requests (`rate_limited`).', {
		'Retry-After': {
			description: 'Seconds to wait before retrying.',
			schema: { type: 'string', pattern: '^[0-9]+$' },
		},
	}),
	InternalError: errorResponse('Unexpected failure (`internal_error`); safe to retry.'),
};

interface OperationSpec {
	operationId: string;
	summary: string;
	tag: string;
	description?: string;
	pathId?: 'PageId' | 'PostId' | 'JobId' | 'WebhookId';
	query?: string[];
	requestBody?: string;
	success: { status: '200' | '201' | '202' | '204'; description: string; schema?: JsonSchema };
	anonymous?: boolean;
}

function operation(spec: OperationSpec): OpenApiOperation {
	const parameterNames = [
		...(spec.pathId ? [spec.pathId] : []),
		...(spec.query ?? []),
		// Creates (a body, answered 201 or 202) honour an Idempotency-Key.
		...(spec.requestBody !== undefined && spec.success.status !== '200' ? ['IdempotencyKey'] : []),
	];
	const errorResponses: Array<[string, string, boolean]> = [
		['400', 'BadRequest', spec.requestBody !== undefined],
		['401', 'Unauthorized', !spec.anonymous],
		['404', 'NotFound', spec.pathId !== undefined],
		['422', 'ValidationError', spec.requestBody !== undefined || (spec.query?.length ?? 0) > 0],
		['429', 'RateLimited', true],
		['500', 'InternalError', true],
	];
	return {
		operationId: spec.operationId,
		summary: spec.summary,
		...(spec.description ? { description: spec.description } : {}),
		tags: [spec.tag],
		...(spec.anonymous ? { security: [] } : {}),
		...(parameterNames.length > 0 ? { parameters: parameterNames.map(parameterRef) } : {}),
		...(spec.requestBody
			? { requestBody: { required: true, content: jsonContent(schemaRef(spec.requestBody)) } }
			: {}),
		responses: {
			[spec.success.status]: {
				description: spec.success.description,
				...(spec.success.schema ? { content: jsonContent(spec.success.schema) } : {}),
			},
			...Object.fromEntries(
				errorResponses
					.filter(([, , applies]) => applies)
					.map(([status, name]) => [status, responseRef(name)]),
			),
		},
	};
}

const listQuery = ['Limit', 'Cursor'];

function generateOperation(
	kind: string,
	operationId: string,
	requestBody: string,
	summary: string,
): OpenApiOperation {
	return operation({
		operationId,
		summary,
		tag: 'Generation',
		description: `Starts a \`generate.${kind}\` job; poll it with getJob or subscribe to job events.`,
		requestBody,
		success: { status: '202', description: 'The queued job.', schema: schemaRef('Job') },
	});
}

function publishOperation(platform: 'linkedin' | 'twitter', operationId: string): OpenApiOperation {
	return operation({
		operationId,
		summary: `Publish a post on ${platform === 'linkedin' ? 'LinkedIn' : 'Twitter'}`,
		tag: 'Publishing',
		description: `Starts a \`publish.${platform}\` job. When it succeeds the post (the given one, or a new one made from \`content\`) has status "published" and a \`post.published\` event is sent.`,
		requestBody: platform === 'twitter' ? 'PublishTwitterRequest' : 'PublishRequest',
		success: { status: '202', description: 'The queued job.', schema: schemaRef('Job') },
	});
}

const paths: Record<string, OpenApiPathItem> = {
	'/v1/openapi.json': {
		get: operation({
			operationId: 'getOpenApiDocument',
			summary: 'This document',
			tag: 'Meta',
			anonymous: true,
			success: { status: '200', description: 'The OpenAPI document.', schema: { type: 'object' } },
		}),
	},
	'/v1/me': {
		get: operation({
			operationId: 'getAccount',
			summary: 'The account that owns the API key',
			tag: 'Account',
			success: { status: '200', description: 'The account.', schema: schemaRef('Account') },
		}),
	},
	'/v1/pages': {
		get: operation({
			operationId: 'listPages',
			summary: 'List pages',
			tag: 'Pages',
			query: [...listQuery, 'PageSearch'],
			success: { status: '200', description: 'A page of pages.', schema: schemaRef('PageList') },
		}),
	},
	'/v1/pages/{id}': {
		get: operation({
			operationId: 'getPage',
			summary: 'Get a page',
			tag: 'Pages',
			pathId: 'PageId',
			success: { status: '200', description: 'The page.', schema: schemaRef('Page') },
		}),
	},
	'/v1/posts': {
		get: operation({
			operationId: 'listPosts',
			summary: 'List posts',
			tag: 'Posts',
			query: [...listQuery, 'PostStatusFilter', 'PostPageFilter'],
			success: {
				status: '200',
				description: 'A page of posts, oldest first.',
				schema: schemaRef('PostList'),
			},
		}),
		post: operation({
			operationId: 'createPost',
			summary: 'Create a post',
			tag: 'Posts',
			requestBody: 'CreatePostRequest',
			success: { status: '201', description: 'The new post.', schema: schemaRef('Post') },
		}),
	},
	'/v1/posts/{id}': {
		get: operation({
			operationId: 'getPost',
			summary: 'Get a post',
			tag: 'Posts',
			pathId: 'PostId',
			success: { status: '200', description: 'The post.', schema: schemaRef('Post') },
		}),
		patch: operation({
			operationId: 'updatePost',
			summary: 'Update a post',
			tag: 'Posts',
			pathId: 'PostId',
			requestBody: 'UpdatePostRequest',
			success: { status: '200', description: 'The updated post.', schema: schemaRef('Post') },
		}),
		delete: operation({
			operationId: 'deletePost',
			summary: 'Delete a post',
			tag: 'Posts',
			pathId: 'PostId',
			success: { status: '204', description: 'Deleted; no body.' },
		}),
	},
	'/v1/generate/blog': {
		post: generateOperation(
			'blog',
			'generateBlog',
			'GenerateBlogRequest',
			'Write a blog post from a transcript',
		),
	},
	'/v1/generate/linkedin': {
		post: generateOperation(
			'linkedin',
			'generateLinkedin',
			'GenerateLinkedinRequest',
			'Write a LinkedIn post',
		),
	},
	'/v1/generate/twitter': {
		post: generateOperation(
			'twitter',
			'generateTwitter',
			'GenerateTwitterRequest',
			'Write a Twitter thread',
		),
	},
	'/v1/generate/carousel': {
		post: generateOperation(
			'carousel',
			'generateCarousel',
			'GenerateCarouselRequest',
			'Write carousel slides',
		),
	},
	'/v1/generate/video': {
		post: generateOperation(
			'video',
			'generateVideo',
			'GenerateVideoRequest',
			'Render a short video',
		),
	},
	'/v1/publish/linkedin': { post: publishOperation('linkedin', 'publishLinkedin') },
	'/v1/publish/twitter': { post: publishOperation('twitter', 'publishTwitter') },
	'/v1/jobs/{id}': {
		get: operation({
			operationId: 'getJob',
			summary: 'Get a job',
			tag: 'Jobs',
			pathId: 'JobId',
			success: { status: '200', description: 'The job.', schema: schemaRef('Job') },
		}),
	},
	'/v1/webhooks': {
		get: operation({
			operationId: 'listWebhooks',
			summary: 'List webhooks',
			tag: 'Webhooks',
			query: listQuery,
			success: {
				status: '200',
				description: 'A page of webhooks (without secrets).',
				schema: schemaRef('WebhookList'),
			},
		}),
		post: operation({
			operationId: 'createWebhook',
			summary: 'Subscribe a URL to events',
			tag: 'Webhooks',
			requestBody: 'CreateWebhookRequest',
			success: {
				status: '201',
				description:
					'The new webhook, including its signing secret (generated when none was given).',
				schema: schemaRef('WebhookWithSecret'),
			},
		}),
	},
	'/v1/webhooks/{id}': {
		get: operation({
			operationId: 'getWebhook',
			summary: 'Get a webhook',
			tag: 'Webhooks',
			pathId: 'WebhookId',
			success: {
				status: '200',
				description: 'The webhook (without secret).',
				schema: schemaRef('Webhook'),
			},
		}),
		patch: operation({
			operationId: 'updateWebhook',
			summary: 'Update a webhook',
			tag: 'Webhooks',
			pathId: 'WebhookId',
			requestBody: 'UpdateWebhookRequest',
			success: {
				status: '200',
				description: 'The updated webhook (without secret).',
				schema: schemaRef('Webhook'),
			},
		}),
		delete: operation({
			operationId: 'deleteWebhook',
			summary: 'Delete a webhook',
			tag: 'Webhooks',
			pathId: 'WebhookId',
			success: { status: '204', description: 'Deleted; no body.' },
		}),
	},
};

const signatureScheme = [
	`Every delivery is a POST with \`Content-Type: application/json\` and the headers \`${WEBHOOK_HEADERS.event}\` (event type), \`${WEBHOOK_HEADERS.delivery}\` (event id), \`${WEBHOOK_HEADERS.timestamp}\` (unix seconds) and \`${WEBHOOK_HEADERS.signature}\`.`,
	`The signature is \`sha256=\` followed by the lowercase hex HMAC-SHA256 of \`<timestamp>.<raw body>\`, keyed with the webhook secret. Compare it in constant time and reject old timestamps.`,
	`Any 2xx answer acknowledges the delivery. Anything else, a network error or no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s is retried with the identical request, ${WEBHOOK_MAX_ATTEMPTS} attempts in total, about ${WEBHOOK_RETRY_DELAY_MS} ms apart.`,
	'This service only sends to loopback hosts (127.0.0.0/8, localhost, [::1]); deliveries to any other host are recorded as not delivered and never sent.',
].join('\n\n');

function webhookEvent(summary: string, eventSchemaName: string): OpenApiPathItem {
	return {
		post: {
			summary,
			description: signatureScheme,
			tags: ['Webhooks'],
			security: [],
			parameters: ['EventTypeHeader', 'DeliveryIdHeader', 'TimestampHeader', 'SignatureHeader'].map(
				parameterRef,
			),
			requestBody: { required: true, content: jsonContent(schemaRef(eventSchemaName)) },
			responses: {
				'2XX': { description: 'Acknowledged.' },
				default: { description: 'Not acknowledged; the delivery is retried.' },
			},
		},
	};
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
