import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { jobOperationFields, showOnlyFor } from '../../descriptions/common';
import { pageIdField, sourcePostField } from '../../descriptions/locators';
import { mediaFields, readMediaOptions } from '../../media/binary';
import { pickFields, readCollection, readExtraFields } from '../../parameters/fields';
import { readJobWait } from '../../waiting/poll';
import type { Operation, RequestPlan } from '../types';

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

const promptField: INodeProperties = {
	displayName: 'Prompt',
	name: 'prompt',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	description:
		'What to write about. May be left empty when "Source Text" or "Source Post ID" is given.',
};

const sourceTextField: INodeProperties = {
	displayName: 'Source Text',
	name: 'sourceText',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	description: 'Text to adapt, such as an article or a transcript',
};

// Media can only be downloaded from a job the node waits for.
const mediaWhenWaiting = mediaFields.map((field) => ({
	...field,
	displayOptions: { show: { waitForCompletion: [true], ...field.displayOptions?.show } },
}));

/** A prompt-based generation (LinkedIn, Twitter, carousel, video), with the fields of its kind. */
export function promptGeneration(
	endpoint: 'generateLinkedin' | 'generateTwitter' | 'generateCarousel' | 'generateVideo',
	kindFields: INodeProperties[],
	{ media = false } = {},
): Operation {
	const optional = [
		...kindFields,
		languageField,
		pageIdField,
		sourcePostField,
		sourceTextField,
		toneField,
	];
	return {
		description: showOnlyFor(
			'content',
			endpoint,
			jobOperationFields([promptField], optional, media ? mediaWhenWaiting : []),
		),
		async execute(this: IExecuteFunctions, itemIndex: number): Promise<RequestPlan> {
			const prompt = this.getNodeParameter('prompt', itemIndex, '') as string;
			const additionalFields = readCollection.call(this, 'additionalFields', itemIndex);
			const body = pickFields({ ...additionalFields, prompt }, endpoint);
			const extra = readExtraFields.call(this, additionalFields, itemIndex);
			const noSource =
				body.prompt === undefined &&
				body.sourceText === undefined &&
				body.sourcePostId === undefined;
			if (noSource && Object.keys(extra.body).length === 0) {
				throw new NodeOperationError(this.getNode(), `"Prompt" of item ${itemIndex} is empty`, {
					itemIndex,
					description:
						'Give a prompt, or a "Source Text" or "Source Post ID" under Additional Fields.',
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
		},
	};
}
