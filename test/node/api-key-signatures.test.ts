import { createHmac } from 'node:crypto';

import { overrideExamples } from '../support/docs';
import { useFakeService } from '../support/fixtures';
import {
	deliver,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
} from '../support/n8n-engine';

/**
 * Deliveries signed as Twilio signs its webhooks: `X-Twilio-Signature` is the base64 HMAC-SHA1,
 * keyed with the account's auth token (here the credential's API key), of the URL the service
 * posts to followed by every form parameter's name and value, sorted by name. The service takes no
 * secret; docs/service.md's example says so in Profile Overrides.
 */

const profileOverrides = overrideExamples()[4];
const harness = useFakeService({ openApiDocument: false });

/** Twilio's algorithm, written from its documentation rather than from the node's code. */
function twilioSignature(key: string, url: string, form: Record<string, string>): string {
	const data = Object.keys(form)
		.sort()
		.reduce((text, name) => text + name + form[name], url);
	return createHmac('sha1', Buffer.from(key, 'utf8')).update(data).digest('base64');
}

async function activated(options: { isTest?: boolean } = {}) {
	const node = triggerNode({ events: ['job.completed'] });
	const workflow = triggerWorkflow(node);
	const credentials = { ...harness.credentials, profileOverrides };
	if (!(await runWebhookMethod(workflow, node, credentials, 'checkExists', options)))
		await runWebhookMethod(workflow, node, credentials, 'create', options);
	const post = (rawBody: string, headers: Record<string, string>) =>
		deliver(workflow, node, credentials, { rawBody, headers });
	return { node, workflow, post, url: webhookUrl(node, options) };
}

async function finishedJob() {
	const job = harness.service.startJob('generate.blog', { transcript: 'T' });
	harness.service.jobMode = 'manual';
	await harness.service.finishJob(job.id, 'succeeded');
	return job;
}

function formDelivery(key: string, url: string, form: Record<string, string>) {
	return {
		rawBody: new URLSearchParams(form).toString(),
		headers: {
			'Content-Type': 'application/x-www-form-urlencoded',
			'X-Twilio-Signature': twilioSignature(key, url, form),
		},
	};
}

it('registers without a secret and keeps none: the API key is read at each delivery', async () => {
	const { workflow, node } = await activated();
	const [registration] = harness.sent('createWebhook');
	expect(registration.body).not.toHaveProperty('secret');
	const stored = JSON.stringify(workflow.getStaticData('node', node));
	expect(stored).not.toContain(harness.service.apiKey);
	expect(stored).toContain('"secret":""');
});

it('starts the workflow for a form delivery signed with the API key over its address and sorted parameters, with the job it names read from the service', async () => {
	const { post, url } = await activated();
	const job = await finishedJob();
	const form = { JobSid: job.id, EventType: 'job.completed', AccountSid: 'AC1' };
	const { rawBody, headers } = formDelivery(harness.service.apiKey, url, form);

	const result = await post(rawBody, headers);
	expect(result.status).toBe(200);
	expect(result.response.workflowData?.[0][0].json).toMatchObject({
		event: 'job.completed',
		job: expect.objectContaining({ id: job.id, status: 'succeeded' }),
	});
});

it.each([
	[
		'signed with another key',
		(url: string, form: Record<string, string>) =>
			formDelivery('another-key-0123456789', url, form),
	],
	[
		'signed for another address',
		(url: string, form: Record<string, string>) =>
			formDelivery(harness.service.apiKey, `${url}?x=1`, form),
	],
	[
		'a parameter changed after signing',
		(url: string, form: Record<string, string>) => {
			const signed = formDelivery(harness.service.apiKey, url, form);
			return { ...signed, rawBody: signed.rawBody.replace('AC1', 'AC2') };
		},
	],
	[
		'as another media type (a sort of its parts could reorder a JSON body)',
		(url: string, form: Record<string, string>) => {
			const signed = formDelivery(harness.service.apiKey, url, form);
			return { ...signed, headers: { ...signed.headers, 'Content-Type': 'text/plain' } };
		},
	],
])('answers 401 and starts nothing for a delivery %s', async (_case, forge) => {
	const { post, url } = await activated();
	const job = await finishedJob();
	const { rawBody, headers } = forge(url, {
		JobSid: job.id,
		EventType: 'job.completed',
		AccountSid: 'AC1',
	});
	const result = await post(rawBody, headers);
	expect(result.status).toBe(401);
	expect(result.response).toEqual({ noWebhookResponse: true });
});

it('checks no form of more than 1,000 parameters, even signed', async () => {
	const { post, url } = await activated();
	const job = await finishedJob();
	const form: Record<string, string> = { JobSid: job.id, EventType: 'job.completed' };
	for (let index = 0; index < 998; index++) form[`P${index}`] = 'x';
	const atLimit = formDelivery(harness.service.apiKey, url, form);
	expect((await post(atLimit.rawBody, atLimit.headers)).status).toBe(200);
	form.P998 = 'x';
	const beyond = formDelivery(harness.service.apiKey, url, form);
	expect((await post(beyond.rawBody, beyond.headers)).status).toBe(401);
});

it('refuses a signature over the address alone, which would sign any body, with its JSON path', async () => {
	const overrides = JSON.parse(profileOverrides) as {
		webhooks: { signature: { signed: string[] } };
	};
	overrides.webhooks.signature.signed = ['url'];
	const node = triggerNode({ events: ['job.completed'] });
	const credentials = { ...harness.credentials, profileOverrides: JSON.stringify(overrides) };
	await expect(
		runWebhookMethod(triggerWorkflow(node), node, credentials, 'create'),
	).rejects.toThrow('/webhooks/signature/signed: must include "body" (or "form", for form bodies)');
	expect(harness.sent('createWebhook')).toHaveLength(0);
});
