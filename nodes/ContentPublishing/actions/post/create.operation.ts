import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { fieldCollection, showOnlyFor } from '../../descriptions/common';
import { optionalPostFields, POST_STATUS_OPTIONS } from '../../descriptions/post.fields';
import { readDateTime } from '../../parameters/dates';
import {
	parameterError,
	pickFields,
	readCollection,
	readExtraFields,
	requireString,
} from '../../parameters/fields';
import type { RequestPlan } from '../types';

const properties: INodeProperties[] = [
	{
		displayName: 'Content',
		name: 'content',
		type: 'string',
		typeOptions: { rows: 6 },
		required: true,
		default: '',
		description: 'Text of the post',
	},
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		options: POST_STATUS_OPTIONS,
		default: 'draft',
		description: 'Whether to save the post as a draft, publish it, or schedule it',
	},
	{
		displayName: 'Scheduled At',
		name: 'scheduledAt',
		type: 'dateTime',
		required: true,
		default: '',
		displayOptions: { show: { status: ['scheduled'] } },
	},
	fieldCollection('additionalFields', optionalPostFields),
];

export const description = showOnlyFor('post', 'create', properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	const content = requireString.call(this, 'content', 'Content', itemIndex);
	const status = this.getNodeParameter('status', itemIndex) as string;
	const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
	const scheduledAt =
		status === 'scheduled'
			? readDateTime.call(
					this,
					this.getNodeParameter('scheduledAt', itemIndex, ''),
					'Scheduled At',
					itemIndex,
					additionalFields.timeZone,
				)
			: undefined;
	if (status === 'scheduled' && !scheduledAt)
		throw parameterError(
			this,
			'Scheduled At',
			itemIndex,
			'is empty',
			'A scheduled post needs the date and time to publish it.',
		);
	const extra = readExtraFields.call(this, additionalFields, itemIndex);
	const body = pickFields({ ...additionalFields, content, status, scheduledAt }, 'createPost');
	return { endpoint: 'createPost', params: body, extra };
}
