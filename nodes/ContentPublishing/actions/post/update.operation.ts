import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { fieldCollection, showOnlyFor } from '../../descriptions/common';
import { postLocator } from '../../descriptions/locators';
import { optionalPostFields, POST_STATUS_OPTIONS } from '../../descriptions/post.fields';
import { readDateTime } from '../../parameters/dates';
import {
	pickFields,
	readCollection,
	readExtraFields,
	requireChanges,
	requireId,
} from '../../parameters/fields';
import type { RequestPlan } from '../types';

const properties: INodeProperties[] = [
	postLocator,
	fieldCollection('updateFields', [
		{
			displayName: 'Content',
			name: 'content',
			type: 'string',
			typeOptions: { rows: 6 },
			default: '',
		},
		{ displayName: 'Scheduled At', name: 'scheduledAt', type: 'dateTime', default: '' },
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: POST_STATUS_OPTIONS,
			default: 'draft',
		},
		...optionalPostFields,
	]),
];

export const description = showOnlyFor('post', 'update', properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
	const id = requireId.call(this, 'postId', 'Post', itemIndex);
	const updateFields = readCollection.call(this, 'updateFields', itemIndex);
	const extra = readExtraFields.call(this, updateFields, itemIndex);
	const scheduledAt = readDateTime.call(
		this,
		updateFields.scheduledAt,
		'Scheduled At',
		itemIndex,
		updateFields.timeZone,
	);
	const body = pickFields({ ...updateFields, scheduledAt }, 'updatePost');
	requireChanges.call(this, body, extra, itemIndex);
	return { endpoint: 'updatePost', id, params: body, extra };
}
