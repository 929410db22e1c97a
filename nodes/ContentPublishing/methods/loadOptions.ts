import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { eventOptions } from '../descriptions/events';
import { loadContract } from '../../shared/transport';

/** The events the service's OpenAPI document lists, or the built-in ones when it lists none. */
export async function getEvents(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const contract = await loadContract.call(this);
	return eventOptions(contract.webhooks.events, contract.webhooks.meanings);
}
