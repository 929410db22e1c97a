/**
 * Profile Overrides cannot weaken how the trigger checks deliveries: a signature over less than the
 * body, repeats known by a value a replay can change, a secret anyone can read, a pattern that
 * backtracks without end, or a read turned into a write are refused before any request, naming the
 * JSON path; a service's secret that repeats a short unit, or holds what the node sent, is no secret.
 * The real trigger runs in n8n's engine against the fake service, and whatever a forger or a replay
 * sends starts nothing.
 */
import { createHmac } from 'node:crypto';

import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { checkOverrides } from '../../nodes/shared/profile/overrides';
import { checkablePattern } from '../../nodes/shared/profile/signing';
import { secretProblem } from '../../nodes/shared/secrets';
import { useFakeService } from '../support/fixtures';
import {
	deliver,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
	webhookUrl,
} from '../support/n8n-engine';

const harness = useFakeService();

type Delivery = { headers: Record<string, string>; rawBody: string };

const now = () => String(Math.floor(Date.now() / 1000));

/** A job event as the built-in conventions deliver it; `id`: the body's delivery id. */
function jobEvent(id = 'evt_1', prompt = 'Forged') {
	return JSON.stringify({
		id,
		type: 'job.completed',
		created_at: '2026-11-22T10:00:00.000Z',
		data: { job: { id: 'job_1', type: 'generate.video', status: 'succeeded', result: { prompt } } },
	});
}

/** The HMAC-SHA256 of the parts joined by `.`, as the built-in header writes it. */
function builtInSignature(key: string, parts: string[]): string {
	return `sha256=${createHmac('sha256', key).update(parts.join('.')).digest('hex')}`;
}

/** A delivery signed as the built-in conventions sign: over `<timestamp>.<body>`. */
function signed(key: string, rawBody: string, extra: Record<string, string> = {}): Delivery {
	const timestamp = now();
	return {
		rawBody,
		headers: {
			'content-type': 'application/json',
			'x-content-publishing-timestamp': timestamp,
			'x-content-publishing-signature': builtInSignature(key, [timestamp, rawBody]),
			...extra,
		},
	};
}

/**
 * Activates a trigger with the overrides, then hands it what an attacker sends, made with the
 * secret the service holds for it (captured, or read where the override put it): how many of
 * those deliveries started the workflow.
 */
async function attack(overrides: string, send: (secret: string, url: string) => Delivery[]) {
	const node = triggerNode({ events: ['*'] });
	const workflow = triggerWorkflow(node);
	const credentials = { ...harness.credentials, profileOverrides: overrides };
	const activation = await runWebhookMethod(workflow, node, credentials, 'create').then(
		() => undefined,
		(error: Error) => error,
	);
	const secret = [...harness.service.webhooks.values()][0]?.secret ?? 'captured-nowhere';
	let started = 0;
	for (const delivery of send(secret, webhookUrl(node)))
		if ((await deliver(workflow, node, credentials, delivery)).response.workflowData) started++;
	return { activation, started, registrations: harness.service.webhooks.size };
}

/** One signature captured from a real delivery, over parts that hold no body, put on a forged body. */
const forgedBody =
	(parts: (timestamp: string) => string[], headers: Record<string, string> = {}) =>
	(secret: string): Delivery[] => {
		const timestamp = now();
		return [
			{
				rawBody: jobEvent('evt_forged', 'Anything at all'),
				headers: {
					'content-type': 'application/json',
					'x-content-publishing-timestamp': timestamp,
					'x-content-publishing-delivery': 'evt_forged',
					'x-content-publishing-signature': builtInSignature(secret, parts(timestamp)),
					...headers,
				},
			},
		];
	};

/** One genuine delivery, then the same sent again with a new value where the override reads the id. */
const replayed =
	(header: string) =>
	(secret: string): Delivery[] => {
		const body = JSON.stringify({ type: 'job.completed', data: { job: { id: 'job_1' } } });
		return ['1', '2', '3'].map((attempt) => signed(secret, body, { [header]: attempt }));
	};

/** A delivery signed with the secret anyone can know: the trigger's own address. */
const signedWithUrl = (_secret: string, url: string) => [signed(url, jobEvent())];

const ATTACKS: Array<[string, string, string, (secret: string, url: string) => Delivery[]]> = [
	// 1. A signature over no body.
	[
		'nothing signed',
		'{"webhooks": {"signature": {"signed": []}}}',
		'/webhooks/signature/signed',
		forgedBody(() => []),
	],
	[
		'a constant only',
		'{"webhooks": {"signature": {"signed": [{"text": "v0"}]}}}',
		'/webhooks/signature/signed',
		forgedBody(() => ['v0']),
	],
	[
		'the text "body", escaped, in place of the body',
		'{"webhooks": {"signature": {"signed": [{"text": "\\u0062ody"}]}}}',
		'/webhooks/signature/signed',
		forgedBody(() => ['body']),
	],
	[
		'the timestamp alone',
		'{"webhooks": {"signature": {"signed": ["timestamp"]}}}',
		'/webhooks/signature/signed',
		forgedBody((timestamp) => [timestamp]),
	],
	[
		'the id and timestamp',
		'{"webhooks": {"signature": {"signed": ["id", "timestamp"]}}}',
		'/webhooks/signature/signed',
		forgedBody((timestamp) => ['evt_forged', timestamp]),
	],
	// 2. Repeats known by a value the signature does not cover.
	[
		'the id in an unsigned header',
		'{"webhooks": {"delivery": {"id": "/headers/x-attempt"}}}',
		'/webhooks/delivery/id/0',
		replayed('x-attempt'),
	],
	[
		'the id in an unsigned header, as a list',
		'{"webhooks": {"delivery": {"id": ["/headers/x-attempt"]}}}',
		'/webhooks/delivery/id/0',
		replayed('x-attempt'),
	],
	[
		'the id in an unsigned header after the body',
		'{"webhooks": {"delivery": {"id": ["/body/id", "/headers/x-attempt"]}}}',
		'/webhooks/delivery/id/1',
		replayed('x-attempt'),
	],
	[
		'the id header named by the signature, which does not sign "id"',
		'{"webhooks": {"delivery": {"id": "/headers/x-content-publishing-delivery"}}}',
		'/webhooks/delivery/id/0',
		replayed('x-content-publishing-delivery'),
	],
	[
		'the id in the signature header',
		'{"webhooks": {"delivery": {"id": "/headers/x-content-publishing-signature"}}}',
		'/webhooks/delivery/id/0',
		(secret) => {
			const first = signed(secret, jobEvent());
			const again = (extra: string) => ({
				...first,
				headers: {
					...first.headers,
					'x-content-publishing-signature': `${first.headers['x-content-publishing-signature']} ${extra}`,
				},
			});
			return [first, again('sha256=00'), again('sha256=01')];
		},
	],
	// 3. The secret read where the registration's address or events are.
	[
		'the secret at the address',
		'{"webhooks": {"secret": {"by": "service", "at": "/url"}}}',
		'/webhooks/secret/at',
		signedWithUrl,
	],
	[
		'the secret at the address, escaped',
		'{"webhooks": {"secret": {"by": "service", "at": "\\/u\\u0072l"}}}',
		'/webhooks/secret/at',
		signedWithUrl,
	],
	[
		'the secret at the address the override moves',
		'{"webhooks": {"registration": {"url": "/callback"}, "secret": {"by": "service", "at": "/callback"}}}',
		'/webhooks/secret/at',
		signedWithUrl,
	],
	[
		'the secret below the events',
		'{"webhooks": {"secret": {"by": "service", "at": "/events/0"}}}',
		'/webhooks/secret/at',
		(secret) => [signed('*', jobEvent()), signed(secret, jobEvent())],
	],
	// 4. A secret pattern that backtracks without end.
	[
		'a nested quantifier',
		'{"webhooks": {"secret": {"by": "service", "at": "/secret", "pattern": "^([a-z0-9]+)+$"}}}',
		'/webhooks/secret/pattern',
		() => [],
	],
	[
		'an alternative repeated',
		'{"webhooks": {"secret": {"by": "service", "at": "/secret", "pattern": "^(a|a)*$"}}}',
		'/webhooks/secret/pattern',
		() => [],
	],
];

describe('overrides that would weaken the signature', () => {
	let refused = 0;
	afterAll(() =>
		console.log(`overrides weakening a signature: refused ${refused} of ${ATTACKS.length}`),
	);

	it.each(ATTACKS)(
		'refuses %s before any request, naming the JSON path; what a forger or a replay sends starts nothing',
		async (_form, overrides, path, send) => {
			const { activation, started, registrations } = await attack(overrides, send);

			expect(activation?.message).toMatch(
				new RegExp(`^The credential's Profile Overrides ${path}: `),
			);
			expect(harness.sent('createWebhook')).toEqual([]);
			expect(registrations).toBe(0);
			expect(started).toBe(0);
			refused++;
		},
	);

	it('refuses the same in Service → Describe, and before any request', async () => {
		for (const [, overrides, path] of ATTACKS) {
			const described = await harness.run(
				{ resource: 'service', operation: 'describe' },
				{ credentials: { profileOverrides: overrides } },
			);
			expect(described.error?.message).toMatch(
				new RegExp(`^The credential's Profile Overrides ${path}: `),
			);
		}
		expect(harness.service.requests).toEqual([]);
	});
});

describe("a service's secret that is no secret", () => {
	const byService = '{"webhooks": {"secret": {"by": "service", "at": "/secret"}}}';

	it.each([
		[
			'a unit repeated (abcde…)',
			() => 'abcde'.repeat(7).slice(0, 32),
			/a unit of 5 characters repeated$/,
		],
		['the webhook address', (url: string) => url, /holding the webhook address/],
		[
			'the webhook address in a longer text',
			(url: string) => `sk_live_${url}#9f2c`,
			/holding the webhook address/,
		],
	])(
		'refuses %s at activation, removes the registration, and starts nothing signed with it',
		async (_form, secretFor, shape) => {
			let made = '';
			harness.service.injectFault({
				match: { method: 'POST', path: '/v1/webhooks' },
				rewriteAnswer: (answer) => {
					made = secretFor((answer as { url: string }).url);
					return { ...(answer as object), secret: made };
				},
			});
			const { activation, started, registrations } = await attack(byService, () => [
				signed(made, jobEvent()),
			]);

			expect(activation?.message).toMatch(
				/^The service registered the webhook but answered with a signing secret that is no secret: a value of \d+ characters, /,
			);
			expect(activation?.message).toMatch(shape);
			expect(activation?.message).not.toContain(made);
			expect(registrations).toBe(0);
			expect(started).toBe(0);
		},
	);

	it('tells a pattern, a secret holding the address and a repeated unit by their shape only', () => {
		const text = { secretEncoding: 'text' as const };
		// Screened by its form: the pattern is never run against a value here.
		expect(checkablePattern('^([a-z0-9]+)+$')).toBeUndefined();
		expect(checkablePattern('^whsec_[A-Za-z0-9+/=]{32,}$')).toBe('^whsec_[A-Za-z0-9+/=]{32,}$');
		expect(
			checkOverrides(
				'{"webhooks": {"secret": {"by": "service", "at": "/secret", "pattern": "^([a-z0-9]+)+$"}}}',
				BUILT_IN_PROFILE,
			).problem?.message,
		).toMatch(
			/^Profile Overrides \/webhooks\/secret\/pattern: must be a pattern the node can test/,
		);
		expect(secretProblem('abcde'.repeat(7).slice(0, 32), undefined, text)).toBe(
			'a value of 32 characters, a unit of 5 characters repeated',
		);
		expect(
			secretProblem(`whsec_${Buffer.from('0123456789'.repeat(3)).toString('base64')}`, undefined, {
				secretEncoding: 'whsec',
			}),
		).toBe('a value of 46 characters decoding to 30 bytes, a unit of 10 byte values repeated');
		const url = 'http://127.0.0.1:5678/webhook/d7c0e6f2/webhook';
		expect(secretProblem(`sk_${url}`, undefined, text, [url])).toMatch(
			/^a value of \d+ characters, holding the webhook address/,
		);
		expect(secretProblem('832b621f568840852e425d0ee863881d', undefined, text, [url, '*'])).toBe(
			undefined,
		);
	});
});

describe('an override may not change a read into a write', () => {
	it('refuses Account → Get as DELETE before any request, naming the path and the methods', async () => {
		const run = await harness.run(
			{ resource: 'account', operation: 'get' },
			{ credentials: { profileOverrides: '{"operations": {"getAccount": {"method": "DELETE"}}}' } },
		);
		expect(run.error?.message).toBe(
			"The credential's Profile Overrides /operations/getAccount/method: must be GET, a method Account → Get may use",
		);
		expect(harness.service.requests).toEqual([]);
	});

	it.each([
		['updatePost', 'POST', undefined],
		['updatePost', 'PUT', undefined],
		['deletePost', 'POST', undefined],
		['createPost', 'PUT', undefined],
		['getJob', 'POST', 'must be GET'],
		['listPosts', 'DELETE', 'must be GET'],
		['deleteWebhook', 'GET', 'must be DELETE or POST'],
		['publishLinkedin', 'GET', 'must be POST'],
	])('%s as %s: %s', (operation, method, problem) => {
		const found = checkOverrides(
			`{"operations": {"${operation}": {"method": "${method}"}}}`,
			BUILT_IN_PROFILE,
		).problem?.message;
		if (problem === undefined) expect(found).toBeUndefined();
		else expect(found).toContain(`/operations/${operation}/method: ${problem}, a method`);
	});
});

describe('overrides that keep the signature whole', () => {
	it('a body-only signature, GitHub-style: a signed delivery starts the workflow, a forged body nothing', async () => {
		const github = (key: string, rawBody: string) => ({
			rawBody,
			headers: {
				'content-type': 'application/json',
				'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(rawBody).digest('hex')}`,
			},
		});
		const result = await attack(
			'{"webhooks": {"signature": {"header": "x-hub-signature-256", "format": "prefixed", "prefix": "sha256=", "signed": ["body"]}}}',
			(secret) => [github(secret, jobEvent()), github('not the secret', jobEvent('evt_2'))],
		);
		expect(result).toEqual({ activation: undefined, started: 1, registrations: 1 });
	});

	it('Stripe-style t=…,v1=…: a signed delivery starts the workflow', async () => {
		const stripe = (key: string, rawBody: string) => {
			const t = now();
			const v1 = createHmac('sha256', key).update(`${t}.${rawBody}`).digest('hex');
			return {
				rawBody,
				headers: { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${v1}` },
			};
		};
		const result = await attack(
			'{"webhooks": {"signature": {"header": "stripe-signature", "format": "stripe", "signed": ["timestamp", "body"]}}}',
			(secret) => [stripe(secret, jobEvent())],
		);
		expect(result).toEqual({ activation: undefined, started: 1, registrations: 1 });
	});

	it('Standard Webhooks, the id read from its signed webhook-id: a delivery starts the workflow once, a new id on it nothing', async () => {
		const standard = (secret: string, id: string, signedId = id) => {
			const timestamp = now();
			const rawBody = jobEvent();
			const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
			const digest = createHmac('sha256', key)
				.update(`${signedId}.${timestamp}.${rawBody}`)
				.digest('base64');
			return {
				rawBody,
				headers: {
					'content-type': 'application/json',
					'webhook-id': id,
					'webhook-timestamp': timestamp,
					'webhook-signature': `v1,${digest}`,
				},
			};
		};
		const result = await attack(
			JSON.stringify({
				webhooks: {
					signature: {
						header: 'webhook-signature',
						format: 'standard',
						encoding: 'base64',
						signed: ['id', 'timestamp', 'body'],
						idHeader: 'webhook-id',
						timestampHeader: 'webhook-timestamp',
						secretEncoding: 'whsec',
					},
					delivery: { id: '/headers/webhook-id' },
				},
			}),
			(secret) => [
				standard(secret, 'msg_1'),
				standard(secret, 'msg_1'),
				standard(secret, 'msg_2', 'msg_1'),
			],
		);
		expect(result).toEqual({ activation: undefined, started: 1, registrations: 1 });
	});
});
