import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { headerValue, type Headers } from '../profile/pointer';
import { readCredentials, redact } from './credentials';
import { failureDetails } from './errors';
import { isListedHost, nonPublicReason, type HostRule } from './hosts';
import { MAX_REDIRECTS, REDIRECT_STATUSES, redirectTarget } from './http';

/** Where media are downloaded: an execution, or the webhook that resumes a waiting one. */
export type MediaContext = IExecuteFunctions | IWebhookFunctions;

/** What n8n's prepareBinaryData takes: a buffer or, here, a stream. */
export type BinarySource = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];
type BodyStream = Exclude<BinarySource, Buffer>;

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

// How often the idle watch looks at the stream: an idle download ends at most this much after Timeout.
const IDLE_CHECK_MS = 1000;
// n8n's request helper has a socket timeout of its own; it is set beyond the idle watch so that the
// watch, which names the reason, always speaks first.
const SOCKET_TIMEOUT_SLACK_MS = 2 * IDLE_CHECK_MS;

/**
 * Aborts when no byte (nor, before them, headers) has come for `idleMs`. Community nodes may not
 * use setTimeout: it sleeps in slices with n8n's `sleep`, and a stopped watch leaves one behind.
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
	(body as { destroy?: () => void } | undefined)?.destroy?.();
}

/**
 * Streams a file the service's answer names into `store` (n8n's binary storage), within bounds:
 * only from the Base URL's origin, the listed hosts or hosts public as written, checked again on
 * every redirect (the node follows at most 5 itself); the API key only while every address so far
 * is on the Base URL's origin; at most `maxBytes`, no silence longer than `idleMs`, before the
 * item's deadline and the execution's cancel. A bound that ends a download destroys the stream, so
 * `store` fails and no half file becomes the item's binary.
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
	const refuse = (message: string, description?: string) =>
		new NodeOperationError(this.getNode(), message, { itemIndex, description });
	const refuseStatus = (statusCode: number, message: string, description?: string) =>
		new NodeApiError(this.getNode(), { status: statusCode }, { message, description, itemIndex });
	const tooLargeError = (url: URL) =>
		refuse(
			`The media at ${shown(url)} is larger than "Max Media Size" (${limits.maxBytes / 1048576} MB)`,
			'The download was stopped. Raise "Max Media Size" under Media Options if the file is expected to be this large.',
		);
	let first: URL;
	try {
		first = new URL(address);
	} catch {
		throw refuse(`Item ${itemIndex}: the media address "${address.slice(0, 200)}" is not a URL`);
	}
	// A webhook resuming a waiting execution has no cancel of its own.
	const cancel = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const idle = idleWatch(limits.idleMs);
	const signal = AbortSignal.any([limits.deadline, idle.signal, ...(cancel ? [cancel] : [])]);
	let tooLarge = false;

	/** The error that ended the download: the bound that did, where one did. */
	const failed = (url: URL, error: unknown): NodeOperationError | NodeApiError => {
		if (cancel?.aborted)
			return refuse(`The execution was cancelled while downloading the media of item ${itemIndex}`);
		if (tooLarge) return tooLargeError(url);
		if (limits.deadline.aborted) {
			return refuse(
				`The media of item ${itemIndex} did not arrive within "Max Download Time" (${limits.deadlineSeconds} seconds)`,
				`The download of ${shown(url)} was stopped. "Max Download Time" under Media Options bounds all of an item's downloads together; raise it for large files on a slow connection.`,
			);
		}
		if (idle.signal.aborted) {
			return refuse(
				`The media at ${shown(url)} sent nothing for ${limits.idleMs / 1000} seconds`,
				'A download may go without data for at most "Timeout" under Request Options; raise it if the media server is slow to start or pauses.',
			);
		}
		// A refusal of the file itself (its type, by `store`) is the caller's own error.
		if (error instanceof NodeOperationError) return error;
		const details = redact(failureDetails(error), apiKey);
		return new NodeApiError(
			this.getNode(),
			{ message: details },
			{ message: `Could not download the media at ${shown(url)}`, description: details, itemIndex },
		);
	};

	/** Refuses an address outside the Base URL's origin, the listed hosts and public hosts, before anything is sent to it. */
	const refuseUnlessAllowed = (url: URL, redirected: boolean) => {
		const how = redirected ? 'redirected to' : 'names';
		if (url.protocol !== 'http:' && url.protocol !== 'https:') {
			throw refuse(
				`The media address of item ${itemIndex} ${how} a ${url.protocol} address, which the node does not download from`,
			);
		}
		if (url.origin === baseOrigin || isListedHost(url, limits.allowedHosts)) return;
		const reason = nonPublicReason(url.hostname);
		if (reason === undefined) return;
		throw refuse(
			`The media address of item ${itemIndex} ${how} ${url.host}, ${reason}, which the node does not download from`,
			`Media is downloaded only from the Base URL's origin (${baseOrigin}), from public hosts and from the hosts in "Allowed Media Hosts" under Media Options. If ${url.host} serves your media (a private CDN), add ${url.host} there.`,
		);
	};

	try {
		let url = first;
		// The key goes along only while the addresses stay on the Base URL's origin.
		let keyed = true;
		for (let redirects = 0; ; redirects++) {
			refuseUnlessAllowed(url, redirects > 0);
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
				if (next === undefined || redirects === MAX_REDIRECTS)
					throw refuseStatus(
						response.statusCode,
						next === undefined
							? `The media at ${shown(url)} redirected to an address that cannot be read`
							: `The media at ${shown(first)} redirected more than ${MAX_REDIRECTS} times`,
					);
				url = next;
				continue;
			}
			if (response.statusCode < 200 || response.statusCode >= 300) {
				destroy(response.body);
				throw refuseStatus(
					response.statusCode,
					`The media server answered ${response.statusCode} for ${shown(url)}`,
					"The file could not be downloaded. Check that the job's media are still available (signed addresses expire).",
				);
			}
			// A file known to be too large is refused before a byte of it is read.
			const declared = Buffer.isBuffer(response.body)
				? response.body.length
				: Number(headerValue(response.headers, 'content-length'));
			if (Number.isFinite(declared) && declared > limits.maxBytes) {
				destroy(response.body);
				throw tooLargeError(url);
			}
			const body = bounded(response.body, limits.maxBytes, signal, idle.touch, () => {
				tooLarge = true;
			});
			// Whether the whole file came: a failure after that is n8n's storage, not the download.
			let received = Buffer.isBuffer(body);
			if (!Buffer.isBuffer(body)) body.once('end', () => (received = true));
			const contentType = headerValue(response.headers, 'content-type') || undefined;
			try {
				return await store({ body, contentType, address: first, final: url });
			} catch (error) {
				destroy(body);
				destroy(response.body);
				if (!received || error instanceof NodeOperationError) throw failed(url, error);
				const reason = redact(String((error as Error).message ?? error), apiKey);
				throw new NodeApiError(
					this.getNode(),
					{ message: reason },
					{
						message: `The media at ${shown(url)} was downloaded, but n8n could not store it`,
						description: `${reason}. In n8n's default binary mode a file is held in memory, and one larger than about 380 MB cannot be stored at all; for large media use the filesystem or S3 binary mode (N8N_DEFAULT_BINARY_DATA_MODE).`,
						itemIndex,
					},
				);
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
	// Readable.map (community nodes may not import `stream`) passes each chunk on as it comes;
	// throwing or the signal destroys it and the response, and whatever reads it fails.
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
