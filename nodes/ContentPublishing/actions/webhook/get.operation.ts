import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireLocator } from '../../helpers/fields';
import { apiRequest } from '../../transport';
import { webhookLocator } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['get'] } },
	[webhookLocator] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireLocator.call(this, 'webhookId', 'Webhook', itemIndex);
	return (await apiRequest.call(this, 'getWebhook', { id, itemIndex })) as IDataObject;
}
