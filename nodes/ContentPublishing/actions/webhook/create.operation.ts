import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { readExtraFields, requireString, toApiFields } from '../../helpers/fields';
import type { RequestPlan } from '../types';
import { optionalWebhookFields, WEBHOOK_EVENT_OPTIONS, WEBHOOK_FIELD_MAPPINGS } from './shared';

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
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: WEBHOOK_EVENT_OPTIONS,
		required: true,
		default: ['job.completed'],
		description: 'Events to deliver',
	},
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
		throw new NodeOperationError(this.getNode(), `"URL" of item ${itemIndex} is not an http(s) URL`, {
			itemIndex,
		});
	}
	const events = this.getNodeParameter('events', itemIndex, []) as string[];
	if (events.length === 0) {
		throw new NodeOperationError(this.getNode(), `"Events" of item ${itemIndex} is empty`, {
			itemIndex,
			description: 'Choose at least one event to deliver.',
		});
	}
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const extra = readExtraFields.call(this, additionalFields, itemIndex);
	const body = {
		...toApiFields({ ...additionalFields, url, events }, WEBHOOK_FIELD_MAPPINGS),
		...extra.body,
	};
	return { endpoint: 'createWebhook', body, qs: extra.qs };
}
