import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireString } from '../../helpers/fields';
import type { RequestPlan } from '../types';
import { jobIdField } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['get'] } },
	[jobIdField] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return { endpoint: 'getJob', id: requireString.call(this, 'jobId', 'Job ID', itemIndex).trim() };
}
