import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { describeGroups } from '../../nodes/shared/profile/describe';
import { applyOverrides, parseOverrides } from '../../nodes/shared/profile/overrides';
import { readProfile } from '../../nodes/shared/profile/read';
import type { OpenApiDocument } from '../../nodes/shared/profile/read/document';
import type { Profile } from '../../nodes/shared/profile/types';
import { ALTERNATE } from '../fake-service/alternate';
import { ENVELOPE } from '../fake-service/envelope';
import { JSONAPI } from '../fake-service/jsonapi';
import { NESTED } from '../fake-service/nested';
import { buildOpenApiDocument } from '../fake-service/openapi';

/**
 * The whole profile the node reads from each document it is tested against, as data and in
 * words: a change of any decision (a rule, the built-in conventions, a fake service's document)
 * shows up in review as a change of these snapshots. `npx jest -u <this file>` writes them anew.
 */
const SERVER = 'http://127.0.0.1:5690';

const DOCUMENTS: Array<[string, () => unknown]> = [
	['primary', () => buildOpenApiDocument(SERVER)],
	['alternate', () => ALTERNATE.document(SERVER)],
	['envelope', () => ENVELOPE.document(SERVER)],
	['nested', () => NESTED.document(SERVER)],
	['jsonapi', () => JSONAPI.document(SERVER)],
];

/** Describe's lines, its groups one after another, as `npm run profile` prints them. */
const describeProfile = (profile: Profile) => describeGroups(profile).flatMap(([, lines]) => lines);

/** Lines that say nothing, or stop before what they name: `  the resource at `, `Events: `. */
function unfinished(lines: string[]): string[] {
	return lines.filter((line) => line.trim() === '' || /(\bat|:|,|;| or)\s*$/.test(line));
}

it.each(DOCUMENTS)("the %s fake service's document", async (name, document) => {
	const profile = await readProfile(document() as unknown as OpenApiDocument, `${name} document`);
	expect(profile.notFollowed).toEqual([]);
	expect(describeProfile(profile)).toMatchSnapshot('in words');
	expect(profile).toMatchSnapshot('as data');
});

it('the built-in conventions', () => {
	expect(describeProfile(BUILT_IN_PROFILE)).toMatchSnapshot('in words');
	expect(BUILT_IN_PROFILE).toMatchSnapshot('as data');
});

describe('Describe in words', () => {
	it.each(DOCUMENTS)(
		'says every decision of the %s document whole, each job state apart from the next',
		async (name, document) => {
			const profile = await readProfile(
				document() as unknown as OpenApiDocument,
				`${name} document`,
			);
			const lines = describeProfile(profile);
			expect(unfinished(lines)).toEqual([]);
			const states = lines.filter((line) => line.startsWith('Jobs: status at '));
			for (const line of states)
				expect(line).toMatch(/^Jobs: status at \S+: (\S+ → \S+; )+any other value → pending$/);
		},
	);

	it('puts what was not followed first, then where it was read and what the overrides set, then each resource', async () => {
		const document = buildOpenApiDocument(SERVER) as unknown as OpenApiDocument;
		// A path that leaves the Base URL is not followed: the built-in path stands in.
		document.paths['/v1/%2e%2e/me'] = document.paths['/v1/me'];
		delete document.paths['/v1/me'];
		const read = await readProfile(document, 'primary document');
		const profile = applyOverrides(
			read,
			parseOverrides('{"operations": {"updatePost": {"method": "PUT"}}}'),
		);
		const groups = describeGroups(profile);
		expect(groups.map(([group]) => group)).toEqual([
			'Not followed',
			'Service',
			'Account',
			'Page',
			'Post',
			'Content Generation',
			'Publication',
			'Job',
			'Webhook',
		]);
		const lines = describeProfile(profile);
		expect(lines.slice(0, 3)).toEqual([
			expect.stringMatching(/^Not followed: the path "\/v1\/%2e%2e\/me"/),
			'Read from: primary document',
			"Set by the credential's Profile Overrides: /operations/updatePost/method",
		]);
		expect(lines).toContain('Post → Update: PUT /v1/posts/{id}');
		expect(unfinished(lines)).toEqual([]);
	});

	it('says where nothing is known instead of leaving a line unfinished', () => {
		const { jobs, webhooks } = BUILT_IN_PROFILE;
		const lines = describeProfile({
			...BUILT_IN_PROFILE,
			jobs: { ...jobs, id: [], completion: { by: 'status', status: ['/status'], states: {} } },
			webhooks: { ...webhooks, events: [], delivery: { ...webhooks.delivery, id: [] } },
		});
		expect(unfinished(lines)).toEqual([]);
		expect(lines).toEqual(
			expect.arrayContaining([
				'Jobs: status at /status: no values known; any other value → pending',
				'  id at nowhere; result at /result; error at /error',
				'Events: none',
			]),
		);
	});
});
