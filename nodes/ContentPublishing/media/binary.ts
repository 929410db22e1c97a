import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mediaAddresses, readJob } from '../../shared/executor/answers';
import type { JobProfile } from '../../shared/profile/types';
import { downloadFile, readHostRules, type MediaContext } from '../../shared/executor/send';
import type { MediaOptions } from '../actions/types';
import { parameterError, readRequestTimeout } from '../parameters/fields';

// The bounds of a job's downloads; docs/media.md says why the defaults are what they are.
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
	if (!Number.isFinite(number) || number <= 0 || number > max)
		throw parameterError(this, field.displayName, itemIndex, `must be a number from 1 to ${max}`);
	return number;
}

export function readMediaOptions(
	this: IExecuteFunctions,
	itemIndex: number,
): MediaOptions | undefined {
	if (!(this.getNodeParameter('downloadMedia', itemIndex, false) as boolean)) return undefined;
	const field = String(this.getNodeParameter('mediaField', itemIndex, 'data') ?? '').trim();
	if (!/^[\w.-]+$/.test(field))
		throw parameterError(
			this,
			'Put Media in Field',
			itemIndex,
			'must be a field name such as "data"',
		);
	const options = this.getNodeParameter('mediaOptions', itemIndex, {}) as IDataObject;
	const { rules, invalid } = readHostRules(String(options.allowedMediaHosts ?? ''));
	if (invalid !== undefined)
		throw parameterError(
			this,
			'Allowed Media Hosts',
			itemIndex,
			`has an entry that is not a host: "${invalid.slice(0, 100)}"`,
			'List host names or IP addresses, each optionally with :port, such as media.corp.example, *.cdn.internal or 10.0.0.5:9000, separated by commas.',
		);
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

/**
 * Downloads a finished job's media into binary fields, one file at a time, all within the item's
 * Max Download Time; any file that fails fails the item, whose binary then holds nothing.
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
	if (urls.length === 0)
		throw new NodeOperationError(
			this.getNode(),
			`The finished job of item ${itemIndex} names no media to download`,
			{
				itemIndex,
				description:
					'Turn off "Download Media", or check the job\'s result: it should hold the address of a video or image, as the service\'s document describes it.',
			},
		);
	if (urls.length > MAX_FILES_PER_ITEM)
		throw new NodeOperationError(
			this.getNode(),
			`The finished job of item ${itemIndex} names more than ${MAX_FILES_PER_ITEM} media files`,
			{
				itemIndex,
				description:
					'The node downloads at most this many files for one item. Turn off "Download Media" and download the files you need with the HTTP Request node.',
			},
		);
	const deadline = AbortSignal.timeout(options.maxSeconds * 1000);
	const binary: IBinaryKeyData = {};
	for (const [index, url] of urls.entries())
		binary[urls.length === 1 ? options.field : `${options.field}_${index}`] =
			await downloadFile.call(this, url, itemIndex, options, deadline, kind);
	return binary;
}
