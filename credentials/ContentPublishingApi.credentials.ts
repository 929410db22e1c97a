import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

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
			type: 'json',
			default: '',
			description:
				'Optional corrections of how the node reads the service, as JSON in the shape of the profile that the Service → Describe operation outputs, such as {"operations": {"updatePost": {"method": "POST"}}}. Leave empty to follow the service\'s OpenAPI document.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: { Authorization: '=Bearer {{$credentials.apiKey}}' },
		},
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
						"The Base URL answered with a web page or text instead of JSON. Use the API's address (the one that serves /v1/me), without /v1.",
				},
			},
		],
	};
}
