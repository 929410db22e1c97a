/**
 * Whether dist/ was built from the sources as they are now, so that `npm start` builds only when
 * something changed. `npm run build` ends by writing the fingerprint of everything it reads (the
 * content of each file, not its time, so a checkout that restores older files is seen too); `npm
 * start` builds again when the fingerprint differs or the built nodes are missing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** Beside other tools' caches: git-ignored, and outside dist/, so never packed. */
export const BUILD_STAMP = path.join(
	ROOT,
	'node_modules',
	'.cache',
	'n8n-nodes-content-publishing',
	'build-inputs',
);

/** What the build reads: the package's sources and settings, and the fake service's document the output schemas come from. */
const INPUTS = [
	'nodes',
	'credentials',
	'package.json',
	'tsconfig.json',
	'tsconfig.build.json',
	'gulpfile.js',
	'scripts/output-schemas.ts',
	'test/fake-service',
];

function filesUnder(entry: string): string[] {
	const absolute = path.join(ROOT, entry);
	if (!existsSync(absolute)) return [];
	if (!statSync(absolute).isDirectory()) return [entry];
	return readdirSync(absolute, { recursive: true, withFileTypes: true })
		.filter((item) => item.isFile() && !item.name.endsWith('.test.ts'))
		.map((item) => path.relative(ROOT, path.join(item.parentPath, item.name)))
		.sort();
}

export function buildInputsFingerprint(): string {
	const hash = createHash('sha256');
	for (const file of INPUTS.flatMap(filesUnder))
		hash
			.update(`${file}\0`)
			.update(readFileSync(path.join(ROOT, file)))
			.update('\0');
	return hash.digest('hex');
}

/** The last step of `npm run build`. */
export function writeBuildStamp(): void {
	mkdirSync(path.dirname(BUILD_STAMP), { recursive: true });
	writeFileSync(BUILD_STAMP, buildInputsFingerprint());
}

/** Whether dist/ holds a build of the sources as they are. */
export function isBuilt(): boolean {
	const { n8n } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const built = [...n8n.nodes, ...n8n.credentials].every((file) =>
		existsSync(path.join(ROOT, file)),
	);
	return (
		built &&
		existsSync(BUILD_STAMP) &&
		readFileSync(BUILD_STAMP, 'utf8') === buildInputsFingerprint()
	);
}
