import { randomBytes } from 'node:crypto';

import { startFakeService, type Profile } from './server';

const usage = `Usage: ts-node --transpile-only test/fake-service/cli.ts [--port N] [--api-key KEY] [--profile P] [--no-openapi] [--state-file FILE]
  --port N        port on 127.0.0.1 (default: FAKE_SERVICE_PORT, else a random free port)
  --api-key KEY   API key to accept (default: FAKE_SERVICE_API_KEY, else a random key)
  --profile P     convention profile: primary, alternate, envelope or nested (default: FAKE_SERVICE_PROFILE, else primary)
  --no-openapi    answer 404 for /v1/openapi.json (default: FAKE_SERVICE_OPENAPI=off)
  --state-file F  keep pages, posts, jobs and webhooks in this JSON file between runs (default: FAKE_SERVICE_STATE_FILE, else none)`;

const PROFILES: readonly Profile[] = ['primary', 'alternate', 'envelope', 'nested'];
const isProfile = (name: string): name is Profile => (PROFILES as readonly string[]).includes(name);

function fail(message: string): never {
	process.stderr.write(`${message}\n\n${usage}\n`);
	process.exit(2);
}

function readArguments(argv: string[]): {
	port: number;
	apiKey: string;
	profile: Profile;
	openApiDocument: boolean;
	stateFile?: string;
} {
	let port = process.env.FAKE_SERVICE_PORT;
	let apiKey = process.env.FAKE_SERVICE_API_KEY;
	let profile = process.env.FAKE_SERVICE_PROFILE ?? 'primary';
	let openApiDocument = process.env.FAKE_SERVICE_OPENAPI !== 'off';
	let stateFile = process.env.FAKE_SERVICE_STATE_FILE || undefined;
	for (let index = 0; index < argv.length; index += 1) {
		const [flag, inlineValue] = argv[index].split(/=(.*)/s, 2);
		const value = () => inlineValue ?? argv[++index] ?? fail(`${flag} needs a value`);
		if (flag === '--port') port = value();
		else if (flag === '--api-key') apiKey = value();
		else if (flag === '--profile') profile = value();
		else if (flag === '--no-openapi') openApiDocument = false;
		else if (flag === '--state-file') stateFile = value();
		else if (flag === '--help' || flag === '-h') {
			process.stdout.write(`${usage}\n`);
			process.exit(0);
		} else fail(`Unknown argument: ${argv[index]}`);
	}
	const portNumber = Number(port ?? 0);
	if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535)
		fail(`Invalid port: ${port}`);
	if (apiKey === '') fail('The API key must not be empty');
	if (!isProfile(profile)) fail(`Unknown profile: ${profile}`);
	return {
		port: portNumber,
		apiKey: apiKey ?? `cp_test_${randomBytes(16).toString('hex')}`,
		profile,
		openApiDocument,
		stateFile,
	};
}

async function main(): Promise<void> {
	const { port, apiKey, profile, openApiDocument, stateFile } = readArguments(
		process.argv.slice(2),
	);
	const service = await startFakeService({
		port,
		apiKey,
		jobMode: 'timed',
		profile,
		openApiDocument,
		stateFile,
	});
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
