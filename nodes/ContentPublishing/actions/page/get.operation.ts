import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { pageLocator } from '../../descriptions/locators';
import { requireLocator } from '../../parameters/fields';
import type { RequestPlan } from '../types';

const properties: INodeProperties[] = [pageLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return { endpoint: 'getPage', id: requireLocator.call(this, 'pageId', 'Page', itemIndex) };
}
