import { byId, jsonOf, useFakeService } from '../support/fixtures';

const harness = useFakeService();

async function createPost(fields: Record<string, unknown> = {}) {
	const result = await harness.run({
		resource: 'post',
		operation: 'create',
		content: 'Hello from n8n',
		...fields,
	});
	return jsonOf(result)[0];
}

describe('post → create', () => {
	it('creates a draft by default and sends no empty optional field', async () => {
		const post = await createPost({ additionalFields: { title: '', tags: '', mediaUrls: '' } });

		expect(post).toEqual(expect.objectContaining({ content: 'Hello from n8n', status: 'draft' }));
		expect(harness.sent('createPost')[0].body).toEqual({
			content: 'Hello from n8n',
			status: 'draft',
		});
		expect(harness.service.posts.get(post.id as string)?.status).toBe('draft');
	});

	it('maps the additional fields and lets the extra body override them', async () => {
		const page = [...harness.service.pages.values()][0];
		await createPost({
			status: 'published',
			additionalFields: {
				title: 'Launch',
				pageId: page.id,
				tags: 'launch, news\nproduct',
				mediaUrls: 'https://cdn.example.com/a.png',
				extraBody: '{"title": "Launch day"}',
			},
		});

		expect(harness.sent('createPost')[0].body).toEqual({
			content: 'Hello from n8n',
			status: 'published',
			title: 'Launch day',
			page_id: page.id,
			tags: ['launch', 'news', 'product'],
			media_urls: ['https://cdn.example.com/a.png'],
		});
	});

	it('sends the content exactly as given, surrounding white space included', async () => {
		await createPost({ content: '  Line one\n\nLine two\n' });
		expect(harness.sent('createPost')[0].body).toEqual({
			content: '  Line one\n\nLine two\n',
			status: 'draft',
		});
	});

	it('schedules a post with its date', async () => {
		const post = await createPost({ status: 'scheduled', scheduledAt: '2030-01-02T03:04:05.000Z' });
		expect(post.status).toBe('scheduled');
		expect(harness.sent('createPost')[0].body).toEqual(
			expect.objectContaining({ status: 'scheduled', scheduled_at: '2030-01-02T03:04:05.000Z' }),
		);
	});

	describe("scheduled times, in the workflow's time zone", () => {
		const scheduledAt = () =>
			(harness.sent('createPost')[0].body as { scheduled_at?: string }).scheduled_at;

		it("reads a time without an offset in the workflow's time zone and sends it as UTC: 10:00 in Berlin is 09:00Z in winter, 08:00Z in summer", async () => {
			await harness.run(
				{
					resource: 'post',
					operation: 'create',
					content: 'Winter',
					status: 'scheduled',
					scheduledAt: '2026-12-01T10:00:00',
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(scheduledAt()).toBe('2026-12-01T09:00:00.000Z');
			harness.service.requests.length = 0;
			await harness.run(
				{
					resource: 'post',
					operation: 'create',
					content: 'Summer',
					status: 'scheduled',
					scheduledAt: '2026-07-01 10:00',
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(scheduledAt()).toBe('2026-07-01T08:00:00.000Z');
		});

		it('reads it in the Time Zone option where one is given, and takes a time with its offset or a Luxon DateTime as it is', async () => {
			await harness.run(
				{
					resource: 'post',
					operation: 'create',
					content: 'New York',
					status: 'scheduled',
					scheduledAt: '2026-12-01T10:00:00',
					additionalFields: { timeZone: 'America/New_York' },
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(scheduledAt()).toBe('2026-12-01T15:00:00.000Z');
			harness.service.requests.length = 0;
			await harness.run(
				{
					resource: 'post',
					operation: 'create',
					content: 'Offset',
					status: 'scheduled',
					scheduledAt: '2026-12-01T10:00:00+05:30',
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(scheduledAt()).toBe('2026-12-01T04:30:00.000Z');
			harness.service.requests.length = 0;
			// An expression giving a Luxon DateTime, in a zone of its own.
			await harness.run(
				{
					resource: 'post',
					operation: 'create',
					content: 'Luxon',
					status: 'scheduled',
					scheduledAt: "={{ DateTime.fromISO('2026-12-01T10:00:00', { zone: 'Asia/Tokyo' }) }}",
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(scheduledAt()).toBe('2026-12-01T01:00:00.000Z');
		});

		it('refuses an unknown time zone or a text that is no time, naming the parameter and the item, before sending', async () => {
			const zone = await harness.run({
				resource: 'post',
				operation: 'create',
				content: 'x',
				status: 'scheduled',
				scheduledAt: '2026-12-01T10:00:00',
				additionalFields: { timeZone: 'Mars/Olympus' },
			});
			expect(zone.error?.message).toBe('"Time Zone" of item 0 is not a time zone: "Mars/Olympus"');
			const time = await harness.run({
				resource: 'post',
				operation: 'create',
				content: 'x',
				status: 'scheduled',
				scheduledAt: 'next tuesday',
			});
			expect(time.error?.message).toBe('"Scheduled At" of item 0 is not a date and time');
			expect(harness.service.requests).toHaveLength(0);
		});

		it('does the same for an update and a publication', async () => {
			const post = await createPost({ content: 'Later' });
			await harness.run(
				{
					resource: 'post',
					operation: 'update',
					postId: { __rl: true, mode: 'id', value: String(post.id) },
					updateFields: { status: 'scheduled', scheduledAt: '2026-12-01T10:00:00' },
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect((harness.sent('updatePost')[0].body as { scheduled_at?: string }).scheduled_at).toBe(
				'2026-12-01T09:00:00.000Z',
			);
			await harness.run(
				{
					resource: 'publication',
					operation: 'publishLinkedin',
					source: 'text',
					text: 'Hello',
					waitForCompletion: false,
					additionalFields: { scheduledAt: '2026-12-01T10:00:00' },
				},
				{ timezone: 'Europe/Berlin' },
			);
			expect(
				(harness.sent('publishLinkedin')[0].body as { scheduled_at?: string }).scheduled_at,
			).toBe('2026-12-01T09:00:00.000Z');
		});
	});

	it('refuses empty content, naming the parameter and item, and writes nothing', async () => {
		const result = await harness.run(
			{ resource: 'post', operation: 'create', content: '={{ $json.text }}' },
			{ input: [{ json: { text: 'first' } }, { json: { text: '   ' } }] },
		);
		expect(result.error?.message).toBe('"Content" of item 1 is empty');
		expect(harness.service.posts.size).toBe(0);
		expect(harness.service.requests).toHaveLength(0);
	});

	it('reports the service validation error with its details', async () => {
		harness.expectContractViolation();
		const result = await harness.run({
			resource: 'post',
			operation: 'create',
			content: 'x',
			additionalFields: { extraBody: '{"media_urls": ["not a url"]}' },
		});
		expect(result.error?.httpCode).toBe('422');
		expect(result.error?.description).toMatch(/media_urls/);
	});

	it('creates one post per item, each paired with its item', async () => {
		const result = await harness.run(
			{ resource: 'post', operation: 'create', content: '={{ $json.text }}' },
			{ input: [{ json: { text: 'one' } }, { json: { text: 'two' } }] },
		);
		expect(jsonOf(result).map((post) => post.content)).toEqual(['one', 'two']);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});

describe('post → get', () => {
	it('reads a post by ID and by its API URL', async () => {
		const post = await createPost();
		for (const locator of [
			byId('id', post.id as string),
			byId('url', `https://api.example.com/v1/posts/${post.id}?x=1`),
		]) {
			const result = await harness.run({ resource: 'post', operation: 'get', postId: locator });
			expect(jsonOf(result)).toEqual([post]);
		}
		expect(harness.sent('getPost').map((request) => request.path)).toEqual([
			`/v1/posts/${post.id}`,
			`/v1/posts/${post.id}`,
		]);
	});

	it('fails with 404 for a deleted post', async () => {
		const result = await harness.run({
			resource: 'post',
			operation: 'get',
			postId: byId('id', 'post_gone'),
		});
		expect(result.error?.httpCode).toBe('404');
	});
});

describe('post → getMany', () => {
	it('filters by status and follows the cursor', async () => {
		for (const status of ['draft', 'published', 'draft', 'draft', 'draft'])
			await createPost({ status });
		harness.service.requests.length = 0;

		const result = await harness.run({
			resource: 'post',
			operation: 'getMany',
			returnAll: true,
			filters: { status: 'draft' },
		});

		expect(jsonOf(result)).toHaveLength(4);
		expect(jsonOf(result).every((post) => post.status === 'draft')).toBe(true);
		expect(harness.sent('listPosts').map((request) => request.query.status)).toEqual([
			'draft',
			'draft',
		]);
	});
});

describe('post → update', () => {
	it('sends only the changed fields', async () => {
		const post = await createPost();
		const result = await harness.run({
			resource: 'post',
			operation: 'update',
			postId: byId('list', post.id as string),
			updateFields: { title: 'New title', status: 'published' },
		});
		expect(jsonOf(result)[0]).toEqual(
			expect.objectContaining({ title: 'New title', status: 'published' }),
		);
		expect(harness.sent('updatePost')[0]).toEqual(
			expect.objectContaining({
				method: 'PATCH',
				body: { title: 'New title', status: 'published' },
			}),
		);
	});

	it('refuses an update with no field before sending it', async () => {
		const result = await harness.run({
			resource: 'post',
			operation: 'update',
			postId: byId('id', 'post_1'),
			updateFields: { title: '' },
		});
		expect(result.error?.message).toBe('Nothing to update in item 0');
		expect(harness.service.requests).toHaveLength(0);
	});
});

describe('post → delete', () => {
	it('deletes the post and confirms it', async () => {
		const post = await createPost();
		const result = await harness.run({
			resource: 'post',
			operation: 'delete',
			postId: byId('id', post.id as string),
		});

		expect(jsonOf(result)).toEqual([{ id: post.id, deleted: true }]);
		expect(harness.service.posts.has(post.id as string)).toBe(false);
		expect(harness.sent('deletePost')[0].method).toBe('DELETE');
	});

	it('gives an error item for a missing post when continuing on fail', async () => {
		const post = await createPost();
		const result = await harness.run(
			{ resource: 'post', operation: 'delete', postId: byId('id', '={{ $json.id }}') },
			{
				input: [{ json: { id: 'post_missing' } }, { json: { id: post.id } }],
				node: { onError: 'continueRegularOutput' },
			},
		);

		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([
			{
				json: expect.objectContaining({
					error: expect.stringMatching(/post_missing/),
					httpCode: '404',
				}),
				pairedItem: { item: 0 },
			},
			{ json: { id: post.id, deleted: true }, pairedItem: { item: 1 } },
		]);
	});
});

describe('page and post pickers inside Additional Fields and Filters', () => {
	it('sends the id a picker names in each of its modes', async () => {
		const [first, second] = [...harness.service.pages.values()];
		await createPost({
			additionalFields: { pageId: byId('url', `${harness.service.url}/v1/pages/${first.id}`) },
		});
		await createPost({ additionalFields: { pageId: byId('list', second.id) } });
		expect(
			harness.sent('createPost').map((request) => (request.body as { page_id?: string }).page_id),
		).toEqual([first.id, second.id]);

		const listed = jsonOf(
			await harness.run({
				resource: 'post',
				operation: 'getMany',
				returnAll: true,
				filters: { pageId: byId('id', second.id) },
			}),
		);
		expect(listed.map((post) => post.page_id)).toEqual([second.id]);
		expect(harness.sent('listPosts')[0].query.page_id).toBe(second.id);

		await harness.run({
			resource: 'content',
			operation: 'generateLinkedin',
			prompt: '',
			waitForCompletion: false,
			additionalFields: { sourcePostId: byId('list', String(listed[0].id)) },
		});
		expect(harness.sent('generateLinkedin')[0].body).toEqual({ source_post_id: listed[0].id });
	});

	it('refuses an id that would address another path, naming the picker and item, before sending', async () => {
		const result = await harness.run(
			{
				resource: 'content',
				operation: 'generateTwitter',
				prompt: 'Hi',
				additionalFields: { sourcePostId: byId('id', '..') },
			},
			{ input: [{ json: {} }] },
		);
		expect(result.error?.message).toBe('"Source Post" of item 0 is not an ID: ".."');
		expect(harness.sent('generateTwitter')).toHaveLength(0);
	});
});
