/**
 * Waiting executions as n8n keeps and resumes them, for the engine tests: the node runs in n8n's
 * WorkflowExecute, an execution that waits is kept as the database keeps it (its data serialized,
 * read afresh for every call), and an HTTP server on 127.0.0.1 serves its resume address the way
 * n8n 2.8.4 does. What each step mirrors in n8n's source (packages/cli/src):
 * - webhooks/waiting-webhooks.ts `executeWebhook`: 404 for an unknown execution, 409 for one that
 *   runs, has finished or has failed; `getWebhookExecutionData`: the waiting node disabled, its
 *   `waitTill` cleared, its last run popped, then the node's `webhook()` through n8n-core's
 *   WebhookContext with the execution's data;
 * - webhooks/webhook-helpers.ts `executeWebhook`/`prepareExecutionData`: no `workflowData` answers
 *   and leaves the execution as it was; `workflowData` becomes the disabled node's input and the
 *   execution runs on; a `webhook()` that throws resumes the execution with the error;
 * - active-executions.ts `add`: a resume only from the waiting state (a second one is refused);
 * - executions/execution.service.ts `stopInRegularMode`: a cancelled waiting execution is marked
 *   cancelled with an error, so its resume address answers 409 and nothing of the node runs;
 * - wait-tracker.ts `startExecution`: at its time limit the execution runs again as it was saved,
 *   and WorkflowExecute's `handleWaitingState` passes the node's input items through.
 * The end-to-end tests check the same in real n8n versions.
 */
import { WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	IRunExecutionData,
	IWebhookData,
	IWebhookResponseData,
} from 'n8n-workflow';
import { createDeferredPromise } from 'n8n-workflow';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

import { NUDGE_DELAY_MS } from '../../nodes/ContentPublishing/waiting/event';
import { CHECK_HEADER } from '../../nodes/ContentPublishing/waiting/registrations';
import {
	additionalDataFor,
	execute,
	expressResponse,
	nodeTypes,
	oneNodeWorkflow,
	resultOf,
	startingData,
	type RunResult,
	type TestCredentials,
} from './n8n-engine';
import { listenOnNewPort } from './ports';

type ExecutionStatus = 'running' | 'waiting' | 'success' | 'error' | 'canceled';

interface StoredExecution {
	id: string;
	node: INode;
	credentials: TestCredentials;
	status: ExecutionStatus;
	/** The execution's data as the database holds it: serialized, read afresh by every call. */
	data: string;
	/** Each time the execution ran: first up to its wait, then from each resume. */
	runs: RunResult[];
	/** How long it ran in all: what it held of a worker, its waits not counted. */
	heldMs: number;
	ended: Promise<RunResult>;
	end: (result: RunResult) => void;
	/** When the wait's time limit passes (Date.now), where n8n resumes it then before any call. */
	resumedByN8nAt?: number;
}

interface WaitingCall {
	executionId: string;
	status: number;
	body: unknown;
	/** Whether the call resumed the execution. */
	resumed: boolean;
	/** The node's own call after its wait began (its CHECK_HEADER), rather than the service's. */
	own: boolean;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export class WaitingN8n {
	readonly calls: WaitingCall[] = [];
	/** Errors the node's webhook threw: n8n would have resumed the execution with them. */
	readonly thrown: unknown[] = [];
	/** Resumes refused because the execution no longer waited (n8n's ExecutionAlreadyResumingError). */
	refusedResumes = 0;
	/** How long saving an execution as waiting takes: until then, calls get 409 as in n8n. */
	saveDelayMs = 0;
	private readonly executions = new Map<string, StoredExecution>();
	private readonly handling = new Set<Promise<void>>();
	private readonly server = http.createServer((request, response) => {
		const handled = this.handle(request, response).finally(() => this.handling.delete(handled));
		this.handling.add(handled);
	});
	private baseUrl = '';
	private count = 0;
	private lastWait = 0;

	static async start(): Promise<WaitingN8n> {
		const n8n = new WaitingN8n();
		n8n.baseUrl = `http://127.0.0.1:${await listenOnNewPort(n8n.server)}/webhook-waiting`;
		return n8n;
	}

	/** Resolves once every call that came in has been handled, resumed runs included. */
	async settled(): Promise<void> {
		while (this.handling.size > 0) await Promise.all([...this.handling]);
	}

	/** `$execution.resumeUrl` of an execution. */
	resumeUrl(executionId: string): string {
		return `${this.baseUrl}/${executionId}`;
	}

	/** Stays up until the node's own call after each wait has come, as n8n would be. */
	async close(): Promise<void> {
		const quiet = this.lastWait + NUDGE_DELAY_MS + 1000 - performance.now();
		if (quiet > 0) await new Promise((resolve) => setTimeout(resolve, quiet));
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** Runs a one-node workflow until it ends or waits; `ended` resolves when it has ended for good. */
	async run(
		node: INode,
		credentials: TestCredentials,
		input: INodeExecutionData[] = [{ json: {} }],
		/**
		 * n8n resumes the wait at its time limit before any call that comes later: from then on its
		 * address answers 409 until the test calls `timeOut`, as n8n's wait tracker would have won.
		 */
		{ timeLimitFirst = false } = {},
	): Promise<{ executionId: string; first: RunResult; ended: Promise<RunResult> }> {
		// Unique in the process, as n8n's are in its database: the node remembers writes by execution.
		const id = `${process.pid}${Date.now()}${++this.count}`;
		const ended = createDeferredPromise<RunResult>();
		const execution: StoredExecution = {
			id,
			node,
			credentials,
			status: 'running',
			data: '',
			runs: [],
			heldMs: 0,
			ended: ended.promise,
			end: ended.resolve,
		};
		this.executions.set(id, execution);
		const first = await this.execute(execution, startingData(node, input));
		if (timeLimitFirst) execution.resumedByN8nAt = first.run.waitTill?.getTime();
		return { executionId: id, first, ended: execution.ended };
	}

	status(executionId: string): ExecutionStatus | undefined {
		return this.executions.get(executionId)?.status;
	}

	/** As n8n's wait tracker when the wait's time limit has passed: the execution runs again as saved. */
	async timeOut(executionId: string): Promise<RunResult> {
		const execution = this.executions.get(executionId);
		if (execution?.status !== 'waiting') throw new Error(`Execution ${executionId} is not waiting`);
		await this.execute(execution, JSON.parse(execution.data) as IRunExecutionData);
		return await execution.ended;
	}

	/**
	 * As n8n's execution service stops a waiting execution (`stopDuringRun`): it is marked cancelled
	 * with an error, and its resume address answers 409 from then on. Nothing of the node runs.
	 */
	cancel(executionId: string): void {
		const execution = this.executions.get(executionId);
		if (execution?.status !== 'waiting') throw new Error(`Execution ${executionId} is not waiting`);
		execution.status = 'canceled';
		execution.end(execution.runs[execution.runs.length - 1]);
	}

	/** How long an execution has run in all, in milliseconds: the time it held a worker. */
	heldMs(executionId: string): number {
		return this.executions.get(executionId)?.heldMs ?? 0;
	}

	/** Each time an execution ran. */
	runsOf(executionId: string): RunResult[] {
		return this.executions.get(executionId)?.runs ?? [];
	}

	private async execute(execution: StoredExecution, data: IRunExecutionData): Promise<RunResult> {
		execution.status = 'running';
		const started = performance.now();
		const run = await execute(execution.node, data, {
			credentials: execution.credentials,
			executionId: execution.id,
			webhookWaitingBaseUrl: this.baseUrl,
		});
		execution.heldMs += performance.now() - started;
		if (run.waitTill && this.saveDelayMs > 0)
			await new Promise((resolve) => setTimeout(resolve, this.saveDelayMs));
		const result = resultOf(run, execution.node.name);
		execution.runs.push(result);
		execution.data = JSON.stringify(run.data);
		execution.status = run.waitTill
			? 'waiting'
			: run.data.resultData.error || run.status === 'error'
				? 'error'
				: 'success';
		// Not Date.now, which a test may move on.
		if (run.waitTill) this.lastWait = performance.now();
		if (execution.status !== 'waiting') execution.end(result);
		return result;
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		const [, prefix, executionId, suffix] = url.pathname.split('/');
		const rawBody = await readBody(request);
		const call: WaitingCall = {
			executionId,
			status: 0,
			body: undefined,
			resumed: false,
			own: request.headers[CHECK_HEADER] !== undefined,
		};
		this.calls.push(call);
		const express = expressResponse(response, (sent) => (call.body = sent));
		const reply = (status: number, body: unknown) => {
			call.status = status;
			express.status(status).json(body);
		};
		const execution = this.executions.get(executionId);
		if (prefix !== 'webhook-waiting' || execution === undefined)
			return reply(404, { message: `The execution "${executionId}" does not exist.` });
		const resumedByN8n =
			execution.resumedByN8nAt !== undefined && Date.now() >= execution.resumedByN8nAt;
		if (execution.status !== 'waiting' || resumedByN8n)
			return reply(409, {
				message: `The execution "${executionId}" ${execution.status === 'running' || resumedByN8n ? 'is running already' : execution.status === 'success' ? 'has finished already' : 'has finished with error'}.`,
			});

		// As read from the database, then prepared as getWebhookExecutionData does.
		const data = JSON.parse(execution.data) as IRunExecutionData;
		const lastNodeExecuted = data.resultData.lastNodeExecuted as string;
		data.executionData!.nodeExecutionStack[0].node.disabled = true;
		data.waitTill = undefined;
		data.resultData.runData[lastNodeExecuted].pop();
		const workflow = oneNodeWorkflow(execution.node);
		const node = workflow.getNode(lastNodeExecuted)!;
		const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		// The webhook's path `={{ $nodeId }}` is the node's id.
		const description = nodeType.description.webhooks?.find(
			(webhook) => webhook.httpMethod === request.method && webhook.restartWebhook === true,
		);
		if (description === undefined || suffix !== node.id || nodeType.webhook === undefined) {
			return reply(404, {
				message: `The workflow for execution "${executionId}" does not contain a waiting webhook with a matching path/method.`,
			});
		}

		const additionalData = additionalDataFor(
			execution.credentials,
			undefined,
			executionId,
			this.baseUrl,
		);
		let body: unknown = {};
		try {
			body = JSON.parse(rawBody.toString('utf8'));
		} catch {
			// An empty or non-JSON body reaches the node as an empty object.
		}
		additionalData.httpRequest = {
			method: request.method,
			url: request.url,
			headers: request.headers,
			body,
			rawBody,
			query: Object.fromEntries(url.searchParams),
			params: {},
		} as never;
		additionalData.httpResponse = express as never;
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: node.id,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
		};
		let answer: IWebhookResponseData;
		try {
			answer = await nodeType.webhook.call(
				new WebhookContext(workflow, node, additionalData, 'manual', webhookData, [], data),
			);
		} catch (error) {
			// n8n would resume the execution with this error in place of its data.
			this.thrown.push(error);
			return reply(500, { message: 'Error in workflow' });
		}
		call.status = response.statusCode;
		if (answer.workflowData === undefined) {
			if (!response.headersSent)
				reply(
					200,
					(answer.webhookResponse as IDataObject | undefined) ?? {
						message: 'Webhook call received',
					},
				);
			return;
		}
		if (!response.headersSent && answer.noWebhookResponse !== true)
			reply(200, { message: 'Workflow was started' });
		if (execution.status !== 'waiting') {
			this.refusedResumes++;
			return;
		}
		call.resumed = true;
		data.executionData!.nodeExecutionStack[0].data.main = answer.workflowData;
		await this.execute(execution, data);
	}
}
