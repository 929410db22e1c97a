import type { INodeProperties } from 'n8n-workflow';

import * as publishLinkedin from './publishLinkedin.operation';
import * as publishTwitter from './publishTwitter.operation';

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
				// n8n's verification wants actions in sentence case, which would split LinkedIn into
				// "linked in": one lowercase word keeps the brand findable in the nodes panel's search.
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
