import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiRequest } from '../../transport';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (await apiRequest.call(this, 'getAccount', { itemIndex })) as IDataObject;
}
