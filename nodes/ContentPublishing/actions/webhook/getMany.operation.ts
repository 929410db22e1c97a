import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { extraQueryField, returnAllAndLimit } from '../../descriptions/common';
import { readManyOptions } from '../../helpers/lists';

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

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await readManyOptions.call(this, 'listWebhooks', itemIndex, {});
}
