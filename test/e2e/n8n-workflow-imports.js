// Run by the end-to-end suite with a pinned n8n's own Node.js, from the package as installed into
// that n8n's user folder, and with that n8n's node_modules on NODE_PATH: a community package's
// `require("n8n-workflow")` gets the host n8n's copy, whatever version the package was built with.
// Prints, as JSON, every name the built code reads from n8n-workflow and those this copy lacks.
'use strict';
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const packageDir = process.argv[2];
const files = readdirSync(path.join(packageDir, 'dist'), { recursive: true })
	.filter((file) => String(file).endsWith('.js'))
	.map((file) => path.join(packageDir, 'dist', String(file)));

const names = new Set();
const unrecognised = [];
for (const file of files) {
	const source = readFileSync(file, 'utf8');
	// tsc compiles `import { X } from 'n8n-workflow'` to `const n8n_workflow_1 = require("n8n-workflow")`
	// and every use to `n8n_workflow_1.X`; any other form could hide a name from this check.
	for (const line of source.split('\n').filter((text) => text.includes('n8n-workflow'))) {
		if (!/^const n8n_workflow_\d+ = require\("n8n-workflow"\);$/.test(line.trim()))
			unrecognised.push(`${file}: ${line.trim()}`);
	}
	for (const match of source.matchAll(/\bn8n_workflow_\d+\.([A-Za-z_$][\w$]*)/g))
		names.add(match[1]);
}

const resolved = require.resolve('n8n-workflow', { paths: [packageDir] });
const workflow = require(resolved);
let root = path.dirname(resolved);
while (path.basename(root) !== 'n8n-workflow') root = path.dirname(root);
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const { n8n } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
const loaded = [...n8n.nodes, ...n8n.credentials]
	.map((file) => {
		const exported = require(path.join(packageDir, file));
		return Object.values(exported).map((Type) => new Type().description?.name ?? new Type().name);
	})
	.flat();

process.stdout.write(
	JSON.stringify({
		version,
		resolved,
		names: [...names].sort(),
		missing: [...names].filter((name) => workflow[name] === undefined).sort(),
		unrecognised,
		loaded,
	}),
);
