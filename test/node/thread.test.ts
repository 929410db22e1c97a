import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { FakeServiceOptions } from '../fake-service';
import { FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';

/**
 * Publish to Twitter with Source "Thread": the parts go to the field the service's document has
 * for several parts (`thread` in the primary profile and the built-in conventions, `parts` in the
 * alternate), and where the document has none (the envelope profile), the node refuses before it
 * sends anything, as for any field a service does not take.
 */
const TWEETS = [
	'1/3 Small pull requests get reviewed.',
	'2/3 They merge sooner.',
	'3/3 And break less.',
];

const TWITTER = /^\/v1\/publish\/twitter$/;

const threadFrom = (parts: string): INodeParameters => ({
	resource: 'publication',
	operation: 'publishTwitter',
	source: 'thread',
	parts,
	options: FAST_WAIT,
});

describe.each([
	['primary profile', { profile: 'primary' }, 'thread', 'result', 'thread_urls'],
	['alternate profile', { profile: 'alternate' }, 'parts', 'output', 'partLinks'],
	[
		'service without a document (built-in conventions)',
		{ profile: 'primary', openApiDocument: false },
		'thread',
		'result',
		'thread_urls',
	],
] as Array<
	[string, Pick<FakeServiceOptions, 'profile' | 'openApiDocument'>, string, string, string]
>)('%s: a thread', (_name, options, field, result, urls) => {
	const harness = useFakeService(options);
	// Whatever the profile calls the operation.
	const sent = () =>
		harness.service.requests
			.filter((request) => TWITTER.test(request.path))
			.map((request) => request.body);

	it('is published as a thread, from the tweets an expression gives, one tweet per part', async () => {
		const run = await harness.run(threadFrom('={{ $json.result.tweets }}'), {
			input: [{ json: { result: { tweets: TWEETS } } }],
		});

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual([{ [field]: TWEETS }]);
		const [job] = jsonOf(run);
		const output = job[result] as IDataObject;
		expect(output[urls]).toHaveLength(3);
		const post = [...harness.service.posts.values()].at(-1);
		expect(post).toEqual(
			expect.objectContaining({ status: 'published', content: TWEETS.join('\n\n') }),
		);
	});

	it('takes the parts typed as a JSON array too', async () => {
		const run = await harness.run(threadFrom('["First tweet", "Second tweet"]'));

		expect(run.error).toBeUndefined();
		expect(sent()).toEqual([{ [field]: ['First tweet', 'Second tweet'] }]);
	});
});

describe('a thread where the document has no place for several parts (envelope profile)', () => {
	const harness = useFakeService({ profile: 'envelope' });

	it('is refused before anything is sent, naming the item and what the service takes instead', async () => {
		const run = await harness.run(threadFrom('={{ $json.tweets }}'), {
			input: [{ json: { tweets: TWEETS } }],
		});

		expect(run.error?.message).toBe(
			'Item 0: The service takes no "thread" in POST /v1/publish/twitter',
		);
		expect(run.error?.description).toMatch(
			/^Its OpenAPI document lists: post, body, page, publish_on\./,
		);
		expect(harness.service.requests.filter((request) => TWITTER.test(request.path))).toHaveLength(
			0,
		);
	});
});

describe('Parts that are no list of texts', () => {
	const harness = useFakeService();

	it.each([
		['text that is not JSON', 'First tweet', '"Parts" of item 0 is not valid JSON'],
		[
			'an object',
			'{"tweets": []}',
			'"Parts" of item 0 must be a list of texts, like ["First part", "Second part"]',
		],
		[
			'a list with a number in it',
			'["One", 2]',
			'"Parts" of item 0 must be a list of texts, like ["First part", "Second part"]',
		],
		['an empty list', '[]', '"Parts" of item 0 is empty'],
		['a list with an empty part', '["One", "  "]', '"Parts" of item 0 has an empty part: number 2'],
	])('are refused before anything is sent: %s', async (_name, parts, message) => {
		const run = await harness.run(threadFrom(parts));

		expect(run.error?.message).toBe(message);
		expect(harness.service.requests).toHaveLength(0);
	});
});
