import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mediaAddresses, readJob, type JobReading } from '../../shared/contract';
import { downloadFile, type MediaContext } from '../../shared/transport/download';

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

// A result naming more files than this is not downloaded: it is not the media of one job.
const MAX_FILES_PER_ITEM = 50;

/** Downloads a finished job's media into binary fields, one file at a time, each streamed. */
export async function downloadMedia(
	this: MediaContext,
	job: IDataObject,
	jobs: JobReading,
	{ field }: MediaOptions,
	itemIndex: number,
): Promise<IBinaryKeyData> {
	const { result } = readJob(jobs, job);
	const urls = mediaAddresses(jobs, result ?? job, MAX_FILES_PER_ITEM + 1);
	if (urls.length === 0) {
		throw new NodeOperationError(this.getNode(), `The finished job of item ${itemIndex} names no media to download`, {
			itemIndex,
			description: 'Turn off "Download Media", or check the job\'s result: it should hold the address of a video or image, as the service\'s document describes it.',
		});
	}
	if (urls.length > MAX_FILES_PER_ITEM) {
		throw new NodeOperationError(this.getNode(), `The finished job of item ${itemIndex} names more than ${MAX_FILES_PER_ITEM} media files`, {
			itemIndex,
			description: 'The node downloads at most this many files for one item. Turn off "Download Media" and download the files you need with the HTTP Request node.',
		});
	}
	const binary: IBinaryKeyData = {};
	for (const [index, url] of urls.entries()) {
		const { body, mimeType, fileName } = await downloadFile.call(this, url, itemIndex);
		binary[urls.length === 1 ? field : `${field}_${index}`] = await this.helpers.prepareBinaryData(body, fileName, mimeType);
	}
	return binary;
}
