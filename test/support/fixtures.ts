import type { IDataObject, INode } from 'n8n-workflow';

import {
	startFakeService,
	type FakeService,
	type FakeServiceOptions,
	type RecordedRequest,
} from '../fake-service';
import {
	contentPublishingNode,
	runNode,
	shutDownEngine,
	type RunOptions,
	type RunResult,
	type TestCredentials,
} from './n8n-engine';

export type RunOverrides = Omit<RunOptions, 'credentials'> & {
	node?: Partial<INode>;
	credentials?: Partial<TestCredentials>;
};

export interface Harness {
	service: FakeService;
	credentials: TestCredentials;
	/** Runs the node once with these parameters over the given input items. */
	run(parameters: INode['parameters'], options?: RunOverrides): Promise<RunResult>;
	/** Requests the node sent to one operation of the service. */
	sent(operationId: string): RecordedRequest[];
	/** For tests that send an invalid request on purpose: the contract check skips this test. */
	expectContractViolation(): void;
}

/** Fast waiting for tests: the service advances a job on each poll. */
export const FAST_WAIT = { pollInterval: 0.1, maxWaitTime: 30 };

/**
 * Starts one fake service per test file, resets it before every test, and after every test checks
 * that every request the node sent kept to the service's OpenAPI document.
 */
export function useFakeService(
	options: Pick<
		FakeServiceOptions,
		'profile' | 'openApiDocument' | 'editDocument' | 'eventsPerResource'
	> = {},
): Harness {
	let violationExpected = false;
	const harness = {
		credentials: { baseUrl: '', apiKey: '' },
		expectContractViolation() {
			violationExpected = true;
		},
		sent(operationId: string) {
			return harness.service.requestsTo(operationId);
		},
		async run(
			parameters: INode['parameters'],
			{ node, credentials, ...options }: RunOverrides = {},
		) {
			return await runNode(contentPublishingNode(parameters, node), {
				...options,
				credentials: { ...harness.credentials, ...credentials },
			});
		},
	} as Harness;

	beforeAll(async () => {
		harness.service = await startFakeService({
			apiKey: 'test-key-0123456789',
			maxPageSize: 2,
			...options,
		});
		harness.credentials = { baseUrl: harness.service.url, apiKey: harness.service.apiKey };
		// The node reads the service's OpenAPI document once per base URL and keeps it; reading it
		// here keeps that first request out of every test's record of requests.
		await harness.run({ resource: 'account', operation: 'get' });
	});
	afterAll(async () => {
		await harness.service.close();
		shutDownEngine();
	});
	beforeEach(() => {
		harness.service.reset();
		violationExpected = false;
	});
	afterEach(() => {
		if (violationExpected) return;
		const violations = harness.service.requests
			.filter((request) => request.contractErrors.length > 0)
			.map((request) => `${request.method} ${request.path}: ${request.contractErrors.join('; ')}`);
		expect(violations).toEqual([]);
	});
	return harness;
}

export function jsonOf(result: RunResult): IDataObject[] {
	if (result.error) throw result.error;
	return result.items.map((item) => item.json);
}

export function byId(mode: 'id' | 'list' | 'url', value: string) {
	return { __rl: true, mode, value };
}
