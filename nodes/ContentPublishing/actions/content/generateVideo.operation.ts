import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { executePromptGeneration, promptGenerationProperties } from './shared';
import type { RequestPlan } from '../types';

const kindFields: INodeProperties[] = [
	{
		displayName: 'Aspect Ratio',
		name: 'aspectRatio',
		type: 'options',
		options: [
			{ name: 'Landscape (16:9)', value: '16:9' },
			{ name: 'Portrait (9:16)', value: '9:16' },
			{ name: 'Square (1:1)', value: '1:1' },
		],
		default: '16:9',
	},
	{
		displayName: 'Duration (Seconds)',
		name: 'durationSeconds',
		type: 'number',
		typeOptions: { minValue: 5, maxValue: 600 },
		default: 60,
		description: 'Length of the video',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['generateVideo'] } },
	promptGenerationProperties(kindFields, { media: true }),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return await executePromptGeneration.call(this, 'generateVideo', itemIndex, { media: true });
}
