import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireId } from '../../parameters/fields';
import { mediaFields, readMediaOptions } from '../../media/binary';
import type { RequestPlan } from '../types';
import { jobIdField } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['get'] } },
	[jobIdField, ...mediaFields] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	return {
		endpoint: 'getJob',
		id: requireId.call(this, 'jobId', 'Job ID', itemIndex),
		media: readMediaOptions.call(this, itemIndex),
	};
}
