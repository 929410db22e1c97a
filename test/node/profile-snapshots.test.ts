import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { describeProfile } from '../../nodes/shared/profile/describe';
import { readProfile } from '../../nodes/shared/profile/read';
import type { OpenApiDocument } from '../../nodes/shared/profile/read/document';
import { ALTERNATE } from '../fake-service/alternate';
import { ENVELOPE } from '../fake-service/envelope';
import { NESTED } from '../fake-service/nested';
import { buildOpenApiDocument } from '../fake-service/openapi';

/**
 * The whole profile the node reads from each document it is tested against, as data and in
 * words: a change of any decision (a rule, the built-in conventions, a fake service's document)
 * shows up in review as a change of these snapshots. `npx jest -u <this file>` writes them anew.
 */
const SERVER = 'http://127.0.0.1:5690';

it.each([
	['primary', () => buildOpenApiDocument(SERVER)],
	['alternate', () => ALTERNATE.document(SERVER)],
	['envelope', () => ENVELOPE.document(SERVER)],
	['nested', () => NESTED.document(SERVER)],
])("the %s fake service's document", async (name, document) => {
	const profile = await readProfile(document() as unknown as OpenApiDocument, `${name} document`);
	expect(profile.notFollowed).toEqual([]);
	expect(describeProfile(profile)).toMatchSnapshot('in words');
	expect(profile).toMatchSnapshot('as data');
});

it('the built-in conventions', () => {
	expect(describeProfile(BUILT_IN_PROFILE)).toMatchSnapshot('in words');
	expect(BUILT_IN_PROFILE).toMatchSnapshot('as data');
});
