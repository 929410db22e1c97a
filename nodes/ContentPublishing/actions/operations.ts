import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OperationName } from '../../shared/profile/types';
import { MAX_LIST_ITEMS } from '../../shared/executor/paging';
import { extraQueryField, returnAllAndLimit, showOnlyFor } from '../descriptions/common';
import {
	parameterError,
	pickFields,
	readCollection,
	readExtraFields,
	requireId,
} from '../parameters/fields';
import type { ListPlan, Operation, RequestPlan } from './types';

/** An operation on the one resource a locator names, such as Post → Get. */
export function byLocator(
	resource: string,
	operation: string,
	endpoint: OperationName,
	locator: INodeProperties,
): Operation {
	return {
		description: showOnlyFor(resource, operation, [locator]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			return { endpoint, id: requireId.call(this, locator.name, locator.displayName, itemIndex) };
		},
	};
}

/** A Get Many: Return All or a Limit, the filters given (if it has any), and the extra query. */
export function listOperation(
	resource: string,
	endpoint: OperationName,
	filters?: INodeProperties[],
): Operation {
	const filtersField: INodeProperties[] = filters
		? [
				{
					displayName: 'Filters',
					name: 'filters',
					type: 'collection',
					placeholder: 'Add Filter',
					default: {},
					options: filters,
				},
			]
		: [];
	return {
		description: showOnlyFor(resource, 'getMany', [
			...returnAllAndLimit,
			...filtersField,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [extraQueryField],
			},
		]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<ListPlan> {
			const qs = filters
				? pickFields(readCollection.call(this, 'filters', itemIndex), endpoint)
				: {};
			const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
			const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', itemIndex, 50));
			if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_ITEMS))
				throw parameterError(
					this,
					'Limit',
					itemIndex,
					`must be a whole number from 1 to ${MAX_LIST_ITEMS.toLocaleString('en-US')}`,
					'One execution reads at most this many items of a list. Narrow the list with filters to get at the rest.',
				);
			const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
			return { list: endpoint, qs, extra: readExtraFields.call(this, options, itemIndex), limit };
		},
	};
}
