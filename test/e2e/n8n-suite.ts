/**
 * The package inside a real n8n: installed from its packed tarball, its workflows imported and
 * run by n8n's CLI, its trigger activated and deactivated by a running n8n, its credential
 * tested by n8n's own endpoint. The fake service runs in this process. Each pinned n8n has a test
 * file of its own that runs this suite, so that jest runs them side by side.
 */
import type { IDataObject } from 'n8n-workflow';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

import { startFakeService, signWebhookPayload, type FakeService } from '../fake-service';
import {
	createN8n,
	ensureN8nInstalled,
	firstJsonObject,
	installedPackageFolder,
	N8nRestClient,
	pinnedN8n,
	type N8nInstance,
	type N8nPinName,
} from '../../scripts/n8n-instance';
import { OPERATION_OUTPUTS, SCHEMA_VERSION } from '../../scripts/output-schemas';
import { overrideExamples } from '../support/docs';
import { CREDENTIAL as EXAMPLES_CREDENTIAL } from '../../scripts/start';
import {
	chain,
	eventWaitBatch,
	eventWaitWorkflow,
	node,
	sweepTimeLeft,
	until as waitUntil,
	untilActivated,
	untilAsync,
	workflowFile,
} from './workflows';

const CREDENTIAL = { id: 'cpFakeService01', name: 'Content Publishing (fake service)' };
/** Services that follow the spec with other conventions: their own document, or none. */
/** `completed`: the event the node is set to; `delivered`: what the service calls it in a delivery. */
const OTHER_SERVICES = {
	alternate: {
		credential: { id: 'cpAlternate0001', name: 'Content Publishing (alternate conventions)' },
		completed: 'JOB_READY',
		delivered: 'JOB_READY',
		flow: 'cpTriggerAlt',
	},
	// The node's own event, as a saved default: sent as the envelope service's task.run.succeeded.
	envelope: {
		credential: { id: 'cpEnvelope00001', name: 'Content Publishing (envelope conventions)' },
		completed: 'job.completed',
		delivered: 'task.run.succeeded',
		flow: 'cpTriggerEnv',
	},
	undocumented: {
		credential: { id: 'cpNoDocument001', name: 'Content Publishing (no OpenAPI document)' },
		completed: 'job.completed',
		delivered: 'job.completed',
		flow: 'cpTriggerNoDoc',
	},
	// Replicate's input, Box references, Stripe's update by POST, Google's operations, GitHub's webhooks: see nested.ts.
	nested: {
		credential: { id: 'cpNested000001', name: 'Content Publishing (nested conventions)' },
		completed: 'job.completed',
		delivered: 'generation.succeeded',
		flow: 'cpTriggerNest',
	},
	// The alternate service without its document, read by the Profile Overrides of docs/service.md.
	overridden: {
		credential: { id: 'cpOverridden001', name: 'Content Publishing (Profile Overrides)' },
		completed: 'job.completed',
		delivered: 'JOB_READY',
		flow: 'cpTriggerOver',
	},
	// GitHub's per-resource events: `job` with the action in the body (per-resource.ts), read from its document.
	perResource: {
		credential: { id: 'cpPerResource01', name: 'Content Publishing (events per resource)' },
		completed: 'job.completed',
		delivered: 'job',
		flow: 'cpTriggerRes',
		registered: ['job'],
	},
	// JSON:API 1.1 as Lemon Squeezy's API, events per resource as GitHub's (jsonapi-document.ts):
	// its document alone, and docs/service.md's JSON:API overrides with no document.
	jsonapi: {
		credential: { id: 'cpJsonApi000001', name: 'Content Publishing (JSON:API)' },
		completed: 'job.completed',
		delivered: 'job',
		flow: 'cpTriggerJsn',
		registered: ['job'],
	},
	jsonapiUndocumented: {
		credential: { id: 'cpJsonApiNoDoc1', name: 'Content Publishing (JSON:API, no document)' },
		completed: 'job.completed',
		delivered: 'job',
		flow: 'cpTriggerJsnNo',
		registered: ['job'],
	},
} as const;
type OtherService = keyof typeof OTHER_SERVICES;
const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const TRIGGER_WEBHOOK_ID = '7c1e2f4a-0b7d-4c55-9e3a-51c0a5f0e2b1';
const OTHER_TRIGGER_WEBHOOK_IDS = {
	alternate: '2b4d6f80-1a3c-4e5f-8a7b-9c0d1e2f3a4b',
	envelope: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
	undocumented: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
	nested: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
	overridden: '6d7e8f90-a1b2-4c3d-9e4f-5a6b7c8d9e0f',
	perResource: '8e9f0a1b-2c3d-4e5f-9a6b-7c8d9e0f1a2b',
	jsonapi: '1f2e3d4c-5b6a-4978-8a6b-5c4d3e2f1a0b',
	jsonapiUndocumented: '0a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d',
};
/** The credentials' Profile Overrides: docs/service.md's examples. */
const OVERRIDES: Partial<Record<OtherService, string>> = {
	overridden: overrideExamples()[1],
	jsonapiUndocumented: overrideExamples()[2],
};
const FAST_WAIT = { pollInterval: 0.2, maxWaitTime: 60 };
const credentials = { contentPublishingApi: CREDENTIAL };
const execFileAsync = promisify(execFile);

export function describeInN8n(pin: N8nPinName): void {
	jest.setTimeout(180_000);
	describe(`n8n ${pinnedN8n(pin).version} (${pin})`, () => suite(pin));
}

/**
 * One workflow that runs every operation once, each node on the first item of the one before,
 * against the service the credential names; the node names say what each checks.
 */
function everyOperationWorkflow(
	id: string,
	credential: { id: string; name: string },
	completedEvent: string,
): IDataObject {
	const using = { credentials: { contentPublishingApi: credential }, executeOnce: true };
	const wait = { options: FAST_WAIT };
	const first = (name: string) => `$('${name}').first().json`;
	const steps: Array<[string, IDataObject]> = [
		['Account', { resource: 'account', operation: 'get' }],
		['All pages', { resource: 'page', operation: 'getMany', returnAll: true }],
		['Three pages', { resource: 'page', operation: 'getMany', returnAll: false, limit: 3 }],
		[
			'One page',
			{
				resource: 'page',
				operation: 'get',
				pageId: { __rl: true, mode: 'id', value: `={{ ${first('All pages')}.id }}` },
			},
		],
		[
			'Create post',
			{
				resource: 'post',
				operation: 'create',
				content: 'Hello from n8n',
				status: 'draft',
				additionalFields: { title: 'Launch', tags: 'a, b' },
			},
		],
		[
			'Get post',
			{
				resource: 'post',
				operation: 'get',
				postId: { __rl: true, mode: 'id', value: `={{ ${first('Create post')}.id }}` },
			},
		],
		[
			'Update post',
			{
				resource: 'post',
				operation: 'update',
				postId: { __rl: true, mode: 'id', value: `={{ ${first('Create post')}.id }}` },
				updateFields: { title: 'Launch day' },
			},
		],
		[
			'All drafts',
			{ resource: 'post', operation: 'getMany', returnAll: true, filters: { status: 'draft' } },
		],
		[
			'Generate blog',
			{
				resource: 'content',
				operation: 'generateBlog',
				transcript: 'We shipped the editor. It is fast.',
				additionalFields: { length: 'short' },
				...wait,
			},
		],
		[
			'Generate LinkedIn',
			{
				resource: 'content',
				operation: 'generateLinkedin',
				prompt: 'Announce the editor.',
				...wait,
			},
		],
		[
			'Generate thread',
			{
				resource: 'content',
				operation: 'generateTwitter',
				prompt: 'Announce the editor.',
				additionalFields: { threadLength: 4 },
				...wait,
			},
		],
		[
			'Generate carousel',
			{
				resource: 'content',
				operation: 'generateCarousel',
				prompt: 'Announce the editor.',
				additionalFields: { slideCount: 3 },
				...wait,
			},
		],
		[
			'Generate video',
			{
				resource: 'content',
				operation: 'generateVideo',
				prompt: 'Announce the editor.',
				waitForCompletion: false,
			},
		],
		[
			'Get job',
			{
				resource: 'job',
				operation: 'get',
				jobId: `={{ ${first('Generate video')}.id ?? ${first('Generate video')}.jobId }}`,
			},
		],
		[
			'Wait for job',
			{
				resource: 'job',
				operation: 'wait',
				jobId: `={{ ${first('Generate video')}.id ?? ${first('Generate video')}.jobId }}`,
				...wait,
			},
		],
		[
			'Publish post',
			{
				resource: 'publication',
				operation: 'publishLinkedin',
				source: 'post',
				postId: { __rl: true, mode: 'id', value: `={{ ${first('Create post')}.id }}` },
				...wait,
			},
		],
		[
			'Publish text',
			{
				resource: 'publication',
				operation: 'publishTwitter',
				source: 'text',
				text: 'Straight out',
				...wait,
			},
		],
		[
			'Create webhook',
			{
				resource: 'webhook',
				operation: 'create',
				url: 'http://127.0.0.1:9/hook',
				events: [completedEvent],
			},
		],
		[
			'Get webhook',
			{
				resource: 'webhook',
				operation: 'get',
				webhookId: { __rl: true, mode: 'id', value: `={{ ${first('Create webhook')}.id }}` },
			},
		],
		[
			'Update webhook',
			{
				resource: 'webhook',
				operation: 'update',
				webhookId: { __rl: true, mode: 'id', value: `={{ ${first('Create webhook')}.id }}` },
				updateFields: { active: false },
			},
		],
		['All webhooks', { resource: 'webhook', operation: 'getMany', returnAll: true }],
		[
			'Delete webhook',
			{
				resource: 'webhook',
				operation: 'delete',
				webhookId: { __rl: true, mode: 'id', value: `={{ ${first('Create webhook')}.id }}` },
			},
		],
		[
			'Delete post',
			{
				resource: 'post',
				operation: 'delete',
				postId: { __rl: true, mode: 'id', value: `={{ ${first('Create post')}.id }}` },
			},
		],
	];
	return {
		id,
		name: `Every operation (${credential.name})`,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}, [0, 0]),
			...steps.map(([name, parameters], index) =>
				node(
					name,
					'n8n-nodes-content-publishing.contentPublishing',
					parameters,
					[220 * (index + 1), 0],
					using,
				),
			),
		],
		connections: chain('Start', ...steps.map(([name]) => name)),
	};
}

type RunOutput = {
	data: {
		resultData: {
			error?: unknown;
			runData: Record<
				string,
				Array<{ error?: unknown; data: { main: Array<Array<{ json: IDataObject }>> } }>
			>;
		};
	};
};

function suite(pin: N8nPinName): void {
	let service: FakeService;
	let others: Record<OtherService, FakeService>;
	let n8n: N8nInstance;

	async function importWorkflow(workflow: IDataObject): Promise<void> {
		await n8n.cli(['import:workflow', `--input=${workflowFile(n8n.userFolder, workflow)}`]);
	}

	/** Runs a workflow with n8n's CLI and reads the run data it prints (between its own log lines). */
	async function executeWorkflow(id: string): Promise<RunOutput> {
		const output = await n8n.cli(['execute', `--id=${id}`, '--rawOutput']);
		return JSON.parse(firstJsonObject(output)) as RunOutput;
	}

	const until = <T>(probe: () => T | undefined | false, what: string, timeoutMs?: number) =>
		waitUntil(probe, what, () => n8n.log().slice(-4000), timeoutMs);
	const waitUntilAsync = <T>(
		probe: () => Promise<T | undefined | false>,
		what: string,
		timeoutMs?: number,
	) => untilAsync(probe, what, () => n8n.log().slice(-4000), timeoutMs);

	beforeAll(async () => {
		const pinned = await ensureN8nInstalled(pin);
		service = await startFakeService({ apiKey: 'e2e-key-0123456789abcdef' });
		others = {
			alternate: await startFakeService({
				apiKey: 'e2e-key-alternate-0123456789',
				profile: 'alternate',
			}),
			envelope: await startFakeService({
				apiKey: 'e2e-key-envelope-01234567890',
				profile: 'envelope',
			}),
			undocumented: await startFakeService({
				apiKey: 'e2e-key-undocumented-012345',
				openApiDocument: false,
			}),
			nested: await startFakeService({ apiKey: 'e2e-key-nested-0123456789ab', profile: 'nested' }),
			overridden: await startFakeService({
				apiKey: 'e2e-key-overridden-01234567',
				profile: 'alternate',
				openApiDocument: false,
			}),
			perResource: await startFakeService({
				apiKey: 'e2e-key-per-resource-0123456',
				eventsPerResource: true,
			}),
			jsonapi: await startFakeService({
				apiKey: 'e2e-key-jsonapi-012345678901',
				profile: 'jsonapi',
			}),
			jsonapiUndocumented: await startFakeService({
				apiKey: 'e2e-key-jsonapi-nodoc-0123456',
				profile: 'jsonapi',
				openApiDocument: false,
			}),
		};
		n8n = await createN8n(pinned);
		const file = path.join(n8n.userFolder, 'credentials.json');
		const data = { baseUrl: `${service.url}/`, apiKey: service.apiKey };
		writeFileSync(
			file,
			JSON.stringify([
				{ ...CREDENTIAL, type: 'contentPublishingApi', data },
				{ ...EXAMPLES_CREDENTIAL, type: 'contentPublishingApi', data },
				...(Object.keys(others) as OtherService[]).map((name) => ({
					...OTHER_SERVICES[name].credential,
					type: 'contentPublishingApi',
					data: {
						baseUrl: others[name].url,
						apiKey: others[name].apiKey,
						...(OVERRIDES[name] === undefined ? {} : { profileOverrides: OVERRIDES[name] }),
					},
				})),
			]),
		);
		await n8n.cli(['import:credentials', `--input=${file}`]);
	}, 900_000);

	afterAll(async () => {
		await n8n?.stop();
		await service?.close();
		await Promise.all(Object.values(others ?? {}).map((other) => other.close()));
		n8n?.remove();
	});

	describe("the package against this n8n's own n8n-workflow", () => {
		it('finds every value the package imports from n8n-workflow, and loads every node and credential', async () => {
			const { pinned } = n8n;
			const { stdout } = await execFileAsync(
				pinned.node,
				[path.join(__dirname, 'n8n-workflow-imports.js'), installedPackageFolder(n8n.userFolder)],
				{ env: { ...process.env, NODE_PATH: path.join(pinned.folder, 'node_modules') } },
			);
			const report = JSON.parse(stdout) as {
				version: string;
				names: string[];
				missing: string[];
				unrecognised: string[];
				loaded: string[];
			};
			const n8nWorkflow = JSON.parse(
				readFileSync(
					path.join(pinned.folder, 'node_modules', 'n8n-workflow', 'package.json'),
					'utf8',
				),
			) as { version: string };
			expect(report.version).toBe(n8nWorkflow.version);
			expect(report.names).toEqual(
				expect.arrayContaining(['NodeApiError', 'NodeOperationError', 'sleep']),
			);
			expect({ missing: report.missing, unrecognised: report.unrecognised }).toEqual({
				missing: [],
				unrecognised: [],
			});
			expect(report.loaded).toEqual([
				'contentPublishing',
				'contentPublishingTrigger',
				'contentPublishingApi',
			]);
		});

		it("files both nodes under categories this n8n's own nodes use", () => {
			const builtIn = path.join(
				n8n.pinned.folder,
				'node_modules',
				'n8n-nodes-base',
				'dist',
				'nodes',
			);
			const categories = new Set(
				readdirSync(builtIn, { recursive: true, encoding: 'utf8' })
					.filter((file) => file.endsWith('.node.json'))
					.flatMap(
						(file) =>
							(
								JSON.parse(readFileSync(path.join(builtIn, file), 'utf8')) as {
									categories?: string[];
								}
							).categories ?? [],
					),
			);
			for (const codex of [
				'ContentPublishing/ContentPublishing.node.json',
				'ContentPublishingTrigger/ContentPublishingTrigger.node.json',
			]) {
				const { categories: ours } = JSON.parse(
					readFileSync(
						path.join(installedPackageFolder(n8n.userFolder), 'dist', 'nodes', codex),
						'utf8',
					),
				) as { categories: string[] };
				expect({ codex, unknown: ours.filter((category) => !categories.has(category)) }).toEqual({
					codex,
					unknown: [],
				});
			}
		});
	});

	describe('the action node in n8n', () => {
		it('turns a transcript into a blog post, saves it as a draft and publishes it', async () => {
			await importWorkflow({
				id: 'cpTranscriptPost',
				name: 'Transcript to LinkedIn',
				nodes: [
					node('Start', 'n8n-nodes-base.manualTrigger', {}, [0, 0]),
					node(
						'Generate blog post',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'content',
							operation: 'generateBlog',
							transcript: 'We shipped the new editor today. It is faster.',
							options: FAST_WAIT,
						},
						[220, 0],
						{ credentials },
					),
					node(
						'Save draft',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'post',
							operation: 'create',
							content: '={{ $json.result.content }}',
							additionalFields: { title: '={{ $json.result.title }}' },
						},
						[440, 0],
						{ credentials },
					),
					node(
						'Publish to LinkedIn',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'publication',
							operation: 'publishLinkedin',
							source: 'post',
							postId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
							options: FAST_WAIT,
						},
						[660, 0],
						{ credentials },
					),
				],
				connections: chain('Start', 'Generate blog post', 'Save draft', 'Publish to LinkedIn'),
			});

			const run = await executeWorkflow('cpTranscriptPost');
			const outputOf = (name: string) =>
				run.data.resultData.runData[name][0].data.main[0].map((item) => item.json);

			const [blogJob] = outputOf('Generate blog post');
			expect(blogJob).toEqual(
				expect.objectContaining({ type: 'generate.blog', status: 'succeeded' }),
			);
			const [draft] = outputOf('Save draft');
			expect(draft).toEqual(
				expect.objectContaining({
					status: 'draft',
					content: (blogJob.result as IDataObject).content,
					title: (blogJob.result as IDataObject).title,
				}),
			);
			const [publication] = outputOf('Publish to LinkedIn');
			expect(publication).toEqual(
				expect.objectContaining({ type: 'publish.linkedin', status: 'succeeded' }),
			);

			expect(service.requestsTo('generateBlog')[0].body).toEqual({
				transcript: 'We shipped the new editor today. It is faster.',
			});
			expect(service.requestsTo('publishLinkedin')[0].body).toEqual({ post_id: draft.id });
			expect(service.posts.get(draft.id as string)?.status).toBe('published');
			expect(service.requests.filter((request) => request.contractErrors.length > 0)).toEqual([]);
		});
	});

	describe('every operation in n8n, whatever conventions the service follows', () => {
		const cases = () =>
			[
				[service, CREDENTIAL, 'job.completed'],
				[others.alternate, OTHER_SERVICES.alternate.credential, OTHER_SERVICES.alternate.completed],
				[
					others.undocumented,
					OTHER_SERVICES.undocumented.credential,
					OTHER_SERVICES.undocumented.completed,
				],
				[others.envelope, OTHER_SERVICES.envelope.credential, OTHER_SERVICES.envelope.completed],
				[others.nested, OTHER_SERVICES.nested.credential, OTHER_SERVICES.nested.completed],
				[
					others.overridden,
					OTHER_SERVICES.overridden.credential,
					OTHER_SERVICES.overridden.completed,
				],
				[others.jsonapi, OTHER_SERVICES.jsonapi.credential, OTHER_SERVICES.jsonapi.completed],
				[
					others.jsonapiUndocumented,
					OTHER_SERVICES.jsonapiUndocumented.credential,
					OTHER_SERVICES.jsonapiUndocumented.completed,
				],
			] as const;

		it.each([
			['the primary conventions', 0],
			['the alternate conventions, read from its document', 1],
			['a service without a document', 2],
			['the envelope conventions of real APIs, read from its OpenAPI 3.0 document', 3],
			['the nested conventions of real APIs, read from its OpenAPI 3.0 document', 4],
			[
				"the alternate conventions without a document, read by the documentation's Profile Overrides",
				5,
			],
			[
				"the jsonapi conventions (JSON:API 1.1), read from its document and the documentation's Profile Overrides",
				6,
			],
			[
				"the jsonapi conventions (JSON:API 1.1) without a document, read by the documentation's Profile Overrides",
				7,
			],
		])('runs green against %s', async (_name, index) => {
			const [target, credential, completed] = cases()[index];
			const id = `cpEveryOp${index}`;
			await importWorkflow(everyOperationWorkflow(id, credential, completed));
			const before = {
				posts: target.posts.size,
				webhooks: target.webhooks.size,
				jobs: new Set(target.jobs.keys()),
			};

			const run = await executeWorkflow(id);
			expect(run.data.resultData.error).toBeUndefined();
			const outputOf = (name: string) =>
				run.data.resultData.runData[name][0].data.main[0].map((item) => item.json);
			for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
				expect({ name, error: tasks[0].error }).toEqual({ name, error: undefined });
			}
			expect(outputOf('All pages')).toHaveLength(target.pages.size);
			expect(outputOf('Three pages').map((page) => page.id)).toEqual(
				[...target.pages.keys()].slice(0, 3),
			);
			const [created] = outputOf('Create post');
			expect(outputOf('All drafts').map((post) => post.id)).toContain(created.id);
			expect(outputOf('Delete post')).toEqual([
				expect.objectContaining({ id: created.id, deleted: true }),
			]);
			const jobs = [...target.jobs.values()].filter((job) => !before.jobs.has(job.id));
			expect(jobs.map((job) => `${job.type} ${job.status}`).sort()).toEqual(
				[
					'generate.blog',
					'generate.carousel',
					'generate.linkedin',
					'generate.twitter',
					'generate.video',
					'publish.linkedin',
					'publish.twitter',
				]
					.map((type) => `${type} succeeded`)
					.sort(),
			);
			expect(jobs.find((job) => job.type === 'generate.twitter')?.result).toEqual({
				tweets: expect.any(Array),
			});
			expect(
				(jobs.find((job) => job.type === 'generate.twitter')?.result?.tweets as unknown[]).length,
			).toBe(4);
			expect({
				posts: target.posts.size - before.posts,
				webhooks: target.webhooks.size - before.webhooks,
			}).toEqual({ posts: 1, webhooks: 0 });
			expect(target.requests.filter((request) => request.contractErrors.length > 0)).toEqual([]);
		});
	});

	describe('Retry On Fail in n8n', () => {
		it('publishes once, and re-sends a lost answer with the same Idempotency-Key', async () => {
			await importWorkflow({
				id: 'cpRetryOnFail',
				name: 'Publish with Retry On Fail',
				nodes: [
					node('Start', 'n8n-nodes-base.manualTrigger', {}, [0, 0]),
					node(
						'Publish',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'publication',
							operation: 'publishLinkedin',
							source: 'text',
							text: 'Exactly once',
							options: FAST_WAIT,
						},
						[220, 0],
						{ credentials, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
					),
				],
				connections: chain('Start', 'Publish'),
			});
			const publishJobs = () =>
				[...service.jobs.values()].filter((job) => job.type === 'publish.linkedin').length;
			const before = {
				requests: service.requestsTo('publishLinkedin').length,
				jobs: publishJobs(),
			};

			// Nothing fails: before, the job answer's "error": null made n8n run the node three times.
			await n8n.cli(['execute', '--id=cpRetryOnFail', '--rawOutput']);
			expect(service.requestsTo('publishLinkedin').length - before.requests).toBe(1);
			expect(publishJobs() - before.jobs).toBe(1);

			// The answer is lost after the service published: n8n's retry sends the same key.
			service.injectFault({
				match: { method: 'POST', path: '/v1/publish/linkedin' },
				status: 502,
				afterHandling: true,
			});
			const output = await n8n.cli(['execute', '--id=cpRetryOnFail', '--rawOutput']);
			const sent = service.requestsTo('publishLinkedin').slice(before.requests + 1);
			expect(sent.map((request) => request.status)).toEqual([502, 202]);
			expect(sent[1].headers['idempotency-key']).toBe(sent[0].headers['idempotency-key']);
			expect(publishJobs() - before.jobs).toBe(2);
			expect(output).toContain('"status": "succeeded"');
		});
	});

	describe('the example workflows', () => {
		it('all import into n8n', async () => {
			for (const file of readdirSync(EXAMPLES)) {
				await expect(
					n8n.cli(['import:workflow', `--input=${path.join(EXAMPLES, file)}`]),
				).resolves.toEqual(expect.any(String));
			}
			const listed = await n8n.cli(['list:workflow']);
			for (const file of readdirSync(EXAMPLES)) {
				const { id } = JSON.parse(readFileSync(path.join(EXAMPLES, file), 'utf8')) as {
					id: string;
				};
				expect(listed).toContain(id);
			}
		});

		it.each([
			['cpExTranscript', 'Publish to LinkedIn', 'publish.linkedin'],
			['cpExThread', 'Publish to Twitter', 'publish.twitter'],
		])('%s runs green against the fake service', async (id, lastNode, jobType) => {
			const run = await executeWorkflow(id);
			expect(run.data.resultData.error).toBeUndefined();
			for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
				expect({ name, error: tasks[0].error }).toEqual({ name, error: undefined });
			}
			expect(run.data.resultData.runData[lastNode][0].data.main[0][0].json).toEqual(
				expect.objectContaining({ type: jobType, status: 'succeeded' }),
			);
		});
	});

	describe('the trigger in a running n8n', () => {
		let rest: N8nRestClient;
		const productionUrl = () => `${n8n.url}/webhook/${TRIGGER_WEBHOOK_ID}/webhook`;
		const recorded = () =>
			service
				.requestsTo('createPost')
				.map((request) => (request.body as IDataObject).content as string);

		beforeAll(async () => {
			await importWorkflow({
				id: 'cpTriggerFlow',
				name: 'When a job completes',
				nodes: [
					node(
						'Content Publishing Trigger',
						'n8n-nodes-content-publishing.contentPublishingTrigger',
						{ events: ['job.completed'] },
						[0, 0],
						{ credentials, webhookId: TRIGGER_WEBHOOK_ID },
					),
					node(
						'Record the event',
						'n8n-nodes-content-publishing.contentPublishing',
						{
							resource: 'post',
							operation: 'create',
							content:
								"={{ 'event ' + $json.event + ' for ' + $json.job.id + ' kind ' + $json.job.type }}",
						},
						[220, 0],
						{ credentials },
					),
				],
				connections: chain('Content Publishing Trigger', 'Record the event'),
			});
			await n8n.activate('cpTriggerFlow');
			for (const name of Object.keys(OTHER_SERVICES) as OtherService[]) {
				const { credential, completed, flow } = OTHER_SERVICES[name];
				const using = { credentials: { contentPublishingApi: credential } };
				await importWorkflow({
					id: flow,
					name: `When a job completes (${credential.name})`,
					nodes: [
						node(
							'Content Publishing Trigger',
							'n8n-nodes-content-publishing.contentPublishingTrigger',
							{ events: [completed] },
							[0, 0],
							{
								...using,
								webhookId: OTHER_TRIGGER_WEBHOOK_IDS[name],
							},
						),
						node(
							'Record the event',
							'n8n-nodes-content-publishing.contentPublishing',
							{
								resource: 'post',
								operation: 'create',
								content:
									"={{ 'event ' + $json.event + ' for ' + ($json.job.id ?? $json.job.jobId) }}",
							},
							[220, 0],
							using,
						),
					],
					connections: chain('Content Publishing Trigger', 'Record the event'),
				});
				await n8n.activate(flow);
				others[name].jobMode = 'manual';
			}
			service.jobMode = 'manual';
			service.requests.length = 0;
			await n8n.start();
			rest = new N8nRestClient(n8n.url);
			await rest.setUpOwner('owner@example.com', 'Password123!');
			// Two n8n commands (import, activate) per service, each a process of its own: minutes on a busy machine.
		}, 900_000);

		it('registers exactly one webhook, with the production URL, on activation', async () => {
			// Once the activation has ended, a second registration could only come from an activation
			// that failed, tried again.
			await untilActivated(rest, 'cpTriggerFlow', 'Content Publishing Trigger', () =>
				n8n.log().slice(-4000),
			);
			const [webhook] = await until(
				() => service.webhooks.size > 0 && [...service.webhooks.values()],
				'the webhook registration',
			);
			expect(service.webhooks.size).toBe(1);
			expect(service.requestsTo('createWebhook')).toHaveLength(1);
			expect(webhook).toEqual(
				expect.objectContaining({ url: productionUrl(), events: ['job.completed'], active: true }),
			);
		});

		it('runs the workflow with the event when a job finishes', async () => {
			const job = service.startJob('generate.video', { prompt: 'Launch video' });
			await service.finishJob(job.id, 'succeeded');
			expect(service.deliveries.filter((delivery) => delivery.delivered)).toHaveLength(1);
			const [content] = await until(
				() => recorded().length > 0 && recorded(),
				'the workflow execution',
			);
			expect(content).toBe(`event job.completed for ${job.id} kind generate.video`);
		});

		it('answers 401 to a forged delivery and starts nothing', async () => {
			const before = recorded().length;
			const body = JSON.stringify({
				id: 'evt_forged',
				type: 'job.completed',
				created_at: new Date().toISOString(),
				data: { job: { id: 'job_forged', status: 'succeeded', type: 'generate.blog' } },
			});
			const timestamp = String(Math.floor(Date.now() / 1000));
			for (const signature of [
				signWebhookPayload('not-the-secret-at-all', timestamp, body),
				'',
				'sha256=00',
			]) {
				const response = await fetch(productionUrl(), {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'x-content-publishing-timestamp': timestamp,
						'x-content-publishing-signature': signature,
					},
					body,
				});
				expect(response.status).toBe(401);
			}
			// A genuine delivery after the forged ones is the marker that n8n handled them all.
			const job = service.startJob('generate.blog', { transcript: 'x' });
			await service.finishJob(job.id, 'succeeded');
			await until(() => recorded().length === before + 1, 'the genuine delivery');
			expect(recorded().slice(before)).toEqual([
				`event job.completed for ${job.id} kind generate.blog`,
			]);
		});

		it.each(Object.keys(OTHER_SERVICES) as OtherService[])(
			'registers, runs on a signed delivery and refuses a forged one on the %s service',
			async (name) => {
				const other = others[name];
				const url = `${n8n.url}/webhook/${OTHER_TRIGGER_WEBHOOK_IDS[name]}/webhook`;
				const [webhook] = await until(
					() => other.webhooks.size > 0 && [...other.webhooks.values()],
					'the webhook registration',
				);
				const entry = OTHER_SERVICES[name];
				expect(webhook).toEqual(
					expect.objectContaining({
						url,
						events: 'registered' in entry ? entry.registered : ['job.completed'],
						active: true,
					}),
				);

				const recordedHere = () =>
					[...other.posts.values()]
						.map((post) => post.content)
						.filter((content) => content.startsWith('event '));
				const job = other.startJob('generate.video', { prompt: 'Launch video' });
				await other.finishJob(job.id, 'succeeded');
				const [content] = await until(
					() => recordedHere().length > 0 && recordedHere(),
					'the workflow execution',
				);
				expect(content).toBe(`event ${OTHER_SERVICES[name].delivered} for ${job.id}`);

				const [genuine] = other.deliveries;
				expect(genuine.delivered).toBe(true);
				const forged = await fetch(url, {
					method: 'POST',
					headers: genuine.headers,
					body: genuine.body.replace(job.id, 'job_forged'),
				});
				expect(forged.status).toBe(401);
				const wrongSecret = other.signDelivery('not-the-secret-at-all', genuine.body);
				expect(
					(
						await fetch(url, {
							method: 'POST',
							headers: { 'content-type': 'application/json', ...wrongSecret },
							body: genuine.body,
						})
					).status,
				).toBe(401);
			},
		);

		it('deletes the webhook when the workflow is deactivated', async () => {
			await rest.call('POST', '/workflows/cpTriggerFlow/deactivate', {});
			await until(() => service.webhooks.size === 0, 'the webhook deletion');
			expect(service.requestsTo('deleteWebhook')).toHaveLength(1);
		});

		it('leaves no webhook behind after ten activate/deactivate cycles', async () => {
			for (let cycle = 0; cycle < 10; cycle++) {
				const workflow = await rest.call('GET', '/workflows/cpTriggerFlow');
				await rest.call('POST', '/workflows/cpTriggerFlow/activate', {
					versionId: workflow.versionId,
				});
				// Newer n8n versions answer before the trigger has registered; either way there is one.
				await until(
					() => service.webhooks.size === 1,
					`the webhook of activation ${cycle + 1}`,
					20_000,
				);
				await rest.call('POST', '/workflows/cpTriggerFlow/deactivate', {});
				await until(
					() => service.webhooks.size === 0,
					`the webhook deletion of deactivation ${cycle + 1}`,
					20_000,
				);
			}
			expect(service.requestsTo('createWebhook')).toHaveLength(11);
			expect(service.requestsTo('deleteWebhook')).toHaveLength(11);
		});

		it('serves the output schemas the editor previews before a run, for every operation and the trigger', async () => {
			const schemas = path.resolve(
				__dirname,
				'..',
				'..',
				'dist',
				'nodes',
				'ContentPublishing',
				'__schema__',
				SCHEMA_VERSION,
			);
			for (const [resource, operations] of Object.entries(OPERATION_OUTPUTS)) {
				for (const operation of Object.keys(operations)) {
					// The editor's address: the node type, its version padded to three parts, resource, operation.
					const response = await fetch(
						`${n8n.url}/schemas/n8n-nodes-content-publishing.contentPublishing/1.0.0/${resource}/${operation}.json`,
					);
					expect({ resource, operation, status: response.status }).toEqual({
						resource,
						operation,
						status: 200,
					});
					expect(await response.json()).toEqual(
						JSON.parse(readFileSync(path.join(schemas, resource, `${operation}.json`), 'utf8')),
					);
				}
			}
			const trigger = await fetch(
				`${n8n.url}/schemas/n8n-nodes-content-publishing.contentPublishingTrigger/1.0.0.json`,
			);
			expect(trigger.status).toBe(200);
			expect(await trigger.json()).toEqual(
				JSON.parse(
					readFileSync(
						path.resolve(
							schemas,
							'..',
							'..',
							'..',
							'ContentPublishingTrigger',
							'__schema__',
							`${SCHEMA_VERSION}.json`,
						),
						'utf8',
					),
				),
			);
		});

		it("tests the credential through n8n's own endpoint", async () => {
			const test = async (data: IDataObject) =>
				await rest.call('POST', '/credentials/test', {
					credentials: { ...CREDENTIAL, type: 'contentPublishingApi', data },
				});

			await expect(
				test({ baseUrl: service.url, apiKey: service.apiKey, profileOverrides: '' }),
			).resolves.toEqual(expect.objectContaining({ status: 'OK' }));
			await expect(test({ baseUrl: service.url, apiKey: 'wrong-key' })).resolves.toEqual(
				expect.objectContaining({ status: 'Error' }),
			);
			await expect(
				test({
					baseUrl: service.url,
					apiKey: service.apiKey,
					profileOverrides: '{"operations": {"updatePost": {"method": "FETCH"}}}',
				}),
			).resolves.toEqual({
				status: 'Error',
				message: expect.stringMatching(/^Profile Overrides: \/operations\/updatePost\/method: /),
			});
			service.injectFault({ nonJsonBody: true });
			await expect(test({ baseUrl: service.url, apiKey: service.apiKey })).resolves.toEqual({
				status: 'Error',
				message: expect.stringMatching(/^Base URL: .*instead of JSON/),
			});
		});
	});

	describe("waiting for the service's event in a running n8n", () => {
		const WAIT_WEBHOOK_ID = '3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e1a';
		let rest: N8nRestClient;
		let lateExecution = '';
		let late: { id: string; url: string } | undefined;
		// Where the service's requests stood when the last execution of the node before the late batch's sweep ended.
		let quietFrom = 0;

		const start = async (body: IDataObject) => {
			const response = await fetch(`${n8n.url}/webhook/event-wait`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
			expect(response.status).toBe(200);
		};
		const recorded = (batch: string) =>
			[...service.posts.values()]
				.map((post) => post.content)
				.filter((content) => content.startsWith(`${batch} item `))
				.sort();
		const registrations = () =>
			[...service.webhooks.values()].filter((webhook) => webhook.url.includes('/webhook-waiting/'));
		const executionOf = (url: string) => new URL(url).pathname.split('/').at(-2) as string;
		/** Starts a batch; resolves with its registration and its jobs, once all have started. */
		const startBatch = async (batch: string, count: number, maxWait?: number) => {
			const [registered, started] = [
				new Set(service.webhooks.keys()),
				new Set(service.jobs.keys()),
			];
			await start(eventWaitBatch(batch, count, maxWait));
			const registration = await until(
				() => registrations().find((webhook) => !registered.has(webhook.id)),
				`the registration of ${batch}`,
			);
			const jobs = await until(() => {
				const since = [...service.jobs.values()].filter((job) => !started.has(job.id));
				return since.length === count && since;
			}, `the jobs of ${batch}`);
			return { registration, jobs, executionId: executionOf(registration.url) };
		};
		const statusOf = async (executionId: string) =>
			(await rest.call('GET', `/executions/${executionId}`)).status;
		const running = async () => {
			const page = await rest.call(
				'GET',
				`/executions?filter=${encodeURIComponent(JSON.stringify({ status: ['running'] }))}`,
			);
			return (page.results as unknown[]).length;
		};

		beforeAll(async () => {
			// Restarted with the workflow active, so that its Webhook node listens.
			await n8n.stop();
			await importWorkflow(
				eventWaitWorkflow('cpEventWait', 'event-wait', WAIT_WEBHOOK_ID, { credentials }),
			);
			await n8n.activate('cpEventWait');
			service.jobMode = 'manual';
			await n8n.start();
			rest = new N8nRestClient(n8n.url);
			if (await rest.needsOwner()) await rest.setUpOwner('owner@example.com', 'Password123!');
			else await rest.login('owner@example.com', 'Password123!');
			// Newer versions activate after the ready line: the Webhook node answers once they have.
			await waitUntilAsync(
				async () =>
					(
						await fetch(`${n8n.url}/webhook/event-wait`, {
							method: 'POST',
							body: '{}',
							headers: { 'content-type': 'application/json' },
						})
					).status !== 404,
				'the Webhook node',
			);
		}, 240_000);

		it('sleeps while 8 video jobs run, with nothing running, and resumes every item with its own job', async () => {
			// Started first: its Maximum Wait Time ends meanwhile; the last test checks what n8n did. It
			// is 8 s so that the node's own call 2 s into the wait comes before it on a loaded machine:
			// a call after it would rightly end the items as timed out instead of leaving them to n8n.
			const lateBatch = await startBatch('late', 2, 8);
			({ executionId: lateExecution, registration: late } = lateBatch);
			const lateReads = () =>
				service.requests.filter((request) =>
					lateBatch.jobs.some((job) => request.path === `/v1/jobs/${job.id}`),
				).length;

			const { registration, jobs, executionId } = await startBatch('eight', 8);
			expect(
				registration.url.startsWith(`${n8n.url}/webhook-waiting/${executionId}/generate-video`),
			).toBe(true);
			expect(registration.events).toEqual(['job.completed', 'job.failed']);
			// From n8n 2.14 the resume address carries the execution's token, and n8n refuses a call without it.
			expect(new URL(registration.url).searchParams.has('signature')).toBe(pin === 'newest');
			await waitUntilAsync(
				async () => (await statusOf(executionId)) === 'waiting',
				'the waiting state',
			);
			expect(await running()).toBe(0);

			// Forged calls: a made-up event reads the jobs once and resumes nothing; an address without
			// the wait's sealed state, or with another execution's in it, is refused.
			const forged = await fetch(registration.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					id: 'evt_forged',
					type: 'job.completed',
					data: { job: { id: jobs[0].id, status: 'succeeded' } },
				}),
			});
			expect(forged.status).toBe(200);
			expect(await forged.json()).toEqual({ received: true, waiting: true });
			const address = new URL(registration.url);
			expect(jobs.filter((job) => registration.url.includes(job.id))).toEqual([]);
			const moved = new URL(address.toString());
			for (const param of ['cp_wait', 'cp_until', 'cp_run'])
				moved.searchParams.set(
					param,
					new URL(lateBatch.registration.url).searchParams.get(param) as string,
				);
			for (const url of [`${address.origin}${address.pathname}`, moved.toString()]) {
				expect(
					(
						await fetch(url, {
							method: 'POST',
							headers: { 'content-type': 'application/json' },
							body: '{}',
						})
					).status,
				).toBe(401);
			}
			expect(await statusOf(executionId)).toBe('waiting');

			const order = [3, 0, 7, 5, 1, 6, 2, 4];
			// The late batch gets these events too, once its Maximum Wait Time has passed; signed, about
			// jobs not its own, they cost it no read and resume nothing. Its address carries the
			// deadline in clear, in Unix seconds.
			const lateUntil = Number(new URL(lateBatch.registration.url).searchParams.get('cp_until'));
			await waitUntilAsync(
				async () => Date.now() / 1000 > lateUntil,
				"the late batch's Maximum Wait Time",
			);
			const lateReadsBefore = lateReads();
			for (const [step, index] of order.entries()) {
				await service.finishJob(jobs[index].id, 'succeeded');
				if (step < order.length - 1) expect(await statusOf(executionId)).toBe('waiting');
			}
			const lateAnswers = service.deliveries
				.filter((delivery) => delivery.url.includes(`/webhook-waiting/${lateExecution}/`))
				.map((delivery) => delivery.lastStatus);
			expect(lateAnswers).toHaveLength(8);
			// n8n resumes the late batch at its own check, once a minute, which may come while these
			// events arrive: from then on n8n answers them itself. Until then the node answers each.
			if ((await statusOf(lateExecution)) === 'waiting')
				expect(lateAnswers).toEqual(Array(8).fill(200));
			expect(lateReads()).toBe(lateReadsBefore);
			await until(() => recorded('eight').length === 8, 'the resumed execution');
			expect(recorded('eight')).toEqual(
				jobs
					.map((job) => {
						const seconds = (job.result as { duration_seconds: number }).duration_seconds;
						return `eight item ${seconds - 10}: video ${job.id} ${seconds}`;
					})
					.sort(),
			);
			expect(await statusOf(executionId)).toBe('success');
			// The late batch's may be there still: the last test waits for it.
			expect(
				registrations().filter((webhook) => executionOf(webhook.url) !== lateExecution),
			).toEqual([]);
		});

		it('makes a failed job an error item', async () => {
			const {
				jobs: [broken, fine],
			} = await startBatch('fails', 2);
			await service.finishJob(broken.id, 'failed', {
				code: 'render_failed',
				message: 'The renderer ran out of frames',
			});
			await service.finishJob(fine.id, 'succeeded');
			await until(() => recorded('fails').length === 2, 'the resumed execution');
			const seconds = (fine.result as { duration_seconds: number }).duration_seconds;
			expect(recorded('fails')).toEqual(
				[
					`fails item ${seconds - 10}: video ${fine.id} ${seconds}`,
					`fails item ${11 - seconds}: error Job ${broken.id} failed: The renderer ran out of frames`,
				].sort(),
			);
			quietFrom = service.requests.length;
		});

		it('at Maximum Wait Time lets n8n resume with the input items, and the process that made the wait removes what it left 2 minutes later', async () => {
			// n8n looks for waits past their time once a minute.
			await until(
				() => recorded('late').length === 2,
				'n8n to resume the timed-out execution',
				150_000,
			);
			expect(recorded('late')).toEqual([
				'late item 0: passed through late video 0',
				'late item 1: passed through late video 1',
			]);
			// The process that made the wait sweeps what it left, while no other wait runs.
			if (late === undefined) throw new Error('The first test did not start the late batch');
			const { id } = late;
			await until(
				() => !service.webhooks.has(id),
				'the sweep of the late batch',
				sweepTimeLeft(late.url),
			);
			expect(
				service.requests
					.slice(quietFrom)
					.filter((request) => request.method === 'DELETE')
					.map((request) => request.path),
			).toEqual([`/v1/webhooks/${id}`]);
			expect(registrations()).toEqual([]);

			const {
				registration,
				jobs: [job],
			} = await startBatch('after', 1);
			expect(registrations()).toEqual([registration]);
			await service.finishJob(job.id, 'succeeded');
			await until(() => recorded('after').length === 1, 'the resumed execution');
			expect(registrations()).toEqual([]);
		}, 330_000);
	});
}
