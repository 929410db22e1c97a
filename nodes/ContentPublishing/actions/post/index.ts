import type { INodeProperties } from 'n8n-workflow';

import { pageIdField, postLocator } from '../../descriptions/locators';
import { POST_STATUS_OPTIONS } from '../../descriptions/post.fields';
import { byLocator, listOperation } from '../operations';
import * as create from './create.operation';
import * as update from './update.operation';

export const operations = {
	create,
	delete: byLocator('post', 'delete', 'deletePost', postLocator),
	get: byLocator('post', 'get', 'getPost', postLocator),
	getMany: listOperation('post', 'listPosts', [
		{ ...pageIdField, description: 'Only posts of this page' },
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: POST_STATUS_OPTIONS,
			default: 'draft',
			description: 'Only posts in this status',
		},
	]),
	update,
};

export const operationField: INodeProperties = {
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
};
