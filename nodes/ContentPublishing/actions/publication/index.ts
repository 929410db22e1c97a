import type { INodeProperties } from 'n8n-workflow';

import { publishOperation } from './shared';

const publishLinkedin = publishOperation('publishLinkedin', 'LinkedIn');

const publishTwitter = publishOperation('publishTwitter', 'Twitter', {
	name: 'Thread',
	description: 'Publish several tweets as a thread, each a reply to the one before',
	placeholder: '["First tweet", "Second tweet"]',
});

export { publishLinkedin, publishTwitter };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['publication'] } },
		options: [
			{
				name: 'Publish to LinkedIn',
				value: 'publishLinkedin',
				description: 'Publish a post or text to LinkedIn',
				// Sentence case would split LinkedIn into "linked in": one lowercase word stays findable.
				action: 'Publish to linkedin',
			},
			{
				name: 'Publish to Twitter',
				value: 'publishTwitter',
				description: 'Publish a post or text to Twitter',
				action: 'Publish to twitter',
			},
		],
		default: 'publishLinkedin',
	},
	...publishLinkedin.description,
	...publishTwitter.description,
];
