import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { pickFields, readExtraFields, requireLocator } from '../../parameters/fields';
import type { RequestPlan } from '../types';
import { eventsField } from '../../descriptions/events';
import { webhookLocator } from '../../descriptions/locators';
import { optionalWebhookFields, serviceEvents } from './shared';

const properties: INodeProperties[] = [
	webhookLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			...optionalWebhookFields,
			eventsField({ default: [] }),
			{
				displayName: 'URL',
				name: 'url',
				type: 'string',
				default: '',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['update'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	const id = requireLocator.call(this, 'webhookId', 'Webhook', itemIndex);
	const updateFields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const extra = readExtraFields.call(this, updateFields, itemIndex);
	const body = pickFields(updateFields, 'updateWebhook');
	if (Array.isArray(body.events))
		body.events = await serviceEvents.call(this, body.events as string[], itemIndex);
	if (Object.keys(body).length === 0 && Object.keys(extra.body).length === 0) {
		throw new NodeOperationError(this.getNode(), `Nothing to update in item ${itemIndex}`, {
			itemIndex,
			description: 'Add at least one field under "Update Fields".',
		});
	}
	return { endpoint: 'updateWebhook', id, params: body, extra };
}
