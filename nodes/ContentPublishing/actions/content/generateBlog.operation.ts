import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { jobOperationFields, showOnlyFor } from '../../descriptions/common';
import { pageIdField } from '../../descriptions/locators';
import { pickFields, readCollection, readExtraFields } from '../../parameters/fields';
import { MAX_TRANSCRIPT_BYTES, readTranscriptFromBinary } from '../../parameters/transcript';
import { readJobWait } from '../../waiting/poll';
import type { RequestPlan } from '../types';
import { languageField, toneField } from './shared';

const transcriptFields: INodeProperties[] = [
	{
		displayName: 'Transcript Source',
		name: 'transcriptSource',
		type: 'options',
		options: [
			{ name: 'Text', value: 'text', description: 'Type or map the transcript text' },
			{
				name: 'Binary File',
				value: 'binary',
				description: 'Read a .txt, .vtt or .srt file from a previous node',
			},
		],
		default: 'text',
	},
	{
		displayName: 'Transcript',
		name: 'transcript',
		type: 'string',
		typeOptions: { rows: 8 },
		required: true,
		default: '',
		description: 'Transcript of the talk, podcast or video to turn into a blog post',
		displayOptions: { show: { transcriptSource: ['text'] } },
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input binary field holding the transcript file; subtitles are reduced to plain text',
		displayOptions: { show: { transcriptSource: ['binary'] } },
	},
];

const optionalFields: INodeProperties[] = [
	languageField,
	{
		displayName: 'Length',
		name: 'length',
		type: 'options',
		options: [
			{ name: 'Short', value: 'short' },
			{ name: 'Medium', value: 'medium' },
			{ name: 'Long', value: 'long' },
		],
		default: 'medium',
	},
	pageIdField,
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		description: 'Title to use instead of a generated one',
	},
	toneField,
];

export const description = showOnlyFor(
	'content',
	'generateBlog',
	jobOperationFields(transcriptFields, optionalFields),
);

async function readTranscript(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('transcriptSource', itemIndex, 'text') as string;
	if (source === 'binary') {
		const propertyName = (this.getNodeParameter('binaryPropertyName', itemIndex) as string).trim();
		return await readTranscriptFromBinary.call(this, propertyName, itemIndex);
	}
	return String(this.getNodeParameter('transcript', itemIndex, '') ?? '').trim();
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	const transcript = await readTranscript.call(this, itemIndex);
	if (transcript === '') {
		throw new NodeOperationError(this.getNode(), `"Transcript" of item ${itemIndex} is empty`, {
			itemIndex,
		});
	}
	if (Buffer.byteLength(transcript) > MAX_TRANSCRIPT_BYTES) {
		throw new NodeOperationError(
			this.getNode(),
			`"Transcript" of item ${itemIndex} is longer than a transcript can be`,
			{
				itemIndex,
				description: `A transcript may have up to ${MAX_TRANSCRIPT_BYTES.toLocaleString('en-US')} bytes.`,
			},
		);
	}
	const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
	const extra = readExtraFields.call(this, additionalFields, itemIndex);
	const body = pickFields({ ...additionalFields, transcript }, 'generateBlog');
	return {
		endpoint: 'generateBlog',
		params: body,
		extra,
		wait: readJobWait.call(this, itemIndex),
	};
}
