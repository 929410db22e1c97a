import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { JobToAwait } from '../helpers/jobs';

export type OperationResult = IDataObject | IDataObject[] | JobToAwait;

export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult>;
}
