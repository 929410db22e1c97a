import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ListPlan } from '../actions/types';
import type { OperationName } from '../../shared/profile/types';
import { MAX_LIST_ITEMS } from '../../shared/transport/paging';
import { readExtraFields } from './fields';

/** A Get Many's plan: its Return All / Limit, the given filters, and the extra query merged last. */
export function listPlan(
	this: IExecuteFunctions,
	endpoint: OperationName,
	itemIndex: number,
	filters: IDataObject,
): ListPlan {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', itemIndex, 50));
	if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_ITEMS)) {
		throw new NodeOperationError(
			this.getNode(),
			`"Limit" of item ${itemIndex} must be a whole number from 1 to ${MAX_LIST_ITEMS.toLocaleString('en-US')}`,
			{
				itemIndex,
				description:
					'One execution reads at most this many items of a list. Narrow the list with filters to get at the rest.',
			},
		);
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return {
		list: endpoint,
		qs: filters,
		extra: readExtraFields.call(this, options, itemIndex),
		limit,
	};
}
