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

import { eventsField, eventsSubtitle } from '../ContentPublishing/descriptions/events';
import { findJob } from '../ContentPublishing/helpers/jobs';
import { loadOptions } from '../ContentPublishing/methods';
import { apiRequest, apiRequestAllItems, loadContract, requireObject, serviceEvents } from '../ContentPublishing/transport';
import {
	defaultContract,
	type Contract,
	type DeliveryShape,
	type JobContract,
	type SignatureScheme,
} from '../ContentPublishing/transport/contract';
import { isRepeatedDelivery } from './deliveries';
import { verifyDelivery } from './signature';

const JOB_LOOKUP_TIMEOUT_MS = 10_000;

const CONTENT_KIND_OPTIONS = [
	{ name: 'Blog', value: 'blog' },
	{ name: 'Carousel', value: 'carousel' },
	{ name: 'LinkedIn', value: 'linkedin' },
	{ name: 'Twitter', value: 'twitter' },
	{ name: 'Video', value: 'video' },
];

/**
 * One subscription on the service, per webhook URL: test and production URLs never share one. It
 * keeps how the service signs and shapes deliveries, read from its document at activation, so a
 * delivery is checked without another request. Subscriptions stored before kept none of that and
 * read with the built-in conventions.
 */
interface Subscription {
	id: string;
	secret: string;
	events: string[];
	signature?: SignatureScheme;
	delivery?: DeliveryShape;
	jobs?: JobContract;
}

type Subscriptions = Record<string, Subscription>;

// How deliveries of a subscription stored without its service's conventions are read.
const builtIn = defaultContract();

function subscriptionsOf(staticData: IDataObject): Subscriptions {
	staticData.subscriptions ??= {};
	return staticData.subscriptions as Subscriptions;
}

function sameEvents(a: unknown, b: string[]): boolean {
	return Array.isArray(a) && a.length === b.length && b.every((event) => a.includes(event));
}

/** Removes every registration on the service that delivers to this URL. */
async function deleteWebhooksFor(this: IHookFunctions, contract: Contract, webhookUrl: string): Promise<void> {
	const existing = await apiRequestAllItems.call(this, 'listWebhooks', {});
	const urlField = contract.webhooks.fields.url;
	for (const webhook of existing.filter((candidate) => candidate[urlField] === webhookUrl)) {
		await apiRequest.call(this, 'deleteWebhook', { id: String(webhook.id) });
	}
}

function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}

/** The content kind of a job: the last part of its type, such as `video` in `generate.video`. */
function contentKind(job: IDataObject): string | undefined {
	const type = typeof job.type === 'string' ? job.type : typeof job.kind === 'string' ? job.kind : '';
	return type.split(/[^A-Za-z0-9]+/).pop()?.toLowerCase() || undefined;
}

export class ContentPublishingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Content Publishing Trigger',
		name: 'contentPublishingTrigger',
		icon: { light: 'file:contentPublishing.svg', dark: 'file:contentPublishing.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: eventsSubtitle('events'),
		// n8n's nodes panel shows a node `<name>` and a trigger `<name>Trigger` as one entry, with
		// the trigger's description (the editor's generateMergedNodesAndActions). So this text says
		// what the whole app does, not only what the trigger does.
		description:
			'Generate blog posts, social posts, carousels and videos, publish to LinkedIn and Twitter, and start workflows when a content job finishes or a post is published',
		defaults: { name: 'Content Publishing Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'contentPublishingApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			eventsField({
				required: true,
				default: ['job.completed'],
				description:
					'The events to start the workflow on, as the service names them. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			}),
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

	methods = { loadOptions };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const subscriptions = subscriptionsOf(this.getWorkflowStaticData('node'));
				const stored = subscriptions[webhookUrl];
				if (stored === undefined) return false;
				const contract = await loadContract.call(this);
				const events = serviceEvents.call(this, contract.webhooks, this.getNodeParameter('events') as string[]);
				const { fields } = contract.webhooks;

				let webhook: IDataObject;
				try {
					webhook = (await apiRequest.call(this, 'getWebhook', { id: stored.id })) as IDataObject;
				} catch (error) {
					if (!isNotFound(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
					// Deleted on the service: create a new one.
					delete subscriptions[webhookUrl];
					return false;
				}
				const current = requireObject(this, webhook);
				if (current[fields.url] === webhookUrl && sameEvents(current[fields.events], events) && current[fields.active] !== false) {
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
				const contract = await loadContract.call(this);
				const events = serviceEvents.call(this, contract.webhooks, this.getNodeParameter('events') as string[]);
				const subscriptions = subscriptionsOf(this.getWorkflowStaticData('node'));
				const { webhooks } = contract;

				// A subscription for this exact URL can only be this node's, left behind when its stored
				// id was lost; removing it first keeps deliveries from arriving twice.
				await deleteWebhooksFor.call(this, contract, webhookUrl);

				// n8n chooses the secret where the service takes one; otherwise the service's own is kept.
				const ownSecret = webhooks.secretField === undefined ? undefined : randomBytes(32).toString('hex');
				const optional = {
					description: `n8n workflow ${this.getWorkflow().id ?? ''}`.trim(),
					...(ownSecret === undefined ? {} : { secret: ownSecret }),
				};
				const created = (await apiRequest.call(this, 'createWebhook', {
					fields: { body: { url: webhookUrl, events }, optional },
					idempotencyKey: randomBytes(16).toString('hex'),
				})) as IDataObject | undefined;
				const id = created?.id;
				const answeredSecret = webhooks.secretAnswerField === undefined ? undefined : created?.[webhooks.secretAnswerField];
				const secret = typeof answeredSecret === 'string' && answeredSecret !== '' ? answeredSecret : ownSecret;
				const problem =
					(typeof id !== 'string' && typeof id !== 'number') || id === ''
						? 'The service registered the webhook but answered without its id'
						: secret === undefined
							? 'The service registered the webhook but neither took nor gave a signing secret'
							: undefined;
				if (problem !== undefined) {
					// Without its id the webhook could never be removed, without a secret no delivery checked: remove it now.
					await deleteWebhooksFor.call(this, contract, webhookUrl);
					throw new NodeApiError(this.getNode(), (created ?? {}) as JsonObject, {
						message: problem,
						description: 'The registration was removed again, so no delivery arrives that n8n could not remove later or check. Check that the Base URL points at the API.',
					});
				}
				subscriptions[webhookUrl] = {
					id: String(id),
					secret: secret as string,
					events,
					signature: webhooks.signature,
					delivery: webhooks.delivery,
					jobs: contract.jobs,
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
		const subscription = subscriptions.find(
			(candidate) => verifyDelivery(headers, rawBody, candidate.secret, candidate.signature ?? builtIn.webhooks.signature).valid,
		);
		if (subscription === undefined) {
			this.getResponseObject().status(401).json({ error: 'invalid signature' });
			return { noWebhookResponse: true };
		}

		const shape = subscription.delivery ?? builtIn.webhooks.delivery;
		const jobs = subscription.jobs ?? builtIn.jobs;
		const idHeader = (subscription.signature ?? builtIn.webhooks.signature).deliveryIdHeader;
		const event = this.getBodyData();
		const eventId = String(event[shape.id] ?? (idHeader === undefined ? '' : headers[idHeader]) ?? '');
		if (eventId !== '' && isRepeatedDelivery(`${subscription.id}:${eventId}`)) {
			return { webhookResponse: { received: true, ignored: 'delivered before' } };
		}
		const type = String(event[shape.type] ?? '');
		const events = this.getNodeParameter('events') as string[];
		const options = this.getNodeParameter('options', {}) as { contentKinds?: string[]; includeHeaders?: boolean };
		if (!events.includes('*') && !events.includes(type)) {
			return { webhookResponse: { received: true, ignored: 'event not selected' } };
		}

		const data = (event[shape.data] ?? {}) as IDataObject;
		const output: IDataObject = { event: type, eventId: event[shape.id] ?? eventId, createdAt: event[shape.time] };
		const jobReference = findJob(data, jobs);
		if (jobReference !== undefined) {
			// A delivery that names the job without its state is completed from the service, quickly:
			// the service waits for this answer and sends the delivery again if it comes late.
			const job =
				jobReference.job ??
				requireObject(
					this,
					await apiRequest.call(this, 'getJob', { id: jobReference.id, timeoutMs: JOB_LOOKUP_TIMEOUT_MS, retryReads: false }),
				);
			const kinds = options.contentKinds ?? [];
			if (kinds.length > 0 && !kinds.includes(contentKind(job) ?? '')) {
				return { webhookResponse: { received: true, ignored: 'content kind not selected' } };
			}
			output.job = job;
			output.result = jobs.result.map((key) => job[key]).find((value) => value !== undefined) ?? null;
		} else if (data.post !== undefined) {
			output.post = data.post;
		} else {
			output.data = data;
		}
		if (options.includeHeaders) output.headers = headers as IDataObject;

		return { workflowData: [this.helpers.returnJsonArray(output)] };
	}
}
