import type { ContractDocument } from './request-validator';
import type { WebhookEvent } from './server';

/**
 * Events per resource, as GitHub's webhooks send them: the service offers `job`, `post` and `*`,
 * names the event in a header (GitHub's `X-GitHub-Event: issues`) and says what happened in the
 * body's `action` (`"action": "opened"`); a failed job is `completed` with an `error`.
 */

type Resource = 'job' | 'post';

/** The document of the primary profile, saying so: the registration's events and the deliveries. */
export function perResourceDocument(document: ContractDocument): void {
	const edited = document as unknown as {
		webhooks: Record<string, unknown>;
		components: { schemas: Record<string, { properties?: Record<string, { items?: unknown }> }> };
	};
	const events = {
		type: 'array',
		minItems: 1,
		uniqueItems: true,
		items: {
			type: 'string',
			enum: ['job', 'post', '*'],
			description:
				"`job`: a job changed, `post`: a post changed; the delivery's `action` says how. A failed job is `completed` with an `error`.",
		},
	};
	for (const schema of Object.values(edited.components.schemas))
		if (schema.properties?.events?.items !== undefined) schema.properties.events = events;
	const delivery = (resource: Resource, actions: string[]) => ({
		post: {
			summary: `A ${resource} changed`,
			parameters: [
				{
					name: 'X-Content-Publishing-Event',
					in: 'header',
					required: true,
					schema: { type: 'string', enum: [resource] },
				},
			],
			requestBody: {
				required: true,
				content: {
					'application/json': {
						schema: {
							type: 'object',
							required: ['action', resource],
							properties: {
								action: { type: 'string', enum: actions },
								[resource]: {
									$ref: `#/components/schemas/${resource === 'job' ? 'Job' : 'Post'}`,
								},
							},
						},
					},
				},
			},
			responses: { '2XX': { description: 'Acknowledged.' } },
		},
	});
	edited.webhooks = {
		job: delivery('job', ['created', 'completed']),
		post: delivery('post', ['created', 'published']),
	};
}

/** A delivery as such a service sends it: the event in the header, the action and the object in the body. */
export function perResourceWire(event: WebhookEvent): { type: Resource; body: object } {
	if ('job' in event.data)
		return { type: 'job', body: { action: 'completed', job: event.data.job } };
	return { type: 'post', body: { action: 'published', post: event.data.post } };
}
