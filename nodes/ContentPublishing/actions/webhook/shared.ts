import type { INodeProperties } from 'n8n-workflow';

import { extraBodyField, extraQueryField, resourceLocator } from '../../descriptions/common';
import type { FieldMapping } from '../../helpers/fields';

export const webhookLocator = resourceLocator({
	name: 'webhookId',
	displayName: 'Webhook',
	resourcePath: 'webhooks',
	searchListMethod: 'searchWebhooks',
});

export const WEBHOOK_EVENT_OPTIONS = [
	{ name: 'All Events', value: '*' },
	{ name: 'Job Completed', value: 'job.completed' },
	{ name: 'Job Failed', value: 'job.failed' },
	{ name: 'Post Published', value: 'post.published' },
];

export const WEBHOOK_FIELD_MAPPINGS: Record<string, FieldMapping> = {
	url: { apiName: 'url' },
	events: { apiName: 'events' },
	description: { apiName: 'description' },
	active: { apiName: 'active' },
	secret: { apiName: 'secret' },
};

export const optionalWebhookFields: INodeProperties[] = [
	{
		displayName: 'Active',
		name: 'active',
		type: 'boolean',
		default: true,
		description: 'Whether the service should deliver events to this webhook',
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		default: '',
	},
	extraBodyField,
	extraQueryField,
	{
		displayName: 'Signing Secret',
		name: 'secret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description: 'Secret the service signs deliveries with; left empty, the service chooses one',
	},
];
