import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { postLocator } from '../../descriptions/locators';
import { requireLocator } from '../../parameters/fields';
import type { RequestPlan } from '../types';

export const description = updateDisplayOptions(
	{ show: { resource: ['post'], operation: ['get'] } },
	[postLocator] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return { endpoint: 'getPost', id: requireLocator.call(this, 'postId', 'Post', itemIndex) };
}
