import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

import {
	FROM_AI_AUTO_GENERATED_MARKER,
	traverseNodeParameters,
	type FromAIArgument,
	type INode,
} from 'n8n-workflow';

import { N8N_PINS, pinnedN8n } from '../scripts/n8n-instance';

const ROOT = path.resolve(__dirname, '..');
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('published package', () => {
	it('has no runtime dependencies and only n8n-workflow as a peer', () => {
		expect(packageJson.dependencies).toBeUndefined();
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(packageJson.keywords).toContain('n8n-community-node-package');
		expect(packageJson.author).toEqual({
			name: expect.any(String),
			email: expect.stringContaining('@'),
		});
	});

	it('declares built files that exist', () => {
		// n8n loads the files the "n8n" section names; a "main" would only be one more path to keep true.
		expect(packageJson.main).toBeUndefined();
		expect(packageJson.n8n.n8nNodesApiVersion).toBe(1);
		for (const file of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials]) {
			expect(existsSync(path.join(ROOT, file))).toBe(true);
		}
	});

	it('packs only dist, README, LICENSE and package.json', () => {
		const [pack] = JSON.parse(
			execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
				cwd: ROOT,
				encoding: 'utf8',
			}),
		) as Array<{ files: Array<{ path: string }> }>;
		const files = pack.files.map((file) => file.path);
		expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual([
			'LICENSE',
			'README.md',
			'package.json',
		]);
		for (const icon of [
			'dist/nodes/ContentPublishing/contentPublishing.svg',
			'dist/nodes/ContentPublishing/contentPublishing.dark.svg',
			'dist/credentials/contentPublishing.svg',
			'dist/credentials/contentPublishing.dark.svg',
			'dist/nodes/ContentPublishing/ContentPublishing.node.json',
		]) {
			expect(files).toContain(icon);
		}
		expect(
			files.some(
				(file) => file.includes('test/') || (file.endsWith('.ts') && !file.endsWith('.d.ts')),
			),
		).toBe(false);
	});
});

/** A GitHub Actions workflow's text and the commands of its `run:` steps, in order. */
function readWorkflow(file: string): { workflow: string; steps: string[] } {
	const workflow = readFileSync(path.join(ROOT, '.github', 'workflows', file), 'utf8');
	const steps = workflow
		.split('\n')
		.filter((line) => /^\s+run: /.test(line))
		.map((line) => line.trim().slice('run: '.length));
	return { workflow, steps };
}

describe('the release workflow', () => {
	const { workflow, steps } = readWorkflow('publish.yml');

	it('publishes with provenance on a version tag, with the permission that signs it', () => {
		expect(workflow).toMatch(/on:\n\s+push:\n\s+tags:\n\s+- 'v\*\.\*\.\*'/);
		expect(workflow).toMatch(/permissions:\n(\s+\S.*\n)*?\s+id-token: write/);
		expect(steps[steps.length - 1]).toBe('npm publish --provenance --access public');
	});

	it('installs from the lockfile, lints, builds and runs the unit tests before publishing', () => {
		const order = [
			'npm ci',
			'npm run lint',
			'npm run build',
			'npm run test:unit',
			'npm publish --provenance --access public',
		];
		expect(steps.filter((step) => order.includes(step))).toEqual(order);
		expect(packageJson.scripts['test:unit']).toMatch(/--selectProjects unit/);
	});
});

describe('the CI workflow', () => {
	const { workflow, steps } = readWorkflow('ci.yml');

	it('runs on pull requests and on pushes to main, on Node 20', () => {
		expect(workflow).toMatch(/on:\n\s+pull_request:\n\s+push:\n\s+branches:\n\s+- main\n/);
		expect(workflow).toMatch(/node-version: '20\.x'/);
	});

	it('installs from the lockfile, lints, builds and runs the unit tests', () => {
		expect(steps).toEqual(['npm ci', 'npm run lint', 'npm run build', 'npm run test:unit']);
	});
});

describe('benchmarks', () => {
	it('all run, at a small size (their figures come from npm run bench, not from here)', async () => {
		const { stdout } = await promisify(execFile)(
			process.execPath,
			['--expose-gc', '-r', 'ts-node/register/transpile-only', 'bench/run.ts'],
			{
				cwd: path.resolve(__dirname, '..'),
				env: { ...process.env, BENCH_SMOKE: '1' },
				maxBuffer: 16 * 2 ** 20,
			},
		);
		const lines = stdout.split('\n').filter((line) => /\d\.\d\dx/.test(line));
		expect(lines.length).toBeGreaterThanOrEqual(10);
		expect(stdout).toMatch(/per item: the node's own work \/ n8n's helper +\d+\.\d\dx/);
		// The comparison inside n8n runs in every pinned n8n that is installed (npm test installs both).
		for (const pin of N8N_PINS) {
			const pinned = pinnedN8n(pin);
			if (pinned.installed)
				expect(stdout).toContain(`in n8n ${pinned.version}, service 20 ms away`);
		}
	}, 900_000);
});

describe('the examples', () => {
	it('have workflow ids n8n 1.x keeps static data for (16 characters at most), so the trigger example works there', () => {
		const folder = path.resolve(__dirname, '..', 'examples');
		const ids = readdirSync(folder)
			.filter((file) => file.endsWith('.json'))
			.map(
				(file) => (JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as { id: string }).id,
			);
		expect(ids.length).toBeGreaterThan(0);
		for (const id of ids) expect(id.length).toBeLessThanOrEqual(16);
	});

	it('fill the AI agent\'s tool fields the way n8n\'s editor writes them, which it shows as "Defined automatically by the model", not as failing expressions', () => {
		const { nodes } = JSON.parse(
			readFileSync(path.resolve(__dirname, '..', 'examples', '4-ai-agent-tool.json'), 'utf8'),
		) as { nodes: INode[] };
		const tools = nodes.filter(
			(node) => node.type === 'n8n-nodes-content-publishing.contentPublishingTool',
		);
		const fields = (value: unknown): string[] =>
			typeof value === 'string'
				? value.includes('$fromAI')
					? [value]
					: []
				: value !== null && typeof value === 'object'
					? Object.values(value).flatMap(fields)
					: [];
		const asked = tools.map((tool) => {
			for (const field of fields(tool.parameters))
				expect(field.startsWith(`={{ ${FROM_AI_AUTO_GENERATED_MARKER} $fromAI(`)).toBe(true);
			const found: FromAIArgument[] = [];
			traverseNodeParameters(tool.parameters, found);
			return [tool.name, found.map(({ key, type }) => `${key}: ${type}`)];
		});
		expect(asked).toEqual([
			['Create draft post', ['Content: string', 'Title: string']],
			['Publish to LinkedIn', ['Post: string']],
		]);
	});
});
