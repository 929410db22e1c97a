import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { extraBodyField, extraQueryField } from '../../descriptions/common';
import { loadProfile, serviceEvents as listedEvents } from '../../../shared/transport';

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

/** The chosen events as the service names them, checked against the events it lists. */
export async function serviceEvents(
	this: IExecuteFunctions,
	events: string[],
	itemIndex: number,
): Promise<string[]> {
	const { webhooks } = await loadProfile.call(this, itemIndex);
	return listedEvents.call(this, webhooks, events, itemIndex);
}
