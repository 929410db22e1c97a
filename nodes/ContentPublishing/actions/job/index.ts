import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as wait from './wait.operation';

export { get, wait };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['job'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get the current state of a job',
				action: 'Get a job',
			},
			{
				name: 'Wait for Completion',
				value: 'wait',
				description: 'Wait until a job has finished and return it',
				action: 'Wait for a job to finish',
			},
		],
		default: 'get',
	},
	...get.description,
	...wait.description,
];
