import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { jobOperationFields, showOnlyFor } from '../../descriptions/common';
import { pageIdField, postLocator } from '../../descriptions/locators';
import { readScheduledAt, timeZoneField } from '../../parameters/dates';
import {
	pickFields,
	readCollection,
	readExtraFields,
	requireId,
	requireString,
	requireTextList,
} from '../../parameters/fields';
import { readJobWait } from '../../waiting/poll';
import type { Operation, RequestPlan } from '../types';

/** `parts`: where a platform takes several parts as one publication (Twitter, as a thread). */
function publishOperation(
	endpoint: 'publishLinkedin' | 'publishTwitter',
	platform: string,
	parts?: { name: string; description: string; placeholder: string },
): Operation {
	const own: INodeProperties[] = [
		{
			displayName: 'Source',
			name: 'source',
			type: 'options',
			options: [
				{
					name: 'Existing Post',
					value: 'post',
					description: 'Publish a post saved in the service',
				},
				{ name: 'Text', value: 'text', description: 'Publish the text given here' },
				...(parts ? [{ name: parts.name, value: 'thread', description: parts.description }] : []),
			],
			default: 'post',
			description: `What to publish to ${platform}`,
		},
		{ ...postLocator, displayOptions: { show: { source: ['post'] } } },
		{
			displayName: 'Text',
			name: 'text',
			type: 'string',
			typeOptions: { rows: 6 },
			required: true,
			default: '',
			displayOptions: { show: { source: ['text'] } },
		},
	];
	if (parts)
		own.push({
			displayName: 'Parts',
			name: 'parts',
			type: 'json',
			required: true,
			default: '',
			placeholder: parts.placeholder,
			description:
				'The parts in order: a JSON array of texts, or an expression that gives one, such as the tweets (result.tweets) of a Generate Twitter Thread before this node',
			displayOptions: { show: { source: ['thread'] } },
		});
	const scheduledAt: INodeProperties = {
		displayName: 'Scheduled At',
		name: 'scheduledAt',
		type: 'dateTime',
		default: '',
		description: 'When to publish; empty publishes now',
	};
	return {
		description: showOnlyFor(
			'publication',
			endpoint,
			jobOperationFields(own, [pageIdField, scheduledAt, timeZoneField]),
		),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const source = this.getNodeParameter('source', itemIndex) as string;
			const what =
				source === 'post'
					? { postId: requireId.call(this, 'postId', 'Post', itemIndex) }
					: source === 'thread'
						? { thread: requireTextList.call(this, 'parts', 'Parts', itemIndex) }
						: { content: requireString.call(this, 'text', 'Text', itemIndex) };
			const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
			const extra = readExtraFields.call(this, additionalFields, itemIndex);
			const scheduledAt = readScheduledAt.call(this, additionalFields, itemIndex);
			const body = pickFields({ ...additionalFields, ...what, scheduledAt }, endpoint);
			return { endpoint, params: body, extra, wait: readJobWait.call(this, itemIndex) };
		},
	};
}

export const operations = {
	publishLinkedin: publishOperation('publishLinkedin', 'LinkedIn'),
	publishTwitter: publishOperation('publishTwitter', 'Twitter', {
		name: 'Thread',
		description: 'Publish several tweets as a thread, each a reply to the one before',
		placeholder: '["First tweet", "Second tweet"]',
	}),
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['publication'] } },
	options: [
		{
			name: 'Publish to LinkedIn',
			value: 'publishLinkedin',
			description: 'Publish a post or text to LinkedIn',
			// Sentence case would split LinkedIn into "linked in": one lowercase word stays findable.
			action: 'Publish to linkedin',
		},
		{
			name: 'Publish to Twitter',
			value: 'publishTwitter',
			description: 'Publish a post or text to Twitter',
			action: 'Publish to twitter',
		},
	],
	default: 'publishLinkedin',
};
