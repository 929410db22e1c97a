import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireString } from '../../helpers/fields';
import { getJob } from '../../helpers/jobs';
import { jobIdField } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['get'] } },
	[jobIdField] as INodeProperties[],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const jobId = requireString.call(this, 'jobId', 'Job ID', itemIndex);
	return await getJob.call(this, jobId, itemIndex);
}
