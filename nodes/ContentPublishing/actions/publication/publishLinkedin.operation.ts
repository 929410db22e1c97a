import type { IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestPlan } from '../types';
import { executePublish, publishProperties } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['publication'], operation: ['publishLinkedin'] } },
	publishProperties('LinkedIn'),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return await executePublish.call(this, 'publishLinkedin', itemIndex);
}
