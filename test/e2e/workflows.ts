/** Pieces of the workflows and waits the end-to-end tests share. */
import type { IDataObject } from 'n8n-workflow';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import type { N8nRestClient } from '../../scripts/n8n-instance';

/**
 * n8n 1.x saves a workflow's static data, where the trigger keeps its webhook's id and signing
 * secret, only for ids of at most 16 characters (the length it generates; 2.x allows 21). A longer
 * id imports and activates, but the trigger's registration is never saved and every delivery is
 * refused.
 */
export const MAX_WORKFLOW_ID_LENGTH = 16;

/** Writes a workflow for `n8n import:workflow` into the folder and returns the file's path. */
export function workflowFile(folder: string, workflow: IDataObject): string {
	const id = String(workflow.id);
	if (id.length > MAX_WORKFLOW_ID_LENGTH) {
		throw new Error(
			`Workflow id "${id}" is longer than ${MAX_WORKFLOW_ID_LENGTH} characters: n8n 1.x would not save its static data`,
		);
	}
	const file = path.join(folder, `${id}.json`);
	writeFileSync(file, JSON.stringify({ settings: {}, active: false, ...workflow }));
	return file;
}

/** A workflow node with an id derived from its name. */
export function node(
	name: string,
	type: string,
	parameters: IDataObject,
	position: [number, number],
	extra: IDataObject = {},
) {
	return {
		id: name.toLowerCase().replace(/\W+/g, '-'),
		name,
		type,
		typeVersion: 1,
		position,
		parameters,
		...extra,
	};
}

/** Connections that run the named nodes one after another. */
export function chain(...names: string[]) {
	const connections: IDataObject = {};
	names.slice(0, -1).forEach((name, index) => {
		connections[name] = { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] };
	});
	return connections;
}

/** Waits until the probe answers; a timeout explains itself with what `explain` returns (n8n's output). */
export async function until<T>(
	probe: () => T | undefined | false,
	what: string,
	explain: () => string,
	timeoutMs = 60_000,
): Promise<T> {
	return await untilAsync(async () => probe(), what, explain, timeoutMs);
}

/** `until` for a probe that has to wait for its answer (a page, n8n's REST API, a port). */
export async function untilAsync<T>(
	probe: () => Promise<T | undefined | false>,
	what: string,
	explain: () => string,
	timeoutMs = 60_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const value = await probe();
		if (value) return value;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`Timed out waiting for ${what}\n${explain()}`);
}

/**
 * Waits until n8n has activated a workflow: its trigger node's static data, where a trigger keeps its
 * registration, is saved last. n8n 2.41 activates after its ready line; 1.123 and 2.8 before it.
 */
export async function untilActivated(
	rest: N8nRestClient,
	workflowId: string,
	triggerNode: string,
	explain: () => string,
): Promise<void> {
	await untilAsync(
		async () => {
			const { staticData } = await rest.call('GET', `/workflows/${workflowId}`);
			const saved = (staticData as IDataObject | null)?.[`node:${triggerNode}`];
			return typeof saved === 'object' && saved !== null && Object.keys(saved).length > 0;
		},
		`n8n's activation of ${workflowId}`,
		explain,
	);
}

/**
 * Reads until the check passes (a page draws in steps, n8n settles after it answers), then gives the
 * reading; past the time limit, the check's own failure is thrown, with the last reading's difference.
 */
export async function settled<T>(
	read: () => Promise<T>,
	check: (value: T) => void,
	timeoutMs = 15_000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await read();
		try {
			check(value);
			return value;
		} catch (failure) {
			if (Date.now() > deadline) throw failure;
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/**
 * A workflow that waits for the service's event (Wait Method "Service Event"): a Webhook node takes
 * `{ batch, maxWait, videos: [{ index, prompt, seconds }] }` and answers at once; each video becomes
 * an item that starts a video job; once the execution resumes, each item records a post saying what
 * its paired input item got (the job's result, an error, or nothing: the input passed through).
 */
export function eventWaitWorkflow(
	id: string,
	path: string,
	webhookId: string,
	using: IDataObject,
): IDataObject {
	const record =
		"={{ $('Webhook').first().json.body.batch + ' item ' + $('Split Out').item.json.index + ': ' + " +
		"($json.error ? 'error ' + $json.error : $json.result ? 'video ' + $json.id + ' ' + $json.result.duration_seconds : 'passed through ' + $json.prompt) }}";
	return {
		id,
		name: `Wait for the service's event (${id})`,
		nodes: [
			node(
				'Webhook',
				'n8n-nodes-base.webhook',
				{ httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
				[0, 0],
				{ typeVersion: 2, webhookId },
			),
			node(
				'Split Out',
				'n8n-nodes-base.splitOut',
				{ fieldToSplitOut: 'body.videos', include: 'noOtherFields' },
				[220, 0],
			),
			node(
				'Generate video',
				'n8n-nodes-content-publishing.contentPublishing',
				{
					resource: 'content',
					operation: 'generateVideo',
					prompt: '={{ $json.prompt }}',
					waitMethod: 'event',
					additionalFields: { durationSeconds: '={{ $json.seconds }}' },
					options: { maxWaitTime: "={{ $('Webhook').first().json.body.maxWait }}" },
				},
				[440, 0],
				using,
			),
			node(
				'Record',
				'n8n-nodes-content-publishing.contentPublishing',
				{ resource: 'post', operation: 'create', content: record },
				[660, 0],
				using,
			),
		],
		connections: chain('Webhook', 'Split Out', 'Generate video', 'Record'),
	};
}

/**
 * How long, from now, what a wait registered at `address` left may take to go: the process that
 * made the wait sweeps 2 minutes past its time limit, or a minute later where n8n had not resumed
 * the execution by then, and a sweep takes up to 30 s.
 */
export function sweepTimeLeft(address: string): number {
	const deadline = Number(new URL(address).searchParams.get('cp_until')) * 1000;
	return Math.max(0, deadline + 210_000 - Date.now());
}

/** The body that starts `eventWaitWorkflow` for `count` videos. */
export function eventWaitBatch(batch: string, count: number, maxWait = 300): IDataObject {
	return {
		batch,
		maxWait,
		videos: Array.from({ length: count }, (_, index) => ({
			index,
			prompt: `${batch} video ${index}`,
			seconds: 10 + index,
		})),
	};
}
