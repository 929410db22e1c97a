/**
 * `npm run profile -- --base-url <url>`: the profile the node reads for a service, as Service →
 * Describe shows it in n8n: a line per decision, or the profile itself with `--json`. The API key
 * comes from CONTENT_PUBLISHING_API_KEY (never a flag: it would stay in the shell's history), the
 * Profile Overrides, where given, from a file (`--overrides <file>`), as in the credential.
 *
 * The document is read by the node's own code (nodes/shared/executor/profiles.ts) over fetch in
 * place of n8n's request helper, so the script keeps the node's rules: the Base URL checked as the
 * credential's is (no user name or password), redirects only within its origin, the answer read as
 * a stream and given up beyond 16 MB decoded, and the key kept out of what it prints.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';

import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';

import { describeGroups } from '../nodes/shared/profile/describe';
import { redact } from '../nodes/shared/transport/credentials';
import { loadProfile } from '../nodes/shared/executor/profiles';

/** n8n's request helper, as the transport calls it (a stream, no redirect followed), over fetch. */
async function httpRequest({ url, method, headers, abortSignal }: IHttpRequestOptions) {
	const answer = await fetch(url, {
		method,
		headers: headers as Record<string, string>,
		redirect: 'manual',
		signal: abortSignal as AbortSignal | undefined,
	});
	return {
		statusCode: answer.status,
		headers: Object.fromEntries(answer.headers),
		body: answer.body ? Readable.fromWeb(answer.body as ReadableStream) : Readable.from([]),
	};
}

async function main(): Promise<string> {
	const { values } = parseArgs({
		options: {
			'base-url': { type: 'string' },
			overrides: { type: 'string' },
			json: { type: 'boolean', default: false },
		},
	});
	const baseUrl = values['base-url'] ?? process.env.CONTENT_PUBLISHING_BASE_URL ?? '';
	if (baseUrl.trim() === '')
		throw new Error(
			'Give the service: npm run profile -- --base-url https://api.example.com (the key in CONTENT_PUBLISHING_API_KEY)',
		);
	const context = {
		getNode: () => ({ name: 'npm run profile', type: 'contentPublishing', parameters: {} }),
		getCredentials: async () => ({
			baseUrl,
			apiKey: process.env.CONTENT_PUBLISHING_API_KEY ?? '',
			profileOverrides:
				values.overrides === undefined ? undefined : readFileSync(values.overrides, 'utf8'),
		}),
		helpers: { httpRequest },
	} as unknown as IExecuteFunctions;
	const profile = await loadProfile.call(context);
	return values.json
		? `${JSON.stringify(profile, null, 2)}\n`
		: `${describeGroups(profile)
				.flatMap(([, lines]) => lines)
				.join('\n')}\n`;
}

// A service may echo the key into its document, and a failure's message may quote the request.
const unsecret = (text: string) => redact(text, process.env.CONTENT_PUBLISHING_API_KEY ?? '');

main().then(
	(text) => process.stdout.write(unsecret(text)),
	(error: unknown) => {
		process.stderr.write(`${unsecret((error as Error).message)}\n`);
		process.exit(1);
	},
);
