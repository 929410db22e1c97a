import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pickFields, readCollection, readExtraFields } from '../../parameters/fields';
import { readJobWait } from '../../waiting/poll';
import { mediaFields, readMediaOptions } from '../../media/binary';
import type { RequestPlan } from '../types';
import {
	extraBodyField,
	extraQueryField,
	waitForCompletionField,
	waitMethodField,
	waitOptionsField,
} from '../../descriptions/common';
import { pageIdField, sourcePostField } from '../../descriptions/locators';

export const languageField: INodeProperties = {
	displayName: 'Language',
	name: 'language',
	type: 'string',
	default: '',
	placeholder: 'e.g. en',
	description: 'Language to write in',
};

export const toneField: INodeProperties = {
	displayName: 'Tone',
	name: 'tone',
	type: 'string',
	default: '',
	placeholder: 'e.g. friendly, expert',
	description: 'Voice of the generated content',
};

function sortByDisplayName(fields: INodeProperties[]): INodeProperties[] {
	return [...fields].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** Fields of the prompt-based generators (LinkedIn, Twitter, carousel, video). */
export function promptGenerationProperties(
	kindFields: INodeProperties[],
	{ media = false } = {},
): INodeProperties[] {
	return [
		{
			displayName: 'Prompt',
			name: 'prompt',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			description:
				'What to write about. May be left empty when "Source Text" or "Source Post ID" is given.',
		},
		waitForCompletionField,
		waitMethodField,
		...(media
			? mediaFields.map((field) => ({
					...field,
					displayOptions: { show: { waitForCompletion: [true], ...field.displayOptions?.show } },
				}))
			: []),
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: sortByDisplayName([
				...kindFields,
				languageField,
				pageIdField,
				sourcePostField,
				{
					displayName: 'Source Text',
					name: 'sourceText',
					type: 'string',
					typeOptions: { rows: 4 },
					default: '',
					description: 'Text to adapt, such as an article or a transcript',
				},
				toneField,
				extraBodyField,
				extraQueryField,
			]),
		},
		waitOptionsField,
	];
}

/** Starts a prompt-based generation and hands back its result or the job to wait for. */
export async function executePromptGeneration(
	this: IExecuteFunctions,
	endpoint: 'generateLinkedin' | 'generateTwitter' | 'generateCarousel' | 'generateVideo',
	itemIndex: number,
	{ media = false } = {},
): Promise<RequestPlan> {
	const prompt = this.getNodeParameter('prompt', itemIndex, '') as string;
	const additionalFields = readCollection.call(this, 'additionalFields', itemIndex, [
		pageIdField,
		sourcePostField,
	]);
	const body = pickFields({ ...additionalFields, prompt }, endpoint);
	const extra = readExtraFields.call(this, additionalFields, itemIndex);
	const noSource =
		body.prompt === undefined && body.sourceText === undefined && body.sourcePostId === undefined;
	if (noSource && Object.keys(extra.body).length === 0) {
		throw new NodeOperationError(this.getNode(), `"Prompt" of item ${itemIndex} is empty`, {
			itemIndex,
			description: 'Give a prompt, or a "Source Text" or "Source Post ID" under Additional Fields.',
		});
	}
	const wait = readJobWait.call(this, itemIndex);
	return {
		endpoint,
		params: body,
		extra,
		wait,
		media: media && wait ? readMediaOptions.call(this, itemIndex) : undefined,
	};
}
