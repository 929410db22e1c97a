import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { devNull } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// The project's .npmrc sets loglevel=error, so `npm ci` is quiet for a newcomer. What npm would
// warn about is checked here instead: the install `npm ci` makes from the lockfile, with warnings
// shown, offline, and without the user's own npm settings (only the project's count).

const ROOT = path.resolve(__dirname, '..');

// The one warning allowed: @n8n/node-cli brings isolated-vm (n8n-workflow 2.39's expression
// runtime), which declares Node.js 24. Install scripts are off (.npmrc), so it is never built,
// and nothing the project runs loads it (lint and `n8n-node cloud-support` pass on Node.js 20).
const ISOLATED_VM_ENGINE =
	/npm warn EBADENGINE Unsupported engine \{\nnpm warn EBADENGINE {3}package: 'isolated-vm@[^']+',\n(npm warn EBADENGINE .*\n)*?npm warn EBADENGINE \}\n/g;

describe('npm ci', () => {
	it('warns about nothing but the engine of a module nothing loads', async () => {
		const { stdout, stderr } = await promisify(execFile)(
			'npm',
			['ci', '--dry-run', '--offline', '--loglevel=warn', '--ignore-scripts'],
			{
				cwd: ROOT,
				// Not the npm settings of the command that started the tests (npm passes them on as
				// npm_config_* variables), nor the user's own file: only the project's .npmrc.
				env: {
					...Object.fromEntries(
						Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)),
					),
					npm_config_userconfig: devNull,
				},
				maxBuffer: 16 * 2 ** 20,
			},
		);
		const output = `${stderr}\n${stdout}`;
		expect(output).not.toMatch(/npm error/);
		const others = output
			.replace(ISOLATED_VM_ENGINE, '')
			.split('\n')
			.filter((line) => line.startsWith('npm warn'));
		expect(others).toEqual([]);
	}, 120_000);

	it('is told to stay quiet and skip install scripts', () => {
		const npmrc = readFileSync(path.join(ROOT, '.npmrc'), 'utf8');
		const settings = npmrc.split('\n').filter((line) => line && !line.startsWith('#'));
		expect(settings).toEqual(['ignore-scripts=true', 'loglevel=error', 'fund=false']);
	});
});
