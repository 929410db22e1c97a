import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { headerValue, type Headers } from '../profile/pointer';
import { readCredentials, redact } from './credentials';
import { isListedHost, nonPublicReason, type HostRule } from './hosts';

/** Where media are downloaded: an execution, or the webhook that resumes a waiting one. */
export type MediaContext = IExecuteFunctions | IWebhookFunctions;

/** What n8n's prepareBinaryData takes: a buffer or, here, a stream. */
export type BinarySource = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];
type BodyStream = Exclude<BinarySource, Buffer>;

/** The bounds of an item's downloads. */
export interface DownloadLimits {
	/** Hosts the user allows besides the Base URL's origin and public hosts ("Allowed Media Hosts"). */
	allowedHosts: HostRule[];
	/** Most bytes of one file ("Max Media Size"). */
	maxBytes: number;
	/** Longest time without a byte, headers included (the node's Timeout). */
	idleMs: number;
	/** Ends all of the item's downloads ("Max Download Time"), and how long that is. */
	deadline: AbortSignal;
	deadlineSeconds: number;
}

/** One file as the server answered, its body bounded by the limits; read it once, whole. */
export interface MediaAnswer {
	body: BinarySource;
	contentType?: string;
	/** The address the job named, and where the file came from after redirects. */
	address: URL;
	final: URL;
}

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
// How often the idle watch looks at the stream: an idle download ends at most this much after Timeout.
const IDLE_CHECK_MS = 1000;
// n8n's request helper has a socket timeout of its own; it is set beyond the idle watch so that the
// watch, which names the reason, always speaks first.
const SOCKET_TIMEOUT_SLACK_MS = 2 * IDLE_CHECK_MS;

/**
 * Watches a download for silence: aborts when no byte (and, before them, no headers) has come for
 * `idleMs`. Community nodes may not use setTimeout, so it sleeps in short slices with n8n's
 * `sleep`; a stopped watch leaves at most one slice behind.
 */
function idleWatch(idleMs: number) {
	const controller = new AbortController();
	let last = Date.now();
	let stopped = false;
	const slice = Math.min(IDLE_CHECK_MS, idleMs / 4);
	const watch = async () => {
		while (!stopped) {
			await sleep(slice);
			if (!stopped && Date.now() - last >= idleMs) return controller.abort();
		}
	};
	void watch();
	return {
		signal: controller.signal,
		touch: () => {
			last = Date.now();
		},
		stop: () => {
			stopped = true;
		},
	};
}

/** An address as it appears in messages: no query (signed addresses carry tokens there), cut short. */
function shown(url: URL): string {
	return `${url.origin}${url.pathname}`.slice(0, 200);
}

function destroy(body: unknown): void {
	if (
		body !== null &&
		typeof body === 'object' &&
		'destroy' in body &&
		typeof body.destroy === 'function'
	)
		body.destroy();
}

/**
 * Streams a file the service's answer names, such as a finished video, into `store` (which hands
 * it to n8n's binary storage), within bounds:
 * - only from the Base URL's origin, the hosts the user lists, or hosts that are public as written
 *   (no loopback, private, link-local or metadata address in any spelling), checked again on every
 *   redirect, which the node follows itself, at most 5;
 * - the API key only while every address so far is on the Base URL's origin;
 * - at most `maxBytes`, with no silence longer than `idleMs`, before the item's deadline, and
 *   stopped by the execution's cancel. A bound that ends a download destroys the stream, so `store`
 *   fails and no half file becomes the item's binary.
 */
export async function downloadFile(
	this: MediaContext,
	address: string,
	itemIndex: number,
	limits: DownloadLimits,
	store: (answer: MediaAnswer) => Promise<IBinaryData>,
): Promise<IBinaryData> {
	const { baseUrl, apiKey } = await readCredentials.call(this, itemIndex);
	const baseOrigin = new URL(baseUrl).origin;
	let first: URL;
	try {
		first = new URL(address);
	} catch {
		throw new NodeOperationError(
			this.getNode(),
			`Item ${itemIndex}: the media address "${address.slice(0, 200)}" is not a URL`,
			{ itemIndex },
		);
	}
	// A webhook resuming a waiting execution has no cancel of its own.
	const cancel = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const idle = idleWatch(limits.idleMs);
	const signal = AbortSignal.any([limits.deadline, idle.signal, ...(cancel ? [cancel] : [])]);
	let tooLarge = false;

	/** The bound that ended the download, as the error that names it; undefined if none did. */
	const boundError = (url: URL): NodeOperationError | undefined => {
		if (cancel?.aborted)
			return new NodeOperationError(
				this.getNode(),
				`The execution was cancelled while downloading the media of item ${itemIndex}`,
				{ itemIndex },
			);
		if (tooLarge) return sizeError(this, url, limits, itemIndex);
		if (limits.deadline.aborted) {
			return new NodeOperationError(
				this.getNode(),
				`The media of item ${itemIndex} did not arrive within "Max Download Time" (${limits.deadlineSeconds} seconds)`,
				{
					itemIndex,
					description: `The download of ${shown(url)} was stopped. "Max Download Time" under Media Options bounds all of an item's downloads together; raise it for large files on a slow connection.`,
				},
			);
		}
		if (idle.signal.aborted) {
			return new NodeOperationError(
				this.getNode(),
				`The media at ${shown(url)} sent nothing for ${limits.idleMs / 1000} seconds`,
				{
					itemIndex,
					description:
						'A download may go without data for at most "Timeout" under Request Options; raise it if the media server is slow to start or pauses.',
				},
			);
		}
		return undefined;
	};
	const failed = (url: URL, error: unknown): NodeOperationError | NodeApiError => {
		const bound = boundError(url);
		if (bound) return bound;
		// A refusal of the file itself (its type, by `store`) is the caller's own error.
		if (error instanceof NodeOperationError) return error;
		const reason = error as { message?: string; messages?: string[]; code?: string };
		const details = redact(
			[reason.code, reason.message, ...(reason.messages ?? [])].filter(Boolean).join(' '),
			apiKey,
		);
		return new NodeApiError(
			this.getNode(),
			{ message: details },
			{ message: `Could not download the media at ${shown(url)}`, description: details, itemIndex },
		);
	};

	try {
		let url = first;
		// The key goes along only while the addresses stay on the Base URL's origin.
		let keyed = true;
		for (let redirects = 0; ; redirects++) {
			refuseUnlessAllowed(this, url, baseOrigin, limits.allowedHosts, itemIndex, redirects > 0);
			keyed &&= url.origin === baseOrigin;
			let response: { statusCode: number; headers: Headers; body: unknown };
			try {
				response = (await this.helpers.httpRequest({
					method: 'GET',
					url: url.toString(),
					headers: keyed ? { Authorization: `Bearer ${apiKey}` } : {},
					encoding: 'stream',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
					timeout: limits.idleMs + SOCKET_TIMEOUT_SLACK_MS,
					abortSignal: signal,
				})) as { statusCode: number; headers: Headers; body: unknown };
			} catch (error) {
				throw failed(url, error);
			}
			idle.touch();
			if (REDIRECT_STATUSES.includes(response.statusCode)) {
				destroy(response.body);
				const next = redirectTarget(response.headers, url);
				if (next === undefined || redirects === MAX_REDIRECTS) {
					throw new NodeApiError(
						this.getNode(),
						{ status: response.statusCode },
						{
							message:
								next === undefined
									? `The media at ${shown(url)} redirected to an address that cannot be read`
									: `The media at ${shown(first)} redirected more than ${MAX_REDIRECTS} times`,
							itemIndex,
						},
					);
				}
				url = next;
				continue;
			}
			if (response.statusCode < 200 || response.statusCode >= 300) {
				destroy(response.body);
				throw new NodeApiError(
					this.getNode(),
					{ status: response.statusCode },
					{
						message: `The media server answered ${response.statusCode} for ${shown(url)}`,
						description:
							"The file could not be downloaded. Check that the job's media are still available (signed addresses expire).",
						itemIndex,
					},
				);
			}
			// A file known to be too large is refused before a byte of it is read.
			const declared = Buffer.isBuffer(response.body)
				? response.body.length
				: Number(headerValue(response.headers, 'content-length'));
			if (Number.isFinite(declared) && declared > limits.maxBytes) {
				destroy(response.body);
				throw sizeError(this, url, limits, itemIndex);
			}
			const body = bounded(response.body, limits.maxBytes, signal, idle.touch, () => {
				tooLarge = true;
			});
			// Whether the whole file came: a failure after that is n8n's storage, not the download.
			let received = Buffer.isBuffer(body);
			if (!Buffer.isBuffer(body)) body.once('end', () => (received = true));
			const answered = {
				body,
				contentType: headerValue(response.headers, 'content-type') || undefined,
				address: first,
				final: url,
			};
			try {
				return await store(answered);
			} catch (error) {
				destroy(body);
				destroy(response.body);
				throw received && !(error instanceof NodeOperationError)
					? notStored(this, url, error, apiKey, itemIndex)
					: failed(url, error);
			}
		}
	} finally {
		idle.stop();
	}
}

/** A body that fails as soon as it exceeds `maxBytes` or `signal` aborts, and tells `touch` of every chunk. */
function bounded(
	body: unknown,
	maxBytes: number,
	signal: AbortSignal,
	touch: () => void,
	onTooLarge: () => void,
): BinarySource {
	if (Buffer.isBuffer(body)) return body;
	// Readable.map (an instance method: community nodes may not import `stream`) passes each chunk
	// on as it comes, so the file streams through; throwing or the signal destroys the stream and
	// the response it reads, and whatever reads it fails.
	let bytes = 0;
	return (body as BodyStream).map(
		(chunk: Buffer | string) => {
			bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
			touch();
			if (bytes > maxBytes) {
				onTooLarge();
				throw new Error('too large');
			}
			return chunk;
		},
		{ signal },
	);
}

function notStored(
	context: MediaContext,
	url: URL,
	error: unknown,
	apiKey: string,
	itemIndex: number,
): NodeApiError {
	const reason = redact(String((error as Error).message ?? error), apiKey);
	return new NodeApiError(
		context.getNode(),
		{ message: reason },
		{
			message: `The media at ${shown(url)} was downloaded, but n8n could not store it`,
			description: `${reason}. In n8n's default binary mode a file is held in memory, and one larger than about 380 MB cannot be stored at all; for large media use the filesystem or S3 binary mode (N8N_DEFAULT_BINARY_DATA_MODE).`,
			itemIndex,
		},
	);
}

function sizeError(
	context: MediaContext,
	url: URL,
	limits: DownloadLimits,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`The media at ${shown(url)} is larger than "Max Media Size" (${limits.maxBytes / 1048576} MB)`,
		{
			itemIndex,
			description:
				'The download was stopped. Raise "Max Media Size" under Media Options if the file is expected to be this large.',
		},
	);
}

function redirectTarget(headers: Headers, from: URL): URL | undefined {
	const location = headerValue(headers, 'location');
	try {
		return location ? new URL(location, from) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Refuses an address outside the Base URL's origin, the listed hosts and public hosts, before
 * anything is sent to it, naming the host and the option that allows it.
 */
function refuseUnlessAllowed(
	context: MediaContext,
	url: URL,
	baseOrigin: string,
	allowed: HostRule[],
	itemIndex: number,
	redirected: boolean,
): void {
	const how = redirected ? 'redirected to' : 'names';
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new NodeOperationError(
			context.getNode(),
			`The media address of item ${itemIndex} ${how} a ${url.protocol} address, which the node does not download from`,
			{ itemIndex },
		);
	}
	if (url.origin === baseOrigin || isListedHost(url, allowed)) return;
	const reason = nonPublicReason(url.hostname);
	if (reason === undefined) return;
	throw new NodeOperationError(
		context.getNode(),
		`The media address of item ${itemIndex} ${how} ${url.host}, ${reason}, which the node does not download from`,
		{
			itemIndex,
			description: `Media is downloaded only from the Base URL's origin (${baseOrigin}), from public hosts and from the hosts in "Allowed Media Hosts" under Media Options. If ${url.host} serves your media (a private CDN), add ${url.host} there.`,
		},
	);
}
