/**
 * An id can only ever name one resource: empty ids, `.` and `..` (typed, mapped, percent-encoded,
 * between slashes or in a URL) are refused before anything is sent, in every operation and locator mode.
 */
import type { INode, NodeParameterValueType } from 'n8n-workflow';

import { byId, useFakeService } from '../support/fixtures';

const harness = useFakeService();

const BAD_IDS = [
	'',
	'  ',
	'.',
	'..',
	' .. ',
	'%2e',
	'%2e%2e',
	'%2E.',
	'.%2E',
	'%252e%252e',
	'../webhooks',
	'a%2f..',
];

type Parameters = INode['parameters'];
const locatorOperations: Array<[string, (id: NodeParameterValueType) => Parameters, string]> = [
	['post → get', (postId) => ({ resource: 'post', operation: 'get', postId }), 'Post'],
	[
		'post → update',
		(postId) => ({ resource: 'post', operation: 'update', postId, updateFields: { title: 'x' } }),
		'Post',
	],
	['post → delete', (postId) => ({ resource: 'post', operation: 'delete', postId }), 'Post'],
	['page → get', (pageId) => ({ resource: 'page', operation: 'get', pageId }), 'Page'],
	[
		'webhook → get',
		(webhookId) => ({ resource: 'webhook', operation: 'get', webhookId }),
		'Webhook',
	],
	[
		'webhook → update',
		(webhookId) => ({
			resource: 'webhook',
			operation: 'update',
			webhookId,
			updateFields: { description: 'x' },
		}),
		'Webhook',
	],
	[
		'webhook → delete',
		(webhookId) => ({ resource: 'webhook', operation: 'delete', webhookId }),
		'Webhook',
	],
	[
		'publication → publishLinkedin',
		(postId) => ({ resource: 'publication', operation: 'publishLinkedin', source: 'post', postId }),
		'Post',
	],
];
const textOperations: Array<[string, (id: NodeParameterValueType) => Parameters, string]> = [
	['job → get', (jobId) => ({ resource: 'job', operation: 'get', jobId }), 'Job ID'],
	['job → wait', (jobId) => ({ resource: 'job', operation: 'wait', jobId }), 'Job ID'],
];

let tried = 0;
let rejected = 0;
afterAll(() => console.log(`bad ids tried: ${tried}, rejected before sending: ${rejected}`));

/**
 * A typed id that breaks a locator mode's pattern is refused by n8n itself, before the node runs
 * (the editor shows the pattern's message); anything else by the node, naming parameter and item.
 */
async function expectRefused(parameters: Parameters, displayName: string) {
	tried++;
	// n8n's own check throws from the start of the execution instead of failing the node.
	const result = await harness.run(parameters).catch((error: Error) => ({ error }));
	expect(result.error?.message).toMatch(
		new RegExp(
			`^("${displayName}" of item 0 (is empty|is not an ID: ".*")|The workflow has issues and cannot be executed for that reason\\. Please fix them first\\.)$`,
		),
	);
	expect(harness.service.requests).toEqual([]);
	rejected++;
}

describe.each([...locatorOperations, ...textOperations])(
	'%s',
	(_name, parametersFor, displayName) => {
		const isLocator = locatorOperations.some(([name]) => name === _name);

		it.each(BAD_IDS)('refuses the id "%s" typed or mapped', async (id) => {
			const value = isLocator ? byId('id', id) : id;
			await expectRefused(parametersFor(value), displayName);
		});

		it('refuses "..", mapped from the input by an expression', async () => {
			const expression = '={{ $json.id }}';
			const parameters = parametersFor(isLocator ? byId('id', expression) : expression);
			tried++;
			const result = await harness.run(parameters, { input: [{ json: { id: '..' } }] });
			expect(result.error?.message).toBe(`"${displayName}" of item 0 is not an ID: ".."`);
			expect(harness.service.requests).toEqual([]);
			rejected++;
		});

		if (isLocator) {
			it.each(['.', '..', '%2e%2e'])('refuses "%s" from the list or in an API URL', async (id) => {
				const resourcePath =
					displayName === 'Page' ? 'pages' : displayName === 'Webhook' ? 'webhooks' : 'posts';
				await expectRefused(parametersFor(byId('list', id)), displayName);
				await expectRefused(
					parametersFor(byId('url', `https://api.example.com/v1/${resourcePath}/${id}`)),
					displayName,
				);
			});
		}
	},
);

it('still sends ids that merely contain dots, encoded into one path segment', async () => {
	await harness.run({ resource: 'post', operation: 'get', postId: byId('id', 'v1..2') });
	await harness.run({ resource: 'job', operation: 'get', jobId: '...' });
	expect(harness.service.requests.map((request) => request.path)).toEqual([
		'/v1/posts/v1..2',
		'/v1/jobs/...',
	]);
});
