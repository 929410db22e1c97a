import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';

export const operations: Record<string, Operation> = {
	get: { description: [], execute: async () => ({ endpoint: 'getAccount' }) },
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['account'] } },
	options: [
		{
			name: 'Get',
			value: 'get',
			description: 'Get the account the API key belongs to',
			action: 'Get the account',
		},
	],
	default: 'get',
};
