import { parseArgs } from 'node:util';

import { startFakeService, type Profile } from './server';

const usage = `Usage: ts-node --transpile-only test/fake-service/cli.ts [--port N] [--api-key KEY] [--profile P] [--no-openapi] [--state-file FILE]
  --port N        port on 127.0.0.1 (default: FAKE_SERVICE_PORT, else a random free port)
  --api-key KEY   API key to accept (default: FAKE_SERVICE_API_KEY, else a random key)
  --profile P     convention profile: primary, alternate, envelope, nested or jsonapi (default: FAKE_SERVICE_PROFILE, else primary)
  --no-openapi    answer 404 for /v1/openapi.json (default: FAKE_SERVICE_OPENAPI=off)
  --state-file F  keep pages, posts, jobs and webhooks in this JSON file between runs (default: FAKE_SERVICE_STATE_FILE, else none)`;

const PROFILES: readonly Profile[] = ['primary', 'alternate', 'envelope', 'nested', 'jsonapi'];
const isProfile = (name: string): name is Profile => (PROFILES as readonly string[]).includes(name);

function fail(message: string): never {
	process.stderr.write(`${message}\n\n${usage}\n`);
	process.exit(2);
}

function readArguments() {
	const text = { type: 'string' } as const;
	let values;
	try {
		({ values } = parseArgs({
			options: {
				port: text,
				'api-key': text,
				profile: text,
				'no-openapi': { type: 'boolean' },
				'state-file': text,
				help: { type: 'boolean', short: 'h' },
			},
		}));
	} catch (error) {
		fail((error as Error).message);
	}
	if (values.help) {
		process.stdout.write(`${usage}\n`);
		process.exit(0);
	}
	const { env } = process;
	const port = values.port ?? env.FAKE_SERVICE_PORT;
	const portNumber = Number(port ?? 0);
	if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535)
		fail(`Invalid port: ${port}`);
	const apiKey = values['api-key'] ?? env.FAKE_SERVICE_API_KEY;
	if (apiKey === '') fail('The API key must not be empty');
	const profile = values.profile ?? env.FAKE_SERVICE_PROFILE ?? 'primary';
	if (!isProfile(profile)) fail(`Unknown profile: ${profile}`);
	return {
		port: portNumber,
		apiKey,
		profile,
		openApiDocument: !values['no-openapi'] && env.FAKE_SERVICE_OPENAPI !== 'off',
		stateFile: values['state-file'] ?? (env.FAKE_SERVICE_STATE_FILE || undefined),
	};
}

async function main(): Promise<void> {
	const options = readArguments();
	const { profile, openApiDocument, stateFile } = options;
	const service = await startFakeService({ ...options, jobMode: 'timed' });
	process.stdout.write(
		[
			`Fake Content Publishing service: ${service.url}`,
			`API key: ${service.apiKey}`,
			...(profile === 'envelope' ? [`Unapproved API key (403): ${service.unapprovedApiKey}`] : []),
			`Profile: ${profile}`,
			openApiDocument
				? `OpenAPI document: ${service.url}/v1/openapi.json`
				: 'OpenAPI document: none (404)',
			`Data: ${stateFile ? `kept in ${stateFile}` : 'in memory only'}`,
			'Jobs finish on timers (jobMode "timed"). Press Ctrl+C to stop.',
			'',
		].join('\n'),
	);

	let stopping = false;
	const stop = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		process.stdout.write(
			`${signal} received, stopping after ${service.requests.length} requests.\n`,
		);
		service.close().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`Could not stop cleanly: ${String(error)}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
