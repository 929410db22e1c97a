import type { IHttpRequestMethods } from 'n8n-workflow';

/**
 * What the node asks of the service, in its own terms: every endpoint by purpose, and every field
 * an operation sends by the node's name for it. This is also the service's description where the
 * spec leaves it "not shown": defaultDocument.ts writes it out as an OpenAPI document (fields in
 * snake_case, bare objects, `limit`/`cursor` paging), which a service without a document of its
 * own is read by. A service's own document renames and reshapes all of it (resolve.ts).
 */

export type FieldType = 'string' | 'integer' | 'boolean' | 'list' | 'date-time';

export interface FieldSpec {
	type: FieldType;
	/**
	 * The words the field goes by in other services' documents: a property matches when its name,
	 * or the first sentence of its description, holds all words of one entry.
	 */
	words: string[][];
	/** What the field means, for the built-in document. */
	description: string;
	values?: readonly string[];
	/** For a yes/no field: the words its opposite goes by (`disabled` for `active`), which is sent negated. */
	opposite?: string[][];
}

export const FIELDS = {
	content: {
		type: 'string',
		words: [['content'], ['text'], ['body']],
		description: 'Text of the post.',
	},
	title: { type: 'string', words: [['title'], ['headline']], description: 'Title of the post.' },
	transcript: {
		type: 'string',
		words: [['transcript']],
		description: 'Transcript to write the blog post from.',
	},
	prompt: {
		type: 'string',
		words: [['prompt'], ['instruction']],
		description: 'What to write about.',
	},
	sourceText: { type: 'string', words: [['source', 'text']], description: 'Text to adapt.' },
	sourcePostId: { type: 'string', words: [['source', 'post']], description: 'Post to adapt.' },
	pageId: { type: 'string', words: [['page']], description: 'Page the content belongs to.' },
	postId: { type: 'string', words: [['post']], description: 'Post to publish.' },
	status: {
		type: 'string',
		words: [['status'], ['state']],
		description: 'Status of the post.',
		values: ['draft', 'published', 'scheduled'],
	},
	scheduledAt: {
		type: 'date-time',
		words: [['schedule'], ['publish', 'at']],
		description: 'When to publish.',
	},
	tags: { type: 'list', words: [['tag'], ['label']], description: 'Tags of the post.' },
	mediaUrls: {
		type: 'list',
		words: [['media']],
		description: 'Addresses of images or videos to attach.',
	},
	tone: { type: 'string', words: [['tone'], ['voice']], description: 'Voice of the content.' },
	language: {
		type: 'string',
		words: [['language'], ['locale']],
		description: 'Language to write in.',
	},
	length: {
		type: 'string',
		words: [['length']],
		description: 'Length of the blog post.',
		values: ['short', 'medium', 'long'],
	},
	threadLength: {
		type: 'integer',
		words: [['thread'], ['tweet']],
		description: 'Number of tweets in the thread.',
	},
	thread: {
		type: 'list',
		words: [['thread'], ['part'], ['tweets']],
		description: 'Texts to publish as a thread, one tweet each, in order.',
	},
	slideCount: { type: 'integer', words: [['slide']], description: 'Number of slides.' },
	durationSeconds: {
		type: 'integer',
		words: [['duration'], ['length', 'second']],
		description: 'Length of the video in seconds.',
	},
	aspectRatio: { type: 'string', words: [['aspect']], description: 'Aspect ratio of the video.' },
	url: {
		type: 'string',
		words: [['url'], ['uri'], ['endpoint'], ['address']],
		description: 'Address the service delivers events to.',
	},
	events: {
		type: 'list',
		words: [['event'], ['topic'], ['trigger']],
		description: 'Events to deliver.',
	},
	description: {
		type: 'string',
		words: [['description']],
		description: 'What the webhook is for.',
	},
	active: {
		type: 'boolean',
		words: [['active'], ['enable']],
		opposite: [['disable'], ['inactive'], ['pause']],
		description: 'Whether events are delivered.',
	},
	secret: {
		type: 'string',
		words: [['secret']],
		description: 'Secret the service signs deliveries with.',
	},
} as const satisfies Record<string, FieldSpec>;

export type FieldName = keyof typeof FIELDS;

/** What an endpoint answers with: one resource, a list of them, a job, or nothing but success. */
export type AnswerKind = 'object' | 'list' | 'job' | 'deleted';

export interface EndpointSpec {
	method: IHttpRequestMethods;
	/** Path below the base URL; `{id}` stands for the URL-encoded resource id. */
	path: string;
	answer: AnswerKind;
	/** The resource an answer holds, by the name the built-in document gives its schema. */
	resource?: string;
	/** The fields its body may carry; the first `required` ones it must. */
	body?: readonly FieldName[];
	required?: number;
	/** The filters its query may carry. */
	query?: readonly FieldName[];
	/** For an update that turns out to replace the whole object: the endpoint that reads it. */
	reads?: string;
}

const POST_BODY = [
	'content',
	'title',
	'status',
	'scheduledAt',
	'pageId',
	'tags',
	'mediaUrls',
] as const;
const GENERATION_SOURCES = [
	'prompt',
	'sourceText',
	'sourcePostId',
	'tone',
	'language',
	'pageId',
] as const;
const PUBLICATION_BODY = ['postId', 'content', 'pageId', 'scheduledAt'] as const;
const WEBHOOK_BODY = ['url', 'events', 'description', 'active', 'secret'] as const;

export const ENDPOINTS = {
	getAccount: { method: 'GET', path: '/v1/me', answer: 'object', resource: 'Account' },
	listPages: { method: 'GET', path: '/v1/pages', answer: 'list', resource: 'Page' },
	getPage: { method: 'GET', path: '/v1/pages/{id}', answer: 'object', resource: 'Page' },
	createPost: {
		method: 'POST',
		path: '/v1/posts',
		answer: 'object',
		resource: 'Post',
		body: POST_BODY,
		required: 1,
	},
	listPosts: {
		method: 'GET',
		path: '/v1/posts',
		answer: 'list',
		resource: 'Post',
		query: ['pageId', 'status'],
	},
	getPost: { method: 'GET', path: '/v1/posts/{id}', answer: 'object', resource: 'Post' },
	updatePost: {
		method: 'PATCH',
		path: '/v1/posts/{id}',
		answer: 'object',
		resource: 'Post',
		body: POST_BODY,
		reads: 'getPost',
	},
	deletePost: { method: 'DELETE', path: '/v1/posts/{id}', answer: 'deleted' },
	generateBlog: {
		method: 'POST',
		path: '/v1/generate/blog',
		answer: 'job',
		body: ['transcript', 'title', 'length', 'tone', 'language', 'pageId'],
		required: 1,
	},
	generateLinkedin: {
		method: 'POST',
		path: '/v1/generate/linkedin',
		answer: 'job',
		body: GENERATION_SOURCES,
	},
	generateTwitter: {
		method: 'POST',
		path: '/v1/generate/twitter',
		answer: 'job',
		body: [...GENERATION_SOURCES, 'threadLength'],
	},
	generateCarousel: {
		method: 'POST',
		path: '/v1/generate/carousel',
		answer: 'job',
		body: [...GENERATION_SOURCES, 'slideCount'],
	},
	generateVideo: {
		method: 'POST',
		path: '/v1/generate/video',
		answer: 'job',
		body: [...GENERATION_SOURCES, 'durationSeconds', 'aspectRatio'],
	},
	publishLinkedin: {
		method: 'POST',
		path: '/v1/publish/linkedin',
		answer: 'job',
		body: PUBLICATION_BODY,
	},
	publishTwitter: {
		method: 'POST',
		path: '/v1/publish/twitter',
		answer: 'job',
		body: [...PUBLICATION_BODY, 'thread'],
	},
	getJob: { method: 'GET', path: '/v1/jobs/{id}', answer: 'job', resource: 'Job' },
	createWebhook: {
		method: 'POST',
		path: '/v1/webhooks',
		answer: 'object',
		resource: 'Webhook',
		body: WEBHOOK_BODY,
		required: 2,
	},
	listWebhooks: { method: 'GET', path: '/v1/webhooks', answer: 'list', resource: 'Webhook' },
	getWebhook: { method: 'GET', path: '/v1/webhooks/{id}', answer: 'object', resource: 'Webhook' },
	updateWebhook: {
		method: 'PATCH',
		path: '/v1/webhooks/{id}',
		answer: 'object',
		resource: 'Webhook',
		body: WEBHOOK_BODY,
		reads: 'getWebhook',
	},
	deleteWebhook: { method: 'DELETE', path: '/v1/webhooks/{id}', answer: 'deleted' },
} as const satisfies Record<string, EndpointSpec>;

export type EndpointName = keyof typeof ENDPOINTS;

export const ENDPOINT_NAMES = Object.keys(ENDPOINTS) as EndpointName[];

/** Where the spec says the service describes itself (section 9). */
export const DOCUMENT_PATH = '/v1/openapi.json';

/**
 * Whether an id could not name a single resource: empty, or `.`/`..` (also percent-encoded),
 * which a URL resolves to the path above it, so `DELETE /v1/posts/..` would reach `DELETE /v1/`.
 */
export function isUnsafeId(id: string): boolean {
	let decoded = id.trim();
	// Decoding until nothing changes catches %2e and %252e alike; a few rounds are enough.
	for (let round = 0; round < 4; round++) {
		let next: string;
		try {
			next = decodeURIComponent(decoded).trim();
		} catch {
			break;
		}
		if (next === decoded) break;
		decoded = next;
	}
	return decoded === '' || decoded === '.' || decoded === '..';
}
