import type {
	INodeProperties,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { resources, router } from './actions/router';
import { requestOptionsField, simplifyField } from './descriptions/common';
import { listSearch, loadOptions } from './methods';
import { EVENT_WAIT_WEBHOOKS, resumeOnEvent } from './waiting/resume';

const resourceField: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'Account', value: 'account' },
		{ name: 'Content Generation', value: 'content' },
		{ name: 'Job', value: 'job' },
		{ name: 'Page', value: 'page' },
		{ name: 'Post', value: 'post' },
		{ name: 'Publication', value: 'publication' },
		{ name: 'Service', value: 'service' },
		{ name: 'Webhook', value: 'webhook' },
	],
	default: 'content',
};

/** The canvas subtitle in the names the lists show ("Post → Create"), not the values held. */
function operationSubtitle(): string {
	const names: Record<string, string> = {};
	for (const resource of resourceField.options as INodePropertyOptions[]) {
		const { operationField } = resources[String(resource.value)];
		for (const operation of operationField.options as INodePropertyOptions[])
			names[`${String(resource.value)}:${String(operation.value)}`] =
				`${resource.name} → ${operation.name}`;
	}
	const key = '$parameter["resource"] + ":" + $parameter["operation"]';
	return `={{ ${JSON.stringify(names)}[${key}] || ${key} }}`;
}

export class ContentPublishing implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Content Publishing',
		name: 'contentPublishing',
		icon: { light: 'file:contentPublishing.svg', dark: 'file:contentPublishing.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: operationSubtitle(),
		description:
			'Generate blog posts, social posts, carousels and videos, manage posts and webhooks, and publish to LinkedIn and Twitter',
		defaults: { name: 'Content Publishing' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'contentPublishingApi', required: true }],
		// Only while an execution waits for the service's event (Wait Method: Service Event).
		webhooks: EVENT_WAIT_WEBHOOKS,
		properties: [
			resourceField,
			...Object.values(resources).flatMap(({ operationField, operations }) => [
				operationField,
				...Object.values(operations).flatMap((operation) => operation.description),
			]),
			simplifyField,
			requestOptionsField,
		],
	};

	methods = { listSearch, loadOptions };

	execute = router;

	webhook = resumeOnEvent;
}
