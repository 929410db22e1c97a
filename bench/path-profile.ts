/**
 * What the node's own code costs per item beside n8n's request helper, from a CPU profile of
 * Account → Get in n8n's engine against a minimal server in a process of its own. The machine's
 * load stretches every sample alike, so the ratio of the two holds where times do not: the node's
 * own work (its code and what it calls, the helper's subtree excluded) over the helper's.
 */
import { Session } from 'node:inspector/promises';

import { contentPublishingNode, runNode } from '../test/support/n8n-engine';
import type { Service } from './n8n-throughput';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	startTime: number;
	endTime: number;
}

/** Profiles `runs` executions of `items` items; returns the profile. */
async function profiled(service: Service, items: number, runs: number): Promise<CpuProfile> {
	const credentials = { baseUrl: service.url, apiKey: service.apiKey };
	const input = Array.from({ length: items }, () => ({ json: {} }));
	const node = contentPublishingNode({ resource: 'account', operation: 'get' });
	await runNode(node, { credentials, input: input.slice(0, Math.min(200, items)) });
	const session = new Session();
	session.connect();
	await session.post('Profiler.enable');
	await session.post('Profiler.setSamplingInterval', { interval: 100 });
	await session.post('Profiler.start');
	for (let run = 0; run < runs; run++) {
		const result = await runNode(node, { credentials, input });
		if (result.items.length !== items)
			throw new Error(`Account → Get output ${result.items.length} items`);
	}
	const { profile } = await session.post('Profiler.stop');
	session.disconnect();
	return profile as CpuProfile;
}

const OURS = '/dist/nodes/';
const isHelper = ({ callFrame }: ProfileNode) =>
	callFrame.functionName === 'httpRequest' && callFrame.url.includes('request-helper');

/**
 * The node's own work over the helper's, and the node's functions by the time under them (the
 * helper's subtree excluded), in milliseconds.
 */
export function pathCosts(profile: CpuProfile): {
	oursOverHelper: number;
	top: Array<[string, number]>;
} {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parent.set(child, node.id);
	const msPerSample = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
	let ours = 0;
	let helper = 0;
	const under = new Map<string, number>();
	for (const sample of profile.samples) {
		const stack: ProfileNode[] = [];
		for (let id: number | undefined = sample; id !== undefined; id = parent.get(id))
			stack.push(byId.get(id)!);
		const helperAt = stack.findIndex(isHelper);
		if (helperAt !== -1) {
			helper++;
			continue;
		}
		const named = new Set(
			stack
				.filter(({ callFrame }) => callFrame.url.includes(OURS))
				.map(
					({ callFrame: { functionName, url, lineNumber } }) =>
						`${functionName || '(anonymous)'} ${url.slice(url.indexOf(OURS) + OURS.length)}:${lineNumber + 1}`,
				),
		);
		if (named.size > 0) ours++;
		for (const name of named) under.set(name, (under.get(name) ?? 0) + msPerSample);
	}
	const top = [...under].sort((a, b) => b[1] - a[1]);
	return { oursOverHelper: ours / helper, top };
}

export async function pathProfile(
	service: Service,
	smoke: boolean,
	report: (name: string, ratio: number, meaning: string) => void,
): Promise<void> {
	const items = smoke ? 40 : 2000;
	const { oursOverHelper, top } = pathCosts(await profiled(service, items, smoke ? 1 : 3));
	report(
		"per item: the node's own work / n8n's helper",
		oursOverHelper,
		`CPU profile of ${smoke ? 1 : 3} runs of ${items} items of Account → Get, one at a time; lower is leaner`,
	);
	// The entries that send (the retry loop and the exchange) hold the helper's call: shown without it.
	for (const [name, ms] of top.slice(0, 12))
		console.log(`    ${ms.toFixed(0).padStart(6)} ms  ${name}`);
}
