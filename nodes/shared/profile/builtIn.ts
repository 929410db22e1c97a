import type { AnswerReading, JobState, OperationProfile, Placement, Profile } from './types';

/**
 * The built-in conventions, where the spec says "not shown" and the service serves no document (a
 * document's profile falls back on them point by point).
 */

const from = 'built-in';
/** The node's parameters, each sent under its name in snake_case. */
const placed =
	(root: 'body' | 'query') =>
	(...fields: string[]): Record<string, Placement> =>
		Object.fromEntries(
			fields.map((field) => [
				field,
				{ to: `/${root}/${field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`, from },
			]),
		);
const inBody = placed('body');

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
	},
	from,
};
// A job is started by an answer that is the job, holds it, or names it.
const job: AnswerReading = {
	resource: ['/body', '/body/job'],
	jobs: [{ job: '/body' }, { job: '/body/job' }, { id: '/body/job_id' }, { id: '/body/jobId' }],
	from,
};
const deleted: AnswerReading = { from };

const POST = inBody('content', 'title', 'status', 'scheduledAt', 'pageId', 'tags', 'mediaUrls');
const GENERATION = ['prompt', 'sourceText', 'sourcePostId', 'tone', 'language', 'pageId'];
const PUBLICATION = ['postId', 'content', 'pageId', 'scheduledAt'];
const WEBHOOK = inBody('url', 'events', 'description', 'active', 'secret');

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
const starts = (path: string, ...fields: string[]) =>
	operation('POST', path, job, inBody(...fields));

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
		createPost: operation('POST', '/v1/posts', object, POST),
		listPosts: operation('GET', '/v1/posts', list, placed('query')('pageId', 'status')),
		getPost: operation('GET', '/v1/posts/{id}', object),
		updatePost: operation('PATCH', '/v1/posts/{id}', object, POST),
		deletePost: operation('DELETE', '/v1/posts/{id}', deleted),
		generateBlog: operation(
			'POST',
			'/v1/generate/blog',
			job,
			inBody('transcript', 'title', 'length', 'tone', 'language', 'pageId'),
		),
		generateLinkedin: starts('/v1/generate/linkedin', ...GENERATION),
		generateTwitter: starts('/v1/generate/twitter', ...GENERATION, 'threadLength'),
		generateCarousel: starts('/v1/generate/carousel', ...GENERATION, 'slideCount'),
		generateVideo: starts('/v1/generate/video', ...GENERATION, 'durationSeconds', 'aspectRatio'),
		publishLinkedin: starts('/v1/publish/linkedin', ...PUBLICATION),
		publishTwitter: starts('/v1/publish/twitter', ...PUBLICATION, 'thread'),
		getJob: operation('GET', '/v1/jobs/{id}', {
			resource: ['/body'],
			jobs: [{ job: '/body' }],
			from,
		}),
		createWebhook: operation('POST', '/v1/webhooks', object, WEBHOOK),
		listWebhooks: operation('GET', '/v1/webhooks', list),
		getWebhook: operation('GET', '/v1/webhooks/{id}', object),
		updateWebhook: operation('PATCH', '/v1/webhooks/{id}', object, WEBHOOK),
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
		media: ['video', 'image', 'audio', 'thumbnail', 'media', 'file', 'download'].map(
			(kind) => `${kind}url`,
		),
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
			// Not the delivery header too: the signature does not cover it, so a replay could change it.
			id: ['/body/id'],
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
