import type { INodeProperties } from 'n8n-workflow';

import type { FieldMapping } from '../helpers/fields';
import { extraBodyField, extraQueryField } from './common';
import { pageIdField } from './locators';

export const POST_STATUS_OPTIONS = [
	{ name: 'Draft', value: 'draft', description: 'Saved, not visible, not published' },
	{ name: 'Published', value: 'published' },
	{ name: 'Scheduled', value: 'scheduled', description: 'Published at "Scheduled At"' },
];

/** Post fields that create and update share, in node-field → API-field form. */
export const POST_FIELD_MAPPINGS: Record<string, FieldMapping> = {
	content: { apiName: 'content' },
	title: { apiName: 'title' },
	status: { apiName: 'status' },
	scheduledAt: { apiName: 'scheduled_at' },
	pageId: { apiName: 'page_id' },
	tags: { apiName: 'tags', kind: 'list' },
	mediaUrls: { apiName: 'media_urls', kind: 'list' },
};

export const optionalPostFields: INodeProperties[] = [
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
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
	},
	extraBodyField,
	extraQueryField,
];
