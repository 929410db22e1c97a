import type { IDataObject } from 'n8n-workflow';

import { byId, FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';

const harness = useFakeService();

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/** Checks the condition every 20 ms; a condition that never holds fails the test by jest's timeout. */
async function waitUntil(condition: () => boolean): Promise<void> {
	while (!condition()) await sleep(20);
}

async function createPost(content = 'Ship small changes, ship them often.'): Promise<IDataObject> {
	const result = await harness.run({ resource: 'post', operation: 'create', content });
	return jsonOf(result)[0];
}

function pollsOf(jobId: string) {
	return harness.sent('getJob').filter((request) => request.path === `/v1/jobs/${jobId}`);
}

/** A job as the node outputs it: without the `"error": null` that would trip n8n's Retry On Fail. */
function jobOutput(job: object): IDataObject {
	const { error, ...rest } = job as IDataObject;
	expect(error).toBeNull();
	return rest;
}

function onlyJob() {
	const jobs = [...harness.service.jobs.values()];
	expect(jobs).toHaveLength(1);
	return jobs[0];
}

describe.each([
	['publishLinkedin', 'linkedin'],
	['publishTwitter', 'twitter'],
] as const)('publication → %s', (operation, platform) => {
	it('publishes an existing post, waits for the job and returns the finished job', async () => {
		const post = await createPost();
		const result = await harness.run({
			resource: 'publication',
			operation,
			source: 'post',
			postId: byId('id', post.id as string),
			options: FAST_WAIT,
		});

		const [request] = harness.sent(operation);
		expect(request.path).toBe(`/v1/publish/${platform}`);
		expect(request.body).toEqual({ post_id: post.id });
		expect(request.status).toBe(202);

		const job = onlyJob();
		expect(jsonOf(result)).toEqual([
			{
				...jobOutput(job),
				type: `publish.${platform}`,
				status: 'succeeded',
				progress: 100,
				finished_at: expect.any(String),
				result: {
					platform,
					post_id: post.id,
					url: `https://${platform}.example/posts/${post.id as string}`,
					published_at: expect.any(String),
				},
			},
		]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		// The fake runs a job on its first poll and finishes it on the second.
		expect(harness.sent('getJob').map((poll) => poll.path)).toEqual([
			`/v1/jobs/${job.id}`,
			`/v1/jobs/${job.id}`,
		]);
		expect(harness.service.posts.get(post.id as string)).toEqual(
			expect.objectContaining({
				status: 'published',
				published_at: expect.any(String),
				content: post.content,
			}),
		);
	});

	it('publishes text as a new post', async () => {
		const result = await harness.run({
			resource: 'publication',
			operation,
			source: 'text',
			text: 'Fresh from the node',
			options: FAST_WAIT,
		});

		expect(harness.sent(operation)[0].body).toEqual({ content: 'Fresh from the node' });
		const [job] = jsonOf(result);
		expect(job.status).toBe('succeeded');
		const { post_id: postId, platform: resultPlatform, url } = job.result as IDataObject;
		expect(resultPlatform).toBe(platform);
		expect(url).toBe(`https://${platform}.example/posts/${postId as string}`);
		expect(harness.service.posts.get(postId as string)).toEqual(
			expect.objectContaining({ content: 'Fresh from the node', status: 'published' }),
		);
		expect(harness.sent('getJob')).toHaveLength(2);
	});

	it('returns the queued job at once and polls nothing when not waiting', async () => {
		const post = await createPost();
		const result = await harness.run({
			resource: 'publication',
			operation,
			source: 'post',
			postId: byId('id', post.id as string),
			waitForCompletion: false,
		});

		const job = onlyJob();
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({
				id: job.id,
				type: `publish.${platform}`,
				status: 'queued',
				progress: 0,
				result: null,
			}),
		]);
		expect(harness.sent('getJob')).toHaveLength(0);
		expect(harness.service.posts.get(post.id as string)?.status).toBe('draft');
		expect(job.status).toBe('queued');
	});
});

describe('publication → publishLinkedin fields', () => {
	it('sends page and schedule when set, leaves them out when empty, and lets the extra body override', async () => {
		const page = [...harness.service.pages.values()][1];
		const result = await harness.run(
			{
				resource: 'publication',
				operation: 'publishLinkedin',
				source: 'text',
				text: '={{ $json.text }}',
				waitForCompletion: false,
				additionalFields: {
					pageId: '={{ $json.pageId }}',
					scheduledAt: '={{ $json.scheduledAt }}',
					extraBody: '={{ $json.extraBody }}',
				},
			},
			{
				input: [
					{
						json: {
							text: 'One',
							pageId: page.id,
							scheduledAt: '2030-01-02T03:04:05.000Z',
							extraBody: '{}',
						},
					},
					{
						json: {
							text: 'Two',
							pageId: '',
							scheduledAt: '',
							extraBody: '{"content": "Two, overridden"}',
						},
					},
				],
			},
		);

		expect(harness.sent('publishLinkedin').map((request) => request.body)).toEqual([
			{ content: 'One', page_id: page.id, scheduled_at: '2030-01-02T03:04:05.000Z' },
			{ content: 'Two, overridden' },
		]);
		expect(jsonOf(result).map((job) => job.status)).toEqual(['queued', 'queued']);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('refuses empty text before sending anything', async () => {
		const result = await harness.run(
			{
				resource: 'publication',
				operation: 'publishLinkedin',
				source: 'text',
				text: '={{ $json.text }}',
			},
			{ input: [{ json: { text: 'fine' } }, { json: { text: '  ' } }] },
		);
		expect(result.error?.message).toBe('"Text" of item 1 is empty');
		expect(result.error?.context?.itemIndex).toBe(1);
		expect(harness.service.requests).toHaveLength(0);
	});
});

describe('publication → failures', () => {
	it('fails with the job id and the job error when the job fails', async () => {
		harness.service.setJobPlan({
			outcome: 'failed',
			error: { code: 'x_code', message: 'Rendering broke' },
		});
		const result = await harness.run({
			resource: 'publication',
			operation: 'publishTwitter',
			source: 'text',
			text: 'Will not render',
			options: FAST_WAIT,
		});

		const job = onlyJob();
		expect(job.status).toBe('failed');
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.message).toBe(`Job ${job.id} failed: Rendering broke`);
		expect(result.error?.description).toBe('Error code: x_code');
		expect(result.error?.context?.itemIndex).toBe(0);
		expect(harness.sent('getJob')).toHaveLength(2);
		expect(
			[...harness.service.posts.values()].filter((post) => post.status === 'published'),
		).toEqual([]);
	});

	// A failed job is not an HTTP failure: every request succeeded, so its error must carry no HTTP code
	// (n8n's NodeApiError would otherwise read one from the job's `status` field).
	it('gives a failed job\'s error no HTTP code (not the job status "failed")', async () => {
		harness.service.setJobPlan({
			outcome: 'failed',
			error: { code: 'x_code', message: 'Rendering broke' },
		});
		const result = await harness.run({
			resource: 'publication',
			operation: 'publishTwitter',
			source: 'text',
			text: 'Will not render',
			options: FAST_WAIT,
		});
		expect(result.error?.message).toBe(`Job ${onlyJob().id} failed: Rendering broke`);
		expect(result.error?.httpCode ?? null).toBeNull();
	});

	// Likewise for the error item of Continue On Fail.
	it('puts no httpCode on the continue-on-fail item of a failed job', async () => {
		harness.service.setJobPlan({
			outcome: 'failed',
			error: { code: 'x_code', message: 'Rendering broke' },
		});
		const result = await harness.run(
			{
				resource: 'publication',
				operation: 'publishTwitter',
				source: 'text',
				text: 'Will not render',
				options: FAST_WAIT,
			},
			{ node: { onError: 'continueRegularOutput' } },
		);
		expect(result.items.map((item) => item.json)).toEqual([
			{ error: `Job ${onlyJob().id} failed: Rendering broke`, description: 'Error code: x_code' },
		]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('fails with the service 422 when the post does not exist, and waits for nothing', async () => {
		const result = await harness.run({
			resource: 'publication',
			operation: 'publishLinkedin',
			source: 'post',
			postId: byId('id', 'post_missing'),
			options: FAST_WAIT,
		});

		const [request] = harness.sent('publishLinkedin');
		expect(request.body).toEqual({ post_id: 'post_missing' });
		// A referential error: the request itself keeps to the contract.
		expect(request.contractErrors).toEqual([]);
		expect(request.status).toBe(422);
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('422');
		expect(result.error?.message).toBe('post_id does not name an existing post ("post_missing")');
		expect(result.error?.description).toContain(
			'Details: post_id: does not name an existing post ("post_missing").',
		);
		expect(harness.service.jobs.size).toBe(0);
		expect(harness.sent('getJob')).toHaveLength(0);
	});

	it('waits out a 429 on a job poll and still returns the finished job', async () => {
		harness.service.injectFault({
			match: { method: 'GET', path: /\/v1\/jobs\// },
			status: 429,
			retryAfterSeconds: 1,
		});
		const result = await harness.run({
			resource: 'publication',
			operation: 'publishLinkedin',
			source: 'text',
			text: 'Rate limited but patient',
			options: FAST_WAIT,
		});

		const [job] = jsonOf(result);
		expect(job).toEqual(expect.objectContaining({ status: 'succeeded', id: onlyJob().id }));
		expect((job.result as IDataObject).platform).toBe('linkedin');
		// The limited poll, then the two the fake needs to finish the job.
		expect(harness.sent('getJob').map((poll) => poll.status)).toEqual([429, 200, 200]);
	});
});

describe('job → get', () => {
	it('returns the job as the service has it', async () => {
		const started = harness.service.startJob('publish.linkedin', { content: 'Queued elsewhere' });
		const result = await harness.run({ resource: 'job', operation: 'get', jobId: started.id });

		expect(harness.sent('getJob').map((request) => request.path)).toEqual([
			`/v1/jobs/${started.id}`,
		]);
		// That one poll moved the job on to running.
		expect(jsonOf(result)).toEqual([jobOutput(harness.service.jobs.get(started.id)!)]);
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ status: 'running', progress: 50, result: null }),
		);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('fails with 404 for an unknown job', async () => {
		const result = await harness.run({ resource: 'job', operation: 'get', jobId: 'job_missing' });
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toBe('Job "job_missing" was not found');
	});
});

describe('job → wait', () => {
	it('polls until the job is done and returns it', async () => {
		harness.service.setJobPlan({ outcome: 'succeeded', pollsUntilRunning: 2, pollsUntilDone: 4 });
		const started = harness.service.startJob('publish.twitter', { content: 'Four polls away' });
		const result = await harness.run({
			resource: 'job',
			operation: 'wait',
			jobId: started.id,
			options: FAST_WAIT,
		});

		expect(jsonOf(result)).toEqual([jobOutput(harness.service.jobs.get(started.id)!)]);
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({
				status: 'succeeded',
				result: expect.objectContaining({ platform: 'twitter' }),
			}),
		);
		expect(pollsOf(started.id)).toHaveLength(4);
	});

	it('returns an already finished job after one poll', async () => {
		harness.service.jobMode = 'manual';
		const started = harness.service.startJob('publish.linkedin', { content: 'Done already' });
		await harness.service.finishJob(started.id);
		const result = await harness.run({
			resource: 'job',
			operation: 'wait',
			jobId: started.id,
			options: FAST_WAIT,
		});

		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ id: started.id, status: 'succeeded' }),
		);
		expect(pollsOf(started.id)).toHaveLength(1);
	});

	it('fails with 404 for an unknown job', async () => {
		const result = await harness.run({
			resource: 'job',
			operation: 'wait',
			jobId: 'job_missing',
			options: FAST_WAIT,
		});
		expect(result.error?.name).toBe('NodeApiError');
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toBe('Job "job_missing" was not found');
		expect(harness.sent('getJob')).toHaveLength(1);
	});

	it('gives up after the maximum wait time and says how to pick the job up later', async () => {
		harness.service.jobMode = 'manual';
		const started = harness.service.startJob('publish.linkedin', { content: 'Never finishes' });
		const result = await harness.run({
			resource: 'job',
			operation: 'wait',
			jobId: started.id,
			options: { pollInterval: 0.1, maxWaitTime: 0.5 },
		});

		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(
			`Job ${started.id} did not finish within 0.5 seconds (last status: running)`,
		);
		expect(result.error?.description).toContain(
			'the Job resource\'s "Wait for Completion" operation',
		);
		expect(result.error?.description).toContain(`Job ID ${started.id}`);
		expect(pollsOf(started.id).length).toBeGreaterThanOrEqual(1);
		expect(harness.service.jobs.get(started.id)?.status).toBe('running');
	});

	it('stops polling at once when the execution is cancelled', async () => {
		harness.service.jobMode = 'manual';
		const started = harness.service.startJob('publish.linkedin', {
			content: 'Waited for, then cancelled',
		});

		// If cancelling did not stop the wait, this run would last 600 s and the test fail by jest's timeout.
		const result = await harness.run(
			{
				resource: 'job',
				operation: 'wait',
				jobId: started.id,
				options: { pollInterval: 0.1, maxWaitTime: 600 },
			},
			{
				onStarted: (cancel) => {
					void waitUntil(() => harness.sent('getJob').length >= 1).then(cancel);
				},
			},
		);

		expect(result.run.status).toBe('canceled');
		expect(result.items).toEqual([]);
		const polls = harness.sent('getJob').length;
		expect(polls).toBeGreaterThanOrEqual(1);
		await sleep(300);
		expect(harness.sent('getJob')).toHaveLength(polls);
	});
});

describe('waiting for several jobs', () => {
	it("waits for every item's job at once and keeps the input order", async () => {
		harness.service.jobMode = 'manual';
		const texts = ['First post', 'Second post', 'Third post'];
		const running = harness.run(
			{
				resource: 'publication',
				operation: 'publishTwitter',
				source: 'text',
				text: '={{ $json.text }}',
				options: { pollInterval: 0.1, maxWaitTime: 30 },
			},
			{ input: texts.map((text) => ({ json: { text } })) },
		);

		await waitUntil(() => harness.service.jobs.size === 3);
		const jobIds = [...harness.service.jobs.keys()];
		// Every job is polled before any of them finishes: the waits overlap.
		await waitUntil(() => jobIds.every((id) => pollsOf(id).length >= 1));
		expect(jobIds.map((id) => harness.service.jobs.get(id)?.status)).toEqual([
			'running',
			'running',
			'running',
		]);

		// Finish them last to first, each seen by the node before the next one finishes.
		for (const id of [...jobIds].reverse()) {
			const pollsBefore = pollsOf(id).length;
			await harness.service.finishJob(id);
			await waitUntil(() => pollsOf(id).filter((poll) => poll.status === 200).length > pollsBefore);
		}
		const result = await running;

		const jobs = jsonOf(result);
		expect(jobs.map((job) => job.id)).toEqual(jobIds);
		expect(jobs.map((job) => job.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
		expect(
			jobs.map(
				(job) => harness.service.posts.get((job.result as IDataObject).post_id as string)?.content,
			),
		).toEqual(texts);
		expect(result.items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
		]);
		expect(
			harness.sent('publishTwitter').map((request) => (request.body as IDataObject).content),
		).toEqual(texts);
	});

	it('checks at once a job whose wait begins after its first check was due, when more items wait than run at once', async () => {
		harness.service.jobMode = 'manual';
		const checkedAt: number[] = [];
		harness.service.injectFault({
			match: { method: 'GET', path: /^\/v1\/jobs\// },
			times: Infinity,
			rewriteAnswer: (body) => {
				checkedAt.push(performance.now());
				return body;
			},
		});
		const running = harness.run(
			{ resource: 'content', operation: 'generateLinkedin', prompt: '=Post {{ $json.n }}' },
			{ input: Array.from({ length: 17 }, (_, n) => ({ json: { n } })) },
		);
		await waitUntil(() => harness.service.jobs.size === 17);
		for (const id of harness.service.jobs.keys()) await harness.service.finishJob(id);
		const result = await running;

		expect(jsonOf(result).map((job) => job.status)).toEqual(
			Array.from({ length: 17 }, () => 'succeeded'),
		);
		// Every job had finished by its first check, so each is checked once.
		expect(harness.sent('getJob')).toHaveLength(17);
		// Waits run 8 at a time: the first 8 check a second after their jobs started; the other 9
		// begin later than that and check at once, in the same burst. Timed from each wait's own
		// start, each later round slept a second of its own first: two rounds, two seconds apart at least.
		expect(Math.max(...checkedAt) - Math.min(...checkedAt)).toBeLessThan(1500);
	});

	it('fails only the item whose job failed when continuing on fail', async () => {
		harness.service.jobMode = 'manual';
		const running = harness.run(
			{
				resource: 'publication',
				operation: 'publishLinkedin',
				source: 'text',
				text: '={{ $json.text }}',
				options: { pollInterval: 0.1, maxWaitTime: 30 },
			},
			{
				node: { onError: 'continueRegularOutput' },
				input: [{ json: { text: 'Good' } }, { json: { text: 'Bad' } }],
			},
		);

		await waitUntil(() => harness.service.jobs.size === 2);
		const [good, bad] = [...harness.service.jobs.keys()];
		await harness.service.finishJob(bad, 'failed', { code: 'x_code', message: 'Rendering broke' });
		await harness.service.finishJob(good);
		const result = await running;

		expect(result.items.map((item) => item.json.status ?? item.json.error)).toEqual([
			'succeeded',
			`Job ${bad} failed: Rendering broke`,
		]);
		expect(result.items[1].json.description).toBe('Error code: x_code');
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
