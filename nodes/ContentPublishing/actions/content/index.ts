import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { jobOperationFields, showOnlyFor } from '../../descriptions/common';
import { pageIdField, sourcePostField } from '../../descriptions/locators';
import { mediaFields, readMediaOptions } from '../../media/binary';
import {
	parameterError,
	pickFields,
	readCollection,
	readExtraFields,
} from '../../parameters/fields';
import { readTranscript } from '../../parameters/transcript';
import { readJobWait } from '../../waiting/poll';
import type { Operation, RequestPlan } from '../types';

const languageField: INodeProperties = {
	displayName: 'Language',
	name: 'language',
	type: 'string',
	default: '',
	placeholder: 'e.g. en',
	description: 'Language to write in',
};

const toneField: INodeProperties = {
	displayName: 'Tone',
	name: 'tone',
	type: 'string',
	default: '',
	placeholder: 'e.g. friendly, expert',
	description: 'Voice of the generated content',
};

const promptField: INodeProperties = {
	displayName: 'Prompt',
	name: 'prompt',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	description:
		'What to write about. May be left empty when "Source Text" or "Source Post ID" is given.',
};

const sourceTextField: INodeProperties = {
	displayName: 'Source Text',
	name: 'sourceText',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	description: 'Text to adapt, such as an article or a transcript',
};

function promptGeneration(
	endpoint: 'generateLinkedin' | 'generateTwitter' | 'generateCarousel' | 'generateVideo',
	kindFields: INodeProperties[],
	{ media = false } = {},
): Operation {
	return {
		description: showOnlyFor(
			'content',
			endpoint,
			jobOperationFields(
				[promptField],
				[...kindFields, languageField, pageIdField, sourcePostField, sourceTextField, toneField],
				media ? mediaFields : [],
			),
		),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const prompt = this.getNodeParameter('prompt', itemIndex, '') as string;
			const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
			const body = pickFields({ ...additionalFields, prompt }, endpoint);
			const extra = readExtraFields.call(this, additionalFields, itemIndex);
			const noSource =
				body.prompt === undefined &&
				body.sourceText === undefined &&
				body.sourcePostId === undefined;
			if (noSource && Object.keys(extra.body).length === 0)
				throw parameterError(
					this,
					'Prompt',
					itemIndex,
					'is empty',
					'Give a prompt, or a "Source Text" or "Source Post ID" under Additional Fields.',
				);
			const wait = readJobWait.call(this, itemIndex);
			return {
				endpoint,
				params: body,
				extra,
				wait,
				media: media && wait ? readMediaOptions.call(this, itemIndex) : undefined,
			};
		},
	};
}

export const operations = {
	generateBlog: {
		description: showOnlyFor(
			'content',
			'generateBlog',
			jobOperationFields(
				[
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
				],
				[
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
				],
			),
		),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const transcript = await readTranscript.call(this, itemIndex);
			const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
			return {
				endpoint: 'generateBlog',
				params: pickFields({ ...additionalFields, transcript }, 'generateBlog'),
				extra: readExtraFields.call(this, additionalFields, itemIndex),
				wait: readJobWait.call(this, itemIndex),
			};
		},
	},
	generateCarousel: promptGeneration(
		'generateCarousel',
		[
			{
				displayName: 'Slide Count',
				name: 'slideCount',
				type: 'number',
				typeOptions: { minValue: 2, maxValue: 20 },
				default: 5,
				description: 'Number of slides',
			},
		],
		{ media: true },
	),
	generateLinkedin: promptGeneration('generateLinkedin', []),
	generateTwitter: promptGeneration('generateTwitter', [
		{
			displayName: 'Thread Length',
			name: 'threadLength',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 25 },
			default: 3,
			description: 'Number of tweets in the thread',
		},
	]),
	generateVideo: promptGeneration(
		'generateVideo',
		[
			{
				displayName: 'Aspect Ratio',
				name: 'aspectRatio',
				type: 'options',
				options: [
					{ name: 'Landscape (16:9)', value: '16:9' },
					{ name: 'Portrait (9:16)', value: '9:16' },
					{ name: 'Square (1:1)', value: '1:1' },
				],
				default: '16:9',
			},
			{
				displayName: 'Duration (Seconds)',
				name: 'durationSeconds',
				type: 'number',
				typeOptions: { minValue: 5, maxValue: 600 },
				default: 60,
				description: 'Length of the video',
			},
		],
		{ media: true },
	),
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['content'] } },
	options: [
		{
			name: 'Generate Blog Post',
			value: 'generateBlog',
			description: 'Write a blog post from a transcript',
			action: 'Generate a blog post from a transcript',
		},
		{
			name: 'Generate Carousel',
			value: 'generateCarousel',
			description: 'Create carousel slides',
			action: 'Generate a carousel',
		},
		{
			name: 'Generate LinkedIn Post',
			value: 'generateLinkedin',
			description: 'Write a LinkedIn post',
			// Sentence case would split LinkedIn into "linked in": one lowercase word stays findable.
			action: 'Generate a linkedin post',
		},
		{
			name: 'Generate Twitter Thread',
			value: 'generateTwitter',
			description: 'Write tweets or a thread for Twitter',
			action: 'Generate a twitter thread',
		},
		{
			name: 'Generate Video',
			value: 'generateVideo',
			description: 'Render a short video',
			action: 'Generate a video',
		},
	],
	default: 'generateBlog',
};
