import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { IDataObject, INodeParameters, INodePropertyOptions } from 'n8n-workflow';

import { OPERATION_OUTPUTS, SCHEMA_VERSION, simplifiedSchema } from '../../scripts/output-schemas';
import { buildOpenApiDocument } from '../fake-service/openapi';
import { byId, FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';
import {
	deliver,
	loadPackage,
	NODE_TYPE,
	runWebhookMethod,
	triggerNode,
	triggerWorkflow,
} from '../support/n8n-engine';

/**
 * The output schemas the package ships for the editor's preview: one for every operation, each
 * describing what the operation really outputs (run here against the fake service, with the
 * operation's defaults).
 */
const SCHEMAS = path.resolve(
	__dirname,
	'..',
	'..',
	'dist',
	'nodes',
	'ContentPublishing',
	'__schema__',
	SCHEMA_VERSION,
);
const harness = useFakeService();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

function shippedSchema(resource: string, operation: string): IDataObject {
	return JSON.parse(
		readFileSync(path.join(SCHEMAS, resource, `${operation}.json`), 'utf8'),
	) as IDataObject;
}

function nodeOperations(): string[] {
	const { properties } = loadPackage().nodeTypes.get(NODE_TYPE)!.description;
	return properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) =>
			(property.displayOptions?.show?.resource as string[]).flatMap((resource) =>
				(property.options as INodePropertyOptions[]).map(
					(option) => `${resource}/${String(option.value)}`,
				),
			),
		)
		.sort();
}

it('ships one schema per operation, in the folder n8n reads, each one the editor can preview', () => {
	const shipped = readdirSync(SCHEMAS).flatMap((resource) =>
		readdirSync(path.join(SCHEMAS, resource)).map(
			(file) => `${resource}/${file.replace(/\.json$/, '')}`,
		),
	);
	expect(shipped.sort()).toEqual(nodeOperations());
	for (const name of shipped) {
		const [resource, operation] = name.split('/');
		const schema = shippedSchema(resource, operation);
		// The editor previews an object schema with properties, and follows no references.
		expect({
			name,
			type: schema.type,
			hasProperties: Object.keys(schema.properties as IDataObject).length > 0,
		}).toEqual({ name, type: 'object', hasProperties: true });
		expect(JSON.stringify(schema)).not.toContain('$ref');
	}
	expect(existsSync(path.join(SCHEMAS, '..', '..', 'ContentPublishing.node.js'))).toBe(true);
});

it("ships the trigger's schema, which describes what it outputs for finished and failed jobs and published posts", async () => {
	const schema = JSON.parse(
		readFileSync(
			path.resolve(
				__dirname,
				'..',
				'..',
				'dist',
				'nodes',
				'ContentPublishingTrigger',
				'__schema__',
				`${SCHEMA_VERSION}.json`,
			),
			'utf8',
		),
	) as IDataObject;
	const node = triggerNode({ events: ['*'], options: { includeHeaders: true } });
	const workflow = triggerWorkflow(node);
	await runWebhookMethod(workflow, node, harness.credentials, 'create');
	harness.service.jobMode = 'manual';
	await harness.service.finishJob(
		harness.service.startJob('generate.video', { prompt: 'Ready' }).id,
		'succeeded',
	);
	await harness.service.finishJob(
		harness.service.startJob('generate.blog', { transcript: 'Hi' }).id,
		'failed',
	);
	await harness.run({
		resource: 'post',
		operation: 'create',
		content: 'Live',
		status: 'published',
	});
	const validate = ajv.compile(schema);
	const outputs: IDataObject[] = [];
	for (const sent of harness.service.deliveries) {
		const delivered = await deliver(workflow, node, harness.credentials, {
			headers: sent.headers,
			rawBody: sent.body,
		});
		const output = delivered.response.workflowData?.[0]?.[0]?.json as IDataObject;
		outputs.push(output);
		validate(output);
		expect({ event: output.event, errors: validate.errors ?? [] }).toEqual({
			event: output.event,
			errors: [],
		});
	}
	expect(outputs.map((output) => output.event).sort()).toEqual([
		'job.completed',
		'job.failed',
		'post.published',
	]);
	await runWebhookMethod(workflow, node, harness.credentials, 'delete');
});

describe('each schema describes what its operation outputs', () => {
	let postId = '';
	let pageId = '';
	let webhookId = '';
	let jobId = '';

	function expectFits(name: string, items: IDataObject[], schema: object): void {
		const validate = ajv.compile(schema);
		for (const item of items) {
			validate(item);
			expect({ name, errors: validate.errors ?? [] }).toEqual({ name, errors: [] });
		}
	}

	async function run(parameters: INodeParameters): Promise<IDataObject[]> {
		const result = await harness.run({ options: FAST_WAIT, ...parameters });
		if (result.error) throw result.error;
		return jsonOf(result);
	}

	beforeEach(async () => {
		pageId = [...harness.service.pages.keys()][0];
		[{ id: postId }] = (await run({
			resource: 'post',
			operation: 'create',
			content: 'Hello',
			additionalFields: { pageId, title: 'Hi', tags: 'a' },
		})) as Array<{ id: string }>;
		[{ id: webhookId }] = (await run({
			resource: 'webhook',
			operation: 'create',
			url: 'https://hooks.example.com/x',
			events: ['job.completed'],
		})) as Array<{ id: string }>;
		[{ id: jobId }] = (await run({
			resource: 'content',
			operation: 'generateLinkedin',
			prompt: 'Hi',
			waitForCompletion: false,
		})) as Array<{ id: string }>;
	});

	const cases: Array<[string, () => INodeParameters]> = [
		['account/get', () => ({})],
		['page/get', () => ({ pageId: byId('id', pageId) })],
		['page/getMany', () => ({ returnAll: true })],
		['post/create', () => ({ content: 'Hello', additionalFields: { pageId: byId('id', pageId) } })],
		['post/get', () => ({ postId: byId('id', postId) })],
		['post/getMany', () => ({ returnAll: true })],
		['post/update', () => ({ postId: byId('id', postId), updateFields: { title: 'New' } })],
		['post/delete', () => ({ postId: byId('id', postId) })],
		['content/generateBlog', () => ({ transcript: 'We talked about launches.' })],
		['content/generateLinkedin', () => ({ prompt: 'Launch' })],
		['content/generateTwitter', () => ({ prompt: 'Launch' })],
		['content/generateCarousel', () => ({ prompt: 'Launch' })],
		['content/generateVideo', () => ({ prompt: 'Launch' })],
		['publication/publishLinkedin', () => ({ postId: byId('id', postId) })],
		['publication/publishTwitter', () => ({ source: 'text', text: 'Hello' })],
		['job/get', () => ({ jobId })],
		['job/wait', () => ({ jobId })],
		['service/describe', () => ({})],
		['webhook/create', () => ({ url: 'https://hooks.example.com/y', events: ['*'] })],
		['webhook/get', () => ({ webhookId: byId('id', webhookId) })],
		['webhook/getMany', () => ({ returnAll: true })],
		[
			'webhook/update',
			() => ({ webhookId: byId('id', webhookId), updateFields: { description: 'New' } }),
		],
		['webhook/delete', () => ({ webhookId: byId('id', webhookId) })],
	];

	it('covers every operation', () => {
		expect(cases.map(([name]) => name).sort()).toEqual(nodeOperations());
	});

	it.each(cases)('%s', async (name, parameters) => {
		const [resource, operation] = name.split('/');
		const items = await run({ resource, operation, ...parameters() });
		expect(items.length).toBeGreaterThan(0);
		expectFits(name, items, shippedSchema(resource, operation));
	});

	it.each(cases)('%s, with Simplify on', async (name, parameters) => {
		const [resource, operation] = name.split('/');
		const items = await run({ resource, operation, simplify: true, ...parameters() });
		expect(items.length).toBeGreaterThan(0);
		expectFits(
			name,
			items,
			simplifiedSchema(buildOpenApiDocument(), OPERATION_OUTPUTS[resource][operation]),
		);
	});
});
