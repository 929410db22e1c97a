import type { INodeProperties } from 'n8n-workflow';

import { timeZoneField } from '../parameters/dates';
import { extraBodyField, extraQueryField } from './common';
import { pageIdField } from './locators';

export const POST_STATUS_OPTIONS = [
	{ name: 'Draft', value: 'draft', description: 'Saved, not visible, not published' },
	{ name: 'Published', value: 'published' },
	{ name: 'Scheduled', value: 'scheduled', description: 'Published at "Scheduled At"' },
];

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
	{ displayName: 'Title', name: 'title', type: 'string', default: '' },
	timeZoneField,
	extraBodyField,
	extraQueryField,
];
