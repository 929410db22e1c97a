import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mediaAddresses, readJob } from '../../shared/executor/answers';
import type { JobProfile } from '../../shared/profile/types';
import {
	downloadFile,
	type DownloadLimits,
	type MediaAnswer,
	type MediaContext,
} from '../../shared/transport/download';
import { readHostRules, type HostRule } from '../../shared/transport/hosts';
import { readRequestTimeout } from '../parameters/fields';

/** Where a job's media goes (binary field `field`, or `field_0`, `field_1`, … for several files) and the bounds of its downloads. */
export interface MediaOptions {
	field: string;
	allowedHosts: HostRule[];
	maxBytes: number;
	idleMs: number;
	maxSeconds: number;
}

// The bounds of a job's downloads; 1024 MB is far above a generated video (10 minutes of 1080p at
// 8 Mbit/s is 600 MB), and arrives in 600 s, the Maximum Wait Time of a job, at 14 Mbit/s.
const mediaOptions: INodeProperties[] = [
	{
		displayName: 'Allowed Media Hosts',
		name: 'allowedMediaHosts',
		type: 'string',
		default: '',
		placeholder: 'media.corp.example, *.cdn.internal, 10.0.0.5:9000',
		description:
			"Hosts besides the Base URL's and public ones that media may come from, such as a private CDN: names, IP addresses, *.name for the hosts under a name, each optionally with :port, separated by commas. Loopback, private, link-local and metadata addresses are refused unless listed here.",
	},
	{
		displayName: 'Max Download Time (Seconds)',
		name: 'maxDownloadTime',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 86400 },
		default: 600,
		description:
			"How long all of an item's media may take to download together. A download that sends nothing for the Timeout under Request Options stops sooner.",
	},
	{
		displayName: 'Max Media Size (MB)',
		name: 'maxMediaSize',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 1048576 },
		default: 1024,
		description:
			"The largest file to download, in MB (1,048,576 bytes); a larger one fails the item. In n8n's default binary mode a file is held in memory, so keep this low there or use the filesystem or S3 mode.",
	},
];

export const mediaFields: INodeProperties[] = [
	{
		displayName: 'Download Media',
		name: 'downloadMedia',
		type: 'boolean',
		default: false,
		description:
			"Whether to download the finished media (a video, or each slide's image) into binary fields of the output item, streamed so a large file never sits in memory whole",
	},
	{
		displayName: 'Put Media in Field',
		name: 'mediaField',
		type: 'string',
		default: 'data',
		// The editor renders a hint as HTML, so a placeholder in angle brackets would vanish.
		hint: 'One file goes to this binary field; several go to this name followed by _0, _1, … (data_0, data_1, … for "data")',
		displayOptions: { show: { downloadMedia: [true] } },
	},
	{
		displayName: 'Media Options',
		name: 'mediaOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { downloadMedia: [true] } },
		options: mediaOptions,
	},
];

/** A number option within the range its field allows, or an error naming it. */
function numberOption(
	this: IExecuteFunctions,
	options: IDataObject,
	name: 'maxMediaSize' | 'maxDownloadTime',
	itemIndex: number,
): number {
	const field = mediaOptions.find((option) => option.name === name) as INodeProperties;
	const max = Number(field.typeOptions?.maxValue);
	const number = Number(options[name] ?? field.default);
	if (!Number.isFinite(number) || number <= 0 || number > max) {
		throw new NodeOperationError(
			this.getNode(),
			`"${field.displayName}" of item ${itemIndex} must be a number from 1 to ${max}`,
			{ itemIndex },
		);
	}
	return number;
}

export function readMediaOptions(
	this: IExecuteFunctions,
	itemIndex: number,
): MediaOptions | undefined {
	if (!(this.getNodeParameter('downloadMedia', itemIndex, false) as boolean)) return undefined;
	const field = String(this.getNodeParameter('mediaField', itemIndex, 'data') ?? '').trim();
	if (!/^[\w.-]+$/.test(field)) {
		throw new NodeOperationError(
			this.getNode(),
			`"Put Media in Field" of item ${itemIndex} must be a field name such as "data"`,
			{ itemIndex },
		);
	}
	const options = this.getNodeParameter('mediaOptions', itemIndex, {}) as IDataObject;
	const { rules, invalid } = readHostRules(String(options.allowedMediaHosts ?? ''));
	if (invalid !== undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`"Allowed Media Hosts" of item ${itemIndex} has an entry that is not a host: "${invalid.slice(0, 100)}"`,
			{
				itemIndex,
				description:
					'List host names or IP addresses, each optionally with :port, such as media.corp.example, *.cdn.internal or 10.0.0.5:9000, separated by commas.',
			},
		);
	}
	return {
		field,
		allowedHosts: rules,
		maxBytes: numberOption.call(this, options, 'maxMediaSize', itemIndex) * 1048576,
		maxSeconds: numberOption.call(this, options, 'maxDownloadTime', itemIndex),
		idleMs: readRequestTimeout.call(this, itemIndex),
	};
}

// A result naming more files than this is not downloaded: it is not the media of one job.
const MAX_FILES_PER_ITEM = 50;
const MAX_NAME_LENGTH = 200;

/**
 * A file name from the last segment of an address: percent-decoded, without any path, control or
 * invisible format characters (such as a right-to-left override that makes `clip\u202Ekpm.exe` read
 * as `clipexe.mp4`) or leading dots, at most 200 characters with its extension kept.
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
const TYPES_BY_EXTENSION = new Map<string, string>([
	['mp4', 'video/mp4'],
	['m4v', 'video/x-m4v'],
	['mov', 'video/quicktime'],
	['webm', 'video/webm'],
	['mkv', 'video/x-matroska'],
	['avi', 'video/x-msvideo'],
	['png', 'image/png'],
	['jpg', 'image/jpeg'],
	['jpeg', 'image/jpeg'],
	['gif', 'image/gif'],
	['webp', 'image/webp'],
	['avif', 'image/avif'],
	['heic', 'image/heic'],
	['bmp', 'image/bmp'],
	['tif', 'image/tiff'],
	['tiff', 'image/tiff'],
	['mp3', 'audio/mpeg'],
	['m4a', 'audio/mp4'],
	['aac', 'audio/aac'],
	['wav', 'audio/wav'],
	['ogg', 'audio/ogg'],
	['opus', 'audio/opus'],
	['flac', 'audio/flac'],
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

/**
 * The MIME type to store a file under, or why it is refused: never a type that is no media; a
 * generic type replaced by the one the name's extension says; refused when the type's kind is not
 * the extension's (image/png for a `.mp4`) or not one its job makes (a video in a carousel).
 */
function mediaTypeOf(
	served: string | undefined,
	fileName: string | undefined,
	jobKind: string | undefined,
): { type: string } | { refused: string } {
	const type = (served ?? '').split(';')[0].trim().toLowerCase();
	const readable = /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : '';
	const extension = /\.([\w]+)$/.exec(fileName ?? '')?.[1].toLowerCase();
	const named = extension === undefined ? undefined : TYPES_BY_EXTENSION.get(extension);
	if (readable !== '' && NOT_MEDIA.test(readable))
		return { refused: `was served as ${readable}, not as media` };
	let chosen = readable;
	if (GENERIC_TYPES.includes(readable)) chosen = named ?? 'application/octet-stream';
	else if (named !== undefined && readable.split('/')[0] !== named.split('/')[0]) {
		return { refused: `was served as ${readable}, but its name says ${named}` };
	}
	const kinds = jobKind === undefined ? undefined : KINDS_OF_MEDIA.get(jobKind);
	const kind = chosen.split('/')[0];
	if (kinds !== undefined && ['video', 'image', 'audio'].includes(kind) && !kinds.includes(kind)) {
		return {
			refused: `is ${chosen}, which a ${jobKind} job does not make (it makes ${kinds.map((name) => `${name}s`).join(' and ')})`,
		};
	}
	return { type: chosen };
}

/**
 * Downloads a finished job's media into binary fields, one file at a time, each streamed into n8n's
 * binary storage within the item's bounds; any file that fails fails the item, whose binary then
 * holds nothing.
 */
export async function downloadMedia(
	this: MediaContext,
	job: IDataObject,
	jobs: JobProfile,
	options: MediaOptions,
	itemIndex: number,
): Promise<IBinaryKeyData> {
	const { result, kind } = readJob(jobs, job);
	const urls = mediaAddresses(jobs, result ?? job, MAX_FILES_PER_ITEM + 1);
	if (urls.length === 0) {
		throw new NodeOperationError(
			this.getNode(),
			`The finished job of item ${itemIndex} names no media to download`,
			{
				itemIndex,
				description:
					'Turn off "Download Media", or check the job\'s result: it should hold the address of a video or image, as the service\'s document describes it.',
			},
		);
	}
	if (urls.length > MAX_FILES_PER_ITEM) {
		throw new NodeOperationError(
			this.getNode(),
			`The finished job of item ${itemIndex} names more than ${MAX_FILES_PER_ITEM} media files`,
			{
				itemIndex,
				description:
					'The node downloads at most this many files for one item. Turn off "Download Media" and download the files you need with the HTTP Request node.',
			},
		);
	}
	const limits: DownloadLimits = {
		...options,
		deadline: AbortSignal.timeout(options.maxSeconds * 1000),
		deadlineSeconds: options.maxSeconds,
	};
	const store = async ({ body, contentType, address, final }: MediaAnswer) => {
		const fileName = fileNameOf(address) ?? fileNameOf(final);
		const checked = mediaTypeOf(contentType, fileName, kind);
		if ('refused' in checked) {
			throw new NodeOperationError(
				this.getNode(),
				`The media at ${final.origin}${final.pathname.slice(0, 200)} ${checked.refused}`,
				{
					itemIndex,
					description:
						"The node stores a file only under a type that agrees with its name and its job. Check the job's media address: it may point at an error page.",
				},
			);
		}
		return await this.helpers.prepareBinaryData(body, fileName, checked.type);
	};
	const binary: IBinaryKeyData = {};
	for (const [index, url] of urls.entries()) {
		binary[urls.length === 1 ? options.field : `${options.field}_${index}`] =
			await downloadFile.call(this, url, itemIndex, limits, store);
	}
	return binary;
}
