import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as update from './update.operation';

export { create, del as delete, get, getMany, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['post'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a post, as a draft or to publish',
				action: 'Create a post',
			},
			{ name: 'Delete', value: 'delete', description: 'Delete a post', action: 'Delete a post' },
			{ name: 'Get', value: 'get', description: 'Get a post', action: 'Get a post' },
			{ name: 'Get Many', value: 'getMany', description: 'List posts', action: 'Get many posts' },
			{ name: 'Update', value: 'update', description: 'Update a post', action: 'Update a post' },
		],
		default: 'create',
	},
	...create.description,
	...del.description,
	...get.description,
	...getMany.description,
	...update.description,
];
