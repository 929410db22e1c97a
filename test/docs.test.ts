import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The README and docs/ name this repository's files; these tests keep every such name true.
//
// What counts as a file path, by rule:
// - every relative Markdown link (`[text](docs/waiting.md#anchor)`), resolved against the file it is
//   in, its #anchor against the target's headings and `<a id>`s;
// - every word in backticks or in a code block whose first segment is a top-level folder git tracks
//   (`nodes/`, `test/`, `examples/`, `.github/`, …) or `dist/`, which `npm run build` makes (npm test
//   and test:unit build before jest runs). A word starting elsewhere (`~/.n8n/…`, `.n8n-local/…`,
//   n8n's own `docker/images/…`) is not this repository's file and is not checked;
// - every entry of a code block marked `tree` (the code's layout), each indented entry under the
//   folder above it;
// - `<placeholder>` in a path stands for any name in that place (`<resource>/<operation>.json`).

const ROOT = path.resolve(__dirname, '..');
const README_LIMIT_BYTES = 30 * 1024;

const documents = [
	'README.md',
	...readdirSync(path.join(ROOT, 'docs'))
		.filter((file) => file.endsWith('.md'))
		.map((file) => `docs/${file}`),
];

const trackedTopFolders = new Set(
	execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
		.split('\n')
		.filter((file) => file.includes('/'))
		.map((file) => file.split('/')[0]),
);
const checkedTopFolders = new Set([...trackedTopFolders, 'dist']);

interface Markdown {
	/** The text outside code blocks. */
	prose: string;
	blocks: Array<{ info: string; text: string }>;
}

function splitMarkdown(text: string): Markdown {
	const prose: string[] = [];
	const blocks: Markdown['blocks'] = [];
	let block: { info: string; lines: string[] } | undefined;
	for (const line of text.split('\n')) {
		const fence = /^```(.*)$/.exec(line);
		if (fence && !block) block = { info: fence[1].trim(), lines: [] };
		else if (fence && block) {
			blocks.push({ info: block.info, text: block.lines.join('\n') });
			block = undefined;
		} else if (block) block.lines.push(line);
		else prose.push(line);
	}
	return { prose: prose.join('\n'), blocks };
}

/** The anchors GitHub gives a file's headings, and its explicit `<a id>`s. */
function anchorsOf(text: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const line of splitMarkdown(text).prose.split('\n')) {
		const heading = /^#{1,6}\s+(.*)$/.exec(line);
		if (heading) {
			const slug = heading[1]
				.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
				.toLowerCase()
				.replace(/[^\p{L}\p{N} _-]/gu, '')
				.replace(/ /g, '-');
			const count = seen.get(slug) ?? 0;
			seen.set(slug, count + 1);
			anchors.add(count === 0 ? slug : `${slug}-${count}`);
		}
		for (const match of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
	}
	return anchors;
}

/** Whether a repository path exists, `<placeholder>` segments standing for any name. */
function pathExists(relative: string): boolean {
	const segments = relative.replace(/\/$/, '').split('/');
	let candidates = [ROOT];
	for (const segment of segments) {
		if (!segment.includes('<')) {
			candidates = candidates
				.map((folder) => path.join(folder, segment))
				.filter((candidate) => existsSync(candidate));
			continue;
		}
		const pattern = new RegExp(
			`^${segment
				.split(/<[^>]+>/)
				.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
				.join('.+')}$`,
		);
		candidates = candidates.flatMap((folder) =>
			statSync(folder).isDirectory()
				? readdirSync(folder)
						.filter((name) => pattern.test(name))
						.map((name) => path.join(folder, name))
				: [],
		);
	}
	return candidates.length > 0;
}

/** Words that name a file of this repository: first segment a checked top-level folder. */
function repositoryPaths(text: string): string[] {
	return text
		.split(/[\s,;()]+/)
		.map((word) => word.replace(/[.:]+$/, ''))
		.filter((word) => word.includes('/') && checkedTopFolders.has(word.split('/')[0]));
}

/** The entries of a `tree` block: each indented entry is under the nearest folder above it. */
function treePaths(tree: string): string[] {
	const paths: string[] = [];
	const folders: Array<{ indent: number; path: string }> = [];
	for (const line of tree.split('\n')) {
		if (!line.trim()) continue;
		const indent = line.length - line.trimStart().length;
		while (folders.length > 0 && folders[folders.length - 1].indent >= indent) folders.pop();
		const parent = folders.length > 0 ? folders[folders.length - 1].path : '';
		// Entries come first, separated by ", " or by two spaces; a description follows them.
		const [first, ...rest] = line.trim().split(/ {2,}/);
		const entries = first.split(', ');
		for (const chunk of rest) {
			if (!/^[\w.<>-]*[./][\w.<>/-]*$/.test(chunk)) break;
			entries.push(chunk);
		}
		for (const entry of entries) {
			paths.push(parent + entry);
			if (entry.endsWith('/') && entries.length === 1)
				folders.push({ indent, path: parent + entry });
		}
	}
	return paths;
}

/** Every repository path a Markdown text names, by the rules above. */
function namedPaths(text: string): string[] {
	const { prose, blocks } = splitMarkdown(text);
	return [
		...[...prose.matchAll(/`([^`\n]+)`/g)].flatMap((match) => repositoryPaths(match[1])),
		...blocks.flatMap((block) =>
			block.info === 'tree' ? treePaths(block.text) : repositoryPaths(block.text),
		),
	];
}

describe.each(documents)('%s', (document) => {
	const text = readFileSync(path.join(ROOT, document), 'utf8');
	const { prose } = splitMarkdown(text);

	it('names only files and folders that exist', () => {
		expect(namedPaths(text).filter((name) => !pathExists(name))).toEqual([]);
	});

	it('links only to files and anchors that exist', () => {
		const broken: string[] = [];
		for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
			if (/^[a-z]+:/i.test(target)) continue;
			const [file, anchor] = target.split('#');
			const resolved = file
				? path.join(path.dirname(path.join(ROOT, document)), decodeURIComponent(file))
				: path.join(ROOT, document);
			if (!existsSync(resolved)) broken.push(target);
			else if (anchor && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
				broken.push(target);
		}
		expect(broken).toEqual([]);
	});
});

describe('the README', () => {
	it('is short enough to read in a few minutes, with the reference in docs/', () => {
		expect(statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_LIMIT_BYTES);
	});

	it('links to every file in docs/', () => {
		const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
		const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]));
		expect(
			documents.filter((document) => document.startsWith('docs/') && !linked.has(document)),
		).toEqual([]);
	});
});

describe('the rules of these checks', () => {
	it('find a file that is not there, a placeholder that matches nothing and a broken anchor', () => {
		const development = namedPaths(readFileSync(path.join(ROOT, 'docs/development.md'), 'utf8'));
		expect(development).toContain('nodes/shared/profile/builtIn.ts');
		expect(development).toContain('nodes/shared/transport/pacing.ts');
		expect(pathExists('nodes/ContentPublishing/transport/endpoints.ts')).toBe(false);
		expect(pathExists('nodes/shared/profile/builtIn.ts')).toBe(true);
		expect(pathExists('nodes/ContentPublishing/actions/<resource>/<file>.ts')).toBe(true);
		expect(pathExists('nodes/ContentPublishing/actions/<resource>/<operation>.missing.ts')).toBe(
			false,
		);
		expect(repositoryPaths('see `~/.n8n/nodes` and docker/images/n8n/Dockerfile')).toEqual([]);
		expect(
			treePaths(
				'nodes/shared/  code\n  contract/  shapes\n    a.ts, b.ts   two\nscripts/start.ts  npm start',
			),
		).toEqual([
			'nodes/shared/',
			'nodes/shared/contract/',
			'nodes/shared/contract/a.ts',
			'nodes/shared/contract/b.ts',
			'scripts/start.ts',
		]);
		expect(anchorsOf("## Waiting for the service's event\n## `npm start` in detail")).toEqual(
			new Set(['waiting-for-the-services-event', 'npm-start-in-detail']),
		);
	});
});
