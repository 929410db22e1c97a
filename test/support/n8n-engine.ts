/**
 * Runs workflow definitions through n8n's real execution engine (n8n-core's WorkflowExecute),
 * with the package loaded from dist/ the way n8n loads a community package, and credentials
 * authenticated the way n8n's credentials helper does it.
 */
import { Container } from '@n8n/di';
import {
	BinaryDataService,
	ExecuteContext,
	ExecutionLifecycleHooks,
	FileLocation,
	HookContext,
	LoadOptionsContext,
	RoutingNode,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	IBinaryData,
	IDataObject,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeListSearchResult,
	INodePropertyOptions,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	createDeferredPromise,
	createRunExecutionData,
} from 'n8n-workflow';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = 'n8n-nodes-content-publishing';
export const NODE_TYPE = `${PACKAGE_NAME}.contentPublishing`;
export const TRIGGER_TYPE = `${PACKAGE_NAME}.contentPublishingTrigger`;
const CREDENTIAL_TYPE = 'contentPublishingApi';

interface PackageJson {
	n8n: { nodes: string[]; credentials: string[] };
}

// Loads the built package the way n8n does, by the paths its package.json declares.
const loadFromPackage = createRequire(path.join(ROOT, 'package.json'));

/** An instance of the class each path exports under the name its file starts with. */
function instancesOf<T>(relativePaths: string[]): T[] {
	return relativePaths.map((relativePath) => {
		const exported = loadFromPackage(path.join(ROOT, relativePath)) as Record<string, new () => T>;
		return new exported[path.basename(relativePath).split('.')[0]]();
	});
}

/** The package as n8n sees it: the classes its package.json names under `n8n`, built in dist/. */
export function loadPackage(): {
	nodeTypes: Map<string, INodeType>;
	credentialTypes: Map<string, ICredentialType>;
} {
	const { n8n } = loadFromPackage('./package.json') as PackageJson;
	return {
		nodeTypes: new Map(
			instancesOf<INodeType>(n8n.nodes).map((type) => [
				`${PACKAGE_NAME}.${type.description.name}`,
				type,
			]),
		),
		credentialTypes: new Map(
			instancesOf<ICredentialType>(n8n.credentials).map((type) => [type.name, type]),
		),
	};
}

const loaded = loadPackage();

/**
 * Stops the services n8n's engine starts on first use, as n8n does on shutdown; their interval
 * timers would otherwise keep the test process alive.
 */
export function shutDownEngine(): void {
	const { SSHClientsManager } = loadFromPackage(
		'n8n-core/dist/execution-engine/ssh-clients-manager',
	) as {
		SSHClientsManager: new () => { onShutdown(): void };
	};
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
}

export const nodeTypes: INodeTypes = {
	getByName(name: string): INodeType | IVersionedNodeType {
		const type = loaded.nodeTypes.get(name);
		if (!type) throw new Error(`Unknown node type ${name}`);
		return type;
	},
	getByNameAndVersion(name: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(name), version);
	},
	getKnownTypes() {
		return {};
	},
};

/** n8n's credentials helper, reduced to what a node execution uses, with the same generic auth. */
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: TestCredentials) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = loaded.credentialTypes.get(typeName)?.authenticate;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type !== 'generic') return requestOptions;
		for (const [target, entries] of Object.entries(authenticate.properties)) {
			const bag = ((requestOptions as unknown as Record<string, Record<string, unknown>>)[
				target
			] ??= {});
			for (const [key, value] of Object.entries(entries as Record<string, string>)) {
				bag[key] = String(
					workflow.expression.getSimpleParameterValue(
						node,
						value,
						'internal',
						{ $credentials: credentials },
						undefined,
						'',
					),
				);
			}
		}
		return requestOptions;
	}

	async preAuthentication() {
		return undefined;
	}

	getCredentialsProperties(type: string) {
		return loaded.credentialTypes.get(type)?.properties ?? [];
	}

	/** The node's one credential, whichever it asks for. */
	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.credentials };
	}

	async getCredentials(): Promise<never> {
		throw new Error('Not used by the node');
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}
}

/** lodash's `get`, which n8n applies to a credential test's answer: it reads properties of strings too. */
function readPath(value: unknown, dottedPath: string): unknown {
	return dottedPath
		.split('.')
		.reduce<unknown>(
			(current, key) =>
				current === null || current === undefined
					? undefined
					: (current as Record<string, unknown>)[key],
			value,
		);
}

/**
 * Installs n8n's binary data service. 'filesystem' stores binaries on disk and passes ids
 * between nodes, as a production n8n does; 'default' keeps them inline in the items.
 */
export async function useBinaryDataMode(mode: 'default' | 'filesystem'): Promise<void> {
	const config = {
		mode,
		availableModes: ['default', 'filesystem'],
		localStoragePath: mkdtempSync(path.join(tmpdir(), 'cp-binary-')),
		signingSecret: 'test-signing-secret',
		dbMaxFileSize: 512,
	};
	const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };
	const errorReporter = { error() {}, warn() {}, info() {} };
	const service = new BinaryDataService(
		config as never,
		errorReporter as never,
		quietLogger as never,
	);
	if (mode === 'filesystem') await service.init();
	Container.set(BinaryDataService, service);
}

/** A file as a previous node would hand it on, stored by the active binary data mode. */
export async function binaryFile(
	content: string | Buffer,
	fileName: string,
	mimeType: string,
): Promise<IBinaryData> {
	const fileExtension = fileName.split('.').pop();
	return await Container.get(BinaryDataService).store(
		FileLocation.ofExecution('test-workflow', 'test-execution'),
		typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
		{ data: '', mimeType, fileName, fileExtension },
	);
}

/** The bytes of a file in an item, wherever the active binary data mode keeps them. */
export async function binaryContent(file: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(file);
}

export interface TestCredentials {
	baseUrl: string;
	apiKey: string;
	/** The credential's Profile Overrides, as typed into it. */
	profileOverrides?: string;
}

export function additionalDataFor(
	credentials: TestCredentials,
	hooks?: ExecutionLifecycleHooks,
	executionId?: string,
	webhookWaitingBaseUrl = 'http://127.0.0.1:5678/webhook-waiting',
): IWorkflowExecuteAdditionalData {
	return {
		executionId,
		credentialsHelper: new TestCredentialsHelper(credentials),
		hooks,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl,
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not part of these tests');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Code runners are not part of these tests');
		},
		currentNodeExecutionIndex: 0,
	} as unknown as IWorkflowExecuteAdditionalData;
}

export function contentPublishingNode(
	parameters: INode['parameters'],
	overrides: Partial<INode> = {},
): INode {
	return {
		id: overrides.id ?? 'content-publishing-node',
		name: overrides.name ?? 'Content Publishing',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Content Publishing account' } },
		...overrides,
	};
}

export interface RunResult {
	run: IRun;
	/** Output items of the node, on its first output. */
	items: INodeExecutionData[];
	/** The error the execution stopped with, if any. */
	error?: Error & { description?: string; httpCode?: string; context?: Record<string, unknown> };
}

export interface RunOptions {
	credentials: TestCredentials;
	input?: INodeExecutionData[];
	/** Called once the execution runs, with a function that cancels it. */
	onStarted?: (cancel: () => void) => void;
	mode?: WorkflowExecuteMode;
	/** Default: a new one for every run, as n8n gives every execution its own. */
	executionId?: string;
	/** The workflow's time zone (Workflow Settings); default n8n's. */
	timezone?: string;
	/** Other workflow settings. */
	settings?: IDataObject;
}

/** The workflow a test runs one node in (a waiting execution is resumed in the same one). */
export function oneNodeWorkflow(node: INode, settings: IDataObject = {}): Workflow {
	return new Workflow({ ...workflowData(node, settings), nodeTypes });
}

const workflowData = (node: INode, settings: IDataObject = {}) => ({
	id: 'test-workflow',
	name: 'Test workflow',
	nodes: [node],
	connections: {},
	active: false,
	settings,
});

/** The execution data that starts `node` with these input items. */
export function startingData(node: INode, input: INodeExecutionData[] = [{ json: {} }]) {
	return createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node, data: { main: [input] }, source: null }] },
	});
}

/**
 * Runs a one-node workflow from `data` in n8n's WorkflowExecute until it ends or waits; resolves
 * to the run as n8n's `workflowExecuteAfter` hook has it.
 */
export async function execute(
	node: INode,
	data: IRunExecutionData,
	options: RunOptions & { executionId: string; webhookWaitingBaseUrl?: string },
): Promise<IRun> {
	const mode = options.mode ?? 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, options.executionId, workflowData(node) as never);
	const finished = createDeferredPromise<IRun>();
	hooks.addHandler('workflowExecuteAfter', (run) => finished.resolve(run));
	const additionalData = additionalDataFor(
		options.credentials,
		hooks,
		options.executionId,
		options.webhookWaitingBaseUrl,
	);
	const workflow = oneNodeWorkflow(node, {
		...options.settings,
		...(options.timezone ? { timezone: options.timezone } : {}),
	});
	const running = new WorkflowExecute(additionalData, mode, data).processRunExecutionData(workflow);
	options.onStarted?.(() => running.cancel());
	try {
		await running;
	} catch {
		// A cancelled or failed run rejects here; its data still arrives through the hook.
	}
	return await finished.promise;
}

/** The node's last run in an execution: its output items and the error it stopped with. */
export function resultOf(run: IRun, nodeName: string): RunResult {
	const taskData = run.data.resultData.runData[nodeName]?.at(-1);
	return {
		run,
		items: taskData?.data?.main?.[0] ?? [],
		error: (taskData?.error ?? run.data.resultData.error) as RunResult['error'],
	};
}

/** Executes a one-node workflow, starting the node with the given input items. */
export async function runNode(node: INode, options: RunOptions): Promise<RunResult> {
	const executionId = options.executionId ?? `test-execution-${randomUUID()}`;
	const run = await execute(node, startingData(node, options.input), { ...options, executionId });
	return resultOf(run, node.name);
}

/** What the editor calls a node's methods with: n8n's LoadOptionsContext, for one parameter. */
function editorContext(node: INode, credentials: TestCredentials, parameterPath: string) {
	const workflow = oneNodeWorkflow(node);
	return new LoadOptionsContext(workflow, node, additionalDataFor(credentials), parameterPath);
}

/** Calls a list-search method the way the editor does. */
export async function listSearch(
	node: INode,
	method: string,
	credentials: TestCredentials,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const search = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).methods?.listSearch?.[
		method
	];
	if (!search) throw new Error(`No list search ${method}`);
	return await search.call(
		editorContext(node, credentials, 'parameters.pageId'),
		filter,
		paginationToken,
	);
}

/** Calls a load-options method the way the editor does. */
export async function loadOptions(
	node: INode,
	method: string,
	credentials: TestCredentials,
): Promise<INodePropertyOptions[]> {
	const load = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).methods?.loadOptions?.[
		method
	];
	if (!load) throw new Error(`No load-options method ${method}`);
	return await load.call(editorContext(node, credentials, 'parameters.events'));
}

/**
 * Runs the credential's declarative test the way n8n's CredentialsTester does: through
 * RoutingNode (the credential's `authenticate` included), then the test's rules on the answer; a
 * failure as the error's status text, else its cause's code, else its message.
 */
export async function testCredential(
	credentials: TestCredentials,
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const credentialType = loaded.credentialTypes.get(CREDENTIAL_TYPE)!;
	const test = credentialType.test as ICredentialTestRequest;
	const probeType: INodeType = {
		description: {
			displayName: 'Credential test',
			name: 'credentialTest',
			group: [],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const probeNode: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'test' } },
	};
	const probeTypes: INodeTypes = {
		getByName: () => probeType,
		getByNameAndVersion: () => probeType,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		nodes: [probeNode],
		connections: {},
		active: false,
		nodeTypes: probeTypes,
	});
	const executeData: IExecuteData = { node: probeNode, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		probeNode,
		additionalDataFor(credentials),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const decrypted = { id: 'cred-1', name: 'test', type: CREDENTIAL_TYPE, data: { ...credentials } };
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await new RoutingNode(context, probeType, decrypted as never).runNode();
	} catch (error) {
		const { cause } = error as {
			cause?: { response?: { status: number; statusText: string }; code?: string };
		};
		const status = cause?.response;
		if (status)
			return {
				status: 'Error',
				message: status.statusText || `Received HTTP status code: ${status.status}`,
			};
		if (cause?.code) return { status: 'Error', message: cause.code };
		return { status: 'Error', message: (error as Error).message };
	}
	for (const rule of test.rules ?? []) {
		if (
			rule.type === 'responseSuccessBody' &&
			readPath(response?.[0]?.[0]?.json, rule.properties.key) === rule.properties.value
		) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

const N8N_BASE_URL = 'http://127.0.0.1:5678';

export function triggerNode(parameters: INode['parameters']): INode {
	return {
		id: 'trigger-node',
		name: 'Content Publishing Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		webhookId: 'd7c0e6f2-4b1a-4c3e-9a55-0f6b2e1c9a10',
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Content Publishing account' } },
	};
}

/** A workflow holding the trigger; its static data lives as long as the object, as in n8n. */
export function triggerWorkflow(node: INode): Workflow {
	return new Workflow({
		id: 'trigger-workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: {},
	});
}

function webhookDataFor(
	workflow: Workflow,
	node: INode,
	additionalData: IWorkflowExecuteAdditionalData,
	isTest: boolean,
): IWebhookData {
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	return {
		httpMethod: 'POST',
		node: node.name,
		path: 'webhook',
		webhookDescription: nodeType.description.webhooks![0],
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
		isTest,
	};
}

/** Calls one of the trigger's webhook lifecycle methods the way n8n does on (de)activation. */
export async function runWebhookMethod(
	workflow: Workflow,
	node: INode,
	credentials: TestCredentials,
	method: 'checkExists' | 'create' | 'delete',
	{ isTest = false } = {},
): Promise<boolean> {
	const additionalData = additionalDataFor(credentials);
	const context = new HookContext(
		workflow,
		node,
		additionalData,
		isTest ? 'manual' : 'trigger',
		isTest ? 'manual' : 'activate',
		webhookDataFor(workflow, node, additionalData, isTest),
	);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	return await nodeType.webhookMethods!.default![method].call(context);
}

export function webhookUrl(node: INode, { isTest = false } = {}): string {
	return `${N8N_BASE_URL}/${isTest ? 'webhook-test' : 'webhook'}/${node.webhookId}/webhook`;
}

interface DeliveryResult {
	status: number;
	/** Headers the node set on its own answer, by lower-case name. */
	headers: Record<string, string>;
	body: unknown;
	response: IWebhookResponseData;
}

/** Hands one HTTP delivery to the trigger's webhook method through n8n's WebhookContext. */
export async function deliver(
	workflow: Workflow,
	node: INode,
	credentials: TestCredentials,
	request: { headers: Record<string, string>; rawBody: string },
): Promise<DeliveryResult> {
	const additionalData = additionalDataFor(credentials);
	const answer = { headers: {} as Record<string, string>, body: undefined as unknown };
	const recorder = {
		statusCode: 200,
		headersSent: false,
		setHeader: (name: string, value: string) => (answer.headers[name.toLowerCase()] = value),
		end: () => undefined,
	};
	const headers = Object.fromEntries(
		Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
	);
	additionalData.httpRequest = {
		headers,
		// As n8n's body parser reads it: a form's parameters, JSON, or other text as it is.
		body: /x-www-form-urlencoded/.test(headers['content-type'] ?? '')
			? Object.fromEntries(new URLSearchParams(request.rawBody))
			: /json/.test(headers['content-type'] ?? 'json')
				? JSON.parse(request.rawBody)
				: request.rawBody,
		rawBody: Buffer.from(request.rawBody),
		query: {},
		params: {},
	} as never;
	additionalData.httpResponse = expressResponse(recorder, (body) => (answer.body = body)) as never;
	const context = new WebhookContext(
		workflow,
		node,
		additionalData,
		'webhook',
		webhookDataFor(workflow, node, additionalData, false),
		[],
		null,
	);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const response = await nodeType.webhook!.call(context);
	return { status: recorder.statusCode, ...answer, response };
}

/** The part of express's Response the node uses, over Node's own (or a recorder); `sent` sees each body. */
export function expressResponse(
	response: {
		statusCode: number;
		readonly headersSent: boolean;
		setHeader(name: string, value: string): unknown;
		end(body: string): unknown;
	},
	sent: (body: unknown) => void,
) {
	const adapter = {
		get headersSent() {
			return response.headersSent;
		},
		status(code: number) {
			response.statusCode = code;
			return adapter;
		},
		setHeader(name: string, value: string) {
			response.setHeader(name, value);
			return adapter;
		},
		json(body: unknown) {
			sent(body);
			response.setHeader('content-type', 'application/json');
			response.end(JSON.stringify(body));
			return adapter;
		},
	};
	return adapter;
}
