import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadFile } from '../transport';
import type { JobContract } from '../transport/contract';

/** Where a job's media goes: binary field `field`, or `field_0`, `field_1`, … for several files. */
export interface MediaOptions {
	field: string;
}

export const mediaFields: INodeProperties[] = [
	{
		displayName: 'Download Media',
		name: 'downloadMedia',
		type: 'boolean',
		default: false,
		description:
			'Whether to download the finished media (a video, or each slide\'s image) into binary fields of the output item, streamed so a large file never sits in memory whole',
	},
	{
		displayName: 'Put Media in Field',
		name: 'mediaField',
		type: 'string',
		default: 'data',
		hint: 'One file goes to this binary field; several go to <field>_0, <field>_1, …',
		displayOptions: { show: { downloadMedia: [true] } },
	},
];

export function readMediaOptions(this: IExecuteFunctions, itemIndex: number): MediaOptions | undefined {
	if (!(this.getNodeParameter('downloadMedia', itemIndex, false) as boolean)) return undefined;
	const field = String(this.getNodeParameter('mediaField', itemIndex, 'data') ?? '').trim();
	if (!/^[\w.-]+$/.test(field)) {
		throw new NodeOperationError(this.getNode(), `"Put Media in Field" of item ${itemIndex} must be a field name such as "data"`, { itemIndex });
	}
	return { field };
}

// A media address is a property named like one: video_url, imageUrl, media_uri, thumbnail_link, …
const MEDIA_KEY = /^(video|image|media|audio|file|thumbnail|asset|download)(url|uri|link)$/;

/** The addresses of the media in a job's result, in the order the result lists them. */
export function mediaUrls(value: unknown, depth = 0): string[] {
	if (depth > 4 || value === null || typeof value !== 'object') return [];
	if (Array.isArray(value)) return value.flatMap((entry) => mediaUrls(entry, depth + 1));
	return Object.entries(value as IDataObject).flatMap(([key, entry]) =>
		typeof entry === 'string' && MEDIA_KEY.test(key.toLowerCase().replace(/[^a-z]/g, '')) && /^https?:\/\//i.test(entry)
			? [entry]
			: mediaUrls(entry, depth + 1),
	);
}

/** Downloads a finished job's media into binary fields, one file at a time, each streamed. */
export async function downloadMedia(
	this: IExecuteFunctions,
	job: IDataObject,
	jobs: JobContract,
	{ field }: MediaOptions,
	itemIndex: number,
): Promise<IBinaryKeyData> {
	const result = jobs.result.map((key) => job[key]).find((value) => value !== undefined && value !== null) ?? job;
	const urls = mediaUrls(result);
	if (urls.length === 0) {
		throw new NodeOperationError(this.getNode(), `The finished job of item ${itemIndex} names no media to download`, {
			itemIndex,
			description: 'Turn off "Download Media", or check the job\'s result: it should hold a URL such as video_url or image_url.',
		});
	}
	const binary: IBinaryKeyData = {};
	for (const [index, url] of urls.entries()) {
		const { body, mimeType, fileName } = await downloadFile.call(this, url, itemIndex);
		binary[urls.length === 1 ? field : `${field}_${index}`] = await this.helpers.prepareBinaryData(body, fileName, mimeType);
	}
	return binary;
}
