/**
 * Sending under a rate limit, in a real n8n: the same items of `GET /v1/me` against the fake
 * service limited to R requests a second (a token bucket), sent by this node with its default
 * settings (4 requests in parallel as a ceiling), with and without the service stating its limit in
 * `X-RateLimit-*` fields; and by n8n's HTTP Request node with Retry On Fail, as a user who does not
 * know the limit would set it up. Goodput is the items that came back per second, as a fraction of
 * R; refusals are the service's 429s per 1,000 requests.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

import { startFakeService, type FakeService } from '../test/fake-service';
import {
	createN8n,
	firstJsonObject,
	N8nCliError,
	pinnedN8n,
	type N8nPinName,
} from '../scripts/n8n-instance';
import { workflow, type RunData } from './n8n-throughput';

export interface RateLimitRun {
	goodput: number;
	refusalsPer1000: number;
	items: number;
	failed?: string;
}

export async function rateLimitInN8n(
	pin: N8nPinName,
	perSecond: number,
	items: number,
): Promise<{ version: string; runs: Record<string, RateLimitRun> } | undefined> {
	const pinned = pinnedN8n(pin);
	if (!pinned.installed) return undefined;
	const quiet = await startFakeService({
		apiKey: 'bench-rate-key-0123456789',
		rateLimit: { perSecond },
	});
	const stating = await startFakeService({
		apiKey: 'bench-rate-key-0123456789',
		rateLimit: { perSecond, headers: true },
	});
	const n8n = await createN8n(pinned);
	try {
		const credentials = path.join(n8n.userFolder, 'bench-rate-credentials.json');
		const credential = (service: FakeService, id: string) => ({
			id,
			name: id,
			type: 'contentPublishingApi',
			data: { baseUrl: service.url, apiKey: service.apiKey },
		});
		writeFileSync(
			credentials,
			JSON.stringify([
				credential(quiet, 'benchRateQuiet'),
				credential(stating, 'benchRateStating'),
			]),
		);
		await n8n.cli(['import:credentials', `--input=${credentials}`]);
		const thisNode = (id: string) => ({
			type: 'n8n-nodes-content-publishing.contentPublishing',
			typeVersion: 1,
			parameters: { resource: 'account', operation: 'get' },
			credentials: { contentPublishingApi: { id, name: id } },
		});
		const ways: Record<string, { service: FakeService; node: Record<string, unknown> }> = {
			'this node, no rate-limit fields': { service: quiet, node: thisNode('benchRateQuiet') },
			'this node, X-RateLimit fields': { service: stating, node: thisNode('benchRateStating') },
			'HTTP Request + Retry On Fail': {
				service: quiet,
				node: {
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					retryOnFail: true,
					maxTries: 5,
					waitBetweenTries: 1000,
					parameters: {
						url: `${quiet.url}/v1/me`,
						sendHeaders: true,
						headerParameters: {
							parameters: [{ name: 'Authorization', value: `Bearer ${quiet.apiKey}` }],
						},
						options: {},
					},
				},
			},
		};
		const runs: Record<string, RateLimitRun> = {};
		let index = 0;
		for (const [name, way] of Object.entries(ways)) {
			const id = `benchRate${index++}`;
			const file = path.join(n8n.userFolder, `${id}.json`);
			writeFileSync(file, JSON.stringify(workflow(id, items, way.node)));
			await n8n.cli(['import:workflow', `--input=${file}`]);
			// A full bucket for every way, and the record of this way's requests alone.
			way.service.reset();
			const output = await n8n
				.cli(['execute', `--id=${id}`, '--rawOutput'])
				.catch((error: unknown) => (error instanceof N8nCliError ? error.stdout : String(error)));
			const requests = way.service.requests.filter((request) => request.path === '/v1/me');
			const refused = requests.filter((request) => request.status === 429).length;
			let run: RunData | undefined;
			try {
				run = JSON.parse(firstJsonObject(output)) as RunData;
			} catch {
				run = undefined;
			}
			const task = run?.data?.resultData?.runData?.Measured?.at(-1);
			if (task === undefined)
				console.log(`(${name}: n8n printed ${output.slice(0, 300).replace(/\s+/g, ' ')})`);
			const came = task?.data?.main?.[0]?.length ?? 0;
			const seconds = (task?.executionTime ?? 0) / 1000;
			runs[name] = {
				goodput: task?.error === undefined && seconds > 0 ? came / seconds / perSecond : 0,
				refusalsPer1000: requests.length === 0 ? 0 : (refused * 1000) / requests.length,
				items,
				failed:
					task?.error === undefined && run !== undefined
						? undefined
						: `failed after ${requests.length} requests`,
			};
		}
		return { version: pinned.version, runs };
	} finally {
		await n8n.stop();
		n8n.remove();
		await quiet.close();
		await stating.close();
	}
}
