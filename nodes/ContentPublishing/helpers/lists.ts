import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ListPlan } from '../actions/types';
import type { EndpointName } from '../transport/endpoints';
import { readExtraFields } from './fields';

/** A Get Many's plan: its Return All / Limit, the given filters, and the extra query merged last. */
export function listPlan(
	this: IExecuteFunctions,
	endpoint: EndpointName,
	itemIndex: number,
	filters: IDataObject,
): ListPlan {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return { list: endpoint, qs: filters, extra: readExtraFields.call(this, options, itemIndex), limit };
}
