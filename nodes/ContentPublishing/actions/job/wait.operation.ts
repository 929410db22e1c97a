import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { waitMethodField, waitOptionsField } from '../../descriptions/common';
import { requireId } from '../../parameters/fields';
import { JobToAwait, readWaitOptions } from '../../waiting/poll';
import { mediaFields, readMediaOptions } from '../../media/binary';
import { jobIdField } from './shared';

// The wait's fields without their "Wait for Completion" switch: waiting is this operation's purpose.
const properties: INodeProperties[] = [
	jobIdField,
	{ ...waitMethodField, displayOptions: undefined },
	...mediaFields,
	{ ...waitOptionsField, displayOptions: undefined },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['wait'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<JobToAwait> {
	const jobId = requireId.call(this, 'jobId', 'Job ID', itemIndex);
	return new JobToAwait(
		jobId,
		readWaitOptions.call(this, itemIndex),
		readMediaOptions.call(this, itemIndex),
	);
}
