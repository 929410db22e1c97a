import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { executePromptGeneration, promptGenerationProperties } from './shared';
import type { RequestPlan } from '../types';

const kindFields: INodeProperties[] = [
	{
		displayName: 'Thread Length',
		name: 'threadLength',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 25 },
		default: 3,
		description: 'Number of tweets in the thread',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['generateTwitter'] } },
	promptGenerationProperties(kindFields),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return await executePromptGeneration.call(this, 'generateTwitter', itemIndex);
}
