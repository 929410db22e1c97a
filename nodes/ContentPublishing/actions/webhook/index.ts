import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { loadProfile } from '../../../shared/executor/profiles';
import { serviceEvents } from '../../../shared/executor/send';
import {
	fieldCollection,
	extraBodyField,
	extraQueryField,
	showOnlyFor,
} from '../../descriptions/common';
import { eventsField } from '../../descriptions/events';
import { webhookLocator } from '../../descriptions/locators';
import {
	parameterError,
	pickFields,
	readCollection,
	readExtraFields,
	requireChanges,
	requireId,
	requireString,
} from '../../parameters/fields';
import { byLocator, listOperation } from '../operations';
import type { RequestPlan } from '../types';

const optionalWebhookFields: INodeProperties[] = [
	{
		displayName: 'Active',
		name: 'active',
		type: 'boolean',
		default: true,
		description: 'Whether the service should deliver events to this webhook',
	},
	{ displayName: 'Description', name: 'description', type: 'string', default: '' },
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

export const operations = {
	create: {
		description: showOnlyFor('webhook', 'create', [
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
			fieldCollection('additionalFields', optionalWebhookFields),
		]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const url = requireString.call(this, 'url', 'URL', itemIndex).trim();
			if (!/^https?:\/\/\S+$/i.test(url))
				throw parameterError(this, 'URL', itemIndex, 'is not an http(s) URL');
			const chosen = this.getNodeParameter('events', itemIndex, []) as string[];
			if (chosen.length === 0)
				throw parameterError(
					this,
					'Events',
					itemIndex,
					'is empty',
					'Choose at least one event to deliver.',
				);
			const { webhooks } = await loadProfile.call(this, itemIndex);
			const events = serviceEvents.call(this, webhooks, chosen, itemIndex);
			const optional = readCollection.call(this, 'additionalFields', itemIndex);
			const extra = readExtraFields.call(this, optional, itemIndex);
			const body = pickFields({ ...optional, url, events }, 'createWebhook');
			return { endpoint: 'createWebhook', params: body, extra };
		},
	},
	delete: byLocator('webhook', 'delete', 'deleteWebhook', webhookLocator),
	get: byLocator('webhook', 'get', 'getWebhook', webhookLocator),
	getMany: listOperation('webhook', 'listWebhooks'),
	update: {
		description: showOnlyFor('webhook', 'update', [
			webhookLocator,
			fieldCollection('updateFields', [
				...optionalWebhookFields,
				eventsField({ default: [] }),
				{ displayName: 'URL', name: 'url', type: 'string', default: '' },
			]),
		]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const id = requireId.call(this, 'webhookId', 'Webhook', itemIndex);
			const updateFields = readCollection.call(this, 'updateFields', itemIndex);
			const extra = readExtraFields.call(this, updateFields, itemIndex);
			const body = pickFields(updateFields, 'updateWebhook');
			if (Array.isArray(body.events)) {
				const { webhooks } = await loadProfile.call(this, itemIndex);
				body.events = serviceEvents.call(this, webhooks, body.events as string[], itemIndex);
			}
			requireChanges.call(this, body, extra, itemIndex);
			return { endpoint: 'updateWebhook', id, params: body, extra };
		},
	},
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['webhook'] } },
	options: [
		{
			name: 'Create',
			value: 'create',
			description: 'Subscribe a URL to events',
			action: 'Create a webhook',
		},
		{
			name: 'Delete',
			value: 'delete',
			description: 'Delete a webhook',
			action: 'Delete a webhook',
		},
		{ name: 'Get', value: 'get', description: 'Get a webhook', action: 'Get a webhook' },
		{
			name: 'Get Many',
			value: 'getMany',
			description: 'List webhooks',
			action: 'Get many webhooks',
		},
		{
			name: 'Update',
			value: 'update',
			description: 'Update a webhook',
			action: 'Update a webhook',
		},
	],
	default: 'create',
};
