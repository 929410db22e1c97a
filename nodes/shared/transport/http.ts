import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { headerValue, MAX_QUOTED_TEXT, type Headers } from '../http-values';
import { JsonLimitError, parseJson, type JsonLimits } from '../json';
import { outsideBase } from '../origin';
import { whenCancelled } from '../sleep';
import { redact, type RequestContext } from './credentials';
import { cancelledError, failureDetails, type ServiceAnswer } from './errors';

/**
 * One exchange through n8n's request helper (its proxy and TLS settings apply): a hard deadline and
 * the execution's cancel around it, redirects only within the Base URL's origin, and the answer
 * read up to a size limit, so a service that sends without end holds neither memory nor execution.
 */

export interface ExchangeSettings {
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
const NARROW_IT =
	'Narrow the request (a smaller Limit, filters), or check that the Base URL points at the API.';

// One decoder for answers that arrive in one piece, most of them: decoding without `stream` keeps no state.
const WHOLE = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Reads an answer's body up to `maxBytes`; more stops the reading and fails. Decoded chunk by chunk
 * as it arrives and joined at the end (one copy): decoding a large answer at once is one long turn,
 * and pieces added one to another leave a string the parser's first look flattens in one turn.
 * Read by its events, not an async iterator, which costs a small answer more than its reading.
 */
async function readText(body: BodyStream, maxBytes: number): Promise<string> {
	return await new Promise<string>((resolve, reject) => {
		let decoder: InstanceType<typeof TextDecoder> | undefined;
		let first: Buffer | undefined;
		const pieces: string[] = [];
		let size = 0;
		let ended = false;
		body.on('data', (chunk: Buffer | string) => {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			size += bytes.length;
			if (size > maxBytes) {
				ended = true;
				body.destroy();
				reject(new AnswerTooLarge());
				return;
			}
			if (first === undefined && decoder === undefined) {
				first = bytes;
				return;
			}
			decoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
			if (first !== undefined) pieces.push(decoder.decode(first, { stream: true }));
			first = undefined;
			pieces.push(decoder.decode(bytes, { stream: true }));
		});
		body.once('end', () => {
			ended = true;
			if (decoder === undefined) resolve(first === undefined ? '' : WHOLE.decode(first));
			else resolve([...pieces, decoder.decode()].join(''));
		});
		body.once('error', (error) => {
			ended = true;
			reject(error);
		});
		body.once('close', () => {
			// As the stream's own reading says it: the answer was cut off.
			if (!ended)
				reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
		});
	});
}

/**
 * What ends one exchange: its deadline and the execution's cancel. AbortSignal.timeout and
 * AbortSignal.any, or even an AbortController, for every request cost more than the rest of the
 * node's own work on it, so the requests of an execution that start within a moment of each other
 * share one timer (each gets its Timeout and at most 1% more, at most a second) and a controller
 * (up to MAX_SHARING under way at once), and one listener on the execution's cancel aborts them all.
 */
interface Shared {
	controller: AbortController;
	underWay: number;
}
interface SharedDeadline {
	timeoutMs: number;
	/** Requests that start by then share it. */
	joinBy: number;
	signal: AbortSignal;
	controllers: Set<AbortController>;
	/** Every controller in use under the execution's cancel, of this deadline or an earlier one. */
	inUse: Set<AbortController>;
	/** The controller new requests of this deadline join. */
	open?: Shared;
}

const MAX_DEADLINE_SLACK_MS = 1000;
// n8n's request helper listens on the signal while a request is under way; Node warns past 10.
const MAX_SHARING = 8;
const NOT_CANCELLABLE = new AbortController().signal;
// The newest deadline, by the execution's cancel signal.
const deadlines = new WeakMap<AbortSignal, SharedDeadline>();

function abortAll(controllers: Set<AbortController>, reason: unknown): void {
	for (const controller of controllers) controller.abort(reason);
}

function abortedOnCancel(cancel: AbortSignal): Set<AbortController> {
	const controllers = new Set<AbortController>();
	whenCancelled(cancel, () => abortAll(controllers, cancel.reason));
	return controllers;
}

function letGo(deadline: SharedDeadline, { controller }: Shared): void {
	deadline.controllers.delete(controller);
	deadline.inUse.delete(controller);
}

// A controller no request uses any more, and none will join, is let go.
function close(deadline: SharedDeadline): void {
	const { open } = deadline;
	deadline.open = undefined;
	if (open?.underWay === 0) letGo(deadline, open);
}

function watch(
	timeoutMs: number,
	cancel = NOT_CANCELLABLE,
): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
	const now = Date.now();
	const previous = deadlines.get(cancel);
	let deadline = previous;
	if (
		deadline === undefined ||
		deadline.timeoutMs !== timeoutMs ||
		now > deadline.joinBy ||
		deadline.signal.aborted
	) {
		const inUse = previous?.inUse ?? abortedOnCancel(cancel);
		if (previous !== undefined) close(previous);
		const slack = Math.min(Math.ceil(timeoutMs / 100), MAX_DEADLINE_SLACK_MS);
		const signal = AbortSignal.timeout(timeoutMs + slack);
		const controllers = new Set<AbortController>();
		signal.addEventListener('abort', () => abortAll(controllers, signal.reason), { once: true });
		deadline = { timeoutMs, joinBy: now + slack, signal, controllers, inUse };
		deadlines.set(cancel, deadline);
	}
	if (
		deadline.open === undefined ||
		deadline.open.underWay >= MAX_SHARING ||
		deadline.open.controller.signal.aborted
	) {
		close(deadline);
		const controller = new AbortController();
		if (cancel.aborted) controller.abort(cancel.reason);
		deadline.controllers.add(controller);
		deadline.inUse.add(controller);
		deadline.open = { controller, underWay: 0 };
	}
	const shared = deadline.open;
	const ofDeadline = deadline;
	shared.underWay++;
	return {
		signal: shared.controller.signal,
		timedOut: () => ofDeadline.signal.aborted,
		done: () => {
			shared.underWay--;
			if (shared.underWay === 0 && ofDeadline.open !== shared) letGo(ofDeadline, shared);
		},
	};
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
	const ending = watch(timeoutMs, signal);
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
			abortSignal: ending.signal,
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
					description: `The node reads at most this much of one answer. ${NARROW_IT}`,
					itemIndex,
				},
			);
		// n8n hands network failures on as a NodeApiError whose messages keep the system error
		// (such as "connect ECONNREFUSED 127.0.0.1:443"); only its code and wording travel on.
		const details = failureDetails(error);
		const { message } = error as { message?: string };
		const timedOut =
			ending.timedOut() || /\b(ETIMEDOUT|ECONNABORTED)\b|timeout of \d+ms exceeded/.test(details);
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
	} finally {
		ending.done();
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

/**
 * An answer's body parsed within `limits`, or undefined for an empty one. One too large to read, or
 * not JSON (a login page behind a wrong Base URL), fails saying so.
 */
export async function parseAnswer(
	this: RequestContext,
	answer: ServiceAnswer,
	limits: JsonLimits,
	apiKey: string,
	itemIndex?: number,
): Promise<unknown> {
	if (answer.text.trim() === '') return undefined;
	try {
		return await parseJson(answer.text, limits);
	} catch (error) {
		if (error instanceof JsonLimitError)
			throw new NodeApiError(
				this.getNode(),
				{ message: error.message },
				{
					message: `The service's answer is too large to read: ${error.message}`,
					description: NARROW_IT,
					itemIndex,
				},
			);
		const contentType = headerValue(answer.headers, 'content-type') || 'an unknown type';
		throw new NodeApiError(
			this.getNode(),
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
}
