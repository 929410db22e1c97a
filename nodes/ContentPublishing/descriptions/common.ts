import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

export const extraBodyField: INodeProperties = {
	displayName: 'Extra Body Fields (JSON)',
	name: 'extraBody',
	type: 'json',
	default: '{}',
	description:
		'Fields to add to the request body as they are, for options this node does not list. They are merged last and override the fields above.',
};

export const extraQueryField: INodeProperties = {
	displayName: 'Extra Query Parameters (JSON)',
	name: 'extraQuery',
	type: 'json',
	default: '{}',
	description:
		'Query parameters to add to the request as they are, for filters this node does not list. They are merged last.',
};

const waitForCompletionField: INodeProperties = {
	displayName: 'Wait for Completion',
	name: 'waitForCompletion',
	type: 'boolean',
	default: true,
	description:
		'Whether to wait until the job the service starts has finished and return its result, or return the job at once (pick it up later with Job → Wait for Completion)',
};

export const waitMethodField: INodeProperties = {
	displayName: 'Wait Method',
	name: 'waitMethod',
	type: 'options',
	options: [
		{
			name: 'Poll',
			value: 'poll',
			description:
				'The node checks the job until it has finished; the execution keeps running (and holds a worker) meanwhile',
		},
		{
			name: 'Service Event',
			value: 'event',
			description:
				"The execution sleeps until the service reports every item's job finished, and runs nothing meanwhile. Needs n8n's WEBHOOK_URL reachable by the service.",
		},
	],
	default: 'poll',
	description:
		'How to wait for the job. With Service Event, a job that fails makes its item an error item, and after Maximum Wait Time n8n resumes the execution with the input items unchanged.',
};

export const waitOptionsField: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Maximum Wait Time (Seconds)',
			name: 'maxWaitTime',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 600,
			description:
				'How long to wait for the job before the node fails with a timeout; the job itself goes on',
		},
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollInterval',
			type: 'number',
			typeOptions: { minValue: 0.1, numberPrecision: 1 },
			default: 5,
			description:
				'Jobs are checked often while young and less often as they run: a second after the job started, then every tenth of its age, up to 30 seconds apart. Below 1 this makes the first check sooner; above 30 it lets checks be this far apart.',
		},
	],
};

export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	displayOptions: { hide: { resource: ['service'] } },
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

export const requestOptionsField: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 3600 },
			// DEFAULT_TIMEOUT_MS, as the lint rules want a literal here.
			default: 60,
			description:
				'How long one request may take before the node gives up on it. Reads that time out, meet a rate limit or a gateway error are tried up to 3 times; writes are sent again only after a rate limit, which the service answers before doing anything.',
		},
		{
			displayName: 'Requests in Parallel',
			name: 'parallel',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 32, numberPrecision: 0 },
			default: 4,
			description:
				"How many items' requests are sent at once. The output keeps the input's order either way; 1 sends one item after another. A rate limit pauses every request for the time the service asks.",
		},
	],
};

export function showOnlyFor(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return updateDisplayOptions(
		{ show: { resource: [resource], operation: [operation] } },
		properties,
	);
}

export function fieldCollection(
	name: 'additionalFields' | 'updateFields',
	options: INodeProperties[],
): INodeProperties {
	return {
		displayName: name === 'additionalFields' ? 'Additional Fields' : 'Update Fields',
		name,
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options,
	};
}

/**
 * The fields of an operation that starts a job: its own, whether and how to wait, what to do with
 * the job's media, its optional fields (with the escape hatches) in alphabetical order, and how
 * long to wait; what concerns the wait shown only while waiting is on.
 */
export function jobOperationFields(
	own: INodeProperties[],
	optional: INodeProperties[],
	media: INodeProperties[] = [],
): INodeProperties[] {
	const sorted = [...optional, extraBodyField, extraQueryField].sort((a, b) =>
		a.displayName.localeCompare(b.displayName),
	);
	const whileWaiting = (fields: INodeProperties[]) =>
		updateDisplayOptions({ show: { waitForCompletion: [true] } }, fields);
	return [
		...own,
		waitForCompletionField,
		...whileWaiting([waitMethodField, ...media]),
		fieldCollection('additionalFields', sorted),
		...whileWaiting([waitOptionsField]),
	];
}
