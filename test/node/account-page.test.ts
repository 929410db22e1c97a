import { byId, jsonOf, useFakeService } from '../support/fixtures';
import { contentPublishingNode, listSearch } from '../support/n8n-engine';

const harness = useFakeService();

describe('account → get', () => {
	it('returns the account the key belongs to, authenticated with the bearer key', async () => {
		const result = await harness.run({ resource: 'account', operation: 'get' });

		expect(jsonOf(result)).toEqual([expect.objectContaining({ id: harness.service.account.id })]);
		const [request] = harness.sent('getAccount');
		expect(request.headers.authorization).toBe(`Bearer ${harness.service.apiKey}`);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('fails with the service message and a hint when the key is wrong', async () => {
		const failed = await harness.run(
			{ resource: 'account', operation: 'get' },
			{ credentials: { apiKey: 'wrong-key-value' } },
		);
		expect(failed.error?.message).toMatch(/API key/i);
		expect(failed.error?.httpCode).toBe('401');
		expect(failed.error?.description).toMatch(/approved/);
		expect(JSON.stringify(failed.error)).not.toContain('wrong-key-value');
	});
});

describe('page → get', () => {
	it.each([
		['id', (id: string) => id],
		['list', (id: string) => id],
		['url', (id: string) => `https://api.example.com/v1/pages/${id}`],
	] as const)('reads one page named by %s', async (mode, toValue) => {
		const page = [...harness.service.pages.values()][1];
		const result = await harness.run({
			resource: 'page',
			operation: 'get',
			pageId: byId(mode, toValue(page.id)),
		});

		expect(jsonOf(result)).toEqual([page]);
		expect(harness.sent('getPage').map((request) => request.path)).toEqual([
			`/v1/pages/${page.id}`,
		]);
	});

	it('fails with a 404 hint for an unknown page', async () => {
		const result = await harness.run({
			resource: 'page',
			operation: 'get',
			pageId: byId('id', 'page_missing'),
		});
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toMatch(/page_missing/);
		expect(result.error?.description).toMatch(/Check the ID/);
	});

	it('refuses an empty page ID before sending anything', async () => {
		const result = await harness.run(
			{ resource: 'page', operation: 'get', pageId: byId('id', '={{ $json.pageId }}') },
			{ input: [{ json: { pageId: 'page_anything' } }, { json: { pageId: ' ' } }] },
		);
		expect(result.error?.message).toBe('"Page" of item 1 is empty');
		expect(result.error?.context?.itemIndex).toBe(1);
		// Item 0 was valid, but no item is sent while another one is invalid.
		expect(harness.service.requests).toHaveLength(0);
	});
});

describe('page → getMany', () => {
	it('follows the cursor for Return All and returns the pages themselves', async () => {
		const result = await harness.run({ resource: 'page', operation: 'getMany', returnAll: true });

		expect(jsonOf(result)).toEqual([...harness.service.pages.values()]);
		// Five pages, two per page of results.
		expect(harness.sent('listPages')).toHaveLength(3);
		expect(result.items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(
			true,
		);
	});

	it('stops at the limit', async () => {
		const result = await harness.run({
			resource: 'page',
			operation: 'getMany',
			returnAll: false,
			limit: 3,
		});

		expect(jsonOf(result).map((page) => page.id)).toEqual(
			[...harness.service.pages.keys()].slice(0, 3),
		);
		expect(harness.sent('listPages')).toHaveLength(2);
	});

	it('merges extra query parameters', async () => {
		const result = await harness.run({
			resource: 'page',
			operation: 'getMany',
			returnAll: true,
			options: { extraQuery: '{"q": "acme on"}' },
		});
		expect(jsonOf(result).map((page) => page.name)).toEqual([
			'Acme on LinkedIn',
			'Acme on Twitter',
		]);
		expect(harness.sent('listPages')[0].query.q).toBe('acme on');
	});

	it('names the parameter and item when the extra query is not JSON', async () => {
		const result = await harness.run({
			resource: 'page',
			operation: 'getMany',
			returnAll: true,
			options: { extraQuery: '{q: nope' },
		});
		expect(result.error?.message).toBe(
			'"Extra Query Parameters (JSON)" of item 0 is not valid JSON',
		);
		expect(harness.service.requests).toHaveLength(0);
	});
});

describe('list search', () => {
	const node = contentPublishingNode({ resource: 'page', operation: 'get' });

	it('lists pages page by page and filters them by name', async () => {
		const first = await listSearch(node, 'searchPages', harness.credentials);
		expect(first.results.map((entry) => entry.name)).toEqual([
			'Acme Engineering Blog',
			'Acme on LinkedIn',
		]);
		expect(first.paginationToken).toEqual(expect.any(String));

		const second = await listSearch(
			node,
			'searchPages',
			harness.credentials,
			undefined,
			first.paginationToken as string,
		);
		expect(second.results.map((entry) => entry.name)).toEqual(['Acme on Twitter', 'Founder Notes']);

		const filtered = await listSearch(
			node,
			'searchPages',
			harness.credentials,
			'twitter',
			first.paginationToken as string,
		);
		expect(filtered.results).toEqual([
			expect.objectContaining({ name: 'Acme on Twitter', value: expect.stringMatching(/^page_/) }),
		]);
	});
});
