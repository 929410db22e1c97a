import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestPlan } from '../types';
import { executePublish, publishProperties } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['publication'], operation: ['publishTwitter'] } },
	publishProperties('Twitter', {
		name: 'Thread',
		description: 'Publish several tweets as a thread, each a reply to the one before',
		placeholder: '["First tweet", "Second tweet"]',
	}),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return await executePublish.call(this, 'publishTwitter', itemIndex);
}
