import type {
	AnswerReading,
	JobState,
	OperationProfile,
	Paging,
	Placement,
	Profile,
} from './types';

/**
 * The built-in conventions: what the node assumes where the spec says "not shown" and the service
 * serves no OpenAPI document of its own. A served document's profile falls back on this one point
 * by point (an operation the document does not list, a job it does not describe). Fields are
 * snake_case, objects come bare, lists are `{data, next_cursor}` with `limit`/`cursor`, updates are
 * PATCH, jobs have `id`/`status`/`result`/`error`, and deliveries are signed with
 * `X-Content-Publishing-Signature`.
 */

const from = 'built-in';
const body = (name: string): Placement => ({ to: `/body/${name}`, from });
const query = (name: string): Placement => ({ to: `/query/${name}`, from });

const object: AnswerReading = { resource: ['/body'], from };
const list: AnswerReading = {
	items: ['/body/data', '/body/items', '/body/results'],
	itemId: '/id',
	paging: {
		style: 'cursor',
		size: 'limit',
		max: 100,
		cursor: 'cursor',
		next: ['/body/next_cursor'],
		from,
	} satisfies Paging,
	from,
};
// A job is started by an answer that is the job, holds it, or names it.
const job: AnswerReading = {
	resource: ['/body', '/body/job'],
	jobs: [{ job: '/body' }, { job: '/body/job' }, { id: '/body/job_id' }, { id: '/body/jobId' }],
	from,
};
const deleted: AnswerReading = { from };

const POST_FIELDS = {
	content: body('content'),
	title: body('title'),
	status: body('status'),
	scheduledAt: body('scheduled_at'),
	pageId: body('page_id'),
	tags: body('tags'),
	mediaUrls: body('media_urls'),
};
const GENERATION_FIELDS = {
	prompt: body('prompt'),
	sourceText: body('source_text'),
	sourcePostId: body('source_post_id'),
	tone: body('tone'),
	language: body('language'),
	pageId: body('page_id'),
};
const PUBLICATION_FIELDS = {
	postId: body('post_id'),
	content: body('content'),
	pageId: body('page_id'),
	scheduledAt: body('scheduled_at'),
};
const WEBHOOK_FIELDS = {
	url: body('url'),
	events: body('events'),
	description: body('description'),
	active: body('active'),
	secret: body('secret'),
};

const operation = (
	method: OperationProfile['method'],
	path: string,
	answer: AnswerReading,
	fields: OperationProfile['fields'] = {},
): OperationProfile => ({
	method,
	path,
	from,
	...(Object.keys(fields).length > 0 ? { mediaType: 'application/json' } : {}),
	fields,
	answer,
});

// Status words a job may report, by what each means.
const STATES: Record<JobState, string[]> = {
	pending: ['queued', 'pending', 'waiting', 'running', 'processing', 'in_progress', 'started'],
	scheduled: ['scheduled'],
	succeeded: ['succeeded', 'success', 'successful', 'completed', 'complete', 'done', 'finished'],
	failed: ['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'expired', 'rejected'],
};

export const BUILT_IN_PROFILE: Profile = {
	source: 'built-in',
	operations: {
		getAccount: operation('GET', '/v1/me', object),
		listPages: operation('GET', '/v1/pages', list),
		getPage: operation('GET', '/v1/pages/{id}', object),
		createPost: operation('POST', '/v1/posts', object, POST_FIELDS),
		listPosts: operation('GET', '/v1/posts', list, {
			pageId: query('page_id'),
			status: query('status'),
		}),
		getPost: operation('GET', '/v1/posts/{id}', object),
		updatePost: operation('PATCH', '/v1/posts/{id}', object, POST_FIELDS),
		deletePost: operation('DELETE', '/v1/posts/{id}', deleted),
		generateBlog: operation('POST', '/v1/generate/blog', job, {
			transcript: body('transcript'),
			title: body('title'),
			length: body('length'),
			tone: body('tone'),
			language: body('language'),
			pageId: body('page_id'),
		}),
		generateLinkedin: operation('POST', '/v1/generate/linkedin', job, GENERATION_FIELDS),
		generateTwitter: operation('POST', '/v1/generate/twitter', job, {
			...GENERATION_FIELDS,
			threadLength: body('thread_length'),
		}),
		generateCarousel: operation('POST', '/v1/generate/carousel', job, {
			...GENERATION_FIELDS,
			slideCount: body('slide_count'),
		}),
		generateVideo: operation('POST', '/v1/generate/video', job, {
			...GENERATION_FIELDS,
			durationSeconds: body('duration_seconds'),
			aspectRatio: body('aspect_ratio'),
		}),
		publishLinkedin: operation('POST', '/v1/publish/linkedin', job, PUBLICATION_FIELDS),
		publishTwitter: operation('POST', '/v1/publish/twitter', job, {
			...PUBLICATION_FIELDS,
			thread: body('thread'),
		}),
		getJob: operation('GET', '/v1/jobs/{id}', {
			resource: ['/body'],
			jobs: [{ job: '/body' }],
			from,
		}),
		createWebhook: operation('POST', '/v1/webhooks', object, WEBHOOK_FIELDS),
		listWebhooks: operation('GET', '/v1/webhooks', list),
		getWebhook: operation('GET', '/v1/webhooks/{id}', object),
		updateWebhook: operation('PATCH', '/v1/webhooks/{id}', object, WEBHOOK_FIELDS),
		deleteWebhook: operation('DELETE', '/v1/webhooks/{id}', deleted),
	},
	jobs: {
		id: ['/id'],
		completion: {
			by: 'status',
			status: ['/status'],
			states: Object.fromEntries(
				Object.entries(STATES).flatMap(([state, words]) => words.map((word) => [word, state])),
			) as Record<string, JobState>,
		},
		result: ['/result'],
		error: ['/error'],
		errorMessage: ['/error_message'],
		errorCode: [],
		kind: ['/type'],
		media: [
			'videourl',
			'imageurl',
			'audiourl',
			'thumbnailurl',
			'mediaurl',
			'fileurl',
			'downloadurl',
		],
		from,
	},
	errors: {
		message: ['/body/error/message', '/body/message', '/body/detail', '/body/title', '/body/error'],
		code: ['/body/error/code', '/body/code', '/body/type'],
		details: ['/body/error/details', '/body/errors'],
		detailField: ['field'],
		detailMessage: ['message'],
		detailCode: ['code'],
		from,
	},
	webhooks: {
		events: ['job.completed', 'job.failed', 'post.published', '*'],
		wildcard: true,
		meanings: {
			'job.completed': ['job.completed'],
			'job.failed': ['job.failed'],
			'post.published': ['post.published'],
		},
		registration: { url: '/url', events: '/events', active: '/active' },
		secret: { by: 'node' },
		delivery: {
			type: ['/body/type'],
			id: ['/body/id', '/headers/x-content-publishing-delivery'],
			time: ['/body/created_at'],
			data: ['/body/data'],
			jobs: [{ job: '' }, { job: '/job' }, { id: '/job_id' }],
			post: ['/post'],
		},
		signature: {
			header: 'x-content-publishing-signature',
			format: 'prefixed',
			prefix: 'sha256=',
			algorithm: 'sha256',
			encoding: 'hex',
			signed: ['timestamp', 'body'],
			separator: '.',
			timestampHeader: 'x-content-publishing-timestamp',
			idHeader: 'x-content-publishing-delivery',
			secretEncoding: 'text',
		},
		from,
	},
	notFollowed: [],
};
