import type { INodeProperties } from 'n8n-workflow';

export const jobIdField: INodeProperties = {
	displayName: 'Job ID',
	name: 'jobId',
	type: 'string',
	required: true,
	default: '',
	description: 'ID of the job, as returned by a Generate or Publish operation',
};
