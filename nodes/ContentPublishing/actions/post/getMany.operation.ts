import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { extraQueryField, returnAllAndLimit } from '../../descriptions/common';
import { pageIdField } from '../../descriptions/locators';
import { POST_STATUS_OPTIONS } from '../../descriptions/post.fields';
import { pickFields, readCollection } from '../../parameters/fields';
import { listPlan } from '../../parameters/lists';
import type { ListPlan } from '../types';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{ ...pageIdField, description: 'Only posts of this page' },
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: POST_STATUS_OPTIONS,
				default: 'draft',
				description: 'Only posts in this status',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [extraQueryField],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['post'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<ListPlan> {
	const filters = readCollection.call(this, 'filters', itemIndex, [pageIdField]);
	return listPlan.call(this, 'listPosts', itemIndex, pickFields(filters, 'listPosts'));
}
