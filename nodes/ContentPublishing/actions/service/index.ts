import type { INodeProperties } from 'n8n-workflow';

import * as describe from './describe.operation';

export { describe };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['service'] } },
		options: [
			{
				name: 'Describe',
				value: 'describe',
				description:
					"Show how the node reads the credential's service: each operation's method, path and fields, paging, jobs, events and signatures",
				action: 'Describe how the node reads the service',
			},
		],
		default: 'describe',
	},
	...describe.description,
];
