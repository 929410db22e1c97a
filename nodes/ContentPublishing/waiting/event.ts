import { randomBytes } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { own } from '../../shared/profile/pointer';
import type { Profile } from '../../shared/profile/types';
import { registerWebhook, type Registered } from '../../shared/secrets';
import {
	asNodeError,
	callEndpoint,
	isLoopbackHost,
	isTransient,
	readCredentials,
	serviceEvents,
} from '../../shared/executor/send';
import type { JobToAwait, MediaOptions } from '../actions/types';
import {
	RUN_MAC_PARAM,
	SECRET_PARAM,
	STATE_PARAM,
	UNTIL_PARAM,
	credentialOf,
	derivedSecret,
	resumeAddress,
	runMac,
	safeMessage,
	seal,
	secretScope,
	stateScope,
	type WaitState,
} from './sealed';
import {
	LEFTOVER_GRACE_MS,
	SWEEP_INTERVAL_MS,
	callLater,
	planSweep,
	removeRegistration,
	sweep,
	type Sweeper,
} from './registrations';
import { readWaitedJobs } from './resume';

// n8n answers 409 until it has saved the wait: the node's own call this much later reads the jobs.
export const NUDGE_DELAY_MS = 2_000;

/** Refuses, before any job has started, where waiting for the service's event cannot work. */
export async function prepareEventWait(this: IExecuteFunctions, profile: Profile) {
	const cannotWait = (message: string, why: string) =>
		new NodeOperationError(this.getNode(), message, {
			description: `${why} Set "Wait Method" to "Poll" to wait for the jobs from the running node instead.`,
		});
	if (typeof this.isToolExecution === 'function' && this.isToolExecution())
		throw cannotWait(
			"An AI agent cannot wait for the service's event",
			"An agent's tool call cannot sleep until a job finishes.",
		);
	// n8n 2.41's opt-in engine v2 refuses to resume waiting executions.
	if (own(this.getWorkflowSettings(), 'engineType') === 'v2')
		throw cannotWait(
			"This workflow's execution engine cannot resume a waiting execution",
			"The workflow runs on n8n's engine v2, which cannot resume executions that wait (yet).",
		);
	const resume = resumeAddress(this);
	if (resume === undefined)
		throw cannotWait(
			'This n8n has no resume address for the execution',
			'n8n gives the execution no $execution.resumeUrl that names it.',
		);
	const { baseUrl } = await readCredentials.call(this);
	if (isLoopbackHost(resume.hostname) && !isLoopbackHost(new URL(baseUrl).hostname))
		throw cannotWait(
			`The service cannot reach n8n at ${resume.origin}`,
			"n8n's address for webhooks is on this machine only. Set n8n's WEBHOOK_URL to the address where the service reaches n8n.",
		);
	const { meanings, events } = profile.webhooks;
	if (events !== undefined && meanings['job.completed'].length === 0)
		throw cannotWait(
			'The service offers no event for a finished job',
			`Its OpenAPI document lists: ${events.join(', ')}.`,
		);
	const chosen =
		events === undefined || meanings['job.failed'].length > 0
			? ['job.completed', 'job.failed']
			: ['job.completed'];
	return { resume, events: serviceEvents.call(this, profile.webhooks, chosen) };
}

/**
 * After every item's job has started: registers the webhook, reads the jobs once, and puts the
 * execution to wait unless all have finished (their outputs). Where it cannot, a notice says why.
 */
export async function awaitByEvent(
	this: IExecuteFunctions,
	profile: Profile,
	setup: Awaited<ReturnType<typeof prepareEventWait>>,
	jobs: Array<{ itemIndex: number; job: JobToAwait }>,
	decided: Array<INodeExecutionData[] | undefined>,
): Promise<'waiting' | Map<number, IDataObject | Error> | undefined> {
	const pollInstead = (message: string) => {
		this.addExecutionHints({ message, location: 'outputPane' });
		return undefined;
	};
	const executionId = this.getExecutionId();
	const nodeId = this.getNode().id;
	const maxWaitSeconds = Math.max(...jobs.map(({ job }) => job.waitOptions.maxWaitSeconds));
	const deadline = Date.now() + maxWaitSeconds * 1000;

	const state: WaitState = {
		v: 1,
		n: randomBytes(9).toString('base64url'),
		d: Math.ceil(deadline / 1000),
		w: maxWaitSeconds,
		j: decided.map(() => null),
	};
	const media: Array<MediaOptions | null> = decided.map(() => null);
	for (const { itemIndex, job } of jobs) {
		state.j[itemIndex] = job.jobId;
		media[itemIndex] = job.media ?? null;
	}
	const outputs: Record<string, IDataObject> = {};
	for (const [itemIndex, output] of decided.entries()) {
		if (state.j[itemIndex] !== null) continue;
		// A file cannot travel in an address: such a batch is polled.
		if (output?.length !== 1 || output[0].binary !== undefined)
			return pollInstead(
				"An item's output holds binary data, which cannot wait for the service's event, so the node polled the jobs.",
			);
		outputs[itemIndex] = output[0].json;
	}
	if (Object.keys(outputs).length > 0) state.o = outputs;
	if (media.some((options) => options !== null))
		state.m =
			new Set(media.map((options) => JSON.stringify(options))).size === 1
				? (media[0] as MediaOptions)
				: media;
	if (profile.webhooks.secret.by === 'node') state.k = 1;

	const { key, credential } = await credentialOf(this);
	const secretOfWait = secretScope(executionId, nodeId, state.n);
	const sealed = seal(key, stateScope(executionId, nodeId), JSON.stringify(state));
	let address = new URL(setup.resume.toString());
	address.searchParams.set(STATE_PARAM, sealed);
	address.searchParams.set(UNTIL_PARAM, String(state.d));
	address.searchParams.set(RUN_MAC_PARAM, runMac(this, key, state.n));
	// 2048 where the service states no limit of a webhook's address; n8n refuses request lines near 16 kB.
	const limit = Math.min(profile.webhooks.registration.maxUrlLength ?? 2048, 8000);
	if (address.toString().length > limit)
		return pollInstead(
			`The ${jobs.length} items' jobs make the address the wait registers longer than the service takes (${limit} characters), so the node polled them. Split the items into smaller batches (Loop Over Items) to wait for the service's event.`,
		);

	// Before registering: what earlier waits left.
	const by: Sweeper = { context: this, profile, resume: setup.resume, key, credential };
	await sweep(by, executionId);
	const remove = async (id?: string) =>
		await removeRegistration(by, { sealed, until: deadline, id });
	const notRegistered = (why: string, removed: boolean) =>
		pollInstead(
			`${why}, so the node polled the jobs.${removed ? '' : ' A webhook the service may have registered for the wait could not be looked for: n8n looks for it again in a minute and removes it.'}`,
		);

	let registered: Registered;
	try {
		registered = await registerWebhook(this, profile, {
			url: address.toString(),
			events: setup.events,
			description: `n8n execution ${executionId}: waiting for ${jobs.length} jobs`,
			ownSecret: derivedSecret(profile, key, secretOfWait),
		});
	} catch (error) {
		// The service may have stored it all the same: a lost answer, or a refusal after storing.
		const why = `The service did not register the webhook the wait needs (${safeMessage(error, setup.resume, address)})`;
		return notRegistered(why, await remove());
	}
	const { id, secret } = registered;
	if (id === undefined) {
		const why = 'The service registered the webhook but answered without its id';
		return (await remove())
			? pollInstead(`${why}, so the node removed it again and polled the jobs.`)
			: notRegistered(why, false);
	}
	// Should the execution end without the node (cancelled, or at its deadline), this process sweeps.
	const at = Math.min(Date.now() + SWEEP_INTERVAL_MS, deadline + LEFTOVER_GRACE_MS);
	planSweep(by, sealed, { at, until: deadline });
	if (state.k !== 1 && secret !== undefined) {
		// The service chose the secret: the address carries it, sealed, so the node can check deliveries.
		const withSecret = new URL(address.toString());
		withSecret.searchParams.set(SECRET_PARAM, seal(key, secretOfWait, secret));
		try {
			await callEndpoint.call(this, 'updateWebhook', {
				id,
				params: { url: withSecret.toString() },
			});
			address = withSecret;
		} catch (error) {
			this.logger.warn(
				`Content Publishing: deliveries of this wait are read unsigned: ${safeMessage(error, setup.resume, withSecret)}`,
			);
		}
	}

	try {
		const { outputs: finished, pendingAt } = await readWaitedJobs(this, profile, state);
		if (pendingAt === undefined) {
			await remove(id);
			return finished;
		}
	} catch (error) {
		// Waiting goes on after a rate limit or a gateway error: the events, or the node's own call, read again.
		if (!isTransient(error)) {
			await remove(id);
			throw asNodeError(this, error);
		}
	}
	await this.putExecutionToWait(new Date(deadline));
	callLater(this, address, 'after-wait', NUDGE_DELAY_MS);
	return 'waiting';
}
