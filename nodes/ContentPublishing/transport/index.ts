import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../helpers/constants';
import { sleepUnlessCancelled } from '../helpers/sleep';
import { endpointPath, ENDPOINTS, PAGINATION, type EndpointName } from './endpoints';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export interface ApiRequestOptions {
	id?: string;
	qs?: IDataObject;
	body?: IDataObject;
	itemIndex?: number;
	/**
	 * Sent as `Idempotency-Key` on requests that create something, so that a service honouring it
	 * creates once however often the same item's request is sent.
	 */
	idempotencyKey?: string;
	/** How long one attempt may take before it is abandoned; default DEFAULT_TIMEOUT_MS. */
	timeoutMs?: number;
	/** The execution's cancel signal: a cancelled execution abandons the request at once. */
	signal?: AbortSignal;
	/**
	 * Whether a read that meets a rate limit, a gateway error or no answer is tried again (the
	 * default); writes never are, since the service does not document idempotency keys.
	 */
	retryReads?: boolean;
}

export interface ApiResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

interface Credentials {
	baseUrl: string;
	apiKey: string;
}

// How much of a body that is not the expected JSON is quoted in an error.
const MAX_QUOTED_TEXT = 300;
const MAX_REDIRECTS = 5;

export const DEFAULT_TIMEOUT_MS = 60_000;
const READ_ATTEMPTS = 3;
const RETRY_BACKOFF_MS = 1000;
// A longer Retry-After is the service asking for a pause the node should not take silently.
const MAX_RETRY_AFTER_MS = 30_000;
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);
// Return All reads at most this many items: a list that goes on (or a service whose cursor never
// ends) must not hold an execution and its memory forever.
const MAX_RETURN_ALL = 10_000;

/** The error as n8n shows it: the node's own errors pass through, anything else is wrapped. */
export function asNodeError(context: RequestContext, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/** Whether an error is worth another try later: a rate limit, a gateway error or no answer. */
export function isTransient(error: unknown): boolean {
	return error instanceof NodeApiError && error.context.transient === true;
}

/** The delay a transient error asks for (Retry-After, in milliseconds), if it names one. */
export function retryAfterMs(error: unknown): number | undefined {
	if (!(error instanceof NodeApiError)) return undefined;
	const seconds = Number(error.context.retryAfterSeconds);
	return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

const STATUS_HINTS: Record<number, string> = {
	401: 'The service did not accept the API key. Check the key in the credential; it may be wrong or revoked, or the account may not be approved for API access yet.',
	403: 'The API key is valid but may not do this. API access needs an administrator to approve the account.',
	404: 'Nothing exists at this address. Check the ID (it may have been deleted) and the credential\'s Base URL.',
	429: 'The service is limiting the request rate. Wait before retrying, or lower the number of items per execution. Reads are retried automatically; a write is sent once (with "Retry On Fail" it is sent again with the same Idempotency-Key).',
};

/**
 * Accepts a base URL with or without a trailing slash or `/v1` suffix: endpoint paths carry
 * the version, so it must never appear twice.
 */
export function normalizeBaseUrl(baseUrl: string): string {
	return baseUrl
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '');
}

async function readCredentials(this: RequestContext, itemIndex?: number): Promise<Credentials> {
	const credentials = await this.getCredentials<Credentials>(CREDENTIAL_TYPE, itemIndex);
	const baseUrl = normalizeBaseUrl(String(credentials.baseUrl ?? ''));
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new NodeOperationError(
			this.getNode(),
			'The credential\'s Base URL must start with http:// or https://',
			// A URL with user info is not repeated: it would carry a password into the message.
			{ itemIndex, description: baseUrl.includes('@') ? undefined : `Base URL found: "${baseUrl}"` },
		);
	}
	if (/^https?:\/\/[^/?#]*@/i.test(baseUrl)) {
		throw new NodeOperationError(this.getNode(), 'The credential\'s Base URL must not contain a user name or password', {
			itemIndex,
			description: 'The API key authenticates every request; remove the "user:password@" part from the Base URL.',
		});
	}
	return { baseUrl, apiKey: String(credentials.apiKey ?? '') };
}

/** Removes the key from a text, also where it appears escaped inside JSON. */
function redact(text: string, secret: string): string {
	if (secret.length === 0) return text;
	const escaped = JSON.stringify(secret).slice(1, -1);
	return text.split(secret).join('***').split(escaped).join('***');
}

/** The same value with the key removed from every string in it. */
function redactValue<T>(value: T, secret: string): T {
	if (value === undefined || secret.length === 0) return value;
	return JSON.parse(redact(JSON.stringify(value), secret)) as T;
}

function headerValue(headers: ApiResponse['headers'], name: string): string {
	const value = headers[name.toLowerCase()] ?? headers[name];
	return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** Parses a body read as text, returning undefined for an empty one. */
function parseJsonBody(raw: unknown): { ok: true; value: unknown } | { ok: false } {
	if (raw === undefined || raw === null) return { ok: true, value: undefined };
	if (typeof raw !== 'string') return { ok: true, value: raw };
	if (raw.trim() === '') return { ok: true, value: undefined };
	try {
		return { ok: true, value: JSON.parse(raw) as unknown };
	} catch {
		return { ok: false };
	}
}

/** Finds the service's own message in the error body shapes APIs commonly use. */
function describeErrorBody(body: unknown): { message?: string; code?: string; details?: string } {
	if (typeof body === 'string') return { message: body.slice(0, MAX_QUOTED_TEXT) };
	if (body === null || typeof body !== 'object') return {};
	const record = body as IDataObject;
	const nested =
		record.error !== null && typeof record.error === 'object' ? (record.error as IDataObject) : record;
	const message =
		typeof nested.message === 'string'
			? nested.message
			: typeof record.error === 'string'
				? record.error
				: typeof record.detail === 'string'
					? record.detail
					: undefined;
	const code = typeof nested.code === 'string' ? nested.code : undefined;
	const detailList = Array.isArray(nested.details) ? nested.details : Array.isArray(record.errors) ? record.errors : [];
	const details = detailList
		.map((detail) =>
			detail !== null && typeof detail === 'object'
				? [(detail as IDataObject).field, (detail as IDataObject).message].filter(Boolean).join(': ')
				: String(detail),
		)
		.filter((line) => line.length > 0)
		.join('; ');
	return { message, code, details: details || undefined };
}

function apiError(
	context: RequestContext,
	response: ApiResponse,
	apiKey: string,
	itemIndex?: number,
): NodeApiError {
	const { statusCode } = response;
	const parsed = parseJsonBody(response.body);
	// Before anything reads it: a body that echoes the request must not carry the key anywhere.
	const errorBody = redactValue(parsed.ok ? parsed.value : response.body, apiKey);
	const { message, code, details } = describeErrorBody(errorBody);
	const retryAfter = headerValue(response.headers, 'retry-after');
	const description = [
		code ? `Error code: ${code}.` : undefined,
		details ? `Details: ${details}.` : undefined,
		statusCode === 429 && retryAfter ? `The service asks to retry after ${retryAfter} seconds.` : undefined,
		STATUS_HINTS[statusCode],
	]
		.filter(Boolean)
		.join(' ');
	const errorResponse: JsonObject =
		errorBody !== null && typeof errorBody === 'object' && !Array.isArray(errorBody)
			? (errorBody as JsonObject)
			: { body: String(errorBody ?? '').slice(0, MAX_QUOTED_TEXT) };
	const error = new NodeApiError(context.getNode(), errorResponse, {
		message: message ?? `The service answered with HTTP ${statusCode}`,
		description: description || undefined,
		httpCode: String(statusCode),
		itemIndex,
	});
	if (/^\d+$/.test(retryAfter)) error.context.retryAfterSeconds = Number(retryAfter);
	if (TRANSIENT_STATUSES.has(statusCode)) error.context.transient = true;
	return error;
}

function isRedirect(statusCode: number): boolean {
	return [301, 302, 303, 307, 308].includes(statusCode);
}

function redirectTarget(response: ApiResponse, from: string): URL | undefined {
	const location = headerValue(response.headers, 'location');
	try {
		return location ? new URL(location, from) : undefined;
	} catch {
		return undefined;
	}
}

/** Sends one request with the credential; a failure to reach the service becomes a clear error. */
async function send(
	this: RequestContext,
	options: IHttpRequestOptions,
	{ baseUrl, apiKey, itemIndex, timeoutMs, signal }: SendSettings,
): Promise<ApiResponse> {
	// A hard deadline for the whole exchange, whatever the socket does, and the execution's cancel.
	const deadline = AbortSignal.timeout(timeoutMs);
	const abortSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
	try {
		return (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
			...options,
			timeout: timeoutMs,
			abortSignal,
		})) as ApiResponse;
	} catch (error) {
		if (signal?.aborted) {
			throw new NodeOperationError(this.getNode(), 'The execution was cancelled while waiting for the service', { itemIndex });
		}
		// n8n hands network failures on as a NodeApiError whose messages keep the system error
		// (such as "connect ECONNREFUSED 127.0.0.1:443"); only its code and wording travel on.
		const reason = error as { message?: string; messages?: string[]; code?: string };
		const details = [reason.code, reason.message, ...(reason.messages ?? [])].join(' ');
		const timedOut = deadline.aborted || /\b(ETIMEDOUT|ECONNABORTED)\b|timeout of \d+ms exceeded/.test(details);
		const code = /\b(E[A-Z_]{3,})\b/.exec(details)?.[1];
		const failure = new NodeApiError(
			this.getNode(),
			{ message: redact(String(reason.message ?? 'Request failed'), apiKey) },
			timedOut
				? {
						message: `The service at ${baseUrl} did not answer within ${timeoutMs / 1000} seconds`,
						description: 'Raise "Timeout" under Request Options if the service is slow, or check that it is up.',
						itemIndex,
					}
				: {
						// The code stays out of the message and error body: n8n would swap both for a generic text.
						message: `Could not reach the service at ${baseUrl}`,
						description: `${code ? `${code}: ` : ''}${redact(String(reason.message ?? ''), apiKey)} Check the credential's Base URL and that the service is reachable from n8n.`,
						itemIndex,
					},
		);
		failure.context.transient = true;
		throw failure;
	}
}

interface SendSettings {
	baseUrl: string;
	apiKey: string;
	itemIndex?: number;
	timeoutMs: number;
	signal?: AbortSignal;
}

/**
 * The one function that talks to the service. It reads the answer as text and parses it itself,
 * so a page that is not JSON (a login page behind a wrong base URL) fails clearly instead of
 * flowing on as a string.
 */
export async function apiRequest(
	this: RequestContext,
	endpoint: EndpointName,
	{ id, qs, body, itemIndex, idempotencyKey, timeoutMs = DEFAULT_TIMEOUT_MS, signal, retryReads = true }: ApiRequestOptions = {},
): Promise<unknown> {
	const { baseUrl, apiKey } = await readCredentials.call(this, itemIndex);
	const { method } = ENDPOINTS[endpoint];
	const options: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${endpointPath(endpoint, id)}`,
		qs,
		body,
		headers: idempotencyKey && method === 'POST' ? { 'Idempotency-Key': idempotencyKey } : undefined,
		json: true,
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Redirects are followed below, and only within the Base URL's origin: the API key goes nowhere else.
		disableFollowRedirect: true,
	};

	const settings: SendSettings = { baseUrl, apiKey, itemIndex, timeoutMs, signal };
	const attempts = method === 'GET' && retryReads ? READ_ATTEMPTS : 1;
	for (let attempt = 1; ; attempt++) {
		try {
			return await requestOnce.call(this, options, settings);
		} catch (error) {
			const retryAfter = retryAfterMs(error) ?? 0;
			const retry = attempt < attempts && isTransient(error) && retryAfter <= MAX_RETRY_AFTER_MS;
			const backoff = Math.max(retryAfter, RETRY_BACKOFF_MS * 2 ** (attempt - 1));
			if (!retry || !(await sleepUnlessCancelled(backoff, signal))) throw asNodeError(this, error, itemIndex);
		}
	}
}

/** One attempt: the request, the redirects the node follows, and the answer read as JSON. */
async function requestOnce(this: RequestContext, options: IHttpRequestOptions, settings: SendSettings): Promise<unknown> {
	const { baseUrl, apiKey, itemIndex } = settings;
	const { method } = options;
	let url = String(options.url);
	let response = await send.call(this, options, settings);
	for (let redirects = 0; isRedirect(response.statusCode); redirects++) {
		const target = redirectTarget(response, url);
		const followable =
			target !== undefined &&
			target.origin === new URL(baseUrl).origin &&
			(response.statusCode === 307 || response.statusCode === 308 || method === 'GET');
		if (!followable || redirects === MAX_REDIRECTS) {
			throw new NodeApiError(this.getNode(), { status: response.statusCode }, {
				message:
					redirects === MAX_REDIRECTS
						? `The service redirected more than ${MAX_REDIRECTS} times`
						: `The service redirected the request to ${target ? target.origin : 'an unreadable address'}, which the node does not follow`,
				description:
					'Redirects are followed only within the origin of the credential\'s Base URL (and, for writes, only when they keep the method), so the API key and the request are never sent anywhere else. Set the Base URL to the address the API answers at.',
				httpCode: String(response.statusCode),
				itemIndex,
			});
		}
		// The Location names the whole address, query included.
		url = target.toString();
		response = await send.call(this, { ...options, url, qs: undefined }, settings);
	}

	if (response.statusCode >= 400) {
		throw apiError(this, response, apiKey, itemIndex);
	}
	if (response.statusCode === 204) return undefined;

	const parsed = parseJsonBody(response.body);
	if (!parsed.ok) {
		const contentType = headerValue(response.headers, 'content-type') || 'an unknown type';
		throw new NodeApiError(
			this.getNode(),
			{ body: redact(String(response.body), apiKey).slice(0, MAX_QUOTED_TEXT) },
			{
				message: `The service answered with ${contentType.split(';')[0]} instead of JSON`,
				description:
					'Check the credential\'s Base URL: it must be the API\'s address (the one that serves /v1/me), not a web page such as a login screen.',
				httpCode: String(response.statusCode),
				itemIndex,
			},
		);
	}
	return parsed.value;
}

/**
 * Every endpoint but a list answers with one object; anything else (no body, text, a number, a
 * list) would reach the workflow as a broken item or pass for a success it is not.
 */
export function requireObject(context: RequestContext, answer: unknown, itemIndex?: number): IDataObject {
	if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) return answer as IDataObject;
	const found = answer === undefined ? 'no body' : Array.isArray(answer) ? 'a list' : answer === null ? 'null' : `a ${typeof answer}`;
	throw new NodeApiError(context.getNode(), { answer: found }, {
		message: `The service answered with ${found} where it should return an object`,
		description: 'Nothing was output for this item. Check that the Base URL points at the API; if it does, the service broke its own contract.',
		itemIndex,
	});
}

export interface ListPage {
	items: IDataObject[];
	nextCursor?: string;
}

/** Reads one page of a list answer, whichever of the usual envelopes the service uses. */
export function readListPage(body: unknown): ListPage {
	if (Array.isArray(body)) return { items: body as IDataObject[] };
	if (body === null || typeof body !== 'object') return { items: [] };
	const record = body as IDataObject;
	const items = [record.data, record.items, record.results].find(Array.isArray) as
		| IDataObject[]
		| undefined;
	const meta = (record.meta ?? record.pagination ?? {}) as IDataObject;
	const cursor = [record.next_cursor, record.nextCursor, meta.next_cursor, meta.nextCursor].find(
		(value) => typeof value === 'string' && value.length > 0,
	) as string | undefined;
	return { items: items ?? [], nextCursor: cursor };
}

/** How a list is read: its query, page size, item and request settings. */
interface ListOptions extends Pick<ApiRequestOptions, 'itemIndex' | 'timeoutMs' | 'signal'> {
	qs?: IDataObject;
}

/** Fetches one page of a list endpoint. */
export async function apiRequestPage(
	this: RequestContext,
	endpoint: EndpointName,
	{ qs = {}, cursor, pageSize, ...request }: ListOptions & { cursor?: string; pageSize: number },
): Promise<ListPage> {
	const query: IDataObject = {
		...qs,
		[PAGINATION.limitParameter]: Math.min(pageSize, PAGINATION.maxPageSize),
	};
	if (cursor) query[PAGINATION.cursorParameter] = cursor;
	return readListPage(await apiRequest.call(this, endpoint, { qs: query, ...request }));
}

/** Follows the cursor until `limit` items were read (all of them when no limit is given). */
export async function apiRequestAllItems(
	this: RequestContext,
	endpoint: EndpointName,
	{ qs = {}, limit, ...request }: ListOptions & { limit?: number },
): Promise<IDataObject[]> {
	const collected: IDataObject[] = [];
	const seenCursors = new Set<string>();
	const seenIds = new Set<string | number>();
	let cursor: string | undefined;
	do {
		const remaining = limit === undefined ? PAGINATION.maxPageSize : limit - collected.length;
		const page = await apiRequestPage.call(this, endpoint, { qs, cursor, pageSize: remaining, ...request });
		// One by one: spreading a huge page into push() would overflow the call stack. A service
		// whose cursor loops hands the same items back; each id is output once.
		for (const item of page.items) {
			const id = item?.id;
			if (typeof id === 'string' || typeof id === 'number') {
				if (seenIds.has(id)) continue;
				seenIds.add(id);
			}
			collected.push(item);
		}
		if (limit === undefined && collected.length > MAX_RETURN_ALL) {
			throw new NodeOperationError(this.getNode(), `Return All stopped after ${MAX_RETURN_ALL.toLocaleString('en-US')} items`, {
				itemIndex: request.itemIndex,
				description: 'The list goes on further than one execution should read. Turn off Return All and set a Limit, or narrow the list with filters.',
			});
		}
		// A service that hands back a cursor it already gave would otherwise loop forever.
		if (page.nextCursor === undefined || seenCursors.has(page.nextCursor) || page.items.length === 0) break;
		seenCursors.add(page.nextCursor);
		cursor = page.nextCursor;
	} while (limit === undefined || collected.length < limit);
	return limit === undefined ? collected : collected.slice(0, limit);
}
