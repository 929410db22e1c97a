/**
 * `npm run structure`: the package's layers as figures. Product lines (the .ts under nodes/ and
 * credentials/), test tooling lines (the .ts under test/ that are not tests, fixtures aside), import
 * cycles among the product's files, files that import a layer above theirs (the transport from
 * profile/ or executor/, the profile from executor/),
 * and product files that import the transport although they are neither the executor nor an entry
 * point (a node's `.node.ts`, the credential's `.credentials.ts`): the nodes reach the service
 * through the executor only. test/structure.test.ts holds the layers to this.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const TRANSPORT = 'nodes/shared/transport/';
/** Each layer below the executor, and what it must not import. */
const BELOW: Array<[string, RegExp]> = [
	[TRANSPORT, /^nodes\/shared\/(profile|executor)\//],
	['nodes/shared/profile/', /^nodes\/shared\/executor\//],
];
/** Files that may import the transport besides the transport's own. */
const MAY_IMPORT_TRANSPORT = [
	/^nodes\/shared\/executor\//,
	/^nodes\/[^/]+\/[^/]+\.node\.ts$/,
	/^credentials\/[^/]+\.credentials\.ts$/,
];

export interface Structure {
	productLines: number;
	toolingLines: number;
	/** Each cycle as the files in it. */
	cycles: string[][];
	/** Transport files that import from profile/ or executor/, profile files from executor/. */
	upward: string[];
	/** Other files that import the transport. */
	outsiders: string[];
}

/** The .ts files below `dir` (relative to `root`), node_modules and fixtures left out. */
function filesBelow(root: string, dir: string): string[] {
	const at = join(root, dir);
	if (!existsSync(at)) return [];
	return readdirSync(at, { withFileTypes: true }).flatMap((entry) => {
		const path = `${dir}/${entry.name}`;
		if (entry.isDirectory())
			return ['node_modules', 'fixtures'].includes(entry.name) ? [] : filesBelow(root, path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

const linesOf = (root: string, files: string[]) =>
	files.reduce(
		(sum, file) => sum + readFileSync(join(root, file), 'utf8').split('\n').length - 1,
		0,
	);

/** The product files a file imports by a relative path. */
function importsOf(root: string, file: string): string[] {
	const text = readFileSync(join(root, file), 'utf8');
	return [...text.matchAll(/(?:import|export)[^;]*?from\s+["'](\.[^"']+)["']/g)].flatMap(
		([, specifier]) => {
			const target = resolve(root, dirname(file), specifier);
			const found = [`${target}.ts`, join(target, 'index.ts')].find((path) => existsSync(path));
			return found === undefined ? [] : [relative(root, found).split('\\').join('/')];
		},
	);
}

/** The strongly connected components of more than one file (Tarjan's algorithm). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const cycles: string[][] = [];
	const visit = (file: string) => {
		index.set(file, index.size);
		low.set(file, index.get(file) as number);
		stack.push(file);
		for (const next of graph.get(file) ?? []) {
			if (!index.has(next)) visit(next);
			if (stack.includes(next))
				low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
		}
		if (low.get(file) !== index.get(file)) return;
		const component = stack.splice(stack.indexOf(file));
		if (component.length > 1) cycles.push(component);
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return cycles;
}

export function measure(root = process.cwd()): Structure {
	const product = [...filesBelow(root, 'nodes'), ...filesBelow(root, 'credentials')];
	const tooling = filesBelow(root, 'test').filter((file) => !file.endsWith('.test.ts'));
	const graph = new Map(product.map((file) => [file, importsOf(root, file)]));
	/** The files that import what `forbidden` says they must not. */
	const breaking = (forbidden: (file: string) => RegExp | undefined) =>
		[...graph]
			.filter(([file, targets]) => targets.some((to) => forbidden(file)?.test(to)))
			.map(([file]) => file);
	return {
		productLines: linesOf(root, product),
		toolingLines: linesOf(root, tooling),
		cycles: cyclesOf(graph),
		upward: breaking((file) => BELOW.find(([layer]) => file.startsWith(layer))?.[1]),
		outsiders: breaking((file) =>
			file.startsWith(TRANSPORT) || MAY_IMPORT_TRANSPORT.some((may) => may.test(file))
				? undefined
				: /^nodes\/shared\/transport\//,
		),
	};
}

export function summary({ productLines, toolingLines, cycles, outsiders }: Structure): string {
	return `structure: product ${productLines} lines, test tooling ${toolingLines} lines, import cycles ${cycles.length}, files importing shared/transport besides the executor and the nodes' entry points: ${outsiders.length}`;
}

if (require.main === module) {
	const found = measure();
	const list = (title: string, files: string[]) =>
		files.length === 0 ? '' : `\n${title}:\n${files.map((file) => `  ${file}`).join('\n')}`;
	process.stdout.write(
		`${summary(found)}${list(
			'cycles',
			found.cycles.map((cycle) => cycle.join(' -> ')),
		)}${list('files importing a layer above theirs', found.upward)}${list('files importing shared/transport', found.outsiders)}\n`,
	);
}
