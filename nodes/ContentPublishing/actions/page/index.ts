import type { INodeProperties } from 'n8n-workflow';

import { pageLocator } from '../../descriptions/locators';
import { byLocator, listOperation } from '../operations';

export const operations = {
	get: byLocator('page', 'get', 'getPage', pageLocator),
	getMany: listOperation('page', 'listPages'),
};

export const operationField: INodeProperties = {
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
};
