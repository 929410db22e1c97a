import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireLocator } from '../../helpers/fields';
import { apiRequest } from '../../transport';
import { webhookLocator } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['delete'] } },
	[webhookLocator] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireLocator.call(this, 'webhookId', 'Webhook', itemIndex);
	const answer = await apiRequest.call(this, 'deleteWebhook', { id, itemIndex });
	return { id, deleted: true, ...((answer ?? {}) as IDataObject) };
}
