/**
 * The API key goes only to the credential's origin and never into a message, a description, a
 * stored error body or a Continue On Fail item. A signing secret the service makes is one: a
 * value anyone could sign deliveries with fails the activation, named by its shape only.
 */
import { inspect } from 'node:util';

import type { INodeExecutionData } from 'n8n-workflow';

import { secretProblem } from '../../nodes/shared/secrets';
import { jsonOf, useFakeService } from '../support/fixtures';
import {
	contentPublishingNode,
	deliver,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
	type RunResult,
} from '../support/n8n-engine';
import { WaitingN8n } from '../support/waiting-n8n';

const harness = useFakeService();

const getAccount = { resource: 'account', operation: 'get' };
const createPost = { resource: 'post', operation: 'create', content: 'Secret-free' };
const CONTINUE = { node: { onError: 'continueRegularOutput' as const } };

/** Everything of a run a user or n8n's execution store could see, as text. */
function visible(result: RunResult): string {
	return [
		JSON.stringify(result.run.data),
		JSON.stringify(result.items),
		inspect(result.error, { depth: 20 }),
	].join('\n');
}

let errorPaths = 0;
let leaks = 0;
afterAll(() => console.log(`key leaks: ${leaks} in ${errorPaths} error paths`));

/** Whether any 8 characters in a row of the key show in the text. */
function leaksKey(text: string): boolean {
	const key = harness.service.apiKey;
	errorPaths++;
	for (let start = 0; start + 8 <= key.length; start++) {
		if (text.includes(key.slice(start, start + 8))) {
			leaks++;
			return true;
		}
	}
	return false;
}

describe('redirects', () => {
	const elsewhere = () => harness.service.url.replace('127.0.0.1', 'localhost');

	it.each([
		['a read', getAccount, 'GET', 302],
		['a write', createPost, 'POST', 307],
		['a write', createPost, 'POST', 308],
	])(
		'does not follow %s redirected to another origin (%s %s → %i)',
		async (_what, parameters, method, status) => {
			harness.service.injectFault({
				match: { method },
				status,
				redirectTo: `${elsewhere()}/v1/steal`,
			});
			const result = await harness.run(parameters);

			expect(result.error?.message).toBe(
				`The service redirected the request to ${elsewhere()}, which the node does not follow`,
			);
			expect(harness.service.requests).toHaveLength(1);
			expect(leaksKey(visible(result))).toBe(false);
		},
	);

	it('follows a read redirected within the origin, with the key', async () => {
		harness.service.injectFault({
			match: { path: '/v1/pages' },
			status: 302,
			redirectTo: '/v1/pages?limit=1',
		});
		const result = await harness.run({
			resource: 'page',
			operation: 'getMany',
			returnAll: false,
			limit: 2,
		});

		expect(jsonOf(result)).toHaveLength(2);
		expect(
			harness.service.requests
				.slice(0, 2)
				.map((request) => [request.status, request.query, request.headers.authorization]),
		).toEqual([
			[302, { limit: '2' }, `Bearer ${harness.service.apiKey}`],
			[200, { limit: '1' }, `Bearer ${harness.service.apiKey}`],
		]);
	});

	it('does not repeat a write that a same-origin 302 would turn into a GET', async () => {
		harness.service.injectFault({
			match: { method: 'POST' },
			status: 302,
			redirectTo: '/v1/posts',
		});
		const result = await harness.run(createPost);

		expect(result.error?.message).toMatch(
			/redirected the request to http:\/\/127\.0\.0\.1:\d+, which the node does not follow/,
		);
		expect(harness.service.requests).toHaveLength(1);
	});

	it('stops after five redirects', async () => {
		harness.service.injectFault({
			match: { path: '/v1/me' },
			status: 307,
			redirectTo: '/v1/me',
			times: 100,
		});
		const result = await harness.run(getAccount);

		expect(result.error?.message).toBe('The service redirected more than 5 times');
		expect(harness.service.requests).toHaveLength(6);
	});
});

describe('error bodies that echo the key', () => {
	const echoes = () => {
		const authorization = `Bearer ${harness.service.apiKey}`;
		return {
			error: {
				code: 'bad_request',
				message: `Rejected header Authorization: ${authorization}`,
				details: [{ field: 'authorization', message: authorization }],
			},
			request: { headers: { authorization } },
		};
	};

	it.each([
		['stops the run', {}],
		['becomes an error item', CONTINUE],
	])('JSON: the run %s without the key anywhere', async (_what, options) => {
		harness.service.injectFault({ status: 400, body: echoes() });
		const result = await harness.run(getAccount, options);

		const message = result.error?.message ?? String(jsonOf(result)[0].error);
		expect(message).toBe('Rejected header Authorization: Bearer ***');
		expect(leaksKey(visible(result))).toBe(false);
	});

	it('text: the key is removed before the body is cut to length, so no part of it shows', async () => {
		const text = `${'x'.repeat(295)}${harness.service.apiKey}${'y'.repeat(300)}`;
		harness.service.injectFault({ status: 500, body: text });
		const result = await harness.run(getAccount, CONTINUE);

		expect(String(jsonOf(result)[0].error)).toMatch(/^x{295}\*\*\*y+$/);
		expect(leaksKey(visible(result))).toBe(false);
	});
});

describe('a Base URL with a user name and password', () => {
	it('is refused before anything is sent, without repeating it', async () => {
		const withUserInfo = harness.service.url.replace('http://', 'http://admin:hunter2-password@');
		const result = await harness.run(getAccount, { credentials: { baseUrl: withUserInfo } });

		expect(result.error?.message).toBe(
			"The credential's Base URL must not contain a user name or password",
		);
		expect(visible(result)).not.toContain('hunter2');
		expect(harness.service.requests).toHaveLength(0);
	});
});

// The forms a service answered with that the node once took for secrets: each decodes to a key
// anyone can sign with (none, one byte, or one byte value repeated).
const WEAK_SECRETS: Array<[string, string]> = [
	['whsec_ and 16 "!"', `whsec_${'!'.repeat(16)}`],
	['whsec_ and 16 "="', `whsec_${'='.repeat(16)}`],
	['whsec_ and 16 spaces', `whsec_${' '.repeat(16)}`],
	['whsec_ and 24 "A"', `whsec_${'A'.repeat(24)}`],
	['a key of 1 byte', 'whsec_QQ==AAAAAAAAAAAA'],
	['16 "a"', 'a'.repeat(16)],
	['16 "0"', '0'.repeat(16)],
	['sk_ and 16 spaces', `sk_${' '.repeat(16)}`],
];

/** Leaves out every pattern the document gives for a webhook's secret. */
function withoutSecretPatterns(document: object): void {
	for (const schema of Object.values(
		(document as { components: { schemas: Record<string, { properties?: object }> } }).components
			.schemas,
	)) {
		for (const [name, property] of Object.entries(schema.properties ?? {}))
			if (/secret/i.test(name)) delete (property as { pattern?: string }).pattern;
	}
}

/** The service's answer with every secret in it replaced. */
function withSecret(answer: unknown, secret: string): unknown {
	if (Array.isArray(answer)) return answer.map((item) => withSecret(item, secret));
	if (answer === null || typeof answer !== 'object') return answer;
	return Object.fromEntries(
		Object.entries(answer).map(([name, value]) => [
			name,
			/secret/i.test(name) && typeof value === 'string' ? secret : withSecret(value, secret),
		]),
	);
}

describe.each([
	[
		'Standard Webhooks (the key is the base64 after whsec_)',
		'envelope' as const,
		[
			'a value of 22 characters decoding to 0 bytes, not base64 after whsec_',
			'a value of 22 characters decoding to 0 bytes, not base64 after whsec_',
			'a value of 22 characters decoding to 0 bytes, with spaces or control characters in it',
			'a value of 30 characters decoding to 18 bytes, one repeated byte value',
			'a value of 22 characters decoding to 1 byte, not base64 after whsec_',
			'a value of 16 characters decoding to 12 bytes, fewer than 16 bytes',
			'a value of 16 characters decoding to 12 bytes, fewer than 16 bytes',
			'a value of 19 characters decoding to 2 bytes, with spaces or control characters in it',
		],
	],
	[
		'a text key (the alternate profile makes the secret)',
		'alternate' as const,
		[
			'a value of 22 characters, one repeated character',
			'a value of 22 characters, one repeated character',
			'a value of 22 characters, with spaces or control characters in it',
			'a value of 30 characters, one repeated character',
			'a value of 22 characters, only 3 different characters',
			'a value of 16 characters, one repeated character',
			'a value of 16 characters, one repeated character',
			'a value of 19 characters, with spaces or control characters in it',
		],
	],
])('signing secrets the service makes: %s', (scheme, profile, shapes) => {
	// As the service: its document gives no pattern for the secret it makes.
	const service = useFakeService({ profile, editDocument: withoutSecretPatterns });
	let refused = 0;
	let started = 0;
	afterAll(() =>
		console.log(
			`weak service secrets refused (${scheme}): ${refused} of ${WEAK_SECRETS.length} forms; forged deliveries started: ${started}`,
		),
	);

	/**
	 * Activates a trigger while the service answers with `secret`, then hands it a delivery the
	 * service signs with that secret, as anyone could.
	 */
	async function activateWith(secret?: string) {
		const node = triggerNode({ events: ['*'] });
		const workflow = triggerWorkflow(node);
		if (secret !== undefined)
			service.service.injectFault({
				match: { method: 'POST', path: '/v1/webhooks' },
				rewriteAnswer: (answer) => withSecret(answer, secret),
			});
		const activation = await runWebhookMethod(workflow, node, service.credentials, 'create').then(
			() => undefined,
			(error: Error & { description?: string }) => error,
		);
		const registrations = [...service.service.webhooks.values()].filter(
			(webhook) => webhook.url === webhookUrl(node),
		);
		const now = new Date().toISOString();
		service.service.webhooks.set('wh_signer', {
			id: 'wh_signer',
			url: webhookUrl(node),
			events: ['*'],
			description: null,
			active: true,
			secret: secret ?? registrations[0]?.secret,
			created_at: now,
			updated_at: now,
		});
		service.service.jobMode = 'manual';
		const job = service.service.startJob('generate.video', { prompt: 'Signed by anyone' });
		await service.service.finishJob(job.id, 'succeeded');
		const signed = service.service.deliveries.find((sent) => sent.webhookId === 'wh_signer')!;
		const delivered = await deliver(workflow, node, service.credentials, {
			headers: signed.headers,
			rawBody: signed.body,
		});
		return { activation, registrations: registrations.length, delivered };
	}

	it.each(WEAK_SECRETS.map(([form, secret], index) => [form, secret, shapes[index]]))(
		'refuses %s at activation, removes the registration, and starts nothing for a delivery signed with it',
		async (_form, secret, shape) => {
			const { activation, registrations, delivered } = await activateWith(secret);
			if (delivered.response.workflowData !== undefined) started++;

			expect(activation?.message).toBe(
				`The service registered the webhook but answered with a signing secret that is no secret: ${shape}`,
			);
			expect(activation?.description).toMatch(/at least 16 random bytes/);
			expect(inspect(activation, { depth: 20 })).not.toContain(secret);
			expect(registrations).toBe(0);
			expect(delivered.status).toBe(401);
			expect(delivered.response.workflowData).toBeUndefined();
			refused++;
		},
	);

	it("takes the service's own secret and starts the workflow for its signed delivery", async () => {
		const { activation, registrations, delivered } = await activateWith();
		expect(activation).toBeUndefined();
		expect(registrations).toBe(1);
		expect(delivered.response.workflowData).toHaveLength(1);
	});
});

describe('what counts as a signing secret', () => {
	const whsec = { secretEncoding: 'whsec' as const };
	const text = { secretEncoding: 'text' as const };

	it.each([
		['Standard Webhooks, 24 random bytes', 'whsec_KrpjcEvpAqOLzdnM7r1BMr3hLNWq9fID', whsec],
		[
			'Standard Webhooks, 32 random bytes',
			'whsec_ZAb2ZC/PU2NqN2CutblPveVBfYFP3LajdizFpkwQsnc=',
			whsec,
		],
		['Standard Webhooks, URL-safe base64', 'whsec_0ebm_zbZQm5GbryjfmpAxuH8KQmKNOA4', whsec],
		['32 hex digits', '832b621f568840852e425d0ee863881d', text],
		['a GitHub-style token of 40 hex digits', 'ee008343ea862ca1130ca217b977c048dfc0e995', text],
		['Stripe-style whsec_ used as text', 'whsec_Hq8Ro4JUcfvTnTm0eYYTAEBMTvHSHgtd', text],
	])('takes %s', (_form, secret, scheme) => {
		expect(secretProblem(secret, undefined, scheme)).toBeUndefined();
	});

	it.each([
		[
			'a masked copy',
			'••••••••••••dcfe',
			text,
			'a value of 16 characters, masked (with •, *, …, xxxx or ... in it)',
		],
		[
			'a pattern',
			'abababababababababab',
			text,
			'a value of 20 characters, only 2 different characters',
		],
		['a number', 12345678901234567890, text, 'a number, not text'],
		['nothing', null, whsec, 'no value'],
		[
			"a value the document's pattern does not fit",
			'832b621f568840852e425d0ee863881d',
			text,
			"a value of 32 characters, not of the form the service's document gives",
		],
	])('refuses %s', (_form, value, scheme, shape) => {
		expect(secretProblem(value, '^sk_', scheme)).toBe(shape);
	});
});

describe("a wait for the service's event, where the service makes a secret that is none", () => {
	const harness = useFakeService({ profile: 'alternate' });
	let n8n: WaitingN8n;
	beforeAll(async () => {
		n8n = await WaitingN8n.start();
	});
	afterAll(async () => {
		await n8n.close();
	});

	it('keeps no secret in its address, so deliveries only prompt a read, and resumes once its job has finished', async () => {
		harness.service.jobMode = 'manual';
		harness.service.injectFault({
			match: { method: 'POST', path: '/v1/webhooks' },
			rewriteAnswer: (answer) => withSecret(answer, `whsec_${'!'.repeat(16)}`),
		});
		const input: INodeExecutionData[] = [{ json: { prompt: 'One video' } }];
		const { ended } = await n8n.run(
			contentPublishingNode({
				resource: 'content',
				operation: 'generateVideo',
				prompt: '={{ $json.prompt }}',
				waitMethod: 'event',
				options: { maxWaitTime: 60 },
			}),
			harness.credentials,
			input,
		);
		const [registration] = [...harness.service.webhooks.values()];
		expect(new URL(registration.url).searchParams.has('cp_key')).toBe(false);

		const [job] = [...harness.service.jobs.values()];
		await harness.service.finishJob(job.id, 'succeeded');
		expect((await ended).items).toHaveLength(1);
		await n8n.settled();
	});
});
