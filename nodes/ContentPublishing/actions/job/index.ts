import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showOnlyFor, waitMethodField, waitOptionsField } from '../../descriptions/common';
import { mediaFields, readMediaOptions } from '../../media/binary';
import { requireId } from '../../parameters/fields';
import { readWaitOptions } from '../../waiting/poll';
import { JobToAwait, type RequestPlan } from '../types';

const jobIdField: INodeProperties = {
	displayName: 'Job ID',
	name: 'jobId',
	type: 'string',
	required: true,
	default: '',
	description: 'ID of the job, as returned by a Generate or Publish operation',
};

export const operations = {
	get: {
		description: showOnlyFor('job', 'get', [jobIdField, ...mediaFields]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			return {
				endpoint: 'getJob',
				id: requireId.call(this, 'jobId', 'Job ID', itemIndex),
				media: readMediaOptions.call(this, itemIndex),
			};
		},
	},
	wait: {
		// Without a "Wait for Completion" switch: waiting is this operation's purpose.
		description: showOnlyFor('job', 'wait', [
			jobIdField,
			waitMethodField,
			...mediaFields,
			waitOptionsField,
		]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<JobToAwait> {
			return new JobToAwait(
				requireId.call(this, 'jobId', 'Job ID', itemIndex),
				readWaitOptions.call(this, itemIndex),
				readMediaOptions.call(this, itemIndex),
			);
		},
	},
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['job'] } },
	options: [
		{
			name: 'Get',
			value: 'get',
			description: 'Get the current state of a job',
			action: 'Get a job',
		},
		{
			name: 'Wait for Completion',
			value: 'wait',
			description: 'Wait until a job has finished and return it',
			action: 'Wait for a job to finish',
		},
	],
	default: 'get',
};
