import type { IDataObject } from 'n8n-workflow';

import type { FakeServiceOptions, RecordedRequest } from '../fake-service';
import { overrideExamples } from '../support/docs';
import { FAST_WAIT, jsonOf, useFakeService } from '../support/fixtures';

/**
 * The profile Service → Describe outputs, copied as it is into the credential's Profile Overrides,
 * is taken and changes nothing: Describe outputs the same again, and the node sends the same
 * requests, for every profile of the fake service. Where overrides made the profile, the copy
 * replaces them: only `overridden` differs, which names what differs from the profile read.
 */

const cases: Array<
	[string, Pick<FakeServiceOptions, 'profile' | 'openApiDocument'>, string | undefined]
> = [
	['primary', { profile: 'primary' }, undefined],
	['primary without its document', { profile: 'primary', openApiDocument: false }, undefined],
	['alternate', { profile: 'alternate' }, undefined],
	[
		"alternate without its document, with the documentation's overrides",
		{ profile: 'alternate', openApiDocument: false },
		overrideExamples()[1],
	],
	['envelope', { profile: 'envelope' }, undefined],
	['nested', { profile: 'nested' }, undefined],
	['jsonapi', { profile: 'jsonapi' }, undefined],
	["jsonapi, with the documentation's overrides", { profile: 'jsonapi' }, overrideExamples()[2]],
	[
		"jsonapi without its document, with the documentation's overrides",
		{ profile: 'jsonapi', openApiDocument: false },
		overrideExamples()[2],
	],
];

/** A request as sent, without what differs on every request (its idempotency key, its ids). */
function sent({ method, path, query, headers, body }: RecordedRequest) {
	const kept = Object.fromEntries(
		Object.entries(headers).filter(
			([name]) => !/idempotency|repeatability|request-id|^date$/.test(name),
		),
	);
	return { method, path: path.replace(/[a-z]+_[A-Za-z0-9]+/g, '<id>'), query, headers: kept, body };
}

describe.each(cases)('the %s profile', (_name, options, overrides) => {
	const harness = useFakeService(options);
	const describe = { resource: 'service', operation: 'describe' };

	/** Creates a post, then generates a blog post and waits for its job; the requests they sent. */
	async function requestsOf(profileOverrides?: string) {
		harness.service.reset();
		const credentials = { profileOverrides };
		const created = await harness.run(
			{ resource: 'post', operation: 'create', content: 'Hello', status: 'draft' },
			{ credentials },
		);
		expect(created.error).toBeUndefined();
		const started = await harness.run(
			{
				resource: 'content',
				operation: 'generateBlog',
				transcript: 'We shipped the new editor.',
				waitForCompletion: false,
			},
			{ credentials },
		);
		expect(started.error).toBeUndefined();
		const waited = await harness.run(
			{
				resource: 'job',
				operation: 'wait',
				jobId: [...harness.service.jobs.keys()][0],
				options: FAST_WAIT,
			},
			{ credentials },
		);
		expect(waited.error).toBeUndefined();
		return { requests: harness.service.requests.map(sent), output: jsonOf(waited) };
	}

	it('takes the profile Describe outputs as Profile Overrides, and then describes and sends the same', async () => {
		const [first] = jsonOf(
			await harness.run(describe, { credentials: { profileOverrides: overrides } }),
		);
		const profileOverrides = JSON.stringify(first.profile);
		const [again] = jsonOf(await harness.run(describe, { credentials: { profileOverrides } }));
		if (overrides === undefined) {
			expect(again).toEqual(first);
			expect((again.profile as IDataObject).overridden).toBeUndefined();
		} else {
			const { overridden, ...profile } = first.profile as IDataObject;
			expect(again.profile).toEqual({ ...profile, overridden: expect.any(Array) as unknown });
			const unlisted = (summary: unknown) =>
				(summary as string[]).filter((line) => !line.startsWith('Set by the credential'));
			expect(unlisted(again.summary)).toEqual(unlisted(first.summary));
			expect(overridden).toEqual(expect.any(Array));
		}

		const before = await requestsOf(overrides);
		const after = await requestsOf(profileOverrides);
		expect(after.requests).toEqual(before.requests);
		expect(after.requests.length).toBeGreaterThanOrEqual(3);
		expect(after.output.map((job) => Object.keys(job))).toEqual(
			before.output.map((job) => Object.keys(job)),
		);
	});
});
