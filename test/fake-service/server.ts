import { createHmac, randomBytes } from 'node:crypto';
import http, {
	type IncomingHttpHeaders,
	type IncomingMessage,
	type ServerResponse,
} from 'node:http';
import { setMaxListeners } from 'node:events';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

import { listenOn, listenOnNewPort } from '../support/ports';
import {
	buildOpenApiDocument,
	capitalized,
	DEFAULT_PAGE_SIZE,
	WEBHOOK_HEADERS,
	WEBHOOK_MAX_ATTEMPTS,
	WEBHOOK_RETRY_DELAY_MS,
	WEBHOOK_TIMEOUT_MS,
	type ERROR_CODES,
	type HttpMethodName,
	type JOB_STATUSES,
	type JOB_TYPES,
	type PAGE_PLATFORMS,
	type POST_STATUSES,
	VIDEO_ASPECT_RATIOS,
	type WEBHOOK_EVENT_TYPES,
} from './openapi';
import {
	createContractValidator,
	formatProblem,
	type ContractDocument,
	type ContractProblem,
	type ContractValidator,
} from './request-validator';
import { colourOf, demoVideo, freeBox, slidePng } from './media';
import { ALTERNATE } from './alternate';
import { ENVELOPE } from './envelope';
import { NESTED } from './nested';
import { JSONAPI } from './jsonapi';
import { perResourceDocument, perResourceWire } from './per-resource';
import { pageSize, single } from './profile';
import {
	creationOrder,
	readState,
	setAside,
	StateFileError,
	writeState,
	type SavedState,
} from './state-file';

// ---------------------------------------------------------------------------------------------
// Public types

type JobMode = 'poll' | 'manual' | 'timed';
type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
/** `primary`: today's conventions; the others decide every open point their own way (alternate.ts, envelope.ts, nested.ts). */
export type Profile = 'primary' | 'alternate' | 'envelope' | 'nested' | 'jsonapi';
type ErrorCode = (typeof ERROR_CODES)[number];
type Platform = (typeof PAGE_PLATFORMS)[number];
type PostStatus = (typeof POST_STATUSES)[number];
type JobStatus = (typeof JOB_STATUSES)[number];
export type JobType = (typeof JOB_TYPES)[number];
type JobOutcome = 'succeeded' | 'failed';
type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

interface JobError {
	code: string;
	message: string;
}

export interface Account {
	id: string;
	email: string;
	name: string;
	plan: 'pro';
	created_at: string;
}

export interface Page {
	id: string;
	name: string;
	platform: Platform;
	url: string;
	created_at: string;
}

export interface Post {
	id: string;
	page_id: string | null;
	title: string | null;
	content: string;
	status: PostStatus;
	tags: string[];
	media_urls: string[];
	scheduled_at: string | null;
	published_at: string | null;
	created_at: string;
	updated_at: string;
}

type JobResult = Record<string, unknown>;

export interface Job {
	id: string;
	type: JobType;
	status: JobStatus;
	progress: number;
	result: JobResult | null;
	error: JobError | null;
	created_at: string;
	updated_at: string;
	finished_at: string | null;
}

export interface Webhook {
	id: string;
	url: string;
	events: string[];
	description: string | null;
	active: boolean;
	created_at: string;
	updated_at: string;
}

export interface StoredWebhook extends Webhook {
	secret: string;
}

export interface WebhookEvent {
	id: string;
	type: WebhookEventType;
	created_at: string;
	data: { job: Job } | { post: Post };
}

/** The union of every job-creating request body (generate/* and publish/*). */
export interface JobInput {
	transcript?: string;
	title?: string;
	length?: 'short' | 'medium' | 'long';
	prompt?: string;
	source_text?: string;
	source_post_id?: string;
	tone?: string;
	language?: string;
	page_id?: string;
	thread_length?: number;
	slide_count?: number;
	duration_seconds?: number;
	aspect_ratio?: (typeof VIDEO_ASPECT_RATIOS)[number];
	post_id?: string;
	content?: string;
	/** Publish to Twitter only: the tweets of a thread. */
	thread?: string[];
	scheduled_at?: string;
}

export interface JobPlan {
	outcome: JobOutcome;
	pollsUntilRunning?: number;
	pollsUntilDone?: number;
	error?: JobError;
}

export interface FakeServiceOptions {
	apiKey?: string;
	/** 0 (the default) picks a free port. */
	port?: number;
	/** Upper bound for `limit`; default 100. */
	maxPageSize?: number;
	/** Default 'poll'. */
	jobMode?: JobMode;
	/** Default { running: 500, done: 2000 }. */
	timedJobDelaysMs?: { running: number; done: number };
	/**
	 * Size of every video at /media/<job>.mp4: the job's real video, padded with an MP4 `free`
	 * box of zeros (for measuring a large download). Default: the real video alone.
	 */
	videoBytes?: number;
	/** Default 'primary'. */
	profile?: Profile;
	/** Whether GET /v1/openapi.json serves the document; false answers 404. Default true. */
	openApiDocument?: boolean;
	/**
	 * Changes the document GET /v1/openapi.json serves, as another service's may say less (a
	 * pattern left out); requests are still checked against the profile's own.
	 */
	editDocument?: (document: ContractDocument) => void;
	/**
	 * Events per resource, as GitHub's webhooks (per-resource.ts): the primary profile's document
	 * offers `job`, `post` and `*`, and deliveries carry the action in the body; checked against it.
	 */
	eventsPerResource?: boolean;
	/**
	 * A file that keeps the service's data between runs (state-file.ts): loaded at start when it
	 * exists, written a moment after each change and when the service closes. Without it, the data
	 * lives as long as the service.
	 */
	stateFile?: string;
	/**
	 * A token bucket in front of every route, in every profile: `perSecond` requests at once, refilled
	 * at `perSecond` a second; past it, 429 with Retry-After. `headers` adds X-RateLimit-Limit,
	 * -Remaining and -Reset (Unix seconds when the bucket is full again) to every answer of the primary
	 * and alternate profiles (the envelope profile always sends its RateLimit fields).
	 */
	rateLimit?: { perSecond: number; headers?: boolean };
}

export interface RecordedRequest {
	method: string;
	/** Raw path without the query string, exactly as received (still percent-encoded). */
	path: string;
	query: Query;
	headers: Record<string, string | string[] | undefined>;
	rawBody: string;
	/** Parsed JSON, or undefined when the body was empty or not JSON. */
	body: unknown;
	operationId?: string;
	/** Where the request breaks the OpenAPI document, as `field: message`. */
	contractErrors: string[];
	/** Status sent; 0 while the request is still being handled. */
	status: number;
}

interface Fault {
	match?: { method?: string; path?: string | RegExp };
	/** How many matching requests this fault answers; default 1. */
	times?: number;
	/** How many matching requests pass untouched before the fault answers; default 0. */
	after?: number;
	status?: number;
	retryAfterSeconds?: number;
	delayMs?: number;
	/**
	 * A barrier: the answer waits until this many requests have been under way at once (since the
	 * last reset), so a test sees the node's requests in parallel however slowly the machine sends
	 * them. A node that never sends that many at once never gets its answers.
	 */
	heldUntilConcurrent?: number;
	/** Answer 200 text/html with a login page, like a misconfigured proxy would. */
	nonJsonBody?: boolean;
	/** Handle the request first, so its write happens, then answer with `status`: a lost answer. */
	afterHandling?: boolean;
	/** Replaces the body of the service's own answer, e.g. to leave out a field. */
	rewriteAnswer?: (body: unknown) => unknown;
	/** Answer `status` (default 307) with this Location. */
	redirectTo?: string;
	/**
	 * Answer `status` with this body instead of handling the request (or of the usual error body):
	 * text, or JSON for anything else; a function is called for each answer, with the request's
	 * body (a service's refusal may quote what it was sent).
	 */
	body?: string | object | ((requestBody: unknown) => unknown);
}

export interface Delivery {
	webhookId: string;
	url: string;
	eventId: string;
	eventType: string;
	attempts: number;
	lastStatus?: number;
	delivered: boolean;
	body: string;
	headers: Record<string, string>;
}

interface RouteRequest {
	/** Path parameters, already percent-decoded. */
	params: Record<string, string>;
	query: Query;
	body: unknown;
}

export interface RouteResult {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Of the body; default application/json. */
	contentType?: string;
}

export type Query = Record<string, string | string[]>;

/**
 * A profile other than the primary one: its routes and document, and translations at the edges of
 * the one service. A request is translated into the primary's terms before a handler sees it, and
 * every answer, error and delivery out of them.
 */
export interface ProfileAdapter {
	/** Its routes are the primary's with these path parameter names (`{id}` of `/pages/{id}` is the page's) and update method. */
	pathParameter(resource: string): string;
	updateMethod: 'PATCH' | 'PUT' | 'POST';
	document(serverUrl?: string): ContractDocument;
	/** `id` is the path's, where it names one. */
	incoming(
		primaryOperation: string,
		body: unknown,
		query: Query,
		id?: string,
	): { body: unknown; query: Query };
	/** A primary handler's answer in the profile's terms; `request` is the path's id and the request's body in primary terms. */
	outgoing(
		primaryOperation: string,
		answer: RouteResult,
		request: { id?: string; body: unknown },
		service: FakeService,
	): RouteResult;
	/** One page of a list (items in primary terms; `outgoing` translates them). */
	page(list: string, items: Array<{ id: string }>, query: Query, paging: Paging): object;
	error(error: ApiError): { status: number; body: unknown; contentType?: string };
	/** A delivery's event name and body. */
	event(event: WebhookEvent, service: FakeService): { type: string; body: unknown };
	/** Events per resource, as the eventsPerResource option makes them (per-resource.ts). */
	eventsPerResource?: boolean;
	/** A delivery's headers besides its signature (event name, delivery and webhook ids, user agent). */
	deliveryHeaders?(delivery: { type: string; webhookId: string }): Record<string, string>;
	/** A delivery's signature headers; `nth` counts the deliveries since the last reset. */
	sign(
		secret: string,
		rawBody: string,
		delivery: { eventId?: string; timestamp: number; nth: number },
	): Record<string, string>;
	/** Creates carried out once per Repeatability-Request-ID (see `once`); without it, no idempotency at all. */
	repeatability?: boolean;
	/** 403 for the service's unapproved key; without it, that key is just a wrong one (401). */
	approval?: boolean;
	/** Rate-limit fields on every answer; a profile with them limits even without the rateLimit option. */
	rateLimitFields?(bucket: TokenBucket): Record<string, string>;
}

interface ProfileRoute {
	method: string;
	path: string;
	operationId: string;
	primary: string;
}

export interface Paging {
	maxPageSize: number;
	baseUrl: string;
	/** `size` items after a cursor this service made (given as query `parameter`), and the cursor after them (null at the end). */
	afterCursor: CursorPaging;
}

type CursorPaging = <T extends { id: string }>(
	items: T[],
	cursor: string | undefined,
	size: number,
	parameter: string,
) => { items: T[]; next: string | null };

interface Route {
	method: HttpMethod;
	/** OpenAPI path template, e.g. `/v1/posts/{id}`. */
	path: string;
	operationId: string;
	/** True for the only route that needs no API key. */
	anonymous?: boolean;
	handler: (service: FakeService, request: RouteRequest) => RouteResult;
}

// ---------------------------------------------------------------------------------------------
// Request bodies, as guaranteed by the schemas in openapi.ts

interface CreatePostInput {
	content: string;
	title?: string;
	page_id?: string;
	status?: PostStatus;
	scheduled_at?: string;
	tags?: string[];
	media_urls?: string[];
}

interface CreateWebhookInput {
	url: string;
	events: string[];
	description?: string;
	active?: boolean;
	secret?: string;
}

// ---------------------------------------------------------------------------------------------
// Routes

const route = (
	method: HttpMethod,
	path: string,
	operationId: string,
	handler: Route['handler'],
): Route => ({ method, path, operationId, handler });

export const routes: readonly Route[] = [
	{
		...route('GET', '/v1/openapi.json', 'getOpenApiDocument', (service) =>
			ok(service.servedDocument()),
		),
		anonymous: true,
	},
	route('GET', '/v1/me', 'getAccount', (service) => ok(service.account)),
	route('GET', '/v1/pages', 'listPages', (service, { query }) => {
		const search = single(query, 'q')?.toLowerCase();
		const pages = [...service.pages.values()].filter(
			(page) => search === undefined || page.name.toLowerCase().includes(search),
		);
		return ok(service.page('listPages', pages, query));
	}),
	route('GET', '/v1/pages/{id}', 'getPage', (service, { params }) =>
		ok(findOr404(service.pages, 'Page', params.id)),
	),
	route('POST', '/v1/posts', 'createPost', createPost),
	route('GET', '/v1/posts', 'listPosts', (service, { query }) => {
		const [status, pageId] = [single(query, 'status'), single(query, 'page_id')];
		const posts = [...service.posts.values()].filter(
			(post) =>
				(status === undefined || post.status === status) &&
				(pageId === undefined || post.page_id === pageId),
		);
		return ok(service.page('listPosts', posts, query));
	}),
	route('GET', '/v1/posts/{id}', 'getPost', (service, { params }) =>
		ok(findOr404(service.posts, 'Post', params.id)),
	),
	route('PATCH', '/v1/posts/{id}', 'updatePost', updatePost),
	route('DELETE', '/v1/posts/{id}', 'deletePost', (service, { params }) =>
		remove(service.posts, 'Post', params.id),
	),
	...(['blog', 'linkedin', 'twitter', 'carousel', 'video'] as const).map((kind) =>
		route('POST', `/v1/generate/${kind}`, `generate${capitalized(kind)}`, generation(kind)),
	),
	...(['linkedin', 'twitter'] as const).map((platform) =>
		route(
			'POST',
			`/v1/publish/${platform}`,
			`publish${capitalized(platform)}`,
			publishing(platform),
		),
	),
	route('GET', '/v1/jobs/{id}', 'getJob', (service, { params }) => ok(service.pollJob(params.id))),
	route('POST', '/v1/webhooks', 'createWebhook', createWebhook),
	route('GET', '/v1/webhooks', 'listWebhooks', (service, { query }) =>
		ok(service.page('listWebhooks', [...service.webhooks.values()].map(withoutSecret), query)),
	),
	route('GET', '/v1/webhooks/{id}', 'getWebhook', (service, { params }) =>
		ok(withoutSecret(findOr404(service.webhooks, 'Webhook', params.id))),
	),
	route('PATCH', '/v1/webhooks/{id}', 'updateWebhook', (service, { params, body }) => {
		const webhook = findOr404(service.webhooks, 'Webhook', params.id);
		const updated = { ...webhook, ...(body as Partial<CreateWebhookInput>), updated_at: isoNow() };
		service.webhooks.set(webhook.id, updated);
		return ok(withoutSecret(updated));
	}),
	route('DELETE', '/v1/webhooks/{id}', 'deleteWebhook', (service, { params }) =>
		remove(service.webhooks, 'Webhook', params.id),
	),
];

function createPost(service: FakeService, { body }: RouteRequest): RouteResult {
	const input = body as CreatePostInput;
	requireReference(service.pages, 'page_id', 'page', input.page_id);
	const post = requireScheduleTime(buildPost(input, isoNow()));
	service.posts.set(post.id, post);
	if (post.status === 'published') void service.announcePostPublished(post);
	return { status: 201, body: post };
}

function updatePost(service: FakeService, { params, body }: RouteRequest): RouteResult {
	const post = findOr404(service.posts, 'Post', params.id);
	const input = body as Partial<CreatePostInput>;
	requireReference(service.pages, 'page_id', 'page', input.page_id);
	const now = isoNow();
	const updated = requireScheduleTime({ ...post, ...input, updated_at: now });
	updated.published_at = updated.status === 'published' ? (post.published_at ?? now) : null;
	service.posts.set(post.id, updated);
	if (updated.status === 'published' && post.status !== 'published')
		void service.announcePostPublished(updated);
	return ok(updated);
}

function generation(
	kind: 'blog' | 'linkedin' | 'twitter' | 'carousel' | 'video',
): Route['handler'] {
	return (service, { body }) => {
		const input = body as JobInput;
		requireReference(service.pages, 'page_id', 'page', input.page_id);
		requireReference(service.posts, 'source_post_id', 'post', input.source_post_id);
		return { status: 202, body: service.startJob(`generate.${kind}`, input) };
	};
}

function publishing(platform: 'linkedin' | 'twitter'): Route['handler'] {
	return (service, { body }) => {
		const input = body as JobInput;
		requireReference(service.posts, 'post_id', 'post', input.post_id);
		requireReference(service.pages, 'page_id', 'page', input.page_id);
		if (input.thread !== undefined && (input.content !== undefined || input.post_id !== undefined))
			throw invalidField('thread', 'takes the place of content and post_id: send one of the three');
		return { status: 202, body: service.startJob(`publish.${platform}`, input) };
	};
}

function createWebhook(service: FakeService, { body }: RouteRequest): RouteResult {
	const input = body as CreateWebhookInput;
	const now = isoNow();
	const webhook: StoredWebhook = {
		id: newId('wh'),
		url: input.url,
		events: input.events,
		description: input.description ?? null,
		active: input.active ?? true,
		secret: input.secret ?? `whsec_${randomBytes(24).toString('hex')}`,
		created_at: now,
		updated_at: now,
	};
	service.webhooks.set(webhook.id, webhook);
	return { status: 201, body: webhook };
}

const profileRouteTables = new WeakMap<ProfileAdapter, ProfileRoute[]>();

/**
 * A profile's routes: the primary's, with the profile's path parameter names and update method,
 * and the operation ids its document gives them.
 */
export function profileRoutes(adapter: ProfileAdapter | undefined): ProfileRoute[] {
	if (!adapter) return [];
	const known = profileRouteTables.get(adapter);
	if (known) return known;
	const { paths } = adapter.document();
	const table = routes.map((route) => {
		const method = route.method === 'PATCH' ? adapter.updateMethod : route.method;
		const path = route.path.replace(
			/\/(\w+)s\/\{id\}$/,
			(_, resource: string) => `/${resource}s/{${adapter.pathParameter(resource)}}`,
		);
		// A 3.0 document's paths start after its server's `/v1`.
		const pathItem = paths[path] ?? paths[path.slice('/v1'.length)];
		const operationId = pathItem?.[method.toLowerCase() as HttpMethodName]?.operationId;
		if (!operationId) throw new Error(`The profile's document has no ${method} ${path}`);
		return { method, path, operationId, primary: route.operationId };
	});
	profileRouteTables.set(adapter, table);
	return table;
}

export function matchRoute(
	method: string,
	rawPath: string,
): { route: Route; params: Record<string, string> } | undefined {
	const segments = rawPath.split('/');
	for (const route of routes) {
		if (route.method !== method) continue;
		const params = matchSegments(route.path.split('/'), segments);
		if (params) return { route, params };
	}
	return undefined;
}

// Matching the raw segments before decoding keeps an encoded slash inside an id (`..%2Fwebhooks`) part of that id.
function matchSegments(template: string[], segments: string[]): Record<string, string> | undefined {
	if (template.length !== segments.length) return undefined;
	const params: Record<string, string> = {};
	for (const [index, part] of template.entries()) {
		const segment = segments[index];
		const parameterName = /^\{(\w+)\}$/.exec(part)?.[1];
		if (parameterName === undefined) {
			if (part !== segment) return undefined;
		} else {
			if (segment === '') return undefined;
			try {
				params[parameterName] = decodeURIComponent(segment);
			} catch {
				return undefined;
			}
		}
	}
	return params;
}

// ---------------------------------------------------------------------------------------------
// Route helpers

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: ErrorCode,
		message: string,
		readonly details?: ContractProblem[],
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

const ok = (body: unknown): RouteResult => ({ status: 200, body });

const notFound = (resource: string, id: string) =>
	new ApiError(404, 'not_found', `${resource} "${id}" was not found`);

const invalidField = (field: string, message: string) =>
	new ApiError(422, 'validation_error', `${field} ${message}`, [{ field, message }]);

function findOr404<T>(collection: Map<string, T>, resource: string, id: string): T {
	const item = collection.get(id);
	if (item === undefined) throw notFound(resource, id);
	return item;
}

function remove(collection: Map<string, unknown>, resource: string, id: string): RouteResult {
	findOr404(collection, resource, id);
	collection.delete(id);
	return { status: 204 };
}

function requireReference(
	collection: Map<string, unknown>,
	field: string,
	resource: string,
	id: string | undefined,
): void {
	if (id !== undefined && id !== null && !collection.has(id))
		throw invalidField(field, `does not name an existing ${resource} ("${id}")`);
}

// The primary document states this rule too; a profile whose document cannot (3.0 has no if/then) relies on this.
function requireScheduleTime(post: Post): Post {
	if (post.status === 'scheduled' && post.scheduled_at === null)
		throw invalidField('scheduled_at', 'is required when status is "scheduled"');
	return post;
}

function withoutSecret({ secret: _secret, ...webhook }: StoredWebhook): Webhook {
	return webhook;
}

function paginate<T extends { id: string }>(
	items: T[],
	query: Query,
	maxPageSize: number,
): { data: T[]; next_cursor: string | null } {
	const limit = pageSize(query, 'limit', DEFAULT_PAGE_SIZE, maxPageSize);
	const page = afterCursor(items, single(query, 'cursor'), limit, 'query.cursor');
	return { data: page.items, next_cursor: page.next };
}

const afterCursor: CursorPaging = (items, cursor, size, parameter) => {
	const afterId = cursor === undefined ? undefined : decodeCursor(cursor, parameter);
	const remaining = afterId === undefined ? items : items.filter((item) => item.id > afterId);
	const page = remaining.slice(0, size);
	return {
		items: page,
		next: remaining.length > size ? encodeCursor(page[page.length - 1].id) : null,
	};
};

function encodeCursor(lastId: string): string {
	return Buffer.from(JSON.stringify({ after: lastId })).toString('base64url');
}

function decodeCursor(cursor: string, parameter: string): string {
	try {
		const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
		const after = (decoded as { after?: unknown } | null)?.after;
		if (typeof after === 'string') return after;
	} catch {
		// Falls through to the validation error below.
	}
	throw invalidField(parameter, 'is not a cursor returned by this API');
}

const isoNow = () => new Date().toISOString();

let idSequence = 0;

// Ids sort in creation order, so a cursor can name the last id seen and stays valid when that item is deleted.
function newId(prefix: string): string {
	idSequence += 1;
	return `${prefix}_${idSequence.toString(36).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
}

function buildPost(input: CreatePostInput, now: string): Post {
	const status = input.status ?? 'draft';
	return {
		id: newId('post'),
		page_id: input.page_id ?? null,
		title: input.title ?? null,
		content: input.content,
		status,
		tags: input.tags ?? [],
		media_urls: input.media_urls ?? [],
		scheduled_at: input.scheduled_at ?? null,
		published_at: status === 'published' ? now : null,
		created_at: now,
		updated_at: now,
	};
}

// ---------------------------------------------------------------------------------------------
// Generated content: deterministic text derived from the input, so tests can assert on it.

function sentencesOf(text: string): string[] {
	const normalized = text.replace(/\s+/g, ' ').trim();
	const sentences = normalized.split(/(?<=[.!?])\s+/).filter((sentence) => sentence !== '');
	return sentences.length > 0 ? sentences : [normalized];
}

function truncate(text: string, maxLength: number): string {
	return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1).trimEnd()}…`;
}

function writeBlogPost(input: JobInput): JobResult {
	const sentences = sentencesOf(input.transcript ?? '');
	const title = input.title ?? truncate(sentences[0].replace(/[.!?]+$/, ''), 70);
	const paragraphs: string[] = [];
	for (let index = 0; index < sentences.length; index += 3)
		paragraphs.push(sentences.slice(index, index + 3).join(' '));
	const takeaways = sentences.slice(0, 3).map((sentence) => `- ${sentence}`);
	return {
		title,
		content: `# ${title}\n\n${paragraphs.join('\n\n')}\n\n## Key takeaways\n\n${takeaways.join('\n')}\n`,
		summary: truncate(sentences.join(' '), 160),
	};
}

function writeThread(sourceText: string, tweetCount: number): string[] {
	const sentences = sentencesOf(sourceText);
	return Array.from({ length: tweetCount }, (_, index) => {
		const prefix = `${index + 1}/${tweetCount} `;
		return prefix + truncate(sentences[index % sentences.length], 280 - prefix.length);
	});
}

function writeSlides(
	sourceText: string,
	slideCount: number,
	mediaUrl: string,
): Array<{ title: string; body: string; image_url: string }> {
	const sentences = sentencesOf(sourceText);
	return Array.from({ length: slideCount }, (_, index) => ({
		title: index === 0 ? truncate(sentences[0], 60) : `Point ${index}`,
		body: truncate(sentences[index % sentences.length], 200),
		image_url: `${mediaUrl}-${index + 1}.png`,
	}));
}

// Media files: a real file, then (for a padded video) zeros written a chunk at a time, so even a huge one costs the service no memory.
const ZEROS = Buffer.alloc(64 * 1024);

/** Answers a byte range when asked for one (`bytes=start-` or `bytes=start-end`), as a player needs to seek. */
function sendMedia(
	request: IncomingMessage,
	response: ServerResponse,
	type: string,
	file: Buffer,
	size = file.length,
): void {
	const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
	const start = Number(range?.[1] ?? 0);
	const end = range?.[2] ? Math.min(Number(range[2]) + 1, size) : size;
	if (start >= end)
		return void response.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
	response.writeHead(range ? 206 : 200, {
		'Content-Type': type,
		'Content-Length': String(end - start),
		'Accept-Ranges': 'bytes',
		...(range && { 'Content-Range': `bytes ${start}-${end - 1}/${size}` }),
	});
	let sent = start;
	const write = () => {
		while (sent < end) {
			const chunk =
				sent < file.length
					? file.subarray(sent, end)
					: ZEROS.subarray(0, Math.min(ZEROS.length, end - sent));
			sent += chunk.length;
			if (!response.write(chunk)) return void response.once('drain', write);
		}
		response.end();
	};
	write();
}

export function signWebhookPayload(secret: string, timestamp: string, rawBody: string): string {
	return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

// ---------------------------------------------------------------------------------------------
// The service

interface JobRuntime {
	plan: Required<JobPlan>;
	polls: number;
	input: JobInput;
	sourceText: string;
	timers: NodeJS.Timeout[];
}

type JobProduct = { result: JobResult; publishedPost?: Post } | { error: JobError };

interface ParsedBody {
	isJson: boolean;
	value: unknown;
}

/** A request as the service handles it: parsed, routed and checked against the document. */
interface Exchange {
	method: string;
	path: string;
	query: Query;
	body: ParsedBody;
	rawBody: string;
	headers: IncomingHttpHeaders;
	match: ReturnType<typeof matchRoute>;
	operationId?: string;
	/** The methods the path takes, when it does not take this one. */
	allowed?: string[];
	problems: ContractProblem[];
}

interface Reply {
	status: number;
	headers?: Record<string, string>;
	json?: unknown;
	text?: string;
	/** Of `json` (default application/json) or `text` (default text/plain). */
	contentType?: string;
	/** Made by an injected fault, so not the service's own answer. */
	faulted?: boolean;
}

interface DeliveryTarget {
	protocol: 'http:' | 'https:';
	host: string;
	port: number;
	path: string;
	hostHeader: string;
}

const DEFAULT_JOB_PLAN: Required<JobPlan> = {
	outcome: 'succeeded',
	pollsUntilRunning: 1,
	pollsUntilDone: 2,
	error: {
		code: 'generation_failed',
		message: 'The model could not produce content for this input',
	},
};

const SEED_PAGES: Array<Pick<Page, 'name' | 'platform' | 'url'>> = [
	{ name: 'Acme Engineering Blog', platform: 'blog', url: 'https://blog.acme.example/engineering' },
	{ name: 'Acme on LinkedIn', platform: 'linkedin', url: 'https://linkedin.example/company/acme' },
	{ name: 'Acme on Twitter', platform: 'twitter', url: 'https://twitter.example/acme' },
	{ name: 'Founder Notes', platform: 'blog', url: 'https://blog.acme.example/founder-notes' },
	{
		name: 'Product Updates',
		platform: 'linkedin',
		url: 'https://linkedin.example/showcase/acme-product',
	},
];

const LOGIN_PAGE =
	'<!DOCTYPE html><html><head><title>Sign in</title></head><body><form action="/login" method="post"><input name="username"><input name="password" type="password"><button>Log in</button></form></body></html>';

const FAULT_ERROR_CODES: Partial<Record<number, ErrorCode>> = {
	400: 'bad_request',
	401: 'unauthorized',
	404: 'not_found',
	422: 'validation_error',
	429: 'rate_limited',
};

/** `quota` requests at once, refilled evenly over `windowSeconds`. */
class TokenBucket {
	private tokens: number;
	private at = Date.now();

	constructor(
		readonly quota: number,
		readonly windowSeconds: number,
	) {
		this.tokens = quota;
	}

	/** Takes a request's token; false when there is none. */
	take(): boolean {
		if (this.remaining < 1) return false;
		this.tokens -= 1;
		return true;
	}

	get remaining(): number {
		const now = Date.now();
		this.tokens = Math.min(
			this.quota,
			this.tokens + ((now - this.at) / 1000) * (this.quota / this.windowSeconds),
		);
		this.at = now;
		return Math.floor(this.tokens);
	}

	/** Whole seconds until `count` requests are allowed. */
	secondsUntil(count: number): number {
		return Math.max(0, Math.ceil(((count - this.remaining) * this.windowSeconds) / this.quota));
	}
}

// A profile that states its limit (envelope) enforces it without the rateLimit option too, generously.
const PROFILE_LIMIT = { quota: 10_000, windowSeconds: 10 };
const REPEATABILITY_WINDOW_MS = 5 * 60_000;
/** How long after a change the state file is written, so that a burst of changes makes one write. */
const STATE_SAVE_DELAY_MS = 250;
const IMF_FIXDATE =
	/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

const PROFILES: Partial<Record<Profile, ProfileAdapter>> = {
	alternate: ALTERNATE,
	envelope: ENVELOPE,
	nested: NESTED,
	jsonapi: JSONAPI,
};

const compiledContracts: Partial<Record<Profile, ContractValidator>> = {};
let perResourceContract: ContractValidator | undefined;

// Compiling every schema takes a while; one compiled copy per profile serves every instance.
function sharedContractValidator(profile: Profile): ContractValidator {
	compiledContracts[profile] ??= createContractValidator(
		PROFILES[profile]?.document() ?? buildOpenApiDocument(),
	);
	return compiledContracts[profile];
}

export class FakeService {
	readonly apiKey: string;
	readonly maxPageSize: number;
	account: Account;
	readonly requests: RecordedRequest[] = [];
	readonly deliveries: Delivery[] = [];
	readonly pages = new Map<string, Page>();
	readonly posts = new Map<string, Post>();
	readonly jobs = new Map<string, Job>();
	readonly webhooks = new Map<string, StoredWebhook>();
	/** The most requests handled at the same time since the last reset. */
	maxConcurrentRequests = 0;
	private concurrentRequests = 0;
	/** Answers held by `heldUntilConcurrent`, each with the number of requests it waits for. */
	private readonly heldAnswers = new Map<() => void, number>();

	private baseUrl = '';
	private currentJobMode: JobMode;
	private jobPlan: Required<JobPlan> = DEFAULT_JOB_PLAN;
	private readonly faults: Array<{ fault: Fault; remaining: number; passes: number }> = [];
	/** First answers of creates, by path and Idempotency-Key, or by Repeatability-Request-ID. */
	private readonly idempotentAnswers = new Map<
		string,
		{ fingerprint: string; answer: RouteResult }
	>();
	/** Jobs that stay where they are until finishJob, whatever the job mode (see holdJob). */
	readonly heldJobs = new Set<string>();
	/** A key the service knows but whose account is not approved for API access (403 where a profile says so). */
	readonly unapprovedApiKey = `cp_unapproved_${randomBytes(12).toString('hex')}`;
	private bucket = new TokenBucket(PROFILE_LIMIT.quota, PROFILE_LIMIT.windowSeconds);
	private readonly jobRuntimes = new Map<string, JobRuntime>();
	private readonly pendingDeliveries = new Set<Promise<void>>();
	/** Ends every pause and delivery at once: each listens on it while it lasts, far more than Node's 10. */
	private readonly shutdown = (() => {
		const controller = new AbortController();
		setMaxListeners(0, controller.signal);
		return controller;
	})();
	private readonly timedJobDelaysMs: { running: number; done: number };
	/** Can change while the service runs, as a real service's conventions may between releases. */
	profile: Profile;
	readonly servesDocument: boolean;
	private readonly server = http.createServer(
		(request, response) => void this.handle(request, response),
	);
	private saveTimer: NodeJS.Timeout | undefined;

	/** The document GET /v1/openapi.json serves. */
	private contract(): ContractValidator {
		if (this.options.eventsPerResource === true) {
			perResourceContract ??= createContractValidator(this.servedDocument());
			return perResourceContract;
		}
		return sharedContractValidator(this.profile);
	}

	servedDocument(): ContractDocument {
		const document = PROFILES[this.profile]?.document(this.url) ?? buildOpenApiDocument(this.url);
		if (this.options.eventsPerResource === true) perResourceDocument(document);
		this.options.editDocument?.(document);
		return document;
	}

	static async start(options: FakeServiceOptions = {}): Promise<FakeService> {
		const service = new FakeService(options);
		await service.listen(options.port ?? 0);
		return service;
	}

	private constructor(private readonly options: FakeServiceOptions) {
		this.apiKey = options.apiKey ?? `cp_test_${randomBytes(16).toString('hex')}`;
		this.maxPageSize = options.maxPageSize ?? 100;
		this.timedJobDelaysMs = options.timedJobDelaysMs ?? { running: 500, done: 2000 };
		this.currentJobMode = options.jobMode ?? 'poll';
		this.profile = options.profile ?? 'primary';
		this.servesDocument = options.openApiDocument ?? true;
		this.account = {
			id: newId('acc'),
			email: 'content-team@acme.example',
			name: 'Acme Content Team',
			plan: 'pro',
			created_at: new Date(Date.now() - 90 * 86_400_000).toISOString(),
		};
		this.reset();
		if (options.stateFile) this.restore(options.stateFile);
	}

	private get adapter(): ProfileAdapter | undefined {
		return PROFILES[this.profile];
	}

	private get perResource(): boolean {
		return this.options.eventsPerResource === true || this.adapter?.eventsPerResource === true;
	}

	/** `http://127.0.0.1:PORT`, without a trailing slash. */
	get url(): string {
		return this.baseUrl;
	}

	get jobMode(): JobMode {
		return this.currentJobMode;
	}

	set jobMode(mode: JobMode) {
		this.currentJobMode = mode;
		for (const [jobId, runtime] of this.jobRuntimes) {
			this.clearTimers(runtime);
			if (mode === 'timed') this.scheduleTimedProgress(jobId);
		}
	}

	/** Applies to jobs created afterwards. */
	setJobPlan(plan: JobPlan): void {
		this.jobPlan = { ...DEFAULT_JOB_PLAN, ...plan };
	}

	/** Resolves once the webhook deliveries for the job were attempted (retries included). */
	async finishJob(id: string, outcome?: JobOutcome, error?: JobError): Promise<void> {
		const runtime = this.jobRuntimes.get(id);
		if (!runtime)
			throw new Error(
				this.jobs.has(id) ? `Job ${id} has already finished` : `There is no job ${id}`,
			);
		await this.completeJob(id, outcome ?? runtime.plan.outcome, error);
	}

	/** Keeps a queued or running job where it is until finishJob: polls and timers no longer move it. */
	holdJob(id: string): void {
		const runtime = this.jobRuntimes.get(id);
		if (!runtime) return;
		this.heldJobs.add(id);
		this.clearTimers(runtime);
	}

	injectFault(fault: Fault): void {
		this.faults.push({
			fault: { ...fault },
			remaining: fault.times ?? 1,
			passes: fault.after ?? 0,
		});
	}

	clearFaults(): void {
		this.faults.length = 0;
	}

	/** Back to the seed state; the arrays and maps are emptied in place, so references to them stay valid. */
	reset(): void {
		for (const runtime of this.jobRuntimes.values()) this.clearTimers(runtime);
		this.jobRuntimes.clear();
		this.requests.length = 0;
		this.maxConcurrentRequests = 0;
		this.releaseHeldAnswers(true);
		this.deliveries.length = 0;
		this.faults.length = 0;
		this.idempotentAnswers.clear();
		this.heldJobs.clear();
		const { rateLimit } = this.options;
		this.bucket = rateLimit
			? new TokenBucket(rateLimit.perSecond, 1)
			: new TokenBucket(PROFILE_LIMIT.quota, PROFILE_LIMIT.windowSeconds);
		for (const collection of [this.posts, this.jobs, this.webhooks, this.pages]) collection.clear();
		const dayMs = 86_400_000;
		SEED_PAGES.forEach((seed, index) => {
			const page: Page = {
				id: newId('page'),
				...seed,
				created_at: new Date(Date.now() - (SEED_PAGES.length - index) * dayMs).toISOString(),
			};
			this.pages.set(page.id, page);
		});
		this.currentJobMode = this.options.jobMode ?? 'poll';
		this.jobPlan = DEFAULT_JOB_PLAN;
		this.changed();
	}

	// --- State kept in a file -------------------------------------------------------------------

	/** Takes the data of a state file, if there is one; a file that is not one is set aside. */
	private restore(file: string): void {
		let saved: SavedState | undefined;
		try {
			saved = readState(file);
		} catch (error) {
			if (!(error instanceof StateFileError)) throw error;
			console.warn(
				`The fake service's state file ${file} was not used, because ${error.message}; it is now ${setAside(file)}, and the service starts from its seed data.`,
			);
			return;
		}
		if (!saved) return;
		this.account = saved.account;
		for (const [collection, records] of [
			[this.pages, saved.pages],
			[this.posts, saved.posts],
			[this.webhooks, saved.webhooks],
		] as const) {
			collection.clear();
			for (const record of records)
				(collection as Map<string, typeof record>).set(record.id, record);
		}
		for (const { job, pending } of saved.jobs) {
			this.jobs.set(job.id, job);
			if (!pending) continue;
			this.jobRuntimes.set(job.id, { ...pending, polls: 0, timers: [] });
			if (this.jobMode === 'timed') this.scheduleTimedProgress(job.id);
		}
		// New ids go on after the kept ones, so that they sort after them as before.
		const ids = [
			saved.account.id,
			...this.pages.keys(),
			...this.posts.keys(),
			...this.jobs.keys(),
			...this.webhooks.keys(),
		];
		idSequence = Math.max(idSequence, ...ids.map(creationOrder));
	}

	/** The data as the state file keeps it. */
	private snapshot(): SavedState {
		return {
			version: 1,
			account: this.account,
			pages: [...this.pages.values()],
			posts: [...this.posts.values()],
			jobs: [...this.jobs.values()].map((job) => {
				const runtime = this.jobRuntimes.get(job.id);
				return runtime
					? {
							job,
							pending: { input: runtime.input, sourceText: runtime.sourceText, plan: runtime.plan },
						}
					: { job };
			}),
			webhooks: [...this.webhooks.values()],
		};
	}

	/** Writes the state file a moment after a change, once for all the changes of that moment. */
	private changed(): void {
		if (!this.options.stateFile || this.saveTimer || this.shutdown.signal.aborted) return;
		this.saveTimer = setTimeout(() => this.save(), STATE_SAVE_DELAY_MS);
	}

	private save(): void {
		clearTimeout(this.saveTimer);
		this.saveTimer = undefined;
		if (!this.options.stateFile) return;
		try {
			writeState(this.options.stateFile, this.snapshot());
		} catch (error) {
			// A full disk must not stop the service; its data then lives as long as it does.
			console.error(
				`The fake service could not write ${this.options.stateFile}: ${(error as Error).message}`,
			);
		}
	}

	requestsTo(operationId: string): RecordedRequest[] {
		return this.requests.filter((request) => request.operationId === operationId);
	}

	/** Resolves when every webhook delivery started so far has finished (delivered or out of attempts). */
	async waitForDeliveries(): Promise<void> {
		while (this.pendingDeliveries.size > 0) await Promise.all([...this.pendingDeliveries]);
	}

	async close(): Promise<void> {
		if (this.shutdown.signal.aborted) return;
		this.shutdown.abort();
		this.releaseHeldAnswers(true);
		for (const runtime of this.jobRuntimes.values()) this.clearTimers(runtime);
		// Unfinished jobs are saved as such, and finish after the next start.
		this.save();
		await this.waitForDeliveries();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	/** Creates a queued job as the generate/publish routes do; exposed so tests can make jobs without HTTP. */
	startJob(type: JobType, input: JobInput): Job {
		const now = isoNow();
		const job: Job = {
			id: newId('job'),
			type,
			status: 'queued',
			progress: 0,
			result: null,
			error: null,
			created_at: now,
			updated_at: now,
			finished_at: null,
		};
		this.jobs.set(job.id, job);
		const sourcePost =
			input.source_post_id === undefined ? undefined : this.posts.get(input.source_post_id);
		const runtime: JobRuntime = {
			plan: this.jobPlan,
			polls: 0,
			input: structuredClone(input),
			sourceText: input.prompt ?? input.source_text ?? sourcePost?.content ?? '',
			timers: [],
		};
		this.jobRuntimes.set(job.id, runtime);
		if (this.jobMode === 'timed') this.scheduleTimedProgress(job.id);
		else this.applyPolls(job, runtime);
		this.changed();
		return job;
	}

	/** Looks a job up as GET /v1/jobs/{id} does, counting the poll (which advances it in 'poll' mode). */
	pollJob(id: string): Job {
		const job = findOr404(this.jobs, 'Job', id);
		const runtime = this.jobRuntimes.get(id);
		if (runtime && this.jobMode !== 'timed') {
			runtime.polls += 1;
			this.applyPolls(job, runtime);
		}
		return job;
	}

	// --- HTTP -----------------------------------------------------------------------------------

	private async listen(port: number): Promise<void> {
		if (port === 0) port = await listenOnNewPort(this.server);
		else await listenOn(this.server, port);
		this.baseUrl = `http://127.0.0.1:${port}`;
	}

	/** A finished job's files: /media/<job>.mp4 (its video) and /media/<job>-slide-<n>.png (its slides), in the job's colour. */
	private serveMedia(request: IncomingMessage, response: ServerResponse): boolean {
		const [, jobId = '', slide, extension] =
			/^\/media\/(job_\w+)(?:-slide-(\d+))?\.(mp4|png)$/.exec(request.url ?? '') ?? [];
		const result = this.jobs.get(jobId)?.result;
		if (!result) return false;
		if (
			extension === 'png' &&
			Array.isArray(result.slides) &&
			Number(slide) >= 1 &&
			Number(slide) <= result.slides.length
		) {
			sendMedia(
				request,
				response,
				'image/png',
				slidePng(colourOf(jobId), Number(slide), result.slides.length),
			);
			return true;
		}
		if (extension !== 'mp4' || slide !== undefined || typeof result.video_url !== 'string')
			return false;
		const aspectRatio =
			VIDEO_ASPECT_RATIOS.find((ratio) => ratio === result.aspect_ratio) ?? '16:9';
		const seconds = Number(result.duration_seconds);
		const video = demoVideo(
			colourOf(jobId),
			Number.isInteger(seconds) && seconds > 0 && seconds <= 600 ? seconds : 30,
			aspectRatio,
		);
		const padding = (this.options.videoBytes ?? 0) - video.length;
		// A `free` box needs 16 bytes: a video asked for a little larger than its own stays as it is.
		const padded = padding >= 16;
		sendMedia(
			request,
			response,
			'video/mp4',
			padded ? Buffer.concat([video, freeBox(padding)]) : video,
			padded ? video.length + padding : video.length,
		);
		return true;
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		if (request.method === 'GET' && this.serveMedia(request, response)) return;
		const rawBody = await readBody(request).catch(() => undefined);
		// The client went away mid-request; there is nobody to answer.
		if (rawBody === undefined) return;
		const [path, search = ''] = (request.url ?? '/').split(/\?(.*)/s);
		const method = request.method ?? 'GET';
		const body = parseBody(rawBody);
		const routing = this.matchRequest(method, path);
		const { operationId } = routing;
		const exchange: Exchange = {
			method,
			path,
			query: parseQuery(search),
			body,
			rawBody,
			headers: request.headers,
			...routing,
			problems: [],
		};
		if (operationId !== undefined)
			exchange.problems = body.isJson
				? this.contract().validateRequest({
						operationId,
						query: exchange.query,
						body: body.value,
						contentType: request.headers['content-type'],
					})
				: [{ field: 'body', message: 'is not valid JSON' }];
		const record: RecordedRequest = {
			method,
			path,
			query: exchange.query,
			headers: { ...request.headers },
			rawBody,
			body: body.value,
			operationId,
			contractErrors: exchange.problems.map(formatProblem),
			status: 0,
		};
		this.requests.push(record);
		this.concurrentRequests += 1;
		this.maxConcurrentRequests = Math.max(this.maxConcurrentRequests, this.concurrentRequests);
		this.releaseHeldAnswers();

		let reply: Reply;
		try {
			reply = await this.reply(exchange);
		} catch (error) {
			if (!(error instanceof ApiError))
				console.error('Fake content publishing service: unexpected error', error);
			reply = errorReply(error, this.adapter);
		}
		reply.headers = { ...reply.headers, ...this.rateLimitFields() };
		record.status = reply.status;
		this.concurrentRequests -= 1;
		// A request may change the data (a poll moves a job along too); several of them make one write.
		this.changed();
		// The answer to every request that kept to the document is checked against it too, unless a fault made it.
		if (
			operationId !== undefined &&
			exchange.problems.length === 0 &&
			!reply.faulted &&
			reply.text === undefined
		) {
			const answer = this.contract().validateResponse({
				operationId,
				status: reply.status,
				body: reply.json,
				contentType: contentTypeOf(reply),
				headers: reply.headers ?? {},
			});
			record.contractErrors.push(...answer.map((problem) => `answer ${formatProblem(problem)}`));
		}
		send(response, reply);
	}

	/** The route a request takes: the primary's own, or the alternate one that a primary handler serves. */
	private matchRequest(
		method: string,
		path: string,
	): Pick<Exchange, 'match' | 'operationId' | 'allowed'> {
		// A service without a document has no such route at all.
		if (!this.servesDocument && path === '/v1/openapi.json') return { match: undefined };
		if (this.profile === 'primary') {
			const match = matchRoute(method, path);
			return { match, operationId: match?.route.operationId };
		}
		const segments = path.split('/');
		const atPath = profileRoutes(this.adapter)
			.map((route) => ({ route, params: matchSegments(route.path.split('/'), segments) }))
			.filter((candidate) => candidate.params !== undefined);
		const found = atPath.find(({ route }) => route.method === method);
		if (found === undefined)
			return {
				match: undefined,
				allowed: atPath.length > 0 ? atPath.map(({ route }) => route.method) : undefined,
			};
		const primary = routes.find((route) => route.operationId === found.route.primary) as Route;
		const [id] = Object.values(found.params ?? {});
		return {
			match: { route: primary, params: id === undefined ? {} : { id } },
			operationId: found.route.operationId,
		};
	}

	/** One page of a list, in the profile's paging style. */
	page<T extends { id: string }>(list: string, items: T[], query: Query): object {
		const paging = { maxPageSize: this.maxPageSize, baseUrl: this.baseUrl, afterCursor };
		return (
			this.adapter?.page(list, items, query, paging) ?? paginate(items, query, this.maxPageSize)
		);
	}

	/** The signature headers a delivery of this body carries, for tests that sign deliveries themselves. */
	signDelivery(
		secret: string,
		rawBody: string,
		timestamp = Math.floor(Date.now() / 1000),
		delivery: { eventId?: string; nth?: number } = {},
	): Record<string, string> {
		if (this.adapter)
			return this.adapter.sign(secret, rawBody, {
				eventId: delivery.eventId,
				timestamp,
				nth: delivery.nth ?? 0,
			});
		return {
			[WEBHOOK_HEADERS.timestamp]: String(timestamp),
			[WEBHOOK_HEADERS.signature]: signWebhookPayload(secret, String(timestamp), rawBody),
		};
	}

	private async reply(request: Exchange): Promise<Reply> {
		const { method, path, query, body, match, problems } = request;
		if ((this.options.rateLimit || this.adapter?.rateLimitFields) && !this.bucket.take()) {
			const seconds = Math.max(1, this.bucket.secondsUntil(1));
			throw new ApiError(
				429,
				'rate_limited',
				`Rate limit exceeded; retry after ${seconds} s`,
				undefined,
				{ 'Retry-After': String(seconds) },
			);
		}
		const fault = this.takeFault(method, path);
		const heldUntil = fault?.heldUntilConcurrent;
		if (heldUntil !== undefined)
			await new Promise<void>((release) => {
				this.heldAnswers.set(release, heldUntil);
				this.releaseHeldAnswers();
			});
		if (fault?.delayMs) await this.pause(fault.delayMs);
		if (fault?.nonJsonBody)
			return { status: 200, text: LOGIN_PAGE, contentType: 'text/html', faulted: true };
		if (fault?.redirectTo !== undefined)
			return {
				status: fault.status ?? 307,
				headers: { Location: fault.redirectTo },
				faulted: true,
			};
		if (fault?.status !== undefined && !fault.afterHandling)
			return faultReply(fault, fault.status, this.adapter, body.value);

		// A service without a document answers 404 for it, with a key or without.
		const anonymous =
			match?.route.anonymous ?? (!this.servesDocument && path === '/v1/openapi.json');
		if (path.startsWith('/v1/') && !anonymous)
			this.authenticate(single(request.headers, 'authorization'));
		if (!match && request.allowed) {
			throw new ApiError(405, 'bad_request', `${method} is not allowed on ${path}`, undefined, {
				Allow: request.allowed.join(', '),
			});
		}
		if (!match) throw new ApiError(404, 'not_found', `No route for ${method} ${path}`);
		if (!body.isJson) throw new ApiError(400, 'bad_request', 'The request body is not valid JSON');
		if (problems.length > 0) {
			throw new ApiError(
				422,
				'validation_error',
				`The request does not match the API description: ${problems.map(formatProblem).join('; ')}`,
				problems,
			);
		}
		const { adapter } = this;
		const input = adapter
			? adapter.incoming(match.route.operationId, body.value, query, match.params.id)
			: { body: body.value, query };
		const handled = this.once(request, () =>
			match.route.handler(this, { params: match.params, query: input.query, body: input.body }),
		);
		if (fault?.afterHandling && fault.status !== undefined)
			return faultReply(fault, fault.status, adapter, body.value);
		const result = adapter
			? adapter.outgoing(
					match.route.operationId,
					handled,
					{ id: match.params.id, body: input.body },
					this,
				)
			: handled;
		if (fault?.rewriteAnswer)
			return { status: result.status, json: fault.rewriteAnswer(result.body), faulted: true };
		return {
			status: result.status,
			json: result.body,
			headers: { ...handled.headers, ...result.headers },
			contentType: result.contentType,
		};
	}

	private authenticate(authorization: string | undefined): void {
		const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
		if (token === this.unapprovedApiKey && this.adapter?.approval) {
			throw new ApiError(
				403,
				'unauthorized',
				'Authenticated, but this account is not approved for API access',
			);
		}
		if (token !== this.apiKey)
			throw new ApiError(401, 'unauthorized', 'Missing or invalid API key', undefined, {
				'WWW-Authenticate': 'Bearer',
			});
	}

	private rateLimitFields(): Record<string, string> {
		if (this.adapter?.rateLimitFields) return this.adapter.rateLimitFields(this.bucket);
		if (!this.options.rateLimit?.headers) return {};
		const { quota, remaining } = this.bucket;
		const reset = Math.ceil(Date.now() / 1000) + this.bucket.secondsUntil(quota);
		return {
			'X-RateLimit-Limit': String(quota),
			'X-RateLimit-Remaining': String(remaining),
			'X-RateLimit-Reset': String(reset),
		};
	}

	/**
	 * Carries a create out once per key: the primary's Idempotency-Key (the first answer again), or
	 * where a profile says so, OASIS Repeatable Requests 1.0 §5
	 * (https://docs.oasis-open.org/odata/repeatable-requests/v1.0/repeatable-requests-v1.0.html):
	 * without both headers a request is carried out as usual; a Repeatability-Request-ID with an
	 * IMF-fixdate Repeatability-First-Sent of the last 5 minutes is `accepted`, carried out once and,
	 * sent again with the same method, path, First-Sent and body, given the first answer again. Either
	 * header alone, a First-Sent that is no IMF-fixdate or an ID sent before with another request is
	 * `rejected` with 400, an older First-Sent with 412. Only successful answers are remembered
	 * (errors are thrown), so a failed request is carried out again, as §5 allows.
	 */
	private once({ method, path, headers, rawBody }: Exchange, run: () => RouteResult): RouteResult {
		const header = (name: string) => single(headers, name);
		const remembered = (key: string, fingerprint = '') => {
			const answer = this.idempotentAnswers.get(key)?.answer ?? run();
			this.idempotentAnswers.set(key, { fingerprint, answer });
			return answer;
		};
		if (method !== 'POST' || (this.adapter && !this.adapter.repeatability)) return run();
		if (!this.adapter) {
			const key = header('idempotency-key');
			return key === undefined ? run() : remembered(`${path} ${key}`);
		}
		const [id, firstSent] = [
			header('repeatability-request-id'),
			header('repeatability-first-sent'),
		];
		if (id === undefined && firstSent === undefined) return run();
		const rejected = (status: number, field: string, message: string) =>
			new ApiError(
				status,
				'bad_request',
				`${field} ${message}`,
				[{ field: `header.${field}`, message }],
				{ 'Repeatability-Result': 'rejected' },
			);
		if (id === undefined)
			throw rejected(400, 'Repeatability-Request-ID', 'is required with Repeatability-First-Sent');
		const sentAt = IMF_FIXDATE.test(firstSent ?? '') ? Date.parse(firstSent ?? '') : NaN;
		if (Number.isNaN(sentAt))
			throw rejected(
				400,
				'Repeatability-First-Sent',
				'must be an IMF-fixdate such as "Sun, 06 Nov 1994 08:49:37 GMT"',
			);
		if (sentAt < Date.now() - REPEATABILITY_WINDOW_MS)
			throw rejected(
				412,
				'Repeatability-First-Sent',
				'is older than the 5 minutes this service remembers',
			);
		const fingerprint = `${method} ${path} ${firstSent} ${rawBody}`;
		const seen = this.idempotentAnswers.get(`repeatability ${id}`);
		if (seen && seen.fingerprint !== fingerprint)
			throw rejected(400, 'Repeatability-Request-ID', 'was sent before with another request');
		const answer = remembered(`repeatability ${id}`, fingerprint);
		return { ...answer, headers: { ...answer.headers, 'Repeatability-Result': 'accepted' } };
	}

	private takeFault(method: string, path: string): Fault | undefined {
		const entry = this.faults.find(({ fault }) => faultMatches(fault, method, path));
		if (!entry) return undefined;
		if (entry.passes > 0) {
			entry.passes -= 1;
			return undefined;
		}
		entry.remaining -= 1;
		if (entry.remaining <= 0) this.faults.splice(this.faults.indexOf(entry), 1);
		return entry.fault;
	}

	/** Lets held answers go once their number of requests was under way at once, or all of them. */
	private releaseHeldAnswers(all = false): void {
		for (const [release, count] of this.heldAnswers)
			if (all || count <= this.maxConcurrentRequests) {
				this.heldAnswers.delete(release);
				release();
			}
	}

	/** Waits, but returns early when the service closes. */
	private async pause(ms: number): Promise<void> {
		await sleep(ms, undefined, { signal: this.shutdown.signal }).catch(() => undefined);
	}

	// --- Jobs -----------------------------------------------------------------------------------

	private applyPolls(job: Job, runtime: JobRuntime): void {
		if (this.heldJobs.has(job.id)) return;
		if (this.jobMode === 'poll' && runtime.polls >= runtime.plan.pollsUntilDone) {
			void this.completeJob(job.id, runtime.plan.outcome);
		} else if (job.status === 'queued' && runtime.polls >= runtime.plan.pollsUntilRunning) {
			markRunning(job);
		}
	}

	private scheduleTimedProgress(jobId: string): void {
		const runtime = this.jobRuntimes.get(jobId);
		if (!runtime || this.heldJobs.has(jobId)) return;
		runtime.timers.push(
			setTimeout(() => {
				const job = this.jobs.get(jobId);
				if (job?.status === 'queued') markRunning(job);
				this.changed();
			}, this.timedJobDelaysMs.running),
			setTimeout(
				() => void this.completeJob(jobId, runtime.plan.outcome),
				this.timedJobDelaysMs.done,
			),
		);
	}

	private clearTimers(runtime: JobRuntime): void {
		for (const timer of runtime.timers) clearTimeout(timer);
		runtime.timers = [];
	}

	/** Finishes the job synchronously; the returned promise settles when its webhook deliveries have. */
	private completeJob(jobId: string, outcome: JobOutcome, error?: JobError): Promise<void> {
		const job = this.jobs.get(jobId);
		const runtime = this.jobRuntimes.get(jobId);
		if (!job || !runtime) return Promise.resolve();
		this.clearTimers(runtime);
		this.jobRuntimes.delete(jobId);
		this.heldJobs.delete(jobId);

		const product: JobProduct =
			outcome === 'succeeded' ? this.produce(job, runtime) : { error: error ?? runtime.plan.error };
		const now = isoNow();
		job.updated_at = now;
		job.finished_at = now;
		const events: WebhookEvent[] = [];
		if ('error' in product) {
			job.status = 'failed';
			job.error = product.error;
			events.push(newEvent('job.failed', { job }));
		} else {
			job.status = 'succeeded';
			job.progress = 100;
			job.result = product.result;
			events.push(newEvent('job.completed', { job }));
			if (product.publishedPost)
				events.push(newEvent('post.published', { post: product.publishedPost }));
		}
		this.changed();
		return this.emit(events);
	}

	private produce(job: Job, { input, sourceText }: JobRuntime): JobProduct {
		switch (job.type) {
			case 'generate.blog':
				return { result: writeBlogPost(input) };
			case 'generate.linkedin':
				return { result: { content: `${truncate(sourceText, 2800)}\n\n#content #publishing` } };
			case 'generate.twitter':
				return { result: { tweets: writeThread(sourceText, input.thread_length ?? 3) } };
			case 'generate.carousel':
				return {
					result: {
						slides: writeSlides(
							sourceText,
							input.slide_count ?? 5,
							`${this.url}/media/${job.id}-slide`,
						),
					},
				};
			case 'generate.video':
				return {
					result: {
						video_url: `${this.url}/media/${job.id}.mp4`,
						duration_seconds: input.duration_seconds ?? 30,
						aspect_ratio: input.aspect_ratio ?? '16:9',
					},
				};
			case 'publish.linkedin':
				return this.publish('linkedin', input);
			case 'publish.twitter':
				return this.publish('twitter', input);
		}
	}

	private publish(platform: 'linkedin' | 'twitter', input: JobInput): JobProduct {
		const now = isoNow();
		const existing = input.post_id === undefined ? undefined : this.posts.get(input.post_id);
		if (input.post_id !== undefined && !existing) {
			const message = `Post "${input.post_id}" was deleted before it could be published`;
			return { error: { code: 'post_not_found', message } };
		}
		const original =
			existing ?? buildPost({ content: input.thread?.join('\n\n') ?? input.content ?? '' }, now);
		const post: Post = {
			...original,
			page_id: input.page_id ?? original.page_id,
			status: 'published',
			scheduled_at: input.scheduled_at ?? original.scheduled_at,
			published_at: now,
			updated_at: now,
		};
		this.posts.set(post.id, post);
		const url = `https://${platform}.example/posts/${post.id}`;
		// A thread is one tweet per part, each with its own address; the first is the post's.
		const thread = input.thread?.map((_, index) => (index === 0 ? url : `${url}/${index + 1}`));
		return {
			result: {
				platform,
				post_id: post.id,
				url,
				published_at: now,
				...(thread && { thread_urls: thread }),
			},
			publishedPost: post,
		};
	}

	// --- Webhook deliveries -------------------------------------------------------------------------

	/** Sends `post.published` for a post published directly, not through a publish job. */
	announcePostPublished(post: Post): Promise<void> {
		return this.emit([newEvent('post.published', { post })]);
	}

	private emit(events: WebhookEvent[]): Promise<void> {
		const attempts = events.flatMap((event) =>
			[...this.webhooks.values()]
				.filter(
					(webhook) =>
						webhook.active &&
						(webhook.events.includes(this.perResource ? perResourceWire(event).type : event.type) ||
							webhook.events.includes('*')),
				)
				.map((webhook) => this.deliver(webhook, event)),
		);
		const settled = Promise.all(attempts).then(() => undefined);
		this.pendingDeliveries.add(settled);
		void settled.then(() => this.pendingDeliveries.delete(settled));
		return settled;
	}

	private async deliver(webhook: StoredWebhook, event: WebhookEvent): Promise<void> {
		const wire =
			this.adapter?.event(event, this) ??
			(this.perResource ? perResourceWire(event) : { type: event.type, body: event });
		const body = JSON.stringify(wire.body);
		const timestamp = Math.floor(Date.now() / 1000);
		const headers: Record<string, string> = {
			'Content-Type': 'application/json',
			'User-Agent': 'content-publishing-fake-webhooks/1.0',
			...(this.adapter
				? this.adapter.deliveryHeaders?.({ type: wire.type, webhookId: webhook.id })
				: { [WEBHOOK_HEADERS.event]: wire.type, [WEBHOOK_HEADERS.delivery]: event.id }),
			...this.signDelivery(webhook.secret, body, timestamp, {
				eventId: event.id,
				nth: this.deliveries.length,
			}),
		};
		const delivery: Delivery = {
			webhookId: webhook.id,
			url: webhook.url,
			eventId: event.id,
			eventType: wire.type,
			attempts: 0,
			delivered: false,
			body,
			headers,
		};
		this.deliveries.push(delivery);

		const target = loopbackTarget(webhook.url);
		if (!target) return;
		for (let attempt = 1; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt += 1) {
			if (attempt > 1) await this.pause(WEBHOOK_RETRY_DELAY_MS);
			if (this.shutdown.signal.aborted) return;
			delivery.attempts = attempt;
			const status = await postOnce(target, headers, body, this.shutdown.signal).catch(
				() => undefined,
			);
			delivery.lastStatus = status;
			if (status !== undefined && status >= 200 && status < 300) {
				delivery.delivered = true;
				return;
			}
		}
	}

	/** Sends a recorded delivery once more, with these headers or body instead (a test's altered copy); resolves to the receiver's status. */
	redeliver(
		delivery: Delivery,
		instead: { headers?: Record<string, string>; body?: string } = {},
	): Promise<number> {
		const target = loopbackTarget(delivery.url);
		if (!target) return Promise.reject(new Error(`${delivery.url} is not on a loopback address`));
		return postOnce(
			target,
			instead.headers ?? delivery.headers,
			instead.body ?? delivery.body,
			this.shutdown.signal,
		);
	}
}

export function startFakeService(options?: FakeServiceOptions): Promise<FakeService> {
	return FakeService.start(options);
}

// ---------------------------------------------------------------------------------------------
// Plumbing

function markRunning(job: Job): void {
	job.status = 'running';
	job.progress = 50;
	job.updated_at = isoNow();
}

function newEvent(type: WebhookEventType, data: WebhookEvent['data']): WebhookEvent {
	return { id: newId('evt'), type, created_at: isoNow(), data };
}

function faultMatches(fault: Fault, method: string, path: string): boolean {
	const { method: expectedMethod, path: expectedPath } = fault.match ?? {};
	if (expectedMethod !== undefined && expectedMethod.toUpperCase() !== method.toUpperCase())
		return false;
	if (expectedPath === undefined) return true;
	// search() ignores lastIndex, so a /g regexp matches the same way every time.
	return typeof expectedPath === 'string'
		? expectedPath === path
		: path.search(expectedPath) !== -1;
}

function faultReply(
	fault: Fault,
	status: number,
	adapter: ProfileAdapter | undefined,
	requestBody: unknown,
): Reply {
	const body = typeof fault.body === 'function' ? fault.body(requestBody) : fault.body;
	if (typeof body === 'string') return { status, text: body, faulted: true };
	if (body !== undefined) return { status, json: body, faulted: true };
	const code = FAULT_ERROR_CODES[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
	const retryAfterSeconds = fault.retryAfterSeconds ?? (status === 429 ? 1 : undefined);
	const headers: Record<string, string> =
		retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) };
	const message =
		status === 429
			? `Rate limit exceeded; retry after ${retryAfterSeconds} s`
			: `Injected fault (HTTP ${status})`;
	return {
		...errorReply(new ApiError(status, code, message, undefined, headers), adapter),
		faulted: true,
	};
}

function errorReply(error: unknown, adapter: ProfileAdapter | undefined): Reply {
	const apiError =
		error instanceof ApiError
			? error
			: new ApiError(500, 'internal_error', 'Internal server error');
	if (adapter) {
		const { status, body, contentType } = adapter.error(apiError);
		return { status, headers: apiError.headers, json: body, contentType };
	}
	const details = apiError.details
		? { details: apiError.details.map(({ field, message }) => ({ field, message })) }
		: {};
	return {
		status: apiError.status,
		headers: apiError.headers,
		json: { error: { code: apiError.code, message: apiError.message, ...details } },
	};
}

function contentTypeOf(reply: Reply): string | undefined {
	if (reply.text !== undefined) return reply.contentType ?? 'text/plain';
	return reply.json === undefined ? undefined : (reply.contentType ?? 'application/json');
}

function send(response: ServerResponse, reply: Reply): void {
	if (response.destroyed) return;
	const headers: Record<string, string> = { ...reply.headers };
	const payload = reply.text ?? (reply.json === undefined ? undefined : JSON.stringify(reply.json));
	if (payload !== undefined) {
		headers['Content-Type'] = `${contentTypeOf(reply)}; charset=utf-8`;
		headers['Content-Length'] = String(Buffer.byteLength(payload));
	}
	response.writeHead(reply.status, headers);
	response.end(payload);
}

function readBody(request: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		request.on('error', reject);
	});
}

function parseBody(rawBody: string): ParsedBody {
	if (rawBody === '') return { isJson: true, value: undefined };
	try {
		return { isJson: true, value: JSON.parse(rawBody) as unknown };
	} catch {
		return { isJson: false, value: undefined };
	}
}

function parseQuery(search: string): Query {
	const query: Query = {};
	for (const [name, value] of new URLSearchParams(search)) {
		const previous = query[name];
		query[name] =
			previous === undefined
				? value
				: [...(Array.isArray(previous) ? previous : [previous]), value];
	}
	return query;
}

// Deliveries connect to a literal loopback address and never resolve names, so nothing can leave this machine.
function loopbackTarget(rawUrl: string): DeliveryTarget | undefined {
	let url: URL;
	try {
		url = new URL(rawUrl);
	} catch {
		return undefined;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
	const { hostname } = url;
	const host =
		hostname === 'localhost'
			? '127.0.0.1'
			: hostname === '[::1]'
				? '::1'
				: /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
					? hostname
					: undefined;
	if (host === undefined) return undefined;
	return {
		protocol: url.protocol,
		host,
		port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
		path: `${url.pathname}${url.search}`,
		hostHeader: url.host,
	};
}

function postOnce(
	target: DeliveryTarget,
	headers: Record<string, string>,
	body: string,
	signal: AbortSignal,
): Promise<number> {
	const transport = target.protocol === 'https:' ? https : http;
	return new Promise((resolve, reject) => {
		const request = transport.request(
			{
				host: target.host,
				port: target.port,
				path: target.path,
				method: 'POST',
				agent: false,
				signal,
				timeout: WEBHOOK_TIMEOUT_MS,
				headers: {
					...headers,
					Host: target.hostHeader,
					'Content-Length': String(Buffer.byteLength(body)),
				},
			},
			(response) => {
				response.resume();
				resolve(response.statusCode ?? 0);
			},
		);
		request.on('timeout', () =>
			request.destroy(new Error(`No answer within ${WEBHOOK_TIMEOUT_MS} ms`)),
		);
		request.on('error', reject);
		request.end(body);
	});
}
