/**
 * n8n's own checks of a community package, run as n8n runs them: its package scanner
 * (@n8n/scan-community-package, what n8n's verification runs) on the source and on the packed
 * tarball, and `n8n-node cloud-support` (@n8n/node-cli), each beside a copy with planted faults.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..');
const SCANNER = path.join(ROOT, 'node_modules', '@n8n', 'scan-community-package');

interface ScanResult {
	passed: boolean;
	message?: string;
	/** Rule ids of the errors, by file relative to the scanned folder. */
	errors: Record<string, string[]>;
}

// A scan lints the whole package in a process of its own, and cloud-support runs n8n's CLI: 5 s
// on an idle machine, up to 39 s on 2 cores under load (load 10), so each test that runs them (and
// the packing before the scans) may take this long.
const CHECK_TIMEOUT_MS = 240_000;

let work: string;

beforeAll(() => {
	work = mkdtempSync(path.join(tmpdir(), 'cp-community-checks-'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("n8n's package scanner", () => {
	/** Runs the scanner's analyzePackage on a folder, in its own process (it is an ES module). */
	async function scan(folder: string, leg: 'source' | 'tarball'): Promise<ScanResult> {
		// The scanner makes a temporary folder when loaded and leaves it: keep it in ours.
		const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TMPDIR: work };
		// Jest sets NODE_ENV=test, under which eslint-plugin-n8n-nodes-base reads file names as its
		// own tests need; n8n's verification does not set it.
		delete env.NODE_ENV;
		const { stdout } = await promisify(execFile)(
			process.execPath,
			[path.join(__dirname, 'support', 'scan-package.mjs'), folder, leg],
			{
				cwd: ROOT,
				env,
				maxBuffer: 16 * 2 ** 20,
			},
		);
		return JSON.parse(stdout) as ScanResult;
	}

	// The scans run one after another: started together, they shared the cores and the first test
	// waited for all four.
	let tarball: string;
	let plantedSource: string;
	let plantedTarball: string;

	beforeAll(() => {
		const [pack] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
				cwd: ROOT,
				encoding: 'utf8',
			}),
		) as Array<{ filename: string }>;
		execFileSync('tar', ['-xzf', path.join(work, pack.filename), '-C', work]);
		tarball = path.join(work, 'package');

		// The source as n8n fetches it holds what the scanner lints: package.json, nodes/, credentials/.
		plantedSource = path.join(work, 'source-planted');
		for (const entry of ['package.json', 'nodes', 'credentials'])
			cpSync(path.join(ROOT, entry), path.join(plantedSource, entry), { recursive: true });
		const publication = path.join(
			plantedSource,
			'nodes',
			'ContentPublishing',
			'actions',
			'publication',
			'index.ts',
		);
		const action = "action: 'Publish to linkedin',";
		const source = readFileSync(publication, 'utf8');
		expect(source).toContain(action);
		// The former action, under a disable comment the scanner must ignore.
		writeFileSync(
			publication,
			source.replace(
				action,
				"// eslint-disable-next-line n8n-nodes-base/node-param-operation-option-action-miscased\n\t\t\t\taction: 'Publish to LinkedIn',",
			),
		);
		appendFileSync(
			path.join(plantedSource, 'credentials', 'ContentPublishingApi.credentials.ts'),
			"\nconsole.log('planted');\n",
		);

		plantedTarball = path.join(work, 'package-planted');
		cpSync(tarball, plantedTarball, { recursive: true });
		const manifest = JSON.parse(
			readFileSync(path.join(plantedTarball, 'package.json'), 'utf8'),
		) as Record<string, unknown>;
		writeFileSync(
			path.join(plantedTarball, 'package.json'),
			JSON.stringify({ ...manifest, overrides: { xlsx: '0.18.5' } }, null, 2),
		);
		appendFileSync(
			path.join(plantedTarball, 'dist', 'nodes', 'shared', 'sleep.js'),
			'\nsetTimeout(() => undefined, 1);\n',
		);
	}, CHECK_TIMEOUT_MS);

	it('is the pinned version, run as n8n runs it: its own config, no inline comments, the source and the tarball', () => {
		expect(JSON.parse(readFileSync(path.join(SCANNER, 'package.json'), 'utf8')).version).toBe(
			'0.32.0',
		);
		const scanner = readFileSync(path.join(SCANNER, 'scanner', 'scanner.mjs'), 'utf8');
		for (const wiring of [
			'allowInlineConfig: false',
			'overrideConfigFile: true',
			'overrideConfig: await buildScanConfig()',
			"export const SOURCE_FILE_PATTERNS = ['package.json', '{nodes,credentials}/**/*.{js,ts,json}'];",
			'analyzePackage(sourceDir, SOURCE_FILE_PATTERNS)',
			"analyzePackage(packageDir, ['**/*.js', 'package.json'])",
		]) {
			expect(scanner).toContain(wiring);
		}
	});

	it(
		'passes the source',
		async () => {
			expect(await scan(ROOT, 'source')).toEqual({ passed: true, errors: {} });
		},
		CHECK_TIMEOUT_MS,
	);

	it(
		'passes the packed tarball',
		async () => {
			expect(await scan(tarball, 'tarball')).toEqual({ passed: true, errors: {} });
		},
		CHECK_TIMEOUT_MS,
	);

	it(
		'reports faults planted in a copy of the source, disable comments notwithstanding',
		async () => {
			expect(await scan(plantedSource, 'source')).toEqual({
				passed: false,
				message: 'ESLint violations found',
				errors: {
					'nodes/ContentPublishing/actions/publication/index.ts': [
						'n8n-nodes-base/node-param-operation-option-action-miscased',
					],
					'credentials/ContentPublishingApi.credentials.ts': ['no-console'],
				},
			});
		},
		CHECK_TIMEOUT_MS,
	);

	it(
		'reports faults planted in a copy of the tarball',
		async () => {
			expect(await scan(plantedTarball, 'tarball')).toEqual({
				passed: false,
				message: 'ESLint violations found',
				errors: {
					'package.json': ['@n8n/community-nodes/no-overrides-field'],
					'dist/nodes/shared/sleep.js': ['@n8n/community-nodes/no-restricted-globals'],
				},
			});
		},
		CHECK_TIMEOUT_MS,
	);
});

describe('n8n-node cloud-support', () => {
	/** The status line of `n8n-node cloud-support` run in a folder. */
	function cloudSupportStatus(folder: string): string {
		const output = execFileSync(
			path.join(ROOT, 'node_modules', '.bin', 'n8n-node'),
			['cloud-support'],
			{
				cwd: folder,
				encoding: 'utf8',
				env: { ...process.env, NO_COLOR: '1' },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		return /Status: (.*?) for n8n Cloud verification/.exec(output)?.[1] ?? output;
	}

	it(
		'reports the package eligible for n8n Cloud',
		() => {
			expect(cloudSupportStatus(ROOT)).toBe('eligible');
		},
		CHECK_TIMEOUT_MS,
	);

	it(
		'would not with an eslint.config.mjs of its own, or without strict mode',
		() => {
			const configured = path.join(work, 'own-config');
			cpSync(path.join(ROOT, 'package.json'), path.join(configured, 'package.json'));
			cpSync(path.join(ROOT, 'eslint.config.mjs'), path.join(configured, 'eslint.config.mjs'));
			expect(cloudSupportStatus(configured)).toBe('eligible');
			appendFileSync(
				path.join(configured, 'eslint.config.mjs'),
				"export const ignores = ['test/**'];\n",
			);
			expect(cloudSupportStatus(configured)).toBe('NOT eligible');

			const lax = path.join(work, 'not-strict');
			cpSync(path.join(ROOT, 'eslint.config.mjs'), path.join(lax, 'eslint.config.mjs'));
			const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
				n8n: Record<string, unknown>;
			};
			writeFileSync(
				path.join(lax, 'package.json'),
				JSON.stringify({ ...manifest, n8n: { ...manifest.n8n, strict: false } }),
			);
			expect(cloudSupportStatus(lax)).toBe('NOT eligible');
		},
		CHECK_TIMEOUT_MS,
	);
});
