import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('published package', () => {
	it('has no runtime dependencies and only n8n-workflow as a peer', () => {
		expect(packageJson.dependencies).toBeUndefined();
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(packageJson.keywords).toContain('n8n-community-node-package');
		expect(packageJson.author).toEqual({ name: expect.any(String), email: expect.stringContaining('@') });
	});

	it('declares built files that exist', () => {
		expect(packageJson.n8n.n8nNodesApiVersion).toBe(1);
		for (const file of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials]) {
			expect(existsSync(path.join(ROOT, file))).toBe(true);
		}
	});

	it('packs only dist, README, LICENSE and package.json', () => {
		const [pack] = JSON.parse(
			execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' }),
		) as Array<{ files: Array<{ path: string }> }>;
		const files = pack.files.map((file) => file.path);
		expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
		for (const icon of ['dist/nodes/ContentPublishing/contentPublishing.svg', 'dist/nodes/ContentPublishing/contentPublishing.dark.svg', 'dist/credentials/contentPublishing.svg', 'dist/credentials/contentPublishing.dark.svg', 'dist/nodes/ContentPublishing/ContentPublishing.node.json']) {
			expect(files).toContain(icon);
		}
		expect(files.some((file) => file.includes('test/') || file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(false);
	});
});
