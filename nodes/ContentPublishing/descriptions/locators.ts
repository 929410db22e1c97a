import type { INodeProperties } from 'n8n-workflow';

// Any run of characters without a path, query or fragment delimiter, except `.` and `..`.
const ID_PATTERN = '(?!\\.\\.?(?:[/?#]|$))[^/?#\\s]+';

/** A resource locator: from a list, by ID, or by its API URL (a Page: `pageId`, `/v1/pages/<ID>`). */
function resourceLocator(
	displayName: 'Page' | 'Post' | 'Webhook',
	searchListMethod: string,
): INodeProperties {
	const resource = displayName.toLowerCase();
	const urlPattern = `^https?://.+/v1/${resource}s/(${ID_PATTERN})/?(?:[?#].*)?$`;
	return {
		displayName,
		name: `${resource}Id`,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: `Select a ${resource}...`,
				typeOptions: { searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. abc123',
				validation: [
					{
						type: 'regex',
						properties: { regex: `^${ID_PATTERN}$`, errorMessage: 'Not a valid ID' },
					},
				],
			},
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: `e.g. https://api.example.com/v1/${resource}s/abc123`,
				extractValue: { type: 'regex', regex: urlPattern },
				validation: [
					{
						type: 'regex',
						properties: {
							regex: urlPattern,
							errorMessage: `Not an API URL of the form .../v1/${resource}s/<ID>`,
						},
					},
				],
			},
		],
	};
}

export const pageLocator = resourceLocator('Page', 'searchPages');
export const postLocator = resourceLocator('Post', 'searchPosts');
export const webhookLocator = resourceLocator('Webhook', 'searchWebhooks');

export const pageIdField: INodeProperties = {
	...pageLocator,
	required: false,
	description: 'The page the content belongs to',
};

export const sourcePostField: INodeProperties = {
	...postLocator,
	displayName: 'Source Post',
	name: 'sourcePostId',
	required: false,
	description: 'An existing post to adapt',
};
