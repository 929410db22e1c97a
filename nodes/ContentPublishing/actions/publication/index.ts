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
				action: 'Publish to a professional network',
			},
			{
				name: 'Publish to Twitter',
				value: 'publishTwitter',
				description: 'Publish a post or text to Twitter',
				action: 'Publish as tweets',
			},
		],
		default: 'publishLinkedin',
	},
	...publishLinkedin.description,
	...publishTwitter.description,
];
