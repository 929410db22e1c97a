import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RequestPlan } from '../types';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions): Promise<RequestPlan> {
	return { endpoint: 'getAccount' };
}
