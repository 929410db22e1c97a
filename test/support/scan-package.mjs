// Runs n8n's package scanner (@n8n/scan-community-package) on a folder, the way n8n's verification
// runs it: its exported analyzePackage, with its own ESLint configuration (buildScanConfig), no
// project config and no inline comments. Prints {passed, message, errors} as JSON, errors being the
// rule ids of the errors by file relative to the folder.
// Usage: node scan-package.mjs <folder> source|tarball
// An ES module of its own, as the scanner is one and jest runs the tests as CommonJS.
import path from 'node:path';

import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

// What analyzePackageByName passes for each leg (test/community-checks.test.ts checks that it still does).
const PATTERNS = { source: SOURCE_FILE_PATTERNS, tarball: ['**/*.js', 'package.json'] };

const [folder, leg] = process.argv.slice(2);
if (!folder || !(leg in PATTERNS))
	throw new Error('Usage: node scan-package.mjs <folder> source|tarball');

const result = await analyzePackage(path.resolve(folder), PATTERNS[leg]);

// The scanner reports only ESLint's "stylish" text: a line with a file's absolute path, then one
// line per problem ending in its rule id.
const errors = {};
let file;
for (const line of (result.details ?? '').split('\n')) {
	if (line.startsWith('/')) file = path.relative(path.resolve(folder), line.trim());
	const problem = /^\s+\d+:\d+\s+error\s+.*\s(\S+)\s*$/.exec(line);
	if (problem && file) (errors[file] ??= []).push(problem[1]);
}
process.stdout.write(
	`${JSON.stringify({ passed: result.passed, message: result.message, errors })}\n`,
);
