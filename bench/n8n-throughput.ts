/**
 * Per-item cost inside a real n8n (each pinned version), as n8n itself measures it: the execution time
 * it records for each node. The same items of `GET /v1/me` go through n8n's HTTP Request node
 * (key typed as a header, and key in a Bearer Auth credential; it sends all items' requests at
 * once) and through this node at 1 and 8 requests at a time, against one server in a process of
 * its own; and through this node again against a server that answers 20 ms later, as a service
 * across a network does. Beside each time: how much of it n8n's main thread (where nodes and the
 * request helper run) spent on the CPU, which bounds what sending in parallel can gain.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import {
	createN8n,
	firstJsonObject,
	N8nCliError,
	pinnedN8n,
	type N8nInstance,
	type N8nPinName,
} from '../scripts/n8n-instance';

export interface RunData {
	data: {
		resultData: {
			error?: unknown;
			runData: Record<
				string,
				Array<{
					startTime: number;
					executionTime: number;
					error?: unknown;
					data: { main: unknown[][] };
				}>
			>;
		};
	};
}

export interface Service {
	url: string;
	apiKey: string;
	/** How many connections the server has accepted so far, where it counts them. */
	connections?: () => Promise<number>;
}

export interface NodeCost {
	msPerItem: number;
	/** Each round's cost, in the order the rounds ran (on the median only). */
	rounds?: NodeCost[];
	/** The share of the node's run n8n's main thread was on the CPU; undefined where /proc is not readable. */
	mainThreadBusy?: number;
	/** New connections the server accepted per item, where it counts them. */
	connectionsPerItem?: number;
}

const CONTENT_CREDENTIAL = { id: 'benchContent', name: 'Bench service' };
const DISTANT_CREDENTIAL = { id: 'benchDistant', name: 'Bench service, 20 ms away' };
const BEARER_CREDENTIAL = { id: 'benchBearer', name: 'Bench bearer' };

export function workflow(id: string, items: number, measured: Record<string, unknown>) {
	return {
		id,
		name: id,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'b1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'b2',
				name: 'Items',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [200, 0],
				parameters: {
					jsCode: `return Array.from({ length: ${items} }, (_, index) => ({ json: { index } }));`,
				},
			},
			{ id: 'b3', name: 'Measured', position: [400, 0], ...measured },
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Measured', type: 'main', index: 0 }]] },
		},
	};
}

/** The CPU time of a process's main thread so far, in milliseconds; undefined off Linux. */
function mainThreadCpuMs(pid: number): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// utime and stime (fields 14 and 15 of proc(5)), in USER_HZ: 100 per second on Linux.
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return undefined;
	}
}

/** Samples a process's main-thread CPU time while it runs, to read it back for any span of time. */
function sampleMainThread(child: ChildProcess): {
	stop: () => void;
	cpuMsBetween: (from: number, to: number) => number | undefined;
} {
	const samples: Array<[at: number, cpuMs: number]> = [];
	const timer = setInterval(() => {
		const cpuMs = child.pid === undefined ? undefined : mainThreadCpuMs(child.pid);
		if (cpuMs !== undefined) samples.push([Date.now(), cpuMs]);
	}, 5);
	const at = (time: number, side: 'before' | 'after') =>
		side === 'before'
			? samples.filter(([when]) => when <= time).pop()
			: samples.find(([when]) => when >= time);
	return {
		stop: () => clearInterval(timer),
		cpuMsBetween: (from, to) => {
			const [start, end] = [at(from, 'before'), at(to, 'after')];
			return start && end ? end[1] - start[1] : undefined;
		},
	};
}

/** Whether a command's output holds a whole run that succeeded. */
function succeeded(output: string): boolean {
	try {
		return (JSON.parse(firstJsonObject(output)) as { status?: string }).status === 'success';
	} catch {
		return false;
	}
}

/** One execution of a way's workflow: the measured node's time per item and main-thread CPU share. */
async function measure(
	n8n: N8nInstance,
	id: string,
	name: string,
	items: number,
	service: Service,
): Promise<NodeCost> {
	const connectionsBefore = await service.connections?.();
	let sampler: ReturnType<typeof sampleMainThread> | undefined;
	const output = await n8n
		.cli(['execute', `--id=${id}`, '--rawOutput'], (child) => (sampler = sampleMainThread(child)))
		.catch((error: unknown) => {
			// Now and then the command exits with a failure after printing a whole successful run, with
			// nothing on stderr (seen once in a smoke run); the run's own times are what is measured.
			if (error instanceof N8nCliError && succeeded(error.stdout)) {
				console.log(`(${error.message.split('\n')[0]} after a successful run; its times are used)`);
				return error.stdout;
			}
			throw error;
		})
		.finally(() => sampler?.stop());
	const run = JSON.parse(firstJsonObject(output)) as RunData;
	const [task] = run.data.resultData.runData.Measured;
	if (
		run.data.resultData.error !== undefined ||
		task.error !== undefined ||
		task.data.main[0].length !== items
	) {
		throw new Error(
			`${name} did not output ${items} items: ${JSON.stringify(run.data.resultData.error ?? task.error)}`,
		);
	}
	const cpuMs = sampler?.cpuMsBetween(task.startTime, task.startTime + task.executionTime);
	const connectionsAfter = await service.connections?.();
	return {
		msPerItem: task.executionTime / items,
		mainThreadBusy: cpuMs === undefined ? undefined : Math.min(1, cpuMs / task.executionTime),
		connectionsPerItem:
			connectionsBefore === undefined || connectionsAfter === undefined
				? undefined
				: (connectionsAfter - connectionsBefore) / items,
	};
}

/**
 * A measurement, taken once more where n8n's command printed no run at all (seen on a machine
 * loaded far beyond its cores); a run that failed fails the bench.
 */
async function measureAgain(...args: Parameters<typeof measure>): Promise<NodeCost> {
	try {
		return await measure(...args);
	} catch (error) {
		if (!(error instanceof Error && error.message.startsWith('No JSON object'))) throw error;
		console.log(`(${args[2]}: n8n printed no run, measured again: ${error.message.slice(0, 300)})`);
		return await measure(...args);
	}
}

/**
 * Per item, for each way, the median of `rounds` executions (each round's figures beside it): n8n's
 * execution time of the measured node, and its main thread's CPU share meanwhile. `distant` answers later, like a service across a
 * network; fewer items suffice there.
 */
export async function n8nThroughput(
	pin: N8nPinName,
	{ loopback, distant }: { loopback: Service; distant: Service },
	items: number,
	distantItems: number,
	rounds: number,
): Promise<{ version: string; costs: Record<string, NodeCost> } | undefined> {
	const pinned = pinnedN8n(pin);
	if (!pinned.installed) return undefined;
	const n8n: N8nInstance = await createN8n(pinned);
	try {
		const credentials = path.join(n8n.userFolder, 'bench-credentials.json');
		writeFileSync(
			credentials,
			JSON.stringify([
				{
					...CONTENT_CREDENTIAL,
					type: 'contentPublishingApi',
					data: { baseUrl: loopback.url, apiKey: loopback.apiKey },
				},
				{
					...DISTANT_CREDENTIAL,
					type: 'contentPublishingApi',
					data: { baseUrl: distant.url, apiKey: distant.apiKey },
				},
				{ ...BEARER_CREDENTIAL, type: 'httpBearerAuth', data: { token: loopback.apiKey } },
			]),
		);
		await n8n.cli(['import:credentials', `--input=${credentials}`]);
		const http = { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2 };
		const thisNode = (parallel: number, credential: typeof CONTENT_CREDENTIAL) => ({
			type: 'n8n-nodes-content-publishing.contentPublishing',
			typeVersion: 1,
			parameters: { resource: 'account', operation: 'get', requestOptions: { parallel } },
			credentials: { contentPublishingApi: credential },
		});
		const ways: Record<string, { items: number; service: Service; node: Record<string, unknown> }> =
			{
				'HTTP Request, key as a header': {
					items,
					service: loopback,
					node: {
						...http,
						parameters: {
							url: `${loopback.url}/v1/me`,
							sendHeaders: true,
							headerParameters: {
								parameters: [{ name: 'Authorization', value: `Bearer ${loopback.apiKey}` }],
							},
							options: {},
						},
					},
				},
				'HTTP Request, Bearer Auth credential': {
					items,
					service: loopback,
					node: {
						...http,
						parameters: {
							url: `${loopback.url}/v1/me`,
							authentication: 'genericCredentialType',
							genericAuthType: 'httpBearerAuth',
							options: {},
						},
						credentials: { httpBearerAuth: BEARER_CREDENTIAL },
					},
				},
				'this node, 1 at a time': {
					items,
					service: loopback,
					node: thisNode(1, CONTENT_CREDENTIAL),
				},
				'this node, 8 at a time': {
					items,
					service: loopback,
					node: thisNode(8, CONTENT_CREDENTIAL),
				},
				'this node, 1 at a time, 20 ms away': {
					items: distantItems,
					service: distant,
					node: thisNode(1, DISTANT_CREDENTIAL),
				},
				'this node, 8 at a time, 20 ms away': {
					items: distantItems,
					service: distant,
					node: thisNode(8, DISTANT_CREDENTIAL),
				},
			};
		let index = 0;
		const ids: Record<string, string> = {};
		for (const [name, way] of Object.entries(ways)) {
			const id = `benchWay${index++}`;
			const file = path.join(n8n.userFolder, `${id}.json`);
			writeFileSync(file, JSON.stringify(workflow(id, way.items, way.node)));
			await n8n.cli(['import:workflow', `--input=${file}`]);
			ids[name] = id;
		}
		// Rounds go through every way in turn, so that a slow spell of the machine touches them all.
		const samples: Record<string, NodeCost[]> = {};
		for (let round = 0; round < rounds; round++) {
			for (const [name, way] of Object.entries(ways)) {
				const cost = await measureAgain(n8n, ids[name], name, way.items, way.service);
				(samples[name] ??= []).push(cost);
				// As it comes, so that a run stopped early still tells what it measured.
				console.log(
					`(n8n ${pinned.version}, round ${round + 1}/${rounds}: ${name}: ${(cost.msPerItem * 1000).toFixed(0)} µs per item)`,
				);
			}
		}
		const costs: Record<string, NodeCost> = {};
		for (const [name, measured] of Object.entries(samples)) {
			const sorted = [...measured].sort((a, b) => a.msPerItem - b.msPerItem);
			costs[name] = { ...sorted[Math.floor(sorted.length / 2)], rounds: measured };
		}
		return { version: pinned.version, costs };
	} finally {
		await n8n.stop();
		n8n.remove();
	}
}
