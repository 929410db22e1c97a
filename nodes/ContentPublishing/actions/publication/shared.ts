import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	extraBodyField,
	extraQueryField,
	waitForCompletionField,
	waitMethodField,
	waitOptionsField,
} from '../../descriptions/common';
import { pageIdField, postLocator } from '../../descriptions/locators';
import { readDateTime, timeZoneField } from '../../parameters/dates';
import {
	pickFields,
	readCollection,
	readExtraFields,
	requireLocator,
	requireString,
	requireTextList,
} from '../../parameters/fields';
import { readJobWait } from '../../waiting/poll';
import type { RequestPlan } from '../types';

/** A platform that takes several parts as one publication: Twitter, as a thread. */
interface Parts {
	name: string;
	description: string;
	placeholder: string;
}

export function publishProperties(platform: string, parts?: Parts): INodeProperties[] {
	return [
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
		...(parts
			? [
					{
						displayName: 'Parts',
						name: 'parts',
						type: 'json',
						required: true,
						default: '',
						placeholder: parts.placeholder,
						description:
							'The parts in order: a JSON array of texts, or an expression that gives one, such as the tweets (result.tweets) of a Generate Twitter Thread before this node',
						displayOptions: { show: { source: ['thread'] } },
					} satisfies INodeProperties,
				]
			: []),
		waitForCompletionField,
		waitMethodField,
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [
				extraBodyField,
				extraQueryField,
				pageIdField,
				{
					displayName: 'Scheduled At',
					name: 'scheduledAt',
					type: 'dateTime',
					default: '',
					description: 'When to publish; empty publishes now',
				},
				timeZoneField,
			],
		},
		waitOptionsField,
	];
}

export async function executePublish(
	this: IExecuteFunctions,
	endpoint: 'publishLinkedin' | 'publishTwitter',
	itemIndex: number,
): Promise<RequestPlan> {
	const source = this.getNodeParameter('source', itemIndex) as string;
	const what =
		source === 'post'
			? { postId: requireLocator.call(this, 'postId', 'Post', itemIndex) }
			: source === 'thread'
				? { thread: requireTextList.call(this, 'parts', 'Parts', itemIndex) }
				: { content: requireString.call(this, 'text', 'Text', itemIndex) };
	const additionalFields = readCollection.call(this, 'additionalFields', itemIndex, [pageIdField]);
	const extra = readExtraFields.call(this, additionalFields, itemIndex);
	const scheduledAt = readDateTime.call(
		this,
		additionalFields.scheduledAt,
		'Scheduled At',
		itemIndex,
		additionalFields.timeZone,
	);
	const body = pickFields({ ...additionalFields, ...what, scheduledAt }, endpoint);
	return { endpoint, params: body, extra, wait: readJobWait.call(this, itemIndex) };
}
