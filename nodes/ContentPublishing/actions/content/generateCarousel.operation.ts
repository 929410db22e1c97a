import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { executePromptGeneration, promptGenerationProperties } from './shared';
import type { RequestPlan } from '../types';

const kindFields: INodeProperties[] = [
	{
		displayName: 'Slide Count',
		name: 'slideCount',
		type: 'number',
		typeOptions: { minValue: 2, maxValue: 20 },
		default: 5,
		description: 'Number of slides',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['generateCarousel'] } },
	promptGenerationProperties(kindFields, { media: true }),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return await executePromptGeneration.call(this, 'generateCarousel', itemIndex, { media: true });
}
