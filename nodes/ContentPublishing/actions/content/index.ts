import type { INodeProperties } from 'n8n-workflow';

import * as generateBlog from './generateBlog.operation';
import * as generateCarousel from './generateCarousel.operation';
import * as generateLinkedin from './generateLinkedin.operation';
import * as generateTwitter from './generateTwitter.operation';
import * as generateVideo from './generateVideo.operation';

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
				// n8n's verification wants actions in sentence case, which would split LinkedIn into
				// "linked in": one lowercase word keeps the brand findable in the nodes panel's search.
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
