/**
 * `npm run profile -- --base-url <url>`: the profile the node reads for a service, as Service →
 * Describe shows it in n8n: a line per decision, or the profile itself with `--json`. The API key
 * comes from CONTENT_PUBLISHING_API_KEY (never a flag: it would stay in the shell's history), the
 * Profile Overrides, where given, from a file (`--overrides <file>`), as in the credential.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { parseJson } from '../nodes/shared/json';
import { BUILT_IN_PROFILE } from '../nodes/shared/profile/builtIn';
import { describeProfile } from '../nodes/shared/profile/describe';
import { applyOverrides, checkOverrides } from '../nodes/shared/profile/overrides';
import { readProfile } from '../nodes/shared/profile/read';
import { isOpenApiDocument } from '../nodes/shared/profile/read/document';
import type { Profile } from '../nodes/shared/profile/types';
import { normalizeBaseUrl } from '../nodes/shared/transport/credentials';
import { DOCUMENT_PATH } from '../nodes/shared/transport/profiles';

const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

async function serviceProfile(baseUrl: string, apiKey: string): Promise<Profile> {
	const where = `${baseUrl}${DOCUMENT_PATH}`;
	const builtIn = (why: string): Profile => ({
		...BUILT_IN_PROFILE,
		notFollowed: [{ part: 'the whole document', why }],
	});
	const answer = await fetch(where, {
		headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
		signal: AbortSignal.timeout(15_000),
	});
	if (!answer.ok) return builtIn(`${where} answered HTTP ${answer.status}`);
	const text = await answer.text();
	if (text.length > MAX_DOCUMENT_BYTES) return builtIn(`${where} is larger than 16 MB`);
	const document = await parseJson(text, {
		maxLength: MAX_DOCUMENT_BYTES,
		maxDepth: 256,
		maxValues: 4_000_000,
		maxMembers: 10_000,
	}).catch(() => undefined);
	if (!isOpenApiDocument(document))
		return builtIn(`${where} is not an OpenAPI 3.0 or 3.1 document`);
	return await readProfile(document, where);
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			'base-url': { type: 'string' },
			overrides: { type: 'string' },
			json: { type: 'boolean', default: false },
		},
	});
	const baseUrl = normalizeBaseUrl(
		values['base-url'] ?? process.env.CONTENT_PUBLISHING_BASE_URL ?? '',
	);
	if (!/^https?:\/\/[^/]/.test(baseUrl)) {
		throw new Error(
			'Give the service: npm run profile -- --base-url https://api.example.com (the key in CONTENT_PUBLISHING_API_KEY)',
		);
	}
	const { overrides, problem } = checkOverrides(
		values.overrides === undefined ? undefined : readFileSync(values.overrides, 'utf8'),
		BUILT_IN_PROFILE,
	);
	if (problem !== undefined) throw problem;
	const profile = applyOverrides(
		await serviceProfile(baseUrl, process.env.CONTENT_PUBLISHING_API_KEY ?? ''),
		overrides,
	);
	process.stdout.write(
		values.json
			? `${JSON.stringify(profile, null, 2)}\n`
			: `${describeProfile(profile).join('\n')}\n`,
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${(error as Error).message}\n`);
	process.exit(1);
});
