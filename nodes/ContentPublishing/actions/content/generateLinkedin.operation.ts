import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { executePromptGeneration, promptGenerationProperties } from './shared';
import type { RequestPlan } from '../types';

const kindFields: INodeProperties[] = [];

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['generateLinkedin'] } },
	promptGenerationProperties(kindFields),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return await executePromptGeneration.call(this, 'generateLinkedin', itemIndex);
}
