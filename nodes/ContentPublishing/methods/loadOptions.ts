import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { eventOptions } from '../descriptions/events';
import { loadProfile } from '../../shared/executor/profiles';

/** The events the service's OpenAPI document lists, or the built-in ones when it lists none. */
export async function getEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const { webhooks } = await loadProfile.call(this);
	return eventOptions(webhooks.events, webhooks.meanings);
}
