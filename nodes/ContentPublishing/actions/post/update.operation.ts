import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { pageIdField, postLocator } from '../../descriptions/locators';
import { optionalPostFields, POST_STATUS_OPTIONS } from '../../descriptions/post.fields';
import { readDateTime } from '../../parameters/dates';
import {
	pickFields,
	readCollection,
	readExtraFields,
	requireLocator,
} from '../../parameters/fields';
import type { RequestPlan } from '../types';

const properties: INodeProperties[] = [
	postLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Content',
				name: 'content',
				type: 'string',
				typeOptions: { rows: 6 },
				default: '',
			},
			{
				displayName: 'Scheduled At',
				name: 'scheduledAt',
				type: 'dateTime',
				default: '',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: POST_STATUS_OPTIONS,
				default: 'draft',
			},
			...optionalPostFields,
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['post'], operation: ['update'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	const id = requireLocator.call(this, 'postId', 'Post', itemIndex);
	const updateFields = readCollection.call(this, 'updateFields', itemIndex, [pageIdField]);
	const extra = readExtraFields.call(this, updateFields, itemIndex);
	const scheduledAt = readDateTime.call(
		this,
		updateFields.scheduledAt,
		'Scheduled At',
		itemIndex,
		updateFields.timeZone,
	);
	const body = pickFields({ ...updateFields, scheduledAt }, 'updatePost');
	if (Object.keys(body).length === 0 && Object.keys(extra.body).length === 0) {
		throw new NodeOperationError(this.getNode(), `Nothing to update in item ${itemIndex}`, {
			itemIndex,
			description: 'Add at least one field under "Update Fields".',
		});
	}
	return { endpoint: 'updatePost', id, params: body, extra };
}
