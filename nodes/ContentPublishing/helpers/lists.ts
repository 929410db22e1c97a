import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { EndpointName } from '../transport/endpoints';
import { apiRequestAllItems } from '../transport';
import { readExtraFields } from './fields';

/** Runs a Get Many: its Return All / Limit, the given filters, and the extra query merged last. */
export async function readManyOptions(
	this: IExecuteFunctions,
	endpoint: EndpointName,
	itemIndex: number,
	filters: IDataObject,
): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const { qs: extraQuery } = readExtraFields.call(this, options, itemIndex);
	return await apiRequestAllItems.call(this, endpoint, {
		qs: { ...filters, ...extraQuery },
		limit,
		itemIndex,
	});
}
