/**
 * Per-item cost inside a real n8n (the oldest pin), as n8n itself measures it: the execution time
 * it records for each node. The same items of `GET /v1/me` go through n8n's HTTP Request node
 * (key typed as a header, and key in a Bearer Auth credential; it sends all items' requests at
 * once) and through this node at 1 and 8 requests at a time, against one server in a process of
 * its own.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { createN8n, pinnedN8n, type N8nInstance } from '../scripts/n8n-instance';

interface RunData {
	data: { resultData: { error?: unknown; runData: Record<string, Array<{ executionTime: number; error?: unknown; data: { main: unknown[][] } }>> } };
}

const CONTENT_CREDENTIAL = { id: 'benchContent', name: 'Bench service' };
const BEARER_CREDENTIAL = { id: 'benchBearer', name: 'Bench bearer' };

function workflow(id: string, items: number, measured: Record<string, unknown>) {
	return {
		id,
		name: id,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 'b1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'b2',
				name: 'Items',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [200, 0],
				parameters: { jsCode: `return Array.from({ length: ${items} }, (_, index) => ({ json: { index } }));` },
			},
			{ id: 'b3', name: 'Measured', position: [400, 0], ...measured },
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Measured', type: 'main', index: 0 }]] },
		},
	};
}

/** The first JSON object in a command's output, which n8n may follow with log lines. */
function firstJsonObject(output: string): string {
	const start = output.indexOf('{');
	let depth = 0;
	let inString = false;
	for (let index = start; index < output.length; index++) {
		const char = output[index];
		if (inString) {
			if (char === '\\') index++;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === '{') depth++;
		else if (char === '}' && --depth === 0) return output.slice(start, index + 1);
	}
	throw new Error(`No JSON object in n8n's output: ${output.slice(0, 200)}`);
}

/** Milliseconds per item of each way, by n8n's own execution time of the measured node. */
export async function n8nThroughput(service: { url: string; apiKey: string }, items: number): Promise<Record<string, number> | undefined> {
	const pinned = pinnedN8n('oldest');
	if (!pinned.installed) return undefined;
	const n8n: N8nInstance = await createN8n(pinned);
	try {
		const credentials = path.join(n8n.userFolder, 'bench-credentials.json');
		writeFileSync(
			credentials,
			JSON.stringify([
				{ ...CONTENT_CREDENTIAL, type: 'contentPublishingApi', data: { baseUrl: service.url, apiKey: service.apiKey } },
				{ ...BEARER_CREDENTIAL, type: 'httpBearerAuth', data: { token: service.apiKey } },
			]),
		);
		await n8n.cli(['import:credentials', `--input=${credentials}`]);
		const http = { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2 };
		const ways: Record<string, Record<string, unknown>> = {
			'HTTP Request, key as a header': {
				...http,
				parameters: {
					url: `${service.url}/v1/me`,
					sendHeaders: true,
					headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${service.apiKey}` }] },
					options: {},
				},
			},
			'HTTP Request, Bearer Auth credential': {
				...http,
				parameters: { url: `${service.url}/v1/me`, authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth', options: {} },
				credentials: { httpBearerAuth: BEARER_CREDENTIAL },
			},
			'this node, 1 at a time': {
				type: 'n8n-nodes-content-publishing.contentPublishing',
				typeVersion: 1,
				parameters: { resource: 'account', operation: 'get', requestOptions: { parallel: 1 } },
				credentials: { contentPublishingApi: CONTENT_CREDENTIAL },
			},
			'this node, 8 at a time': {
				type: 'n8n-nodes-content-publishing.contentPublishing',
				typeVersion: 1,
				parameters: { resource: 'account', operation: 'get', requestOptions: { parallel: 8 } },
				credentials: { contentPublishingApi: CONTENT_CREDENTIAL },
			},
		};
		const perItem: Record<string, number> = {};
		let index = 0;
		for (const [name, measured] of Object.entries(ways)) {
			const id = `benchWay${index++}`;
			const file = path.join(n8n.userFolder, `${id}.json`);
			writeFileSync(file, JSON.stringify(workflow(id, items, measured)));
			await n8n.cli(['import:workflow', `--input=${file}`]);
			const output = await n8n.cli(['execute', `--id=${id}`, '--rawOutput']);
			const run = JSON.parse(firstJsonObject(output)) as RunData;
			const [task] = run.data.resultData.runData.Measured;
			if (run.data.resultData.error !== undefined || task.error !== undefined || task.data.main[0].length !== items) {
				throw new Error(`${name} did not output ${items} items: ${JSON.stringify(run.data.resultData.error ?? task.error)}`);
			}
			perItem[name] = task.executionTime / items;
		}
		return perItem;
	} finally {
		await n8n.stop();
		n8n.remove();
	}
}
