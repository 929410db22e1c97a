import type { INode } from 'n8n-workflow';

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';
import { NODE_TYPE } from '../support/n8n-engine';

const harness = useFakeService();

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');

/** Every Generate Video node of the examples whose prompt asks for a length ("A 10-second teaser"). */
const videosAskingForALength = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith('.json'))
	.flatMap((file) =>
		(JSON.parse(readFileSync(path.join(EXAMPLES, file), 'utf8')) as { nodes: INode[] }).nodes
			.filter(
				(node) =>
					node.type === NODE_TYPE &&
					node.parameters.operation === 'generateVideo' &&
					/\d+-second/.test(String(node.parameters.prompt)),
			)
			.map((node) => [file, node.name, node] as const),
	);

describe('the examples ask for what they produce', () => {
	it('include a video that asks for its length (example 5)', () => {
		expect(videosAskingForALength.map(([file]) => file)).toContain('5-fire-a-test-event.json');
	});

	it.each(videosAskingForALength)(
		'%s: "%s" makes a video as long as its prompt asks',
		async (_file, _name, node) => {
			const seconds = Number(/(\d+)-second/.exec(String(node.parameters.prompt))![1]);
			const [job] = jsonOf(
				await harness.run({ ...node.parameters, waitForCompletion: true, options: FAST_WAIT }),
			);
			expect((job.result as { duration_seconds: number }).duration_seconds).toBe(seconds);
		},
	);
});
