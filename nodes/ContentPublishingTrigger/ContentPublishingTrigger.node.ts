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
import { loadOptions } from '../ContentPublishing/methods';
import { jobInDelivery, readDelivery, readJob, readResource } from '../shared/executor/answers';
import { deliveryConditions, isSelected, sameEvents } from '../shared/executor/events';
import { answer, deliveryOf, verifyDelivery } from '../shared/executor/signatures';
import { readAt } from '../shared/profile/pointer';
import type {
	ConditionalEvent,
	JobProfile,
	Profile,
	WebhookProfile,
} from '../shared/profile/types';
import { notAsProfiled } from '../shared/executor/errors';
import { readAllItems } from '../shared/executor/paging';
import { loadProfile } from '../shared/executor/profiles';
import {
	callEndpoint,
	READ_ONCE,
	readCredentials,
	readJobById,
	requireObject,
	serviceEvents,
} from '../shared/executor/send';
import { deleteRegistration, isNotFound, registerWebhook, registrationId } from '../shared/secrets';
import { admission, deliveryKey, rememberStart, retentionMs, type Admission } from './deliveries';

/**
 * One subscription per webhook URL (test and production never share one), with how the service
 * signs and shapes deliveries and jobs as read at activation: a delivery needs no other request.
 */
interface Subscription extends Pick<WebhookProfile, 'signature' | 'delivery'> {
	id: string;
	secret: string;
	events: string[];
	/** Conditions on deliveries of the events, where an event the node was set to is one of them (GitHub's `action`). */
	conditions?: ConditionalEvent[];
	jobs: JobProfile;
}

function subscriptionsOf(context: IHookFunctions | IWebhookFunctions) {
	const staticData = context.getWorkflowStaticData('node');
	staticData.subscriptions ??= {};
	return staticData.subscriptions as Record<string, Subscription>;
}

/** Removes every registration on the service that delivers to this URL. */
async function deleteWebhooksFor(this: IHookFunctions, profile: Profile, webhookUrl: string) {
	for (const webhook of await readAllItems.call(this, 'listWebhooks', {})) {
		const id = registrationId(profile, webhook);
		if (id !== undefined && readAt(webhook, profile.webhooks.registration.url) === webhookUrl)
			await deleteRegistration(this, id);
	}
}

/** The events the node is set to, as the service names them, and the conditions on their deliveries. */
function chosenEvents(this: IHookFunctions, profile: Profile) {
	const chosen = this.getNodeParameter('events') as string[];
	return {
		events: serviceEvents.call(this, profile.webhooks, chosen),
		conditions: deliveryConditions(profile.webhooks, chosen),
	};
}

/** How a delivery is answered that is a repeat, or that the trigger's full memory cannot take yet; undefined to go on. */
function answerFor(this: IWebhookFunctions, admitted: Admission): IWebhookResponseData | undefined {
	if (admitted.admit === 'repeat')
		return { webhookResponse: { received: true, ignored: 'delivered before' } };
	if (admitted.admit === 'start') return undefined;
	// Refusing for now loses nothing: the service sends a delivery again until it is taken.
	this.getResponseObject().setHeader('Retry-After', String(admitted.retryAfterSeconds));
	return answer(this, 503, {
		error: 'This trigger remembers as many recent deliveries as it can; send this one again later.',
	});
}

export class ContentPublishingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Content Publishing Trigger',
		name: 'contentPublishingTrigger',
		icon: { light: 'file:contentPublishing.svg', dark: 'file:contentPublishing.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: eventsSubtitle('events'),
		// The nodes panel shows the node and its trigger as one entry with the trigger's description,
		// so this says what the whole app does.
		description:
			'Generate blog posts, social posts, carousels and videos, publish to LinkedIn and Twitter, and start workflows when a content job finishes or a post is published',
		defaults: { name: 'Content Publishing Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'contentPublishingApi', required: true }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
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
						options: [
							{ name: 'Blog', value: 'blog' },
							{ name: 'Carousel', value: 'carousel' },
							{ name: 'LinkedIn', value: 'linkedin' },
							{ name: 'Twitter', value: 'twitter' },
							{ name: 'Video', value: 'video' },
						],
						default: [],
						description: 'Only job events for these kinds of content; empty means all kinds',
					},
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description: "Whether to add the delivery's HTTP headers to the output",
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
				const subscriptions = subscriptionsOf(this);
				const stored = subscriptions[webhookUrl];
				if (stored === undefined) return false;
				const profile = await loadProfile.call(this);
				const { events, conditions } = chosenEvents.call(this, profile);
				const { registration } = profile.webhooks;

				let current: IDataObject;
				try {
					const answer = await callEndpoint.call(this, 'getWebhook', { id: stored.id });
					current = requireObject(
						this,
						readResource(profile.operations.getWebhook.answer, answer.body),
					);
				} catch (error) {
					if (!isNotFound(error)) throw new NodeApiError(this.getNode(), error as JsonObject);
					// Deleted on the service: create a new one.
					delete subscriptions[webhookUrl];
					return false;
				}
				const active =
					registration.active === undefined ? undefined : readAt(current, registration.active);
				if (
					readAt(current, registration.url) === webhookUrl &&
					sameEvents(readAt(current, registration.events), events) &&
					JSON.stringify(stored.conditions ?? []) === JSON.stringify(conditions) &&
					active !== (registration.negated === true)
				)
					return true;
				// It no longer matches the node: replace it, not add one.
				await deleteRegistration(this, stored.id);
				delete subscriptions[webhookUrl];
				return false;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const profile = await loadProfile.call(this);
				const { events, conditions } = chosenEvents.call(this, profile);

				// A subscription for this exact URL can only be this node's, left behind when its stored
				// id was lost; removing it first keeps deliveries from arriving twice.
				await deleteWebhooksFor.call(this, profile, webhookUrl);

				const { id, secret, weakness, withoutId } = await registerWebhook(this, profile, {
					url: webhookUrl,
					events,
					description: `n8n workflow ${this.getWorkflow().id ?? ''}`.trim(),
				});
				if (id === undefined) {
					// Without its id the webhook could never be removed: remove it now.
					await deleteWebhooksFor.call(this, profile, webhookUrl);
					throw notAsProfiled(
						this,
						'The service registered the webhook but answered without its id',
						`the registration's id at ${profile.operations.listWebhooks.answer.itemId ?? '/id'}`,
						withoutId,
						'{"operations": {"listWebhooks": {"answer": {"itemId": "/hook_id"}}}}',
					);
				}
				const { signature, delivery } = profile.webhooks;
				if (secret === undefined && signature.key !== 'apiKey') {
					const problem =
						weakness !== undefined
							? `The service registered the webhook but answered with a signing secret that is no secret: ${weakness}`
							: 'The service registered the webhook but neither took nor gave a signing secret';
					// Without a secret no delivery could be checked: remove it now.
					await deleteWebhooksFor.call(this, profile, webhookUrl);
					throw new NodeApiError(this.getNode(), { problem } as JsonObject, {
						message: problem,
						description:
							weakness !== undefined
								? 'The registration was removed again: anyone could sign deliveries with that secret. Have the service generate webhook signing secrets of at least 16 random bytes (regenerate or rotate the secret in its settings), or use a service that takes a secret from the node; then activate the workflow again.'
								: 'The registration was removed again, so no delivery arrives that n8n could not remove later or check. Check that the Base URL points at the API.',
					});
				}
				subscriptionsOf(this)[webhookUrl] = {
					id,
					// Signed with the credential's API key, read at each delivery: never kept here.
					secret: signature.key === 'apiKey' ? '' : (secret ?? ''),
					events,
					...(conditions.length > 0 ? { conditions } : {}),
					signature,
					delivery,
					jobs: profile.jobs,
				};
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') as string;
				const subscriptions = subscriptionsOf(this);
				const stored = subscriptions[webhookUrl];
				if (stored === undefined) return true;
				await deleteRegistration(this, stored.id);
				delete subscriptions[webhookUrl];
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const { headers, body, rawBody } = deliveryOf(this);
		// Test and production URLs each have their own subscription; a delivery signed by either is ours.
		const subscriptions = Object.entries(subscriptionsOf(this));
		const apiKey = subscriptions.some(([, candidate]) => candidate.signature.key === 'apiKey')
			? (await readCredentials.call(this)).apiKey
			: '';
		const subscription = subscriptions.find(
			([url, candidate]) =>
				verifyDelivery(
					headers,
					rawBody,
					candidate.signature.key === 'apiKey' ? apiKey : candidate.secret,
					candidate.signature,
					{ url },
				).valid,
		)?.[1];
		if (subscription === undefined) return answer(this, 401, { error: 'invalid signature' });

		const { jobs, delivery: reading } = subscription;
		const delivery = readDelivery(reading, { body, headers });
		// Each trigger remembers its own deliveries: this workflow's node, on this subscription.
		const trigger = [this.getWorkflow().id ?? '', this.getNode().id, subscription.id].join('\n');
		const key = deliveryKey(delivery.id, rawBody);
		const seen = admission(trigger, key);
		if (seen.admit !== 'repeat' && !isSelected(subscription, delivery.type, { body, headers }))
			return { webhookResponse: { received: true, ignored: 'event not selected' } };
		const notNow = answerFor.call(this, seen);
		if (notNow !== undefined) return notNow;

		const options = this.getNodeParameter('options', {}) as {
			contentKinds?: string[];
			includeHeaders?: boolean;
		};
		const output: IDataObject = {
			event: delivery.type,
			eventId: delivery.id ?? null,
			createdAt: (delivery.time as IDataObject[string]) ?? null,
		};
		const reference = jobInDelivery(jobs, reading, delivery.data);
		if (reference !== undefined) {
			// A delivery naming the job without its state is completed from the service, within 10 s: the
			// service waits for this answer. A lookup that fails fails the delivery: the service retries.
			const job =
				reference.job ??
				(await readJobById.call(this, reference.id, { timeoutMs: 10_000, policy: READ_ONCE }));
			const view = readJob(jobs, job);
			const kinds = options.contentKinds ?? [];
			if (kinds.length > 0 && !kinds.includes(view.kind ?? ''))
				return { webhookResponse: { received: true, ignored: 'content kind not selected' } };
			output.job = job;
			output.result = (view.result as IDataObject[string]) ?? null;
		} else if (delivery.post !== undefined) {
			output.post = delivery.post as IDataObject;
		} else {
			output.data = delivery.data as IDataObject;
		}
		if (options.includeHeaders) output.headers = headers as IDataObject;

		// Remembered as it starts: a delivery whose handling failed is not, so the service's retry runs.
		const admitted = answerFor.call(
			this,
			rememberStart(trigger, key, retentionMs(subscription.signature)),
		);
		return admitted ?? { workflowData: [this.helpers.returnJsonArray(output)] };
	}
}
