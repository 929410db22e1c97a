import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The Debian packages the end-to-end tests run (a fresh CI machine has none of them), installed
 * once, in one apt-get, by the e2e global setup before any test file runs: two test files each
 * running apt-get at the same time meet dpkg's lock, and one of them fails.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const REDIS_SERVER = '/usr/bin/redis-server';

export function postgresBin(): string | undefined {
	const root = '/usr/lib/postgresql';
	const version = existsSync(root)
		? readdirSync(root).sort((a, b) => Number(b) - Number(a))[0]
		: undefined;
	return version && existsSync(path.join(root, version, 'bin', 'initdb'))
		? path.join(root, version, 'bin')
		: undefined;
}

/** Installs whichever of the packages are missing, waiting for another apt-get's lock rather than failing on it. */
export function ensureDebianPackages(): void {
	const missing = [
		[CHROMIUM, 'chromium'],
		[REDIS_SERVER, 'redis-server'],
		[postgresBin(), 'postgresql'],
	]
		.filter(([found]) => found === undefined || !existsSync(found))
		.map(([, debianPackage]) => debianPackage as string);
	if (missing.length === 0) return;
	const apt = (args: string[]) =>
		execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], { stdio: 'pipe' });
	apt(['update']);
	apt(['install', '-y', '--no-install-recommends', ...missing]);
}
