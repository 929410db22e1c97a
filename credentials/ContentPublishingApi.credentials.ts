import type {
	IAuthenticate,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { overridesProblem } from '../nodes/shared/profile/overrides';
import { redact } from '../nodes/shared/transport/credentials';

export class ContentPublishingApi implements ICredentialType {
	name = 'contentPublishingApi';

	displayName = 'Content Publishing API';

	icon: Icon = { light: 'file:contentPublishing.svg', dark: 'file:contentPublishing.dark.svg' };

	documentationUrl =
		'https://github.com/content-publishing/n8n-nodes-content-publishing/blob/main/README.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Address of the service, without the /v1 version prefix. A trailing slash is fine.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Developer API key, generated in the account settings (API section) once an administrator has approved the account',
		},
		{
			displayName: 'Profile Overrides',
			name: 'profileOverrides',
			// Text, not 'json': n8n's JSON editor marks an empty value as invalid JSON, and empty is
			// the usual value. n8n's own optional JSON fields hide behind a toggle, but n8n drops a
			// hidden field's value: saved overrides would be lost. Checked by Test and before requests.
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: '{"operations": {"updatePost": {"method": "POST"}}}',
			description:
				'Optional corrections of how the node reads the service, as JSON in the shape of the profile that the Service → Describe operation outputs, such as {"operations": {"updatePost": {"method": "POST"}}}. Leave empty to follow the service\'s OpenAPI document.',
		},
	];

	/**
	 * The key as a Bearer token, as n8n's generic authentication would set it. A function so that
	 * the credential's Test fails on Profile Overrides that break a rule, with the JSON path (n8n
	 * shows the message of an error thrown here), before anything is sent. The checks that need the
	 * service's document run in the nodes, before their first request.
	 */
	authenticate: IAuthenticate = async (credentials, requestOptions) => {
		const apiKey = String(credentials.apiKey ?? '');
		const problem = overridesProblem(credentials.profileOverrides);
		if (problem !== undefined) throw new Error(redact(problem, apiKey));
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` },
		};
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/v1$/i, "")}}',
			url: '/v1/me',
			method: 'GET',
			headers: { Accept: 'application/json' },
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					// A JSON answer arrives parsed, any other text stays a string: this path reads
					// "String" only for text, such as the HTML login page behind a wrong base URL.
					key: 'constructor.name',
					value: 'String',
					message:
						"Base URL: it answered with a web page or text instead of JSON. Use the API's address (the one that serves /v1/me), without /v1.",
				},
			},
		],
	};
}
