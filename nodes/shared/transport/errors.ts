import type { JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { headerValue, MAX_QUOTED_TEXT, type Headers } from '../http-values';
import { redactValue, type RequestContext } from './credentials';

/** The service's refusals as n8n errors: its message first, its code, details and a hint after. */

/** An answer as read off the wire: what an exchange yields and a refusal is built from. */
export interface ServiceAnswer {
	statusCode: number;
	headers: Headers;
	text: string;
}

const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

// What each status means here; the 429 hint depends on whether writes can be sent again safely.
const RATE_LIMITED =
	'The service is limiting the request rate. The node slows down and tries again after the Retry-After the service asks for, within the Timeout; lower "Requests in Parallel"';
const STATUS_HINTS: Partial<Record<number, string>> = {
	401: 'The service did not accept the API key. Check the key in the credential: it may be wrong or revoked, or the account may not be approved for API access yet.',
	403: 'The service refused this request for this API key. The key may lack a permission this needs, the account may not be approved for API access yet, or (on some services) the key itself may be wrong.',
	404: "Nothing exists at this address. Check the ID (it may have been deleted) and the credential's Base URL.",
	412: 'The resource changed after the node read it, so its precondition (If-Match) no longer holds and nothing was changed. Run the item again to update the current version.',
	428: 'The service requires a precondition on this request, such as If-Match with the ETag the resource was read with. Set the operation\'s "precondition" in the credential\'s Profile Overrides: {"operations": {"updatePost": {"precondition": {"header": "if-match", "from": "/headers/etag"}}}} (docs/service.md).',
	429: `${RATE_LIMITED} or the number of items per execution if this persists.`,
};
const IDEMPOTENT_429_HINT = `${RATE_LIMITED} if this persists. "Retry On Fail" is safe here: the service recognises a write sent again by its Idempotency-Key.`;

/** The error as n8n shows it: the node's own errors pass through, anything else is wrapped. */
export function asNodeError(
	context: RequestContext,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

export function cancelledError(context: RequestContext, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		'The execution was cancelled while waiting for the service',
		{ itemIndex },
	);
}

/** What a request helper's or network failure says: its system code (`ECONNREFUSED`) and messages. */
export function failureDetails(error: unknown): string {
	const { code, message, messages } = error as {
		code?: string;
		message?: string;
		messages?: string[];
	};
	return [code, message, ...(messages ?? [])].filter(Boolean).join(' ');
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

/** `Retry-After` in seconds: a number of seconds, or an HTTP date. */
function retryAfterSeconds(value: string): number | undefined {
	if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim());
	const date = Date.parse(value);
	return Number.isFinite(date) ? Math.max(0, Math.ceil((date - Date.now()) / 1000)) : undefined;
}

export interface ErrorSettings {
	apiKey: string;
	itemIndex?: number;
	/** The service's message, code and details in a refusal's body, as the profile reads them. */
	describe?: (body: unknown) => { message?: string; code?: string; details?: string };
	/** Why the built-in conventions stand in, named in hints on refusals they may explain. */
	notice?: string;
	idempotent: boolean;
}

/** A refusal (4xx/5xx) as the n8n error that tells what the service said. */
export function serviceError(
	context: RequestContext,
	answer: ServiceAnswer,
	body: unknown,
	settings: ErrorSettings,
): NodeApiError {
	const { statusCode } = answer;
	// Before anything reads it: a body that echoes the request must not carry the key anywhere.
	const errorBody = redactValue(body === undefined ? answer.text : body, settings.apiKey);
	const { message, code, details } = settings.describe?.(errorBody) ?? {};
	const retryAfter = headerValue(answer.headers, 'retry-after');
	const description = [
		code ? `Error code: ${code}.` : undefined,
		details ? `Details: ${details}.` : undefined,
		statusCode === 429 && retryAfter
			? `The service asks to retry after ${retryAfter} seconds.`
			: undefined,
		statusCode === 429 && settings.idempotent ? IDEMPOTENT_429_HINT : STATUS_HINTS[statusCode],
		// A refusal that is not JSON is rarely the API's own: another web app may answer at the Base URL.
		body === undefined && answer.text.trim() !== '' && statusCode < 500
			? "The answer was not JSON, so it may not come from this API at all: check that the credential's Base URL is the API's address (the one that serves /v1/me), not another web app's."
			: undefined,
		// A request the service refuses may follow built-in conventions it does not share.
		[400, 404, 405, 415, 422].includes(statusCode) ? settings.notice : undefined,
	]
		.filter(Boolean)
		.join(' ');
	const errorResponse: JsonObject =
		typeof errorBody === 'object' && errorBody !== null && !Array.isArray(errorBody)
			? (errorBody as JsonObject)
			: { body: String(errorBody ?? '').slice(0, MAX_QUOTED_TEXT) };
	const error = new NodeApiError(context.getNode(), errorResponse, {
		message: message ?? `The service answered with HTTP ${statusCode}`,
		description: description || undefined,
		httpCode: String(statusCode),
		itemIndex: settings.itemIndex,
	});
	const seconds = retryAfter ? retryAfterSeconds(retryAfter) : undefined;
	if (seconds !== undefined) error.context.retryAfterSeconds = seconds;
	if (TRANSIENT_STATUSES.has(statusCode)) error.context.transient = true;
	return error;
}
