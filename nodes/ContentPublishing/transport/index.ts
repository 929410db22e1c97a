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
import {
	ContractFieldError,
	defaultContract,
	eventsToSend,
	requestBody,
	requestQuery,
	resolveContract,
	type Contract,
	type ErrorContract,
	type Paging,
	type ResolvedEndpoint,
	type WebhookContract,
} from './contract';
import { endpointPath, type EndpointName } from './endpoints';
import { isOpenApiDocument, isRecord } from './openapi';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

/** Fields in the node's own names, which the contract maps onto the service's when sending. */
export interface NodeFields {
	body?: IDataObject;
	qs?: IDataObject;
	/** Body fields left out where the service's schema has no place for them, instead of failing. */
	optional?: IDataObject;
}

export interface ApiRequestOptions {
	id?: string;
	/** Query and body sent as given, after (and over) the mapped `fields`. */
	qs?: IDataObject;
	body?: IDataObject;
	fields?: NodeFields;
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
	/** An address to read instead of the endpoint's path, such as a list's next link; same origin only. */
	url?: string;
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
const DEFAULT_PAGE_SIZE = 100;

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
	429: 'The service is limiting the request rate. Every request is tried again after the Retry-After the service asks for (up to 30 seconds, 3 attempts), writes included, since the service did nothing with them; lower "Requests in Parallel" or the number of items per execution, or use "Retry On Fail" (a write is sent again with the same Idempotency-Key).',
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

// The document is read once per base URL and kept this long; one that could not be read is tried
// again sooner, since a service may just have been down.
const CONTRACT_TTL_MS = 10 * 60_000;
const UNREADABLE_CONTRACT_TTL_MS = 60_000;
const DOCUMENT_TIMEOUT_MS = 15_000;
// A 404 or 405 on a route the document named suggests the document changed, unless it was just read.
const MIN_CONTRACT_AGE_FOR_REFRESH_MS = 1_000;

interface CachedContract {
	contract: Promise<Contract>;
	readAt: number;
	expires: number;
}

const contracts = new Map<string, CachedContract>();

async function readContract(this: RequestContext, baseUrl: string): Promise<{ contract: Contract; ttl: number }> {
	try {
		const document = await apiRequest.call(this, 'getOpenApiDocument', { timeoutMs: DOCUMENT_TIMEOUT_MS });
		if (isOpenApiDocument(document)) return { contract: resolveContract(document), ttl: CONTRACT_TTL_MS };
		return {
			contract: defaultContract(`${baseUrl}/v1/openapi.json is not an OpenAPI 3 document, so the node used its built-in conventions.`),
			ttl: UNREADABLE_CONTRACT_TTL_MS,
		};
	} catch (error) {
		const httpCode = error instanceof NodeApiError ? error.httpCode : undefined;
		const missing = httpCode === '404' || httpCode === '410';
		return {
			contract: defaultContract(
				missing
					? `The service has no OpenAPI document at /v1/openapi.json (HTTP ${httpCode}), so the node used its built-in conventions.`
					: `The service's OpenAPI document could not be read (${(error as Error).message}), so the node used its built-in conventions.`,
			),
			ttl: missing ? CONTRACT_TTL_MS : UNREADABLE_CONTRACT_TTL_MS,
		};
	}
}

/**
 * The service's contract, read from its OpenAPI document once per base URL and time to live,
 * shared by every item and execution in this n8n process.
 */
export async function loadContract(this: RequestContext, itemIndex?: number): Promise<Contract> {
	const { baseUrl } = await readCredentials.call(this, itemIndex);
	return await contractAt.call(this, baseUrl);
}

async function contractAt(this: RequestContext, baseUrl: string): Promise<Contract> {
	const cached = contracts.get(baseUrl);
	if (cached !== undefined && cached.expires > Date.now()) return await cached.contract;
	const entry: CachedContract = { contract: Promise.resolve(defaultContract()), readAt: Date.now(), expires: Infinity };
	// Concurrent items wait for the one read in flight instead of each starting their own.
	entry.contract = readContract.call(this, baseUrl).then(
		({ contract, ttl }) => {
			entry.expires = Date.now() + ttl;
			return contract;
		},
		(error: unknown) => {
			contracts.delete(baseUrl);
			throw error;
		},
	);
	contracts.set(baseUrl, entry);
	return await entry.contract;
}

/** Reads the document again on the next request, unless it was read moments ago. */
function refreshContract(baseUrl: string): boolean {
	const cached = contracts.get(baseUrl);
	if (cached === undefined || Date.now() - cached.readAt < MIN_CONTRACT_AGE_FOR_REFRESH_MS) return false;
	contracts.delete(baseUrl);
	return true;
}

// n8n gives every execution, list search, hook and delivery a context object of its own.
const credentialsOf = new WeakMap<RequestContext, Promise<Credentials>>();
/** Until when the service asked this execution to hold back (a 429's Retry-After). */
const rateLimitedUntil = new WeakMap<RequestContext, number>();

/**
 * The credential, read and decrypted once per context (an execution's items share it) instead
 * of once per request; a credential that fails is read again by the next item, which then gets
 * an error naming itself.
 */
async function readCredentials(this: RequestContext, itemIndex?: number): Promise<Credentials> {
	let credentials = credentialsOf.get(this);
	if (credentials === undefined) {
		credentials = readCredentialsOnce.call(this, itemIndex);
		credentialsOf.set(this, credentials);
		credentials.catch(() => credentialsOf.delete(this));
	}
	return await credentials;
}

async function readCredentialsOnce(this: RequestContext, itemIndex?: number): Promise<Credentials> {
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

function valueAt(record: unknown, path: string[]): unknown {
	let value = record;
	for (const key of path) value = isRecord(value) ? value[key] : undefined;
	return value;
}

function firstText(record: unknown, paths: string[][]): string | undefined {
	return paths.map((path) => valueAt(record, path)).find((value): value is string => typeof value === 'string' && value !== '');
}

/** The service's own message, code and details, where its error schema puts them. */
function describeErrorBody(body: unknown, errors: ErrorContract): { message?: string; code?: string; details?: string } {
	if (typeof body === 'string') return { message: body.slice(0, MAX_QUOTED_TEXT) };
	if (!isRecord(body)) return {};
	const message = firstText(body, errors.message);
	// A problem type (RFC 9457) is a URI; its last segment reads as a code.
	const code = firstText(body, errors.code)?.replace(/^[a-z][\w+.-]*:\/\/.*\/([^/]+)\/?$/i, '$1');
	const detailList = errors.details.map((path) => valueAt(body, path)).find(Array.isArray) ?? [];
	const details = (detailList as unknown[])
		.map((detail) =>
			isRecord(detail)
				? [firstText(detail, errors.detailField.map((key) => [key])), firstText(detail, errors.detailMessage.map((key) => [key]))]
						.filter(Boolean)
						.join(': ')
				: String(detail),
		)
		.filter((line) => line.length > 0)
		.join('; ');
	return { message, code, details: details || undefined };
}

function apiError(
	context: RequestContext,
	response: ApiResponse,
	{ apiKey, itemIndex, errors, notice }: SendSettings,
): NodeApiError {
	const { statusCode } = response;
	const parsed = parseJsonBody(response.body);
	// Before anything reads it: a body that echoes the request must not carry the key anywhere.
	const errorBody = redactValue(parsed.ok ? parsed.value : response.body, apiKey);
	const { message, code, details } = describeErrorBody(errorBody, errors);
	const retryAfter = headerValue(response.headers, 'retry-after');
	const description = [
		code ? `Error code: ${code}.` : undefined,
		details ? `Details: ${details}.` : undefined,
		statusCode === 429 && retryAfter ? `The service asks to retry after ${retryAfter} seconds.` : undefined,
		STATUS_HINTS[statusCode],
		// A request the service refuses may follow built-in conventions it does not share.
		[400, 404, 405, 415, 422].includes(statusCode) ? notice : undefined,
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
	// A hard deadline for the whole exchange, whatever the socket does, and the execution's cancel;
	// the helper's own `timeout` would only add a second timer per request that this one outruns.
	const deadline = AbortSignal.timeout(timeoutMs);
	const abortSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
	try {
		// The key read once per execution goes in here: httpRequestWithAuthentication would read and
		// decrypt the credential again for every request. n8n's request helper still sends it, with
		// n8n's proxy and TLS settings; the header is the one the credential's authenticate describes.
		return (await this.helpers.httpRequest({
			...options,
			headers: { ...options.headers, Authorization: `Bearer ${apiKey}` },
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
	errors: ErrorContract;
	/** A contract that could not be read is named in error hints. */
	notice?: string;
}

/**
 * The one function that talks to the service. It finds the endpoint in the service's contract,
 * reads the answer as text and parses it itself, so a page that is not JSON (a login page behind a
 * wrong base URL) fails clearly instead of flowing on as a string, and hands back the answer's
 * object out of the envelope the service wraps it in.
 */
export async function apiRequest(
	this: RequestContext,
	endpoint: EndpointName,
	options: ApiRequestOptions = {},
): Promise<unknown> {
	const credentials = await readCredentials.call(this, options.itemIndex);
	// The document itself is read by the built-in address.
	const contract = endpoint === 'getOpenApiDocument' ? defaultContract() : await contractAt.call(this, credentials.baseUrl);
	try {
		return await requestByContract.call(this, contract, endpoint, options, credentials);
	} catch (error) {
		const httpCode = error instanceof NodeApiError ? error.httpCode : undefined;
		const route = contract.endpoints[endpoint];
		// Not allowed, or no collection where the document put one: the service may have changed.
		const moved = httpCode === '405' || (httpCode === '404' && !route.path.includes('{id}'));
		if (!moved || endpoint === 'getOpenApiDocument' || !refreshContract(credentials.baseUrl)) throw asNodeError(this, error, options.itemIndex);
		const fresh = await contractAt.call(this, credentials.baseUrl);
		const freshRoute = fresh.endpoints[endpoint];
		if (freshRoute.method === route.method && freshRoute.path === route.path) throw asNodeError(this, error, options.itemIndex);
		return await requestByContract.call(this, fresh, endpoint, options, credentials);
	}
}

async function requestByContract(
	this: RequestContext,
	contract: Contract,
	endpoint: EndpointName,
	{ id, qs, body, fields, itemIndex, idempotencyKey, timeoutMs = DEFAULT_TIMEOUT_MS, signal, retryReads = true, url }: ApiRequestOptions,
	{ baseUrl, apiKey }: Credentials,
): Promise<unknown> {
	const route = contract.endpoints[endpoint];
	const { method } = route;
	const mapped = inServiceFields.call(this, contract, endpoint, fields, itemIndex);
	let requestBody = mapped.body === undefined && body === undefined ? undefined : { ...mapped.body, ...body };
	const query = { ...mapped.qs, ...qs };
	if (route.replaces && requestBody !== undefined) {
		// A PUT replaces the whole object: what the item does not change is sent back as it is.
		const current = await apiRequest.call(this, endpoint.replace(/^update/, 'get') as EndpointName, {
			id,
			itemIndex,
			timeoutMs,
			signal,
		});
		requestBody = { ...writableFields(route, current), ...requestBody };
	}
	// An endpoint's path always stays within the Base URL; an address the service handed over may not.
	const target = url ?? `${baseUrl}${endpointPath(endpoint, route.path, id)}`;
	if (url !== undefined && new URL(target).origin !== new URL(baseUrl).origin) {
		throw new NodeApiError(this.getNode(), { url: target }, {
			message: `The service pointed the node to ${new URL(target).origin}, which the node does not follow`,
			description: 'Only addresses within the origin of the credential\'s Base URL receive the API key.',
			itemIndex,
		});
	}
	const options: IHttpRequestOptions = {
		method,
		url: target,
		qs: Object.keys(query).length > 0 ? query : undefined,
		body: requestBody,
		headers: idempotencyKey && method === 'POST' ? { 'Idempotency-Key': idempotencyKey } : undefined,
		json: true,
		encoding: 'text',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// Redirects are followed below, and only within the Base URL's origin: the API key goes nowhere else.
		disableFollowRedirect: true,
	};

	const settings: SendSettings = { baseUrl, apiKey, itemIndex, timeoutMs, signal, errors: contract.errors, notice: contract.notice };
	// A rate limit is answered before anything is done, so a write may be sent again after one too.
	const retryable = (error: unknown) =>
		method === 'GET' ? retryReads && isTransient(error) : error instanceof NodeApiError && error.httpCode === '429';
	for (let attempt = 1; ; attempt++) {
		const pause = (rateLimitedUntil.get(this) ?? 0) - Date.now();
		if (pause > 0 && !(await sleepUnlessCancelled(pause, signal))) {
			throw new NodeOperationError(this.getNode(), 'The execution was cancelled while waiting for the service', { itemIndex });
		}
		try {
			const answer = await requestOnce.call(this, options, settings);
			return route.envelope !== undefined && isRecord(answer) && isRecord(answer[route.envelope])
				? answer[route.envelope]
				: answer;
		} catch (error) {
			const retryAfter = retryAfterMs(error) ?? 0;
			// Every request of this execution holds back for as long as the service asked.
			if (error instanceof NodeApiError && error.httpCode === '429') {
				rateLimitedUntil.set(this, Math.max(rateLimitedUntil.get(this) ?? 0, Date.now() + Math.min(retryAfter, MAX_RETRY_AFTER_MS)));
			}
			const retry = attempt < READ_ATTEMPTS && retryable(error) && retryAfter <= MAX_RETRY_AFTER_MS;
			const backoff = Math.max(retryAfter, RETRY_BACKOFF_MS * 2 ** (attempt - 1));
			if (!retry || !(await sleepUnlessCancelled(backoff, signal))) throw asNodeError(this, error, itemIndex);
		}
	}
}

/**
 * The node's fields in the service's names; a field the service has no place for fails the item
 * here. The router calls this for every item before sending anything, so such an item stops the
 * batch before anything is written.
 */
export function inServiceFields(
	this: RequestContext,
	contract: Contract,
	endpoint: EndpointName,
	fields: NodeFields | undefined,
	itemIndex?: number,
): { body?: IDataObject; qs?: IDataObject } {
	if (fields === undefined) return {};
	try {
		return {
			body: fields.body === undefined ? undefined : requestBody(contract, endpoint, fields.body, fields.optional),
			qs: fields.qs === undefined ? undefined : requestQuery(contract, endpoint, fields.qs),
		};
	} catch (error) {
		throw refusal.call(this, error, itemIndex);
	}
}

/** The chosen events as the service names them, checked against the events it lists. */
export function serviceEvents(this: RequestContext, webhooks: WebhookContract, events: string[], itemIndex?: number): string[] {
	try {
		return eventsToSend(webhooks, events);
	} catch (error) {
		throw refusal.call(this, error, itemIndex, 'Events');
	}
}

/** What the contract refused, as the node's error naming the parameter and the item it is about. */
function refusal(this: RequestContext, error: unknown, itemIndex?: number, parameter?: string): NodeApiError | NodeOperationError {
	if (!(error instanceof ContractFieldError)) return asNodeError(this, error, itemIndex);
	const item = itemIndex === undefined ? undefined : parameter ? `of item ${itemIndex}` : `Item ${itemIndex}`;
	const subject = [parameter && `"${parameter}"`, item].filter(Boolean).join(' ');
	return new NodeOperationError(this.getNode(), subject ? `${subject}: ${error.message}` : error.message, {
		itemIndex,
		description: error.description,
	});
}

/** The fields of an object that its replacing PUT takes. */
function writableFields(route: ResolvedEndpoint, current: unknown): IDataObject {
	if (!isRecord(current) || route.request === undefined) return {};
	return Object.fromEntries(
		Object.entries(current).filter(
			([name, value]) => route.request?.properties[name] !== undefined && route.request.properties[name].readOnly !== true && value !== null,
		),
	);
}

/** What n8n's prepareBinaryData takes: a buffer or, here, a stream. */
type BinarySource = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/**
 * Streams a file the service's answer names, such as a finished video. The API key goes along
 * only to the Base URL's origin (and redirects are not followed there); media elsewhere, such as
 * on a CDN, is fetched without it. Only the start of the answer has a time limit: a large file
 * may take as long as it takes, and the execution's cancel stops it.
 */
export async function downloadFile(
	this: IExecuteFunctions,
	url: string,
	itemIndex: number,
): Promise<{ body: BinarySource; mimeType?: string; fileName?: string }> {
	const { baseUrl, apiKey } = await readCredentials.call(this, itemIndex);
	let target: URL;
	try {
		target = new URL(url);
	} catch {
		throw new NodeOperationError(this.getNode(), `Item ${itemIndex}: the media address "${url.slice(0, 200)}" is not a URL`, { itemIndex });
	}
	const sameOrigin = target.origin === new URL(baseUrl).origin;
	try {
		const response = (await this.helpers.httpRequest({
			method: 'GET',
			url: target.toString(),
			headers: sameOrigin ? { Authorization: `Bearer ${apiKey}` } : {},
			encoding: 'stream',
			returnFullResponse: true,
			disableFollowRedirect: sameOrigin,
			timeout: DEFAULT_TIMEOUT_MS,
			abortSignal: this.getExecutionCancelSignal(),
		})) as { body: BinarySource; headers: Record<string, string | undefined> };
		const mimeType = response.headers['content-type']?.split(';')[0].trim() || undefined;
		const fileName = decodeURIComponent(target.pathname.split('/').pop() ?? '') || undefined;
		return { body: response.body, mimeType, fileName };
	} catch (error) {
		const reason = redact(String((error as Error).message ?? ''), apiKey);
		throw new NodeApiError(this.getNode(), { message: reason }, {
			message: `Could not download the media at ${target.origin}${target.pathname}`,
			description: reason,
			itemIndex,
		});
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
		throw apiError(this, response, settings);
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

/** Where a list's next page is: a cursor, a page number, an offset or an address. */
export type PageToken = { cursor: string } | { page: number } | { offset: number } | { url: string };

export interface ListPage {
	items: IDataObject[];
	next?: PageToken;
	/** How many items the whole list has, when the service says. */
	total?: number;
}

/** Reads a list answer of a service that does not describe its lists: the usual envelopes and cursors. */
function readUndocumentedPage(body: unknown): ListPage {
	if (Array.isArray(body)) return { items: body as IDataObject[] };
	if (!isRecord(body)) return { items: [] };
	const items = [body.data, body.items, body.results].find(Array.isArray) as IDataObject[] | undefined;
	const meta = (body.meta ?? body.pagination ?? {}) as IDataObject;
	const cursor = [body.next_cursor, body.nextCursor, meta.next_cursor, meta.nextCursor].find(
		(value) => typeof value === 'string' && value.length > 0,
	) as string | undefined;
	return { items: items ?? [], next: cursor === undefined ? undefined : { cursor } };
}

/** Reads one page of a list answer as the service's document describes it. */
function readPage(route: ResolvedEndpoint, body: unknown, requested: PageToken | undefined): ListPage {
	if (!route.documented) return readUndocumentedPage(body);
	const found = Array.isArray(body) ? body : route.items !== undefined && isRecord(body) ? body[route.items] : undefined;
	const items = (Array.isArray(found) ? found : []) as IDataObject[];
	const { paging } = route;
	const text = (path: string[] | undefined) => {
		const value = path === undefined ? undefined : valueAt(body, path);
		return typeof value === 'string' && value !== '' ? value : undefined;
	};
	const count = (path: string[] | undefined) => {
		const value = Number(path === undefined ? undefined : valueAt(body, path));
		return Number.isFinite(value) && path !== undefined ? value : undefined;
	};
	switch (paging.style) {
		case 'cursor': {
			const cursor = text(paging.next);
			return { items, next: cursor === undefined ? undefined : { cursor } };
		}
		case 'link': {
			const url = text(paging.next);
			return { items, next: url === undefined ? undefined : { url } };
		}
		case 'page': {
			const page = requested !== undefined && 'page' in requested ? requested.page : paging.first;
			return { items, next: { page: page + 1 }, total: count(paging.total) };
		}
		case 'offset': {
			const offset = requested !== undefined && 'offset' in requested ? requested.offset : 0;
			return { items, next: { offset: offset + items.length }, total: count(paging.total) };
		}
		default:
			return { items };
	}
}

/** The query that asks for one page, in the paging style the service documents. */
function pageQuery(paging: Paging, next: PageToken | undefined, pageSize: number): IDataObject {
	const query: IDataObject = {};
	if (paging.style === 'none') return query;
	if (paging.size !== undefined) query[paging.size] = Math.min(pageSize, paging.max);
	if (paging.style === 'cursor' && next !== undefined && 'cursor' in next) query[paging.cursor] = next.cursor;
	if (paging.style === 'page') query[paging.page] = next !== undefined && 'page' in next ? next.page : paging.first;
	if (paging.style === 'offset') query[paging.offset] = next !== undefined && 'offset' in next ? next.offset : 0;
	return query;
}

/** How a list is read: its filters (node's names), extra query, page size, item and request settings. */
interface ListOptions extends Pick<ApiRequestOptions, 'itemIndex' | 'timeoutMs' | 'signal'> {
	filters?: IDataObject;
	qs?: IDataObject;
}

/** Fetches one page of a list endpoint; `next` is the token of an earlier page, none for the first. */
export async function apiRequestPage(
	this: RequestContext,
	endpoint: EndpointName,
	{ filters, qs = {}, next, pageSize, ...request }: ListOptions & { next?: PageToken; pageSize: number },
): Promise<ListPage> {
	const contract = await loadContract.call(this, request.itemIndex);
	const route = contract.endpoints[endpoint];
	if (next !== undefined && 'url' in next) {
		// A next link names the whole address, query included; it is read only within the Base URL's origin.
		const { baseUrl } = await readCredentials.call(this, request.itemIndex);
		const url = new URL(next.url, `${baseUrl}${route.path}`).toString();
		return readPage(route, await apiRequest.call(this, endpoint, { url, ...request }), next);
	}
	const query = { ...pageQuery(route.paging, next, pageSize), ...qs };
	return readPage(route, await apiRequest.call(this, endpoint, { qs: query, fields: { qs: filters }, ...request }), next);
}

/** Reads pages until `limit` items were read (all of them when no limit is given). */
export async function apiRequestAllItems(
	this: RequestContext,
	endpoint: EndpointName,
	{ filters, qs = {}, limit, ...request }: ListOptions & { limit?: number },
): Promise<IDataObject[]> {
	const collected: IDataObject[] = [];
	const seenTokens = new Set<string>();
	const seenIds = new Set<string | number>();
	const { paging } = (await loadContract.call(this, request.itemIndex)).endpoints[endpoint];
	let read = 0;
	let next: PageToken | undefined;
	do {
		// Only what is missing, except by page number: page numbers add up only when pages keep one size.
		const remaining = limit === undefined ? DEFAULT_PAGE_SIZE : limit - collected.length;
		const pageSize = paging.style === 'page' ? Math.min(limit ?? DEFAULT_PAGE_SIZE, DEFAULT_PAGE_SIZE) : remaining;
		const page = await apiRequestPage.call(this, endpoint, { filters, qs, next, pageSize, ...request });
		read += page.items.length;
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
		const token = page.next === undefined ? undefined : JSON.stringify(page.next);
		// The end: no next page, an empty page, the total reached, or a token given before (a loop).
		if (token === undefined || page.items.length === 0 || (page.total !== undefined && read >= page.total) || seenTokens.has(token)) break;
		seenTokens.add(token);
		next = page.next;
	} while (limit === undefined || collected.length < limit);
	return limit === undefined ? collected : collected.slice(0, limit);
}
