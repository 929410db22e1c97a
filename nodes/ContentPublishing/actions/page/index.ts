import type { INodeProperties } from 'n8n-workflow';

import { pageLocator } from '../../descriptions/locators';
import { byLocator, listOperation } from '../operations';

export const get = byLocator('page', 'get', 'getPage', pageLocator);
export const getMany = listOperation('page', 'listPages');

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['page'] } },
		options: [
			{ name: 'Get', value: 'get', description: 'Get a page', action: 'Get a page' },
			{ name: 'Get Many', value: 'getMany', description: 'List pages', action: 'Get many pages' },
		],
		default: 'get',
	},
	...get.description,
	...getMany.description,
];
