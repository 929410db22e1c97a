import { FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';
import { binaryFile, useBinaryDataMode } from '../support/n8n-engine';

const harness = useFakeService();

const TRANSCRIPT = 'Today we talk about shipping small changes.\nSmall changes are easy to review.';

describe('content → generateBlog', () => {
	it('sends the transcript, waits for the job and returns the finished job', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateBlog',
			transcript: TRANSCRIPT,
			additionalFields: { tone: 'friendly', length: 'short', language: '' },
			options: FAST_WAIT,
		});

		const [job] = jsonOf(result);
		expect(harness.sent('generateBlog')[0].body).toEqual({
			transcript: TRANSCRIPT,
			tone: 'friendly',
			length: 'short',
		});
		expect(job).toEqual(
			expect.objectContaining({
				status: 'succeeded',
				type: 'generate.blog',
				result: expect.objectContaining({ title: expect.any(String), content: expect.any(String) }),
			}),
		);
		// The fake finishes a job on its second poll.
		expect(harness.sent('getJob')).toHaveLength(2);
		expect(harness.sent('getJob')[0].path).toBe(`/v1/jobs/${job.id}`);
	});

	it('returns the queued job at once without waiting', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateBlog',
			transcript: TRANSCRIPT,
			waitForCompletion: false,
		});
		expect(jsonOf(result)).toEqual([
			expect.objectContaining({ status: 'queued', type: 'generate.blog' }),
		]);
		expect(harness.sent('getJob')).toHaveLength(0);
	});

	it('refuses an empty transcript before sending anything', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateBlog',
			transcript: '  ',
		});
		expect(result.error?.message).toBe('"Transcript" of item 0 is empty');
		expect(harness.service.requests).toHaveLength(0);
	});

	it('fails with the job error when the job fails', async () => {
		harness.service.setJobPlan({
			outcome: 'failed',
			error: { code: 'transcript_too_short', message: 'Not enough words' },
		});
		const result = await harness.run({
			resource: 'content',
			operation: 'generateBlog',
			transcript: TRANSCRIPT,
			options: FAST_WAIT,
		});
		const [job] = [...harness.service.jobs.values()];
		expect(result.error?.message).toBe(`Job ${job.id} failed: Not enough words`);
		expect(result.error?.description).toBe('Error code: transcript_too_short');
	});

	describe.each(['default', 'filesystem'] as const)(
		'from a binary file (%s binary mode)',
		(mode) => {
			beforeAll(async () => await useBinaryDataMode(mode));

			it.each([
				['talk.txt', 'text/plain', `\uFEFF${TRANSCRIPT}\n`, TRANSCRIPT],
				[
					'talk.vtt',
					'text/vtt',
					'WEBVTT\n\nNOTE made by hand\nstill the note\n\n1\n00:00:00.000 --> 00:00:02.500\n<v Ana>Today we talk about shipping small changes.\n\n2\n00:00:02.500 --> 00:00:04.000 align:start\nToday we talk about shipping small changes.\nSmall changes are easy to review.\n',
					TRANSCRIPT,
				],
				[
					'talk.srt',
					'application/x-subrip',
					'1\r\n00:00:00,000 --> 00:00:02,500\r\nToday we talk about shipping small changes.\r\n\r\n2\r\n00:00:02,500 --> 00:00:04,000\r\n<i>Small changes are easy to review.</i>\r\n',
					TRANSCRIPT,
				],
			])('reads %s as plain text', async (fileName, mimeType, fileContent, expected) => {
				const binary = await binaryFile(fileContent, fileName, mimeType);
				const result = await harness.run(
					{
						resource: 'content',
						operation: 'generateBlog',
						transcriptSource: 'binary',
						binaryPropertyName: 'subtitles',
						waitForCompletion: false,
					},
					{ input: [{ json: {}, binary: { subtitles: binary } }] },
				);
				expect(result.error).toBeUndefined();
				expect(harness.sent('generateBlog')[0].body).toEqual({ transcript: expected });
			});

			it('names the item and property when the file is not a transcript', async () => {
				const binary = await binaryFile('%PDF-1.7', 'slides.pdf', 'application/pdf');
				const result = await harness.run(
					{
						resource: 'content',
						operation: 'generateBlog',
						transcriptSource: 'binary',
						binaryPropertyName: 'data',
					},
					{ input: [{ json: {}, binary: { data: binary } }] },
				);
				expect(result.error?.message).toBe(
					'The file in binary property "data" of item 0 is not a transcript',
				);
				expect(result.error?.description).toMatch(/application\/pdf/);
				expect(harness.service.requests).toHaveLength(0);
			});

			it('names the item when the binary property is missing', async () => {
				const result = await harness.run(
					{
						resource: 'content',
						operation: 'generateBlog',
						transcriptSource: 'binary',
						binaryPropertyName: 'data',
					},
					{ input: [{ json: {} }] },
				);
				expect(result.error?.message).toMatch(/data/);
				expect(result.error?.context?.itemIndex).toBe(0);
				expect(harness.service.requests).toHaveLength(0);
			});
		},
	);
});

describe.each([
	[
		'generateLinkedin',
		'generate.linkedin',
		{},
		{},
		(result: Record<string, unknown>) => expect(result.content).toEqual(expect.any(String)),
	],
	[
		'generateTwitter',
		'generate.twitter',
		{ threadLength: 4 },
		{ thread_length: 4 },
		(result: Record<string, unknown>) => expect(result.tweets).toHaveLength(4),
	],
	[
		'generateCarousel',
		'generate.carousel',
		{ slideCount: 3 },
		{ slide_count: 3 },
		(result: Record<string, unknown>) => expect(result.slides).toHaveLength(3),
	],
	[
		'generateVideo',
		'generate.video',
		{ aspectRatio: '9:16', durationSeconds: 30 },
		{ aspect_ratio: '9:16', duration_seconds: 30 },
		(result: Record<string, unknown>) =>
			expect(result).toEqual(
				expect.objectContaining({ aspect_ratio: '9:16', duration_seconds: 30 }),
			),
	],
] as const)('content → %s', (operation, jobType, kindFields, kindBody, checkResult) => {
	it('sends the prompt and its fields and returns the finished job', async () => {
		const result = await harness.run({
			resource: 'content',
			operation,
			prompt: 'Why small pull requests win',
			additionalFields: { ...kindFields, tone: 'crisp', sourceText: '' },
			options: FAST_WAIT,
		});

		const [job] = jsonOf(result);
		expect(harness.sent(operation)[0].body).toEqual({
			prompt: 'Why small pull requests win',
			tone: 'crisp',
			...kindBody,
		});
		expect(job).toEqual(expect.objectContaining({ type: jobType, status: 'succeeded' }));
		checkResult(job.result as Record<string, unknown>);
	});

	it('accepts source text instead of a prompt', async () => {
		const result = await harness.run({
			resource: 'content',
			operation,
			prompt: '',
			additionalFields: { sourceText: 'An article to adapt' },
			waitForCompletion: false,
		});
		expect(result.error).toBeUndefined();
		expect(harness.sent(operation)[0].body).toEqual({ source_text: 'An article to adapt' });
	});

	it('refuses a request with neither prompt nor source', async () => {
		const result = await harness.run({ resource: 'content', operation, prompt: '' });
		expect(result.error?.message).toBe('"Prompt" of item 0 is empty');
		expect(harness.service.requests).toHaveLength(0);
	});

	it.each([
		[
			{ options: { pollInterval: 0 } },
			'"Poll Interval" of item 0 must be a positive number of seconds',
		],
		[
			{ options: { maxWaitTime: -5 } },
			'"Maximum Wait Time" of item 0 must be a positive number of seconds',
		],
		[{ waitMethod: 'webhook' }, '"Wait Method" of item 0 must be "poll" or "event"'],
	])('refuses wait settings %j before sending anything', async (settings, message) => {
		const result = await harness.run({
			resource: 'content',
			operation,
			prompt: 'A post',
			...settings,
		});
		expect(result.error?.message).toBe(message);
		expect(harness.service.requests).toHaveLength(0);
	});
});
