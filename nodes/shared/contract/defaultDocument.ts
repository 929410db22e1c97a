import type { IDataObject } from 'n8n-workflow';

import { ENDPOINTS, FIELDS, type EndpointSpec, type FieldName } from './catalog';
import type { OpenApiDocument } from './schema';

/**
 * The built-in conventions, written once as the OpenAPI document of a service that follows them:
 * what the node assumes where the spec says "not shown" and the service serves no document of its
 * own. It is read by the same code as a served document (resolve.ts), so there is one way of
 * reading a service, not a second set of guesses; and a point a served document is silent on is
 * read from here.
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: IDataObject) => ({ content: { 'application/json': { schema } } });
const uri = (what: string) => ({
	type: 'string',
	format: 'uri',
	description: `Address of the ${what}.`,
});

/** `scheduledAt` is `scheduled_at` in the built-in document. */
export function builtInName(field: FieldName): string {
	return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function fieldSchema(field: FieldName): IDataObject {
	const spec: { type: string; description: string; values?: readonly string[] } = FIELDS[field];
	const values = spec.values ? { enum: [...spec.values] } : {};
	switch (spec.type) {
		case 'list':
			return { type: 'array', items: { type: 'string', ...values }, description: spec.description };
		case 'date-time':
			return { type: 'string', format: 'date-time', description: spec.description };
		default:
			return { type: spec.type, ...values, description: spec.description };
	}
}

function objectOf(fields: readonly FieldName[], required: readonly FieldName[] = []): IDataObject {
	return {
		type: 'object',
		properties: Object.fromEntries(fields.map((field) => [builtInName(field), fieldSchema(field)])),
		...(required.length > 0 ? { required: required.map(builtInName) } : {}),
	};
}

// Status words a job may report, each explained the way resolve.ts reads explanations.
const JOB_STATES: Array<[string, string]> = [
	['queued', 'Accepted, not started yet.'],
	['pending', 'Not started yet.'],
	['waiting', 'Waiting to start.'],
	['scheduled', 'Accepted, will run at its scheduled time.'],
	['running', 'In progress.'],
	['processing', 'In progress.'],
	['in_progress', 'In progress.'],
	['started', 'In progress.'],
	['succeeded', 'Finished successfully.'],
	['success', 'Finished successfully.'],
	['successful', 'Finished successfully.'],
	['completed', 'Finished successfully.'],
	['complete', 'Finished successfully.'],
	['done', 'Finished successfully.'],
	['finished', 'Finished successfully.'],
	['failed', 'The job failed.'],
	['failure', 'The job failed.'],
	['error', 'The job failed with an error.'],
	['errored', 'The job failed with an error.'],
	['cancelled', 'Cancelled before it finished.'],
	['canceled', 'Cancelled before it finished.'],
	['expired', 'Expired before it finished.'],
	['rejected', 'Rejected by the service.'],
];

const EVENTS: Array<[string, string]> = [
	['job.completed', 'A generation or publishing job finished successfully.'],
	['job.failed', 'A generation or publishing job failed.'],
	['post.published', 'A post was published.'],
];

const SIGNATURE_HEADERS = [
	{
		name: 'X-Content-Publishing-Signature',
		in: 'header',
		required: true,
		description:
			'`sha256=` + lowercase hex HMAC-SHA256, keyed with the webhook secret, of `<timestamp>.<raw body>`.',
		schema: { type: 'string' },
	},
	{
		name: 'X-Content-Publishing-Timestamp',
		in: 'header',
		required: true,
		description: 'Unix time in seconds when the event was signed.',
		schema: { type: 'string' },
	},
	{
		name: 'X-Content-Publishing-Delivery',
		in: 'header',
		description: 'The unique id of the event.',
		schema: { type: 'string' },
	},
];

const SCHEMAS: IDataObject = {
	Account: { type: 'object', properties: { id: { type: 'string' } } },
	Page: {
		type: 'object',
		properties: {
			id: { type: 'string' },
			name: { type: 'string' },
			url: { type: 'string', format: 'uri' },
		},
	},
	Post: {
		type: 'object',
		properties: {
			id: { type: 'string' },
			...(objectOf(ENDPOINTS.createPost.body).properties as IDataObject),
		},
	},
	Webhook: {
		type: 'object',
		properties: {
			id: { type: 'string' },
			...(objectOf(['url', 'events', 'description', 'active']).properties as IDataObject),
		},
	},
	Job: {
		type: 'object',
		properties: {
			id: { type: 'string' },
			type: { type: 'string', description: 'Kind of job, such as `generate.video`.' },
			status: {
				type: 'string',
				enum: JOB_STATES.map(([state]) => state),
				'x-enum-descriptions': JOB_STATES.map(([, text]) => text),
			},
			result: ref('JobResult'),
			error: ref('JobError'),
			error_message: {
				type: 'string',
				description: 'Why the job failed, where the service says it beside the job.',
			},
		},
	},
	JobResult: {
		type: 'object',
		description: 'The result of a finished job.',
		properties: {
			video_url: uri('video'),
			image_url: uri('image'),
			audio_url: uri('audio'),
			thumbnail_url: uri('thumbnail image'),
			media_url: uri('media file'),
			file_url: uri('file'),
			download_url: uri('file to download'),
			slides: {
				type: 'array',
				items: { type: 'object', properties: { image_url: uri('slide image') } },
			},
		},
	},
	JobError: {
		type: 'object',
		description: 'Why the job failed.',
		properties: { code: { type: 'string' }, message: { type: 'string' } },
	},
	// A job is started by an answer that is the job, holds it, or names it.
	JobAnswer: {
		anyOf: [
			ref('Job'),
			{ type: 'object', properties: { job: ref('Job') }, required: ['job'] },
			{
				type: 'object',
				properties: { job_id: { type: 'string', description: 'The id of the job.' } },
				required: ['job_id'],
			},
			{
				type: 'object',
				properties: { jobId: { type: 'string', description: 'The id of the job.' } },
				required: ['jobId'],
			},
		],
	},
	Error: {
		anyOf: [
			{
				type: 'object',
				properties: {
					error: {
						type: 'object',
						properties: {
							code: { type: 'string' },
							message: { type: 'string' },
							details: {
								type: 'array',
								items: {
									type: 'object',
									properties: { field: { type: 'string' }, message: { type: 'string' } },
								},
							},
						},
					},
				},
			},
			{
				type: 'object',
				properties: {
					message: { type: 'string' },
					code: { type: 'string' },
					errors: { type: 'array', items: {} },
				},
			},
			{
				type: 'object',
				properties: {
					detail: { type: 'string' },
					title: { type: 'string' },
					type: { type: 'string' },
				},
			},
			{ type: 'object', properties: { error: { type: 'string' } } },
		],
	},
	Event: {
		type: 'object',
		properties: {
			id: { type: 'string', description: 'The unique id of the event.' },
			type: { type: 'string', enum: EVENTS.map(([event]) => event) },
			created_at: { type: 'string', format: 'date-time' },
			data: {
				description: 'The job, or `post` for a published post.',
				anyOf: [
					ref('Job'),
					{
						type: 'object',
						properties: {
							job: ref('Job'),
							job_id: { type: 'string', description: 'The id of the job.' },
							post: ref('Post'),
						},
					},
				],
			},
		},
	},
};

function listOf(item: string): IDataObject {
	const cursor = {
		type: ['string', 'null'],
		description: 'Pass as `cursor` to get the next page; null on the last page.',
	};
	return {
		anyOf: ['data', 'items', 'results'].map((name) => ({
			type: 'object',
			properties: { [name]: { type: 'array', items: ref(item) }, next_cursor: cursor },
			required: [name],
		})),
	};
}

function operation(spec: EndpointSpec): IDataObject {
	const query = (name: string, schema: IDataObject) => ({ name, in: 'query', schema });
	const parameters = [
		...(spec.answer === 'list'
			? [
					query('limit', { type: 'integer', minimum: 1, maximum: 100 }),
					query('cursor', { type: 'string' }),
				]
			: []),
		...(spec.query ?? []).map((field) => query(builtInName(field), fieldSchema(field))),
	];
	const required = (spec.body ?? []).slice(0, spec.required ?? 0);
	const answers: Record<string, IDataObject> = {
		object: { '200': json(ref(spec.resource ?? 'Account')) },
		list: { '200': json(listOf(spec.resource ?? 'Page')) },
		job: { '200': json(ref(spec.resource ?? 'JobAnswer')) },
		deleted: { '204': { description: 'Deleted.' } },
	};
	return {
		...(parameters.length > 0 ? { parameters } : {}),
		...(spec.body ? { requestBody: json(objectOf(spec.body, required)) } : {}),
		responses: {
			...answers[spec.answer],
			default: { description: 'An error.', ...json(ref('Error')) },
		},
	};
}

function buildDefaultDocument(): OpenApiDocument {
	const paths: Record<string, IDataObject> = {};
	for (const spec of Object.values(ENDPOINTS) as EndpointSpec[]) {
		const events = spec.path === ENDPOINTS.createWebhook.path && spec.method === 'POST';
		const entry = operation(spec);
		if (events) {
			// The events a registration takes, with `*` for all of them.
			const body = (
				entry.requestBody as {
					content: { 'application/json': { schema: { properties: IDataObject } } };
				}
			).content['application/json'].schema;
			body.properties.events = {
				type: 'array',
				items: {
					type: 'string',
					enum: [...EVENTS.map(([event]) => event), '*'],
					'x-enum-descriptions': [...EVENTS.map(([, text]) => text), 'Every event.'],
				},
			};
		}
		paths[spec.path] = { ...paths[spec.path], [spec.method.toLowerCase()]: entry };
	}
	const delivery = {
		post: {
			parameters: SIGNATURE_HEADERS,
			requestBody: json(ref('Event')),
			responses: { '200': { description: 'Received.' } },
		},
	};
	return {
		openapi: '3.1.0',
		paths,
		webhooks: Object.fromEntries(EVENTS.map(([event]) => [event, delivery])),
		components: { schemas: SCHEMAS },
	};
}

export const DEFAULT_DOCUMENT = buildDefaultDocument();
