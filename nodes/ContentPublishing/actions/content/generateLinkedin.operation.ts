import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	executePromptGeneration,
	promptGenerationProperties,
} from './shared';
import type { FieldMapping } from '../../helpers/fields';
import type { RequestPlan } from '../types';

const kindFields: INodeProperties[] = [];

const kindMappings: Record<string, FieldMapping> = {};

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['generateLinkedin'] } },
	promptGenerationProperties(kindFields),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<RequestPlan> {
	return await executePromptGeneration.call(this, 'generateLinkedin', kindMappings, itemIndex);
}
