import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { MAX_QUOTED_TEXT } from '../executor/answers';
import { outsideBase } from '../origin';
import { headerValue, type Headers } from '../profile/pointer';
import { redact, type RequestContext } from './credentials';
import { cancelledError, failureDetails, type ServiceAnswer } from './errors';

/**
 * One exchange through n8n's request helper (its proxy and TLS settings apply): a hard deadline and
 * the execution's cancel around it, redirects only within the Base URL's origin, and the answer
 * read up to a size limit, so a service that sends without end holds neither memory nor execution.
 */

interface ExchangeSettings {
	baseUrl: string;
	apiKey: string;
	itemIndex?: number;
	/** How long one attempt may take, whatever the socket does. */
	timeoutMs: number;
	/** The execution's cancel: a cancelled execution abandons the request at once. */
	signal?: AbortSignal;
	maxBytes: number;
}

export const MAX_REDIRECTS = 5;
export const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/** An answer's body: n8n's request helper hands over a stream for `encoding: 'stream'`. */
export type BodyStream = Exclude<
	Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0],
	Buffer
>;

class AnswerTooLarge extends Error {}

/**
 * Reads an answer's body up to `maxBytes`; more stops the reading and fails. Decoded chunk by chunk
 * as it arrives and joined at the end (one copy): decoding a large answer at once is one long turn,
 * and pieces added one to another leave a string the parser's first look flattens in one turn.
 */
async function readText(body: BodyStream, maxBytes: number): Promise<string> {
	const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
	const pieces: string[] = [];
	let size = 0;
	for await (const chunk of body) {
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		size += bytes.length;
		if (size > maxBytes) {
			body.destroy();
			throw new AnswerTooLarge();
		}
		pieces.push(decoder.decode(bytes, { stream: true }));
	}
	pieces.push(decoder.decode());
	return pieces.join('');
}

/** Sends one request with the key; a failure to reach the service becomes a clear, transient error. */
async function sendOnce(
	this: RequestContext,
	options: IHttpRequestOptions,
	settings: ExchangeSettings,
): Promise<ServiceAnswer> {
	const { baseUrl, apiKey, itemIndex, timeoutMs, signal, maxBytes } = settings;
	// The last check before the key leaves: whatever built the address, it is the Base URL's origin.
	const outside = outsideBase(baseUrl, String(options.url), false);
	if (outside !== undefined)
		throw new NodeApiError(
			this.getNode(),
			{ method: options.method ?? 'GET' },
			{
				message: `The node does not send a request outside the credential's Base URL: ${outside}`,
				description:
					"Only addresses at the origin of the credential's Base URL receive the API key. Service → Describe shows the profile in use.",
				itemIndex,
			},
		);
	// A hard deadline for the whole exchange, body included, and the execution's cancel.
	const deadline = AbortSignal.timeout(timeoutMs);
	const abortSignal = signal ? AbortSignal.any([signal, deadline]) : deadline;
	try {
		// The key read once per execution, in the header the credential's `authenticate` describes:
		// httpRequestWithAuthentication would decrypt the credential again for every request.
		const response = (await this.helpers.httpRequest({
			...options,
			headers: {
				Accept: 'application/json',
				...options.headers,
				Authorization: `Bearer ${apiKey}`,
			},
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			abortSignal,
		})) as { statusCode: number; headers: Headers; body: BodyStream };
		const text = await readText(response.body, maxBytes);
		return { statusCode: response.statusCode, headers: response.headers ?? {}, text };
	} catch (error) {
		if (signal?.aborted) throw cancelledError(this, itemIndex);
		if (error instanceof AnswerTooLarge)
			throw new NodeApiError(
				this.getNode(),
				{ message: 'answer too large' },
				{
					message: `The service answered with more than ${Math.round(maxBytes / 1048576)} MB`,
					description:
						'The node reads at most this much of one answer. Narrow the request (a smaller Limit, filters), or check that the Base URL points at the API.',
					itemIndex,
				},
			);
		// n8n hands network failures on as a NodeApiError whose messages keep the system error
		// (such as "connect ECONNREFUSED 127.0.0.1:443"); only its code and wording travel on.
		const details = failureDetails(error);
		const { message } = error as { message?: string };
		const timedOut =
			deadline.aborted || /\b(ETIMEDOUT|ECONNABORTED)\b|timeout of \d+ms exceeded/.test(details);
		const code = /\b(E[A-Z_]{3,})\b/.exec(details)?.[1];
		// The code stays out of the message and error body: n8n would swap both for a generic text.
		const failure = new NodeApiError(
			this.getNode(),
			{ message: redact(String(message ?? 'Request failed'), apiKey) },
			{
				message: timedOut
					? `The service at ${baseUrl} did not answer within ${timeoutMs / 1000} seconds`
					: `Could not reach the service at ${baseUrl}`,
				description: timedOut
					? 'Raise "Timeout" under Request Options if the service is slow, or check that it is up.'
					: `${code ? `${code}: ` : ''}${redact(String(message ?? ''), apiKey)} Check the credential's Base URL and that the service is reachable from n8n.`,
				itemIndex,
			},
		);
		failure.context.transient = true;
		failure.context.unanswered = true;
		throw failure;
	}
}

/** Where a redirect points, or undefined where it names no readable address. */
export function redirectTarget(headers: Headers, from: URL | string): URL | undefined {
	const location = headerValue(headers, 'location');
	return location && URL.canParse(location, String(from)) ? new URL(location, from) : undefined;
}

/**
 * One request and the redirects the node follows: only within the origin of the Base URL (the key
 * goes nowhere else), and for writes only those that keep the method (307, 308).
 */
export async function exchange(
	this: RequestContext,
	options: IHttpRequestOptions,
	settings: ExchangeSettings,
): Promise<ServiceAnswer> {
	let request = options;
	for (let redirects = 0; ; redirects++) {
		const answer = await sendOnce.call(this, request, settings);
		if (!REDIRECT_STATUSES.includes(answer.statusCode)) return answer;
		const target = redirectTarget(answer.headers, String(request.url));
		const followable =
			target !== undefined &&
			target.origin === new URL(settings.baseUrl).origin &&
			(answer.statusCode === 307 || answer.statusCode === 308 || options.method === 'GET');
		if (!followable || redirects === MAX_REDIRECTS)
			throw new NodeApiError(
				this.getNode(),
				{ status: answer.statusCode },
				{
					message:
						redirects === MAX_REDIRECTS
							? `The service redirected more than ${MAX_REDIRECTS} times`
							: `The service redirected the request to ${target ? target.origin : 'an unreadable address'}, which the node does not follow`,
					description:
						"Redirects are followed only within the origin of the credential's Base URL (and, for writes, only when they keep the method), so the API key and the request are never sent anywhere else. Set the Base URL to the address the API answers at.",
					httpCode: String(answer.statusCode),
					itemIndex: settings.itemIndex,
				},
			);
		// The Location names the whole address, query included.
		request = { ...options, url: target.toString(), qs: undefined };
	}
}

/** An answer that is not JSON, as the error that says so (a login page behind a wrong Base URL). */
export function notJsonError(
	context: RequestContext,
	answer: ServiceAnswer,
	apiKey: string,
	itemIndex?: number,
): NodeApiError {
	const contentType = headerValue(answer.headers, 'content-type') || 'an unknown type';
	return new NodeApiError(
		context.getNode(),
		{ body: redact(answer.text, apiKey).slice(0, MAX_QUOTED_TEXT) },
		{
			message: `The service answered with ${contentType.split(';')[0]} instead of JSON`,
			description:
				"Check the credential's Base URL: it must be the API's address (the one that serves /v1/me), not a web page such as a login screen.",
			httpCode: String(answer.statusCode),
			itemIndex,
		},
	);
}
