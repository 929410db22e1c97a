import type { INodeProperties } from 'n8n-workflow';

import * as generateBlog from './generateBlog.operation';
import { promptGeneration } from './shared';

const generateCarousel = promptGeneration(
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
);

const generateLinkedin = promptGeneration('generateLinkedin', []);

const generateTwitter = promptGeneration('generateTwitter', [
	{
		displayName: 'Thread Length',
		name: 'threadLength',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 25 },
		default: 3,
		description: 'Number of tweets in the thread',
	},
]);

const generateVideo = promptGeneration(
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
);

export { generateBlog, generateCarousel, generateLinkedin, generateTwitter, generateVideo };

export const description: INodeProperties[] = [
	{
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
	},
	...generateBlog.description,
	...generateCarousel.description,
	...generateLinkedin.description,
	...generateTwitter.description,
	...generateVideo.description,
];
