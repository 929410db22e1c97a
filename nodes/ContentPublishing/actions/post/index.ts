import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	extraBodyField,
	extraQueryField,
	fieldCollection,
	showOnlyFor,
} from '../../descriptions/common';
import { pageIdField, postLocator } from '../../descriptions/locators';
import { readScheduledAt, timeZoneField } from '../../parameters/dates';
import {
	parameterError,
	pickFields,
	readCollection,
	readExtraFields,
	requireChanges,
	requireId,
	requireString,
} from '../../parameters/fields';
import { byLocator, listOperation } from '../operations';
import type { RequestPlan } from '../types';

const POST_STATUS_OPTIONS = [
	{ name: 'Draft', value: 'draft', description: 'Saved, not visible, not published' },
	{ name: 'Published', value: 'published' },
	{ name: 'Scheduled', value: 'scheduled', description: 'Published at "Scheduled At"' },
];

const optionalPostFields: INodeProperties[] = [
	pageIdField,
	{
		displayName: 'Media URLs',
		name: 'mediaUrls',
		type: 'string',
		default: '',
		description: 'URLs of images or videos to attach, separated by commas or new lines',
	},
	{
		displayName: 'Tags',
		name: 'tags',
		type: 'string',
		default: '',
		description: 'Tags separated by commas',
	},
	{ displayName: 'Title', name: 'title', type: 'string', default: '' },
	timeZoneField,
	extraBodyField,
	extraQueryField,
];

export const operations = {
	create: {
		description: showOnlyFor('post', 'create', [
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
		]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const content = requireString.call(this, 'content', 'Content', itemIndex);
			const status = this.getNodeParameter('status', itemIndex) as string;
			const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
			const given =
				status === 'scheduled' ? this.getNodeParameter('scheduledAt', itemIndex, '') : '';
			const scheduledAt = readScheduledAt.call(
				this,
				{ ...additionalFields, scheduledAt: given },
				itemIndex,
			);
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
		},
	},
	delete: byLocator('post', 'delete', 'deletePost', postLocator),
	get: byLocator('post', 'get', 'getPost', postLocator),
	getMany: listOperation('post', 'listPosts', [
		{ ...pageIdField, description: 'Only posts of this page' },
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: POST_STATUS_OPTIONS,
			default: 'draft',
			description: 'Only posts in this status',
		},
	]),
	update: {
		description: showOnlyFor('post', 'update', [
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
		]),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const id = requireId.call(this, 'postId', 'Post', itemIndex);
			const updateFields = readCollection.call(this, 'updateFields', itemIndex);
			const extra = readExtraFields.call(this, updateFields, itemIndex);
			const scheduledAt = readScheduledAt.call(this, updateFields, itemIndex);
			const body = pickFields({ ...updateFields, scheduledAt }, 'updatePost');
			requireChanges.call(this, body, extra, itemIndex);
			return { endpoint: 'updatePost', id, params: body, extra };
		},
	},
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['post'] } },
	options: [
		{
			name: 'Create',
			value: 'create',
			description: 'Create a post, as a draft or to publish',
			action: 'Create a post',
		},
		{ name: 'Delete', value: 'delete', description: 'Delete a post', action: 'Delete a post' },
		{ name: 'Get', value: 'get', description: 'Get a post', action: 'Get a post' },
		{ name: 'Get Many', value: 'getMany', description: 'List posts', action: 'Get many posts' },
		{ name: 'Update', value: 'update', description: 'Update a post', action: 'Update a post' },
	],
	default: 'create',
};
