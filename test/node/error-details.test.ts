/**
 * A failed request tells what was sent, run by the real node in n8n's engine: its method and path,
 * the operation, the body's member names and where the profile put each parameter, in the error's
 * description (shown first in the editor) and under `context.request` (its error details'
 * "Request"), and in the execution n8n stores. Never a value of the body, the query or a header:
 * neither the API key nor a signing secret shows anywhere, nor a path of the machine.
 */
import type { NodeApiError } from 'n8n-workflow';

import { overrideExamples } from '../support/docs';
import { byId, useFakeService } from '../support/fixtures';
import type { RunResult } from '../support/n8n-engine';

const harness = useFakeService();

const SIGNING_SECRET = 'my-own-signing-secret-4f9a1c';
/** A webhook registration with the node's own signing secret. */
const createWebhook = async () =>
	await harness.run({
		resource: 'webhook',
		operation: 'create',
		url: 'https://example.com/hooks/content',
		events: ['job.completed'],
		additionalFields: { secret: SIGNING_SECRET },
	});

/** The error as n8n keeps it in the execution it stores (own fields, stack included). */
function storedError(result: RunResult): Partial<NodeApiError> {
	const [task] = result.run.data.resultData.runData['Content Publishing'] ?? [];
	return JSON.parse(JSON.stringify(task?.error ?? null)) as Partial<NodeApiError>;
}

/**
 * Everything of a run n8n could show or store, as text, but the node itself (its parameters, a
 * password among them, are the workflow's, which n8n keeps with every execution).
 */
const everything = (result: RunResult) =>
	[result.error, result.run.data]
		.map((value) =>
			JSON.stringify(value, (key, inner: unknown) =>
				key === 'node' || key === 'nodeExecutionStack' ? undefined : inner,
			),
		)
		.join('\n');

/** What a user reads first: no path of the machine n8n runs on. */
function expectNoMachinePaths(result: RunResult): void {
	for (const text of [result.error?.message, result.error?.description])
		expect(text).not.toMatch(/\/work\/|node_modules|\/home\/|\/usr\/|[A-Z]:\\|\.js:\d+/);
}

describe('a request the service refuses', () => {
	it('shows the method, path, operation, body member names and profile places of a 400 on Post → Create', async () => {
		harness.service.injectFault({ match: { method: 'POST', path: '/v1/posts' }, status: 400 });
		const result = await harness.run({
			resource: 'post',
			operation: 'create',
			content: 'Launch day is here',
			additionalFields: { extraBody: '{"meta": {"campaign": "spring-value-7"}}' },
		});
		// The document knows no `meta`: the service's own check would refuse it too.
		harness.expectContractViolation();

		expect(result.error?.httpCode).toBe('400');
		const { description } = result.error ?? {};
		expect(description).toContain('Request: POST /v1/posts, operation createPost');
		expect(description).toContain('body members /content, /status, /meta/campaign');
		expect(description).toContain('profile places content → /body/content, status → /body/status');
		expect(result.error?.context?.request).toEqual({
			operation: 'createPost',
			method: 'POST',
			path: '/v1/posts',
			query: [],
			body: ['/content', '/status', '/meta/campaign'],
			places: ['content → /body/content', 'status → /body/status'],
		});
		// Names, never values: neither the parameter's nor the Extra Body Fields'.
		expect(JSON.stringify(result.error?.context?.request)).not.toMatch(/Launch day|spring-value/);
		expect(description).not.toMatch(/Launch day|spring-value/);
		expect(everything(result)).not.toContain(harness.service.apiKey);
		expectNoMachinePaths(result);
	});

	it('names the nested places a JSON:API profile puts the parameters at, and its constants', async () => {
		const result = await harness.run(
			{ resource: 'post', operation: 'create', content: 'Hello' },
			// docs/service.md's constants example: a JSON:API service's places.
			{ credentials: { profileOverrides: overrideExamples()[2] } },
		);
		harness.expectContractViolation();

		expect(result.error?.httpCode).toMatch(/^4\d\d$/);
		expect(result.error?.description).toContain(
			'body members /data/attributes/content, /data/attributes/status, /data/type',
		);
		expect(result.error?.description).toContain(
			'profile places content → /body/data/attributes/content, status → /body/data/attributes/status, constant → /headers/x-api-version, constant → /body/data/type',
		);
		expect(result.error?.description).not.toMatch(/2024-10-01|"posts"/);
	});

	it('never shows the signing secret or the key of a webhook registration it refuses, only their names', async () => {
		harness.service.injectFault({
			match: { method: 'POST', path: '/v1/webhooks' },
			status: 422,
			// A refusal that quotes the request it was sent, Authorization included.
			body: (sent) => ({
				error: { code: 'invalid', message: 'Refused', sent },
				authorization: `Bearer ${harness.service.apiKey}`,
			}),
		});
		const result = await createWebhook();

		expect(result.error?.httpCode).toBe('422');
		expect(result.error?.description).toContain(
			'Request: POST /v1/webhooks, operation createWebhook',
		);
		expect(result.error?.description).toContain('secret → /body/secret');
		const request = result.error?.context?.request as { body: string[] };
		expect(request.body).toContain('/secret');
		const text = everything(result);
		expect(text).not.toContain(harness.service.apiKey);
		expect(text).not.toContain(SIGNING_SECRET);
		// The quote stays, without the secret.
		expect(JSON.stringify(result.error)).toContain('"secret":"***"');
		expectNoMachinePaths(result);
	});

	it('keeps what was sent in the execution n8n stores, with no secret in it', async () => {
		harness.service.injectFault({ match: { method: 'POST', path: '/v1/webhooks' }, status: 400 });
		const result = await createWebhook();

		const stored = storedError(result);
		expect(stored.description).toContain('Request: POST /v1/webhooks, operation createWebhook');
		expect(stored.context?.request).toEqual(
			expect.objectContaining({ method: 'POST', path: '/v1/webhooks', operation: 'createWebhook' }),
		);
		expect(stored.httpCode).toBe('400');
		const { stack, ...withoutStack } = stored;
		expect(stack).toBeDefined();
		expect(JSON.stringify(withoutStack)).not.toMatch(/\/work\/|node_modules/);
		const { node, ...ownFields } = stored;
		expect(node?.parameters).toBeDefined();
		expect(JSON.stringify(ownFields)).not.toContain(SIGNING_SECRET);
		expect(JSON.stringify(ownFields)).not.toContain(harness.service.apiKey);
	});

	it('names the id in the path of Post → Update and the query parameters, not their values', async () => {
		const post = (await harness.run({ resource: 'post', operation: 'create', content: 'Before' }))
			.items[0].json;
		harness.service.injectFault({ match: { method: 'PATCH' }, status: 409 });
		const result = await harness.run({
			resource: 'post',
			operation: 'update',
			postId: byId('id', String(post.id)),
			updateFields: { content: 'After', extraQuery: '{"notify": "token-like-value"}' },
		});
		harness.expectContractViolation();

		expect(result.error?.description).toContain(
			`Request: PATCH /v1/posts/${String(post.id)}, operation updatePost; body members /content; query parameters notify; profile places content → /body/content`,
		);
		expect(everything(result)).not.toContain('token-like-value');
	});
});

describe('a write whose answer was lost (alternate profile: no idempotency)', () => {
	const alternate = useFakeService({ profile: 'alternate' });

	it('shows what was sent in the "outcome unknown" error', async () => {
		alternate.service.injectFault({
			match: { method: 'POST', path: '/v1/posts' },
			status: 502,
			afterHandling: true,
		});
		const result = await alternate.run({
			resource: 'post',
			operation: 'create',
			content: 'Lost answer',
		});

		expect(result.error?.message).toMatch(/^The service's answer to POST \/v1\/posts was lost/);
		expect(result.error?.description).toMatch(/does not declare idempotency keys/);
		expect(result.error?.description).toContain('Request: POST /v1/posts, operation createPost');
		expect(result.error?.context?.request).toEqual(
			expect.objectContaining({ operation: 'createPost', method: 'POST' }),
		);
		expect(everything(result)).not.toContain(alternate.service.apiKey);
		expectNoMachinePaths(result);
	});
});
