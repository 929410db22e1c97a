import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { headerValue, type Headers } from '../http-values';
import { readCredentials, redact } from './credentials';
import { failureDetails } from './errors';
import { isListedHost, nonPublicReason, type HostRule } from './hosts';
import { MAX_REDIRECTS, REDIRECT_STATUSES, redirectTarget, type BodyStream } from './http';

/** Where media are downloaded: an execution, or the webhook that resumes a waiting one. */
export type MediaContext = IExecuteFunctions | IWebhookFunctions;

export interface DownloadLimits {
	/** Hosts the user allows besides the Base URL's origin and public hosts ("Allowed Media Hosts"). */
	allowedHosts: HostRule[];
	/** Most bytes of one file ("Max Media Size"). */
	maxBytes: number;
	/** Longest time without a byte, headers included (the node's Timeout). */
	idleMs: number;
	/** How long all of an item's downloads may take ("Max Download Time"). */
	maxSeconds: number;
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
	let last = performance.now();
	let stopped = false;
	const slice = Math.min(IDLE_CHECK_MS, idleMs / 4);
	const watch = async () => {
		while (!stopped) {
			await sleep(slice);
			if (!stopped && performance.now() - last >= idleMs) return controller.abort();
		}
	};
	void watch();
	return {
		signal: controller.signal,
		touch: () => {
			last = performance.now();
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

const MAX_NAME_LENGTH = 200;

/**
 * A file name from the last segment of an address, as docs/media.md says: no invisible format
 * characters either (a right-to-left override makes `clip\u202Ekpm.exe` read as `clipexe.mp4`).
 */
function fileNameOf(url: URL): string | undefined {
	const segment = url.pathname.split('/').pop() ?? '';
	let decoded = segment;
	try {
		decoded = decodeURIComponent(segment);
	} catch {
		// A malformed escape is kept as written.
	}
	const name = (decoded.split(/[/\\]/).pop() ?? '')
		.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
		.trim()
		.replace(/^\.+/, '');
	if (name === '') return undefined;
	if (name.length <= MAX_NAME_LENGTH) return name;
	const extension = /\.[\w-]{1,10}$/.exec(name)?.[0] ?? '';
	return name.slice(0, MAX_NAME_LENGTH - extension.length) + extension;
}

// The media types file names say, by extension. A Map: an extension such as "constructor" must find nothing.
const typed = (family: string, extensions: string[]) =>
	extensions.map((extension): [string, string] => [extension, `${family}/${extension}`]);
const TYPES_BY_EXTENSION = new Map<string, string>([
	// Most extensions are their type's subtype (`png`: image/png).
	...typed('video', ['mp4', 'webm']),
	...typed('image', ['png', 'gif', 'webp', 'avif', 'heic', 'bmp', 'jpeg', 'tiff']),
	...typed('audio', ['aac', 'wav', 'ogg', 'opus', 'flac']),
	['m4v', 'video/x-m4v'],
	['mov', 'video/quicktime'],
	['mkv', 'video/x-matroska'],
	['avi', 'video/x-msvideo'],
	['jpg', 'image/jpeg'],
	['tif', 'image/tiff'],
	['mp3', 'audio/mpeg'],
	['m4a', 'audio/mp4'],
]);
// What each kind of job makes: a video job its video and images (a thumbnail), a carousel its slides.
const KINDS_OF_MEDIA = new Map<string, string[]>([
	['video', ['video', 'image']],
	['carousel', ['image']],
	['image', ['image']],
]);
// Types that say nothing of the content; the file name's type is taken instead.
const GENERIC_TYPES = ['', 'application/octet-stream', 'binary/octet-stream', 'application/binary'];
// Never media: at a media address these are an error or login page, and HTML or SVG would run
// script where n8n shows the file.
const NOT_MEDIA = /^(text|multipart)\/|html|xml|json|javascript|ecmascript/;

/** The MIME type to store a file under, or why it is refused (docs/media.md, "MIME types"). */
function mediaTypeOf(
	served: string,
	fileName: string | undefined,
	jobKind: string | undefined,
): { type: string } | { refused: string } {
	const type = served.split(';')[0].trim().toLowerCase();
	const readable = /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : '';
	const extension = /\.([\w]+)$/.exec(fileName ?? '')?.[1].toLowerCase();
	const named = extension === undefined ? undefined : TYPES_BY_EXTENSION.get(extension);
	if (readable !== '' && NOT_MEDIA.test(readable))
		return { refused: `was served as ${readable}, not as media` };
	let chosen = readable;
	if (GENERIC_TYPES.includes(readable)) chosen = named ?? 'application/octet-stream';
	else if (named !== undefined && readable.split('/')[0] !== named.split('/')[0])
		return { refused: `was served as ${readable}, but its name says ${named}` };
	const kinds = jobKind === undefined ? undefined : KINDS_OF_MEDIA.get(jobKind);
	const kind = chosen.split('/')[0];
	if (kinds !== undefined && ['video', 'image', 'audio'].includes(kind) && !kinds.includes(kind))
		return {
			refused: `is ${chosen}, which a ${jobKind} job does not make (it makes ${kinds.map((name) => `${name}s`).join(' and ')})`,
		};
	return { type: chosen };
}

/**
 * Streams a file a job's result names into n8n's binary storage within the bounds of docs/media.md,
 * `deadline` for all of the item's downloads; a bound that ends a download destroys the stream, so
 * no half file becomes the item's binary.
 */
export async function downloadFile(
	this: MediaContext,
	address: string,
	itemIndex: number,
	limits: DownloadLimits,
	deadline: AbortSignal,
	jobKind: string | undefined,
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
	if (!URL.canParse(address))
		throw refuse(`Item ${itemIndex}: the media address "${address.slice(0, 200)}" is not a URL`);
	const first = new URL(address);
	// A webhook resuming a waiting execution has no cancel of its own.
	const cancel = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const idle = idleWatch(limits.idleMs);
	const signal = AbortSignal.any([deadline, idle.signal, ...(cancel ? [cancel] : [])]);
	let tooLarge = false;

	/** The error that ended the download: the bound that did, where one did. */
	const failed = (url: URL, error: unknown): NodeOperationError | NodeApiError => {
		if (cancel?.aborted)
			return refuse(`The execution was cancelled while downloading the media of item ${itemIndex}`);
		if (tooLarge) return tooLargeError(url);
		if (deadline.aborted)
			return refuse(
				`The media of item ${itemIndex} did not arrive within "Max Download Time" (${limits.maxSeconds} seconds)`,
				`The download of ${shown(url)} was stopped. "Max Download Time" under Media Options bounds all of an item's downloads together; raise it for large files on a slow connection.`,
			);
		if (idle.signal.aborted)
			return refuse(
				`The media at ${shown(url)} sent nothing for ${limits.idleMs / 1000} seconds`,
				'A download may go without data for at most "Timeout" under Request Options; raise it if the media server is slow to start or pauses.',
			);
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
		if (url.protocol !== 'http:' && url.protocol !== 'https:')
			throw refuse(
				`The media address of item ${itemIndex} ${how} a ${url.protocol} address, which the node does not download from`,
			);
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
			let response: { statusCode: number; headers: Headers; body: BodyStream };
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
				})) as typeof response;
			} catch (error) {
				throw failed(url, error);
			}
			idle.touch();
			if (REDIRECT_STATUSES.includes(response.statusCode)) {
				response.body.destroy();
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
				response.body.destroy();
				throw refuseStatus(
					response.statusCode,
					`The media server answered ${response.statusCode} for ${shown(url)}`,
					"The file could not be downloaded. Check that the job's media are still available (signed addresses expire).",
				);
			}
			// A file known to be too large, or of a type it may not have, is refused before a byte of it is read.
			const declared = Number(headerValue(response.headers, 'content-length'));
			if (Number.isFinite(declared) && declared > limits.maxBytes) {
				response.body.destroy();
				throw tooLargeError(url);
			}
			const fileName = fileNameOf(first) ?? fileNameOf(url);
			const checked = mediaTypeOf(headerValue(response.headers, 'content-type'), fileName, jobKind);
			if ('refused' in checked) {
				response.body.destroy();
				throw refuse(
					`The media at ${url.origin}${url.pathname.slice(0, 200)} ${checked.refused}`,
					"The node stores a file only under a type that agrees with its name and its job. Check the job's media address: it may point at an error page.",
				);
			}
			// Readable.map (community nodes may not import `stream`) passes each chunk on as it comes;
			// throwing or the signal destroys it and the response, and whatever reads it fails.
			let bytes = 0;
			const body = response.body.map(
				(chunk: Buffer | string) => {
					bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
					idle.touch();
					tooLarge = bytes > limits.maxBytes;
					if (tooLarge) throw new Error('too large');
					return chunk;
				},
				{ signal },
			);
			// Whether the whole file came: a failure after that is n8n's storage, not the download.
			let received = false;
			body.once('end', () => (received = true));
			try {
				return await this.helpers.prepareBinaryData(body, fileName, checked.type);
			} catch (error) {
				body.destroy();
				response.body.destroy();
				if (!received) throw failed(url, error);
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
