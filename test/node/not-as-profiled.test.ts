/**
 * Never a wrong success, against a service that serves no document, run by the real node in n8n's
 * engine. Its list is in `entries`, where the built-in profile looks in `data`, `items` and
 * `results`: Get Many must fail with the place and the fix, not output an empty list. Its jobs' id
 * is `uuid` and their status `state` (as Replicate's and Azure's long-running operations name
 * them): Generate with Wait for Completion must fail with what it expected where and the override
 * that fixes it, instead of outputting the unfinished job as done; given the id, the poll must fail
 * on the status it cannot find instead of polling until Maximum Wait Time; given both, the wait
 * must end on the service's own word.
 */
import type { INodeParameters } from 'n8n-workflow';

import { FAST_WAIT } from '../support/fixtures';
import { startHostileService, type HostileService } from '../support/hostile-documents';
import { useLoopbackGuard } from '../support/loopback-guard';
import { contentPublishingNode, runNode, shutDownEngine } from '../support/n8n-engine';

const guard = useLoopbackGuard();
const RESULT = { video_url: 'https://cdn.example.com/v.mp4' };
let service: HostileService;
let polls = 0;
/** What the service answers a generation with. */
let created: object = { uuid: 'j1', state: 'queued' };

beforeAll(async () => {
	service = await startHostileService({
		name: 'jobs named by uuid and state',
		document: () => (response) => response.writeHead(404).end(),
		answers: {
			'GET /v1/posts': () => ({ body: { entries: [{ id: 'p1', content: 'Hello' }], total: 1 } }),
			'POST /v1/generate/video': () => ({ status: 201, body: created }),
			'GET /v1/jobs/{id}': ({ id }) => {
				if (id === 'j2') return { body: { uuid: 'j2', state: 'encoding' } };
				polls += 1;
				return { body: { uuid: 'j1', state: polls > 1 ? 'succeeded' : 'running', output: RESULT } };
			},
		},
	});
});

afterAll(async () => {
	await service.close();
	shutDownEngine();
});

/** Runs the node on the service, with the credential's Profile Overrides where given. */
const run = async (parameters: INodeParameters, profileOverrides?: object) =>
	await runNode(contentPublishingNode(parameters), {
		credentials: {
			baseUrl: service.url,
			apiKey: 'not-as-profiled-key-0123456789',
			profileOverrides: profileOverrides && JSON.stringify(profileOverrides),
		},
	});
const generate = async (profileOverrides?: object) =>
	await run(
		{
			resource: 'content',
			operation: 'generateVideo',
			prompt: 'A video',
			options: { ...FAST_WAIT, maxWaitTime: 20 },
		},
		profileOverrides,
	);
const list = async (profileOverrides?: object) =>
	await run({ resource: 'post', operation: 'getMany', returnAll: true }, profileOverrides);

describe('a job answer that does not hold what the profile says', () => {
	it('fails Generate with Wait for Completion, naming the place, the members found and the fix', async () => {
		const result = await generate();
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			"The service's answer to POST /v1/generate/video holds no job to wait for where the profile says",
		);
		expect(result.error?.description).toContain('the job at /body (no id at /id)');
		expect(result.error?.description).toContain('the answer held the members "uuid", "state"');
		expect(result.error?.description).toContain('{"jobs": {"id": "/uuid"}}');
		expect(polls).toBe(0);
		// With the id given, the same answer still holds no status where the profile says.
		const status = await generate({ jobs: { id: '/uuid' } });
		expect(status.error?.description).toContain('{"jobs": {"completion": {"status": "/state"}}}');
		expect(polls).toBe(0);
	});

	it('fails the poll at once where the job holds no status at its place, instead of waiting it out', async () => {
		// Named by an id the built-in conventions know; its poll answers with the job as above.
		created = { job_id: 'j1' };
		const result = await generate();
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			"The service's answer for job j1 holds no state where the profile says: no status at /status",
		);
		expect(result.error?.description).toContain('{"jobs": {"completion": {"status": "/state"}}}');
		expect(result.error?.description).not.toContain('cdn.example.com');
		expect(polls).toBe(1);
	});

	it('ends the wait on the state the service reports, given both places', async () => {
		polls = 0;
		created = { uuid: 'j1', state: 'queued' };
		const result = await generate({
			jobs: { id: '/uuid', completion: { status: '/state' }, result: '/output' },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json)).toEqual([
			{ uuid: 'j1', state: 'succeeded', output: RESULT },
		]);
		expect(polls).toBe(2);
		expect(guard.blocked).toEqual([]);
	});
});

describe('a job whose status the profile maps to no state', () => {
	it('waits on it as pending, and says so when the wait runs out', async () => {
		created = { uuid: 'j2', state: 'queued' };
		const result = await run(
			{
				resource: 'content',
				operation: 'generateVideo',
				prompt: 'A video',
				options: { pollInterval: 0.1, maxWaitTime: 1 },
			},
			{ jobs: { id: '/uuid', completion: { status: '/state' } } },
		);
		expect(result.error?.message).toBe(
			'Job j2 did not finish within 1 seconds (last status: "encoding", a value the profile maps to no state, so it counts as pending: Service → Describe lists the states, and Profile Overrides can map it (jobs.completion.states))',
		);
	});
});

describe('a list answer without its items where the profile says', () => {
	it('fails Get Many instead of outputting no items, and the override it names reads them', async () => {
		const result = await list();
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			"The service's answer to GET /v1/posts holds no list where the profile says",
		);
		expect(result.error?.description).toContain('the answer held the members "entries", "total"');
		const fix = '{"operations": {"listPosts": {"answer": {"items": "/body/entries"}}}}';
		expect(result.error?.description).toContain(fix);
		const fixed = await list(JSON.parse(fix) as object);
		expect(fixed.items.map((item) => item.json)).toEqual([{ id: 'p1', content: 'Hello' }]);
	});
});
