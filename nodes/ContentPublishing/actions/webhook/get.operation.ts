import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireLocator } from '../../parameters/fields';
import type { RequestPlan } from '../types';
import { webhookLocator } from '../../descriptions/locators';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['get'] } },
	[webhookLocator] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return {
		endpoint: 'getWebhook',
		id: requireLocator.call(this, 'webhookId', 'Webhook', itemIndex),
	};
}
