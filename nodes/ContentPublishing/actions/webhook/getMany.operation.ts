import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { extraQueryField, returnAllAndLimit } from '../../descriptions/common';
import { listPlan } from '../../parameters/lists';
import type { ListPlan } from '../types';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
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
	{ show: { resource: ['webhook'], operation: ['getMany'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<ListPlan> {
	return listPlan.call(this, 'listWebhooks', itemIndex, {});
}
