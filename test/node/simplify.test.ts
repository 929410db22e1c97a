import type { IDataObject, INode } from 'n8n-workflow';

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { simplify } from '../../nodes/ContentPublishing/actions/outputs';
import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { byId, FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';

/**
 * Simplify: posts, list items and jobs in one shape on every service, whatever its envelope, its
 * names for a job's id, status and result, or its status words.
 */
/** An example's node's parameters, by its name, with fast waits. */
function exampleNode(file: string, name: string): INode['parameters'] {
	const { nodes } = JSON.parse(
		readFileSync(path.resolve(__dirname, '..', '..', 'examples', file), 'utf8'),
	) as { nodes: INode[] };
	const { parameters } = nodes.find((node) => node.name === name)!;
	return { ...parameters, options: FAST_WAIT };
}

const JOB_KEYS = ['id', 'status', 'serviceStatus', 'result'];

/**
 * Each profile, its word for a job that succeeded, and the examples whose chains it runs: Simplify
 * finds the result, but the names in it are the service's, and only some name them as the spec does
 * (a blog post's `content` and `title`; a thread's `tweets` as texts).
 */
describe.each([
	['primary', 'succeeded', ['blog', 'thread']],
	['alternate', 'READY', ['thread']],
	['envelope', 'completed', []],
	['nested', 'done', ['blog']],
	['jsonapi', 'succeeded', ['blog', 'thread']],
] as const)('the %s profile', (profile, succeeded, chains: readonly string[]) => {
	const harness = useFakeService({ profile });

	async function run(parameters: IDataObject): Promise<IDataObject[]> {
		return jsonOf(await harness.run({ simplify: true, ...parameters }));
	}

	it('outputs a post, and each listed post, with its id first', async () => {
		const [created] = await run({
			resource: 'post',
			operation: 'create',
			content: 'Hello',
			status: 'draft',
		});
		expect(Object.keys(created)[0]).toBe('id');
		const id = String(created.id);
		expect(harness.service.posts.has(id)).toBe(true);

		const [got] = await run({ resource: 'post', operation: 'get', postId: byId('id', id) });
		expect(got).toEqual(created);

		const listed = await run({ resource: 'post', operation: 'getMany', returnAll: true });
		expect(listed.map((post) => Object.keys(post)[0])).toEqual(listed.map(() => 'id'));
		expect(listed.find((post) => post.id === id)).toEqual(created);
	});

	it("outputs a finished job's id, status in the node's words beside the service's, and result", async () => {
		const [blog] = await run({
			resource: 'content',
			operation: 'generateBlog',
			transcript: 'Today we shipped the editor.',
			options: FAST_WAIT,
		});
		expect(Object.keys(blog)).toEqual(JOB_KEYS);
		expect(blog).toMatchObject({ status: 'succeeded', serviceStatus: succeeded });
		expect(harness.service.jobs.get(String(blog.id))?.status).toBe('succeeded');
		expect(blog.result).toEqual(expect.any(Object));

		// A generation some services answer at once, with the content and no job (envelope).
		const [thread] = await run({
			resource: 'content',
			operation: 'generateTwitter',
			prompt: 'Small pull requests',
			additionalFields: { threadLength: 2 },
			options: FAST_WAIT,
		});
		expect(Object.keys(thread)).toEqual(JOB_KEYS);
		expect(thread).toMatchObject({ status: 'succeeded' });
		expect(Object.values(thread.result as IDataObject)).toContainEqual(expect.any(Array));
	});

	it(
		chains.includes('blog')
			? "runs example 1's chain, whose expressions read the simplified output"
			: "stops example 1's chain before writing, naming the field the service's result names otherwise",
		async () => {
			const blog = jsonOf(
				await harness.run(exampleNode('1-transcript-to-linkedin.json', 'Generate blog post')),
			);
			const save = () =>
				harness.run(exampleNode('1-transcript-to-linkedin.json', 'Save as draft'), {
					input: blog.map((json) => ({ json })),
				});
			if (!chains.includes('blog')) {
				// The documented limit: the names inside a result are the service's.
				const before = harness.service.posts.size;
				expect((await save()).error?.message).toMatch(/^"Content" of item 0 is empty/);
				expect(harness.service.posts.size).toBe(before);
				return;
			}
			const drafts = jsonOf(await save());
			const [draft] = drafts;
			expect(harness.service.posts.get(String(draft.id))?.content).toBe(
				(blog[0].result as IDataObject).content,
			);
			jsonOf(
				await harness.run(exampleNode('1-transcript-to-linkedin.json', 'Publish to LinkedIn'), {
					input: drafts.map((json) => ({ json })),
				}),
			);
			expect(harness.service.posts.get(String(draft.id))?.status).toBe('published');
		},
	);

	it(
		chains.includes('thread')
			? "runs example 2's chain, whose expressions read the simplified output"
			: "stops example 2's chain before publishing, naming the field the service's result names otherwise",
		async () => {
			const thread = jsonOf(
				await harness.run(exampleNode('2-twitter-thread.json', 'Generate thread')),
			);
			const jobsBefore = harness.service.jobs.size;
			const publish = () =>
				harness.run(exampleNode('2-twitter-thread.json', 'Publish to Twitter'), {
					input: thread.map((json) => ({ json })),
				});
			if (!chains.includes('thread')) {
				expect((await publish()).error?.message).toMatch(
					/^"Parts" of item 0 (is empty|must be a list of texts)/,
				);
				expect(harness.service.jobs.size).toBe(jobsBefore);
				return;
			}
			jsonOf(await publish());
			const publication = [...harness.service.jobs.values()].at(-1);
			expect(publication).toMatchObject({ type: 'publish.twitter', status: 'succeeded' });
			expect(publication?.result).toMatchObject({ thread_urls: expect.any(Array) });
			expect((publication?.result as { thread_urls: string[] }).thread_urls).toHaveLength(4);
		},
	);

	it('outputs a running job as pending, with the same keys', async () => {
		const job = harness.service.startJob('generate.linkedin', { prompt: 'Later' });
		const [got] = await run({ resource: 'job', operation: 'get', jobId: job.id });
		expect(Object.keys(got)).toEqual(JOB_KEYS);
		expect(got).toMatchObject({ id: job.id, status: 'pending', result: null });
		expect(typeof got.serviceStatus).toBe('string');
	});
});

it('flattens a JSON:API resource object: its attributes and related ids beside its id', () => {
	const resource = {
		type: 'posts',
		id: 'post_1',
		attributes: { title: 'Hi', content: 'Hello' },
		relationships: { page: { data: { type: 'pages', id: 'page_1' } }, tags: { data: [] } },
		links: { self: 'https://api.example.com/posts/post_1' },
	};
	expect(simplify(BUILT_IN_PROFILE, resource, { endpoint: 'getPost' })).toEqual({
		id: 'post_1',
		type: 'posts',
		page: 'page_1',
		tags: [],
		title: 'Hi',
		content: 'Hello',
	});
});
