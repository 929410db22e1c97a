import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { JobToAwait } from '../../helpers/jobs';
import { executePublish, publishProperties } from './shared';

export const description = updateDisplayOptions(
	{ show: { resource: ['publication'], operation: ['publishTwitter'] } },
	publishProperties('Twitter'),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject | JobToAwait> {
	return await executePublish.call(this, 'publishTwitter', itemIndex);
}
