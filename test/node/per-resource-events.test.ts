import type { IDataObject, INode } from 'n8n-workflow';

import { signWebhookPayload } from '../fake-service';
import { overrideExamples } from '../support/docs';
import { jsonOf, useFakeService } from '../support/fixtures';
import {
	deliver,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
} from '../support/n8n-engine';

/**
 * A service whose events are per resource, as GitHub's webhooks are (test/fake-service/per-resource.ts):
 * it offers `job`, `post` and `*`, names the event in a header and says what happened in the body's
 * `action`; a failed job is `completed` with an `error`. It checks every request against the
 * document it serves, which says so.
 */

// docs/service.md's example for such a service: the node's events as the service's plus a condition.
const OVERRIDES = overrideExamples()[3];

function signed(secret: string, event: string, body: object) {
	const rawBody = JSON.stringify(body);
	const timestamp = String(Math.floor(Date.now() / 1000));
	return {
		rawBody,
		headers: {
			'Content-Type': 'application/json',
			'X-Content-Publishing-Timestamp': timestamp,
			'X-Content-Publishing-Signature': signWebhookPayload(secret, timestamp, rawBody),
			'X-Content-Publishing-Event': event,
		},
	};
}

const job = (changes: IDataObject = {}) => ({
	id: 'job_1',
	type: 'generate.blog',
	status: 'succeeded',
	result: { title: 'T', content: 'C' },
	...changes,
});
const failedJob = job({ status: 'failed', result: null, error: { code: 'x', message: 'No' } });

const MEANINGS = [
	'  job.completed is job where /body/action is "completed" and /body/job/error is absent',
	'  job.failed is job where /body/action is "completed" and /body/job/error is present',
	'  post.published is post where /body/action is "published"',
];

describe.each([
	['read from its document', true, undefined],
	["read from its document, with docs/service.md's overrides", true, OVERRIDES],
	["without its document, with docs/service.md's overrides", false, OVERRIDES],
] as const)('a service with events per resource, %s', (_way, openApiDocument, profileOverrides) => {
	const harness = useFakeService({ eventsPerResource: true, openApiDocument });

	async function activated(events: string[], overrides: string | undefined = profileOverrides) {
		const node: INode = triggerNode({ events });
		const workflow = triggerWorkflow(node);
		const credentials = { ...harness.credentials, profileOverrides: overrides };
		if (!(await runWebhookMethod(workflow, node, credentials, 'checkExists')))
			await runWebhookMethod(workflow, node, credentials, 'create');
		const registration = [...harness.service.webhooks.values()].find(
			(webhook) => webhook.url === webhookUrl(node),
		);
		const post = (event: string, body: object) =>
			deliver(workflow, node, credentials, signed(registration?.secret ?? '', event, body));
		return { node, workflow, credentials, registration, post };
	}

	it('subscribes to the service event a condition names, and starts the workflow only for deliveries that meet it', async () => {
		const { registration, post } = await activated(['job.completed']);
		expect(registration?.events).toEqual(['job']);

		const created = await post('job', {
			action: 'created',
			job: job({ status: 'queued', result: null }),
		});
		expect(created.response).toEqual({
			webhookResponse: { received: true, ignored: 'event not selected' },
		});
		const failed = await post('job', { action: 'completed', job: failedJob });
		expect(failed.response.workflowData).toBeUndefined();

		const completed = await post('job', { action: 'completed', job: job() });
		expect(completed.response.workflowData?.[0]).toEqual([
			{
				json: expect.objectContaining({
					event: 'job',
					job: expect.objectContaining({ id: 'job_1', status: 'succeeded' }),
					result: { title: 'T', content: 'C' },
				}),
			},
		]);
		// Another resource's event is not the job's.
		const other = await post('post', { action: 'completed', post: { id: 'p' } });
		expect(other.response.workflowData).toBeUndefined();
	});

	it('tells a failed job from a finished one by the same event, and a published post by its action', async () => {
		const failures = await activated(['job.failed']);
		const finished = await failures.post('job', { action: 'completed', job: job() });
		expect(finished.response.workflowData).toBeUndefined();
		const failed = await failures.post('job', { action: 'completed', job: failedJob });
		expect(failed.response.workflowData?.[0][0].json.job).toEqual(failedJob);

		const posts = await activated(['post.published']);
		expect(posts.registration?.events).toEqual(['post']);
		const published = await posts.post('post', {
			action: 'published',
			post: { id: 'post_1', status: 'published' },
		});
		expect(published.response.workflowData?.[0][0].json.post).toEqual({
			id: 'post_1',
			status: 'published',
		});
	});

	it('replaces the registration when the conditions change, and takes every delivery of an event chosen as it is', async () => {
		const first = await activated(['job.completed']);
		const looser = JSON.stringify({
			webhooks: {
				meanings: {
					'job.completed': [{ event: 'job', when: { '/body/action': 'completed' } }],
				},
			},
		});
		const merged =
			profileOverrides === undefined ? looser : mergedOverrides(profileOverrides, looser);
		const credentials = { ...first.credentials, profileOverrides: merged };
		expect(await runWebhookMethod(first.workflow, first.node, credentials, 'checkExists')).toBe(
			false,
		);

		const everything = await activated(['job']);
		const created = await everything.post('job', {
			action: 'created',
			job: job({ status: 'queued', result: null }),
		});
		expect(created.response.workflowData).toHaveLength(1);
	});

	it('describes each meaning with its condition, and takes the profile back unchanged', async () => {
		const describe = async (overrides: string | undefined) =>
			jsonOf(
				await harness.run(
					{ resource: 'service', operation: 'describe' },
					{ credentials: { profileOverrides: overrides } },
				),
			)[0];
		const described = await describe(profileOverrides);
		expect(described.summary).toEqual(expect.arrayContaining(MEANINGS));
		const again = await describe(JSON.stringify(described.profile));
		expect((again.profile as IDataObject).webhooks).toEqual(
			(described.profile as IDataObject).webhooks,
		);
	});

	it.each([
		[{ event: 'job', when: {} }],
		[{ event: 'job', when: { '/query/action': 'completed' } }],
		[{ event: 'job', when: { '/body/action': 3 } }],
	])('refuses the meaning %j with its JSON path, before any request', async (meaning) => {
		const overrides = JSON.stringify({ webhooks: { meanings: { 'job.completed': [meaning] } } });
		const node = triggerNode({ events: ['job.completed'] });
		const credentials = { ...harness.credentials, profileOverrides: overrides };
		await expect(
			runWebhookMethod(triggerWorkflow(node), node, credentials, 'create'),
		).rejects.toThrow('/webhooks/meanings/job.completed/0');
		expect(harness.service.webhooks.size).toBe(0);
	});
});

/** Two overrides' texts as one: the second's webhooks over the first's. */
function mergedOverrides(first: string, second: string): string {
	const a = JSON.parse(first) as { webhooks: IDataObject };
	const b = JSON.parse(second) as { webhooks: IDataObject };
	return JSON.stringify({
		...a,
		webhooks: {
			...a.webhooks,
			meanings: {
				...(a.webhooks.meanings as IDataObject),
				...(b.webhooks.meanings as IDataObject),
			},
		},
	});
}
