/**
 * Trims a public OpenAPI 3.x document to a test fixture: the chosen operations with their
 * parameters, request body and success responses, and every component they reference, transitively.
 *
 *   node scripts/trim-openapi.mjs <source.json> <fixture.json> ['get /path' ...]
 *
 * Without operations it takes those listed for the fixture's file in expected.json beside it: its
 * lists, for each of its `decisions` the resource's read and its update, each of its `jobs`' read
 * and each of its `webhooks`' registration.
 * To keep fixtures small it drops `x-` extensions and examples, and replaces a schema reached only
 * through more than MAX_SCHEMA_HOPS `$ref`s from the response with `{ "type": "object" }`; names,
 * types, formats and descriptions are left as the API's owner wrote them. A schema the test needs
 * must therefore be within MAX_SCHEMA_HOPS; test/public-openapi.fixtures.test.ts checks that every
 * location in expected.json is still described. A `$ref` into another operation (left by some
 * bundlers) is replaced by a copy of what it names, and a `pattern` that is not an ECMA-262
 * regular expression is dropped; the output names such patterns.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const MAX_SCHEMA_HOPS = Number(process.env.MAX_SCHEMA_HOPS ?? 4);

/** Keys whose value is a map from names (properties, headers, media types …) to objects. */
const NAME_MAPS = new Set([
	'properties',
	'patternProperties',
	'$defs',
	'definitions',
	'headers',
	'content',
	'responses',
	'encoding',
	'links',
	'variables',
]);
/** Keys whose value is data, copied as it is (a discriminator's mapping holds `$ref` strings). */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'mapping', 'required']);
const DROPPED_KEYS = new Set(['example', 'examples']);

const [source, target, ...operationArgs] = process.argv.slice(2);
if (!source || !target) {
	console.error(
		"usage: node scripts/trim-openapi.mjs <source.json> <fixture.json> ['get /path' ...]",
	);
	process.exit(2);
}
const doc = JSON.parse(readFileSync(source, 'utf8'));
const operations = operationArgs.length
	? operationArgs.map((text) => text.split(/\s+/))
	: operationsFromExpected(target);

/**
 * JSON Schema patterns are ECMA-262 regular expressions; one written for another engine (Linode's
 * `\A...\Z`) makes the document invalid, so it is dropped (and named in the script's output).
 */
const droppedPatterns = new Set();
function isEcmaPattern(value) {
	if (typeof value !== 'string') return true;
	try {
		new RegExp(value, 'u');
		return true;
	} catch {
		return false;
	}
}

/** The value a local JSON pointer (`#/...`, percent-encoded as in a URI fragment) names. */
function pointed(ref) {
	return ref
		.slice(2)
		.split('/')
		.map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'))
		.reduce((at, segment) => at?.[segment], doc);
}

/**
 * Some bundlers point a repeated part at its first use inside another operation
 * (`#/paths/~1v2~1...`) instead of a component; that operation is not kept, so the part is copied
 * in place. A pointer into a schema counts as a schema hop, and a cycle is cut like a deep schema.
 */
let inlinedCut = 0;
function inlined(ref, trail) {
	const hops = trail.hops + (/\/schema(\/|$)/.test(ref) ? 1 : 0);
	if (trail.refs.includes(ref) || hops > MAX_SCHEMA_HOPS) {
		inlinedCut += 1;
		return { type: 'object' };
	}
	const target = pointed(ref);
	if (target === undefined) throw new Error(`${source}: ${ref} points at nothing`);
	return clean(target, false, { hops, refs: [...trail.refs, ref] });
}

/** A deep copy without extensions and examples; `inNameMap` means the keys are names, not keywords. */
function clean(node, inNameMap = false, trail = { hops: 0, refs: [] }) {
	if (Array.isArray(node)) return node.map((value) => clean(value, false, trail));
	if (node === null || typeof node !== 'object') return node;
	if (!inNameMap && typeof node.$ref === 'string' && !node.$ref.startsWith('#/components/'))
		return inlined(node.$ref, trail);
	const copy = {};
	for (const [key, value] of Object.entries(node)) {
		if (!inNameMap && (key.startsWith('x-') || DROPPED_KEYS.has(key))) continue;
		if (!inNameMap && key === 'pattern' && !isEcmaPattern(value)) {
			droppedPatterns.add(value);
			continue;
		}
		if (!inNameMap && DATA_KEYS.has(key)) copy[key] = structuredClone(value);
		else copy[key] = clean(value, !inNameMap && NAME_MAPS.has(key), trail);
	}
	return copy;
}

function operationsFromExpected(fixture) {
	const expected = JSON.parse(
		readFileSync(path.join(path.dirname(fixture), 'expected.json'), 'utf8'),
	);
	const entry = expected.find((api) => api.file === path.basename(fixture));
	if (!entry) throw new Error(`expected.json lists no API with file ${path.basename(fixture)}`);
	return [
		...entry.lists.map((list) => [list.method, list.path]),
		...(entry.decisions ?? []).flatMap((decision) => [
			['get', decision.path],
			[decision.update, decision.path],
		]),
		...(entry.jobs ?? []).map((job) => ['get', job.path]),
		...(entry.webhooks ?? []).map((webhook) => [webhook.method, webhook.path]),
	];
}

/** "#/components/schemas/Foo/properties/bar" → ["schemas", "Foo"]. */
function componentOf(ref) {
	const match = /^#\/components\/([^/]+)\/([^/]+)/.exec(ref);
	if (!match) throw new Error(`unsupported $ref ${ref}: only #/components/... is handled`);
	return [match[1], match[2].replace(/~1/g, '/').replace(/~0/g, '~')];
}

const isDiscriminator = (key, value) =>
	key === 'discriminator' && typeof value?.propertyName === 'string';

/** A component's kind and name joined by a newline, which neither can contain. */
const keyOf = (ref) => componentOf(ref).join('\n');

function refsIn(node, found = []) {
	if (Array.isArray(node)) node.forEach((value) => refsIn(value, found));
	else if (node && typeof node === 'object') {
		for (const [key, value] of Object.entries(node)) {
			if (key === '$ref' && typeof value === 'string') found.push(value);
			else if (isDiscriminator(key, value)) found.push(...Object.values(value.mapping ?? {}));
			else refsIn(value, found);
		}
	}
	return found;
}

const trimmed = {
	openapi: doc.openapi,
	info: { title: doc.info.title, version: doc.info.version },
};
if (doc.info.license) trimmed.info.license = doc.info.license;
if (doc.servers) trimmed.servers = clean(doc.servers);
trimmed.paths = {};

for (const [method, route] of operations) {
	const item = doc.paths?.[route];
	const operation = item?.[method.toLowerCase()];
	if (!operation) throw new Error(`${source} has no ${method} ${route}`);
	const pathItem = (trimmed.paths[route] ??= {});
	if (item.servers) pathItem.servers = clean(item.servers);
	if (item.parameters) pathItem.parameters = clean(item.parameters);
	const copy = {};
	for (const key of ['operationId', 'summary', 'description', 'parameters', 'requestBody']) {
		if (operation[key] !== undefined) copy[key] = clean(operation[key]);
	}
	copy.responses = {};
	for (const [status, response] of Object.entries(operation.responses ?? {})) {
		if (!/^2/.test(status)) continue;
		const { $ref, description, headers, content } = response;
		copy.responses[status] = clean($ref ? { $ref } : { description, headers, content });
	}
	pathItem[method.toLowerCase()] = copy;
}

// Hops count schema references only (a shared response or parameter is still the response), and
// each component gets the fewest hops it can be reached in: breadth first over schema hops, with
// the other components expanded at the hop they were reached in.
const hops = new Map();
const dangling = new Set();
let frontier = refsIn(trimmed.paths);
for (let depth = 0; frontier.length; depth += 1) {
	const next = [];
	while (frontier.length) {
		const ref = frontier.pop();
		const key = keyOf(ref);
		const [kind, name] = componentOf(ref);
		const hop = kind === 'schemas' ? depth + 1 : depth;
		if (hops.has(key) && hops.get(key) <= hop) continue;
		hops.set(key, hop);
		const component = doc.components?.[kind]?.[name];
		if (component === undefined) {
			// A schema the owner's document references but never defines is cut like a deep one.
			if (kind !== 'schemas') throw new Error(`${source}: ${ref} points at nothing`);
			dangling.add(key);
			continue;
		}
		(kind === 'schemas' ? next : frontier).push(...refsIn(clean(component)));
	}
	frontier = next;
}
const kept = (key) =>
	!key.startsWith('schemas\n') || (!dangling.has(key) && hops.get(key) <= MAX_SCHEMA_HOPS);

function cutMapping(discriminator) {
	if (!discriminator.mapping) return discriminator;
	const mapping = Object.entries(discriminator.mapping).filter(([, ref]) => kept(keyOf(ref)));
	return { ...discriminator, mapping: Object.fromEntries(mapping) };
}

function cutDeepRefs(node) {
	if (Array.isArray(node)) return node.map(cutDeepRefs);
	if (!node || typeof node !== 'object') return node;
	if (typeof node.$ref === 'string' && !kept(keyOf(node.$ref))) return { type: 'object' };
	const copy = {};
	for (const [key, value] of Object.entries(node)) {
		copy[key] = isDiscriminator(key, value) ? cutMapping(value) : cutDeepRefs(value);
	}
	return copy;
}

trimmed.paths = cutDeepRefs(trimmed.paths);
const components = {};
for (const key of [...hops.keys()].filter(kept).sort()) {
	const [kind, name] = key.split('\n');
	(components[kind] ??= {})[name] = cutDeepRefs(clean(doc.components[kind][name]));
}
if (Object.keys(components).length) trimmed.components = components;

/** One line per operation and per component: small, and still a readable diff when redone. */
function layout(value, depth = 0) {
	if (depth === 3 || !value || typeof value !== 'object' || Array.isArray(value))
		return JSON.stringify(value);
	const indent = '\t'.repeat(depth + 1);
	const lines = Object.entries(value).map(
		([key, inner]) => `${indent}${JSON.stringify(key)}: ${layout(inner, depth + 1)}`,
	);
	return lines.length ? `{\n${lines.join(',\n')}\n${'\t'.repeat(depth)}}` : '{}';
}

writeFileSync(target, layout(trimmed) + '\n');
const cut = [...hops.keys()].filter((key) => !kept(key)).length;
console.log(
	`${target}: ${operations.length} operations, ${hops.size - cut} components kept, ${cut} cut` +
		(inlinedCut ? `, ${inlinedCut} copied-in parts cut` : '') +
		(droppedPatterns.size ? `, patterns dropped: ${[...droppedPatterns].join(' ; ')}` : '') +
		(dangling.size
			? ` (${dangling.size} referenced but undefined: ${[...dangling].join(', ').replace(/\n/g, '/')})`
			: ''),
);
