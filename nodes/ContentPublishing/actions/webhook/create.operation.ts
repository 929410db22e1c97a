import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { pickFields, readExtraFields, requireString } from '../../parameters/fields';
import type { RequestPlan } from '../types';
import { eventsField } from '../../descriptions/events';
import { optionalWebhookFields, serviceEvents } from './shared';

const properties: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/hooks/content',
		description: 'Address the service sends events to',
	},
	eventsField({ required: true, default: ['job.completed'] }),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: optionalWebhookFields,
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['create'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	const url = requireString.call(this, 'url', 'URL', itemIndex).trim();
	if (!/^https?:\/\/\S+$/i.test(url)) {
		throw new NodeOperationError(
			this.getNode(),
			`"URL" of item ${itemIndex} is not an http(s) URL`,
			{
				itemIndex,
			},
		);
	}
	const chosen = this.getNodeParameter('events', itemIndex, []) as string[];
	if (chosen.length === 0) {
		throw new NodeOperationError(this.getNode(), `"Events" of item ${itemIndex} is empty`, {
			itemIndex,
			description: 'Choose at least one event to deliver.',
		});
	}
	const events = await serviceEvents.call(this, chosen, itemIndex);
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const extra = readExtraFields.call(this, additionalFields, itemIndex);
	const body = pickFields({ ...additionalFields, url, events }, 'createWebhook');
	return { endpoint: 'createWebhook', params: body, extra };
}
