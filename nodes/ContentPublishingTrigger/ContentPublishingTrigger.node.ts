import { randomBytes } from 'crypto';
import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';

import { apiRequest, apiRequestAllItems, requireObject } from '../ContentPublishing/transport';
import { isRepeatedDelivery } from './deliveries';
import { DELIVERY_HEADER, verifyDelivery } from './signature';

const JOB_LOOKUP_TIMEOUT_MS = 10_000;

const EVENT_OPTIONS = [
	{ name: 'All Events', value: '*', description: 'Every event the service sends' },
	{ name: 'Job Completed', value: 'job.completed', description: 'A generation or publishing job finished successfully' },
	{ name: 'Job Failed', value: 'job.failed', description: 'A generation or publishing job failed' },
	{ name: 'Post Published', value: 'post.published', description: 'A post was published' },
];

const CONTENT_KIND_OPTIONS = [
	{ name: 'Blog', value: 'blog' },
	{ name: 'Carousel', value: 'carousel' },
	{ name: 'LinkedIn', value: 'linkedin' },
	{ name: 'Twitter', value: 'twitter' },
	{ name: 'Video', value: 'video' },
];

/** One subscription on the service, per webhook URL: test and production URLs never share one. */
interface Subscription {
	id: string;
	secret: string;
	events: string[];
}

type Subscriptions = Record<string, Subscription>;

function subscriptionsOf(staticData: IDataObject): Subscriptions {
	staticData.subscriptions ??= {};
	return staticData.subscriptions as Subscriptions;
}

function sameEvents(a: unknown, b: string[]): boolean {
	return Array.isArray(a) && a.length === b.length && b.every((event) => a.includes(event));
}

/** Removes every registration on the service that delivers to this URL. */
async function deleteWebhooksFor(this: IHookFunctions, webhookUrl: string): Promise<void> {
	const existing = await apiRequestAllItems.call(this, 'listWebhooks', {});
	for (const webhook of existing.filter((candidate) => candidate.url === webhookUrl)) {
		await apiRequest.call(this, 'deleteWebhook', { id: String(webhook.id) });
	}
}

function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

/** The content kind of a job: the last part of its type, such as `video` in `generate.video`. */
function contentKind(job: IDataObject): string | undefined {
	const type = typeof job.type === 'string' ? job.type : typeof job.kind === 'string' ? job.kind : '';
	return type.split('.').pop()?.toLowerCase() || undefined;
}

export class ContentPublishingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Content Publishing Trigger',
		name: 'contentPublishingTrigger',
		icon: { light: 'file:contentPublishing.svg', dark: 'file:contentPublishing.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description: 'Starts the workflow when a content job finishes or a post is published',
		defaults: { name: 'Content Publishing Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'contentPublishingApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				required: true,
				default: ['job.completed'],
				description: 'The events to start the workflow on',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Content Kinds',
						name: 'contentKinds',
						type: 'multiOptions',
						options: CONTENT_KIND_OPTIONS,
						default: [],
						description: 'Only job events for these kinds of content; empty means all kinds',
					},
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description: 'Whether to add the delivery\'s HTTP headers to the output',
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const events = this.getNodeParameter('events') as string[];
				const subscriptions = subscriptionsOf(this.getWorkflowStaticData('node'));
				const stored = subscriptions[webhookUrl];
				if (stored === undefined) return false;

				let webhook: IDataObject;
				try {
					webhook = (await apiRequest.call(this, 'getWebhook', { id: stored.id })) as IDataObject;
				} catch (error) {
					if (!isNotFound(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
					// Deleted on the service: create a new one.
					delete subscriptions[webhookUrl];
					return false;
				}
				if (webhook.url === webhookUrl && sameEvents(webhook.events, events) && webhook.active !== false) {
					return true;
				}
				// It no longer matches the node: replace it rather than keep a second one.
				await apiRequest.call(this, 'deleteWebhook', { id: stored.id }).catch((error: unknown) => {
					if (!isNotFound(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
				});
				delete subscriptions[webhookUrl];
				return false;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const events = this.getNodeParameter('events') as string[];
				const subscriptions = subscriptionsOf(this.getWorkflowStaticData('node'));

				// A subscription for this exact URL can only be this node's, left behind when its stored
				// id was lost; removing it first keeps deliveries from arriving twice.
				await deleteWebhooksFor.call(this, webhookUrl);

				const secret = randomBytes(32).toString('hex');
				const created = (await apiRequest.call(this, 'createWebhook', {
					body: { url: webhookUrl, events, description: `n8n workflow ${this.getWorkflow().id ?? ''}`.trim(), secret },
					idempotencyKey: randomBytes(16).toString('hex'),
				})) as IDataObject | undefined;
				const id = created?.id;
				if ((typeof id !== 'string' && typeof id !== 'number') || id === '') {
					// Without its id the webhook could never be removed on deactivation: remove it now.
					await deleteWebhooksFor.call(this, webhookUrl);
					throw new NodeApiError(this.getNode(), (created ?? {}) as JsonObject, {
						message: 'The service registered the webhook but answered without its id',
						description: 'The registration was removed again, so no delivery arrives for a webhook n8n could not remove later. Check that the Base URL points at the API.',
					});
				}
				subscriptions[webhookUrl] = {
					id: String(id),
					// The service's own secret wins if it chose one.
					secret: typeof created?.secret === 'string' && created.secret !== '' ? created.secret : secret,
					events,
				};
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const subscriptions = subscriptionsOf(this.getWorkflowStaticData('node'));
				const stored = subscriptions[webhookUrl];
				if (stored === undefined) return true;
				try {
					await apiRequest.call(this, 'deleteWebhook', { id: stored.id });
				} catch (error) {
					// Already gone is what deleting wants; anything else must be seen.
					if (!isNotFound(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
				}
				delete subscriptions[webhookUrl];
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const headers = this.getHeaderData() as Record<string, string | string[] | undefined>;
		const rawBody = Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.from(JSON.stringify(this.getBodyData()));
		// Test and production URLs each have their own subscription; a delivery signed by either is ours.
		const subscriptions = Object.values(subscriptionsOf(this.getWorkflowStaticData('node')));
		const subscription = subscriptions.find((candidate) => verifyDelivery(headers, rawBody, candidate.secret).valid);
		if (subscription === undefined) {
			this.getResponseObject().status(401).json({ error: 'invalid signature' });
			return { noWebhookResponse: true };
		}

		const event = this.getBodyData();
		const eventId = String(event.id ?? headers[DELIVERY_HEADER] ?? '');
		if (eventId !== '' && isRepeatedDelivery(`${subscription.id}:${eventId}`)) {
			return { webhookResponse: { received: true, ignored: 'delivered before' } };
		}
		const type = String(event.type ?? '');
		const events = this.getNodeParameter('events') as string[];
		const options = this.getNodeParameter('options', {}) as { contentKinds?: string[]; includeHeaders?: boolean };
		if (!events.includes('*') && !events.includes(type)) {
			return { webhookResponse: { received: true, ignored: 'event not selected' } };
		}

		const data = (event.data ?? {}) as IDataObject;
		const output: IDataObject = { event: type, eventId: event.id, createdAt: event.created_at };
		const jobReference = (data.job ?? (data.job_id ? { id: data.job_id } : undefined)) as IDataObject | undefined;
		if (jobReference !== undefined) {
			// A delivery that names the job without its state is completed from the service, quickly:
			// the service waits for this answer and sends the delivery again if it comes late.
			const job =
				jobReference.status === undefined
					? requireObject(
							this,
							await apiRequest.call(this, 'getJob', { id: String(jobReference.id), timeoutMs: JOB_LOOKUP_TIMEOUT_MS, retryReads: false }),
						)
					: jobReference;
			const kinds = options.contentKinds ?? [];
			if (kinds.length > 0 && !kinds.includes(contentKind(job) ?? '')) {
				return { webhookResponse: { received: true, ignored: 'content kind not selected' } };
			}
			output.job = job;
			output.result = job.result ?? null;
		}
		if (data.post !== undefined) output.post = data.post;
		if (options.includeHeaders) output.headers = headers as IDataObject;

		return { workflowData: [this.helpers.returnJsonArray(output)] };
	}
}
