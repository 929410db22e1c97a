import { readFileSync } from 'node:fs';
import path from 'node:path';

import { pointerOf } from '../../nodes/shared/profile/pointer';
import { readListOperation } from '../../nodes/shared/profile/read';
import { idOf, resourcePath } from '../../nodes/shared/profile/read/answers';
import { DocumentReader, type OpenApiDocument } from '../../nodes/shared/profile/read/document';
import {
	findOperation,
	operationsOf,
	parametersOf,
	requestOf,
	successes,
} from '../../nodes/shared/profile/read/operations';
import { OWN_HEADERS } from '../../nodes/shared/profile/shape';
import type { Paging } from '../../nodes/shared/profile/types';

/**
 * The node's reading of lists against OpenAPI documents their APIs' owners publish, which no one
 * here wrote (test/fixtures/public-openapi/, sources in SOURCES.md). For each list operation,
 * where its items are and how it pages was written by hand from the API's own reference
 * documentation (expected.json), not from the node's output.
 *
 * The bounds: items right for at least 95% of the lists (every expected place is an array the
 * document describes; a few answers carry another array of objects with ids beside the list), and
 * paging right for at least 85% of the lists whose paging the document declares at all (lists
 * whose reference describes paging the document does not declare are `undocumented`, and a few
 * more are ambiguous from the document alone: picker parameters nothing feeds, a journal number
 * called offset).
 */

interface Expected {
	api: string;
	file: string;
	lists: Array<{
		method: string;
		path: string;
		items: string;
		paging: Record<string, string | number> & { style: Paging['style'] };
		undocumented?: string[];
	}>;
	/** For a resource (its path as the document writes it): what its reference says an update is. */
	decisions: Array<{
		path: string;
		update: string;
		mediaType: string;
		requiredHeaders: string[];
		id: string;
	}>;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'public-openapi');
const expected = JSON.parse(
	readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8'),
) as Expected[];

/**
 * Whether the node's paging is what the reference says, in every part the expectation gives but a
 * total, which the node does not read (a total never ends a list: the next page does).
 */
function samePaging(
	read: Paging | undefined,
	wanted: Expected['lists'][number]['paging'],
): boolean {
	if (read === undefined || read.style !== wanted.style) return false;
	return Object.entries(wanted).every(([key, value]) => {
		if (key === 'total') return true;
		const actual = (read as Record<string, unknown>)[key];
		return key === 'next' ? Array.isArray(actual) && actual.includes(value) : actual === value;
	});
}

describe('lists of public documents no one here wrote', () => {
	const results = expected.flatMap(({ api, file, lists }) => {
		const document = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as OpenApiDocument;
		return lists.map((list) => {
			const read = readListOperation(document, list.method, list.path);
			return {
				api,
				list,
				items: read?.items?.[0] === list.items,
				paging: samePaging(read?.paging, list.paging),
				read,
			};
		});
	});
	const declared = results.filter(({ list }) => list.undocumented === undefined);

	it('reads where the items are and how they page as the references say', () => {
		const items = results.filter((result) => result.items).length;
		const paging = declared.filter((result) => result.paging).length;
		console.log(
			`public documents: ${expected.length}, list endpoints ${results.length}, items right ${items}, paging right ${paging} of ${declared.length} whose paging the document declares`,
		);
		const wrong = results
			.filter(
				(result) => !result.items || (!result.paging && result.list.undocumented === undefined),
			)
			.map(
				({ api, list, read }) =>
					`${api} ${list.path}: ${JSON.stringify({ items: read?.items, paging: read?.paging })}`,
			);
		expect({
			items: items / results.length >= 0.95,
			paging: paging / declared.length >= 0.85,
			wrong,
		}).toMatchObject({
			items: true,
			paging: true,
		});
	});
});

type Outcome = 'right' | 'not followed' | 'wrong';
const outcome = (read: string | undefined, wanted: string): Outcome =>
	read === undefined ? 'not followed' : read === wanted ? 'right' : 'wrong';

/**
 * The decisions the node's reader makes for one resource, each by the functions the profile's
 * reading uses: which operation updates it (the node's Post → Update rules, given the resource's
 * path), the media type its body is sent as, the header parameters it requires, and the property
 * that is its id (in the resource its read answers with, out of any envelope).
 */
function decide(document: OpenApiDocument, decision: Expected['decisions'][number]) {
	// The reader's own budget for a whole document.
	const reader = new DocumentReader(document, 400_000);
	const reading = operationsOf(reader);
	let next = reading.next();
	while (next.done !== true) next = reading.next();
	const at = (method: string) =>
		next.value.find(({ from }) => from === `#${pointerOf(['paths', decision.path, method])}`);
	const read = at('get');
	const update = at(decision.update.toLowerCase());
	if (read === undefined || update === undefined)
		throw new Error(`the fixture lacks GET or ${decision.update} ${decision.path}`);
	const found = findOperation(reader, next.value, 'updatePost', {
		method: 'PATCH',
		path: read.path,
	});
	const required = new Set<string>();
	parametersOf(reader, update, 'header', required);
	const headers = [...required]
		.map((name) => name.toLowerCase())
		.filter((name) => !OWN_HEADERS.test(name));
	const answer = successes(reader, read.operation).find(
		({ schema }) => schema !== undefined,
	)?.schema;
	const resource = reader.at(answer, resourcePath(reader, answer, new Set()));
	return {
		update: outcome(found && `${found.method} ${found.from}`, `${decision.update} ${update.from}`),
		mediaType: outcome(requestOf(reader, update.operation)?.mediaType, decision.mediaType),
		requiredHeaders: outcome(
			headers.sort().join(', '),
			[...decision.requiredHeaders].sort().join(', '),
		),
		id: outcome(idOf(reader.shape(resource)), decision.id),
	};
}

/**
 * Beyond lists: for one resource of each document, what its update is (method and operation), the
 * media type its body goes as, the header parameters it requires and the property that is its id,
 * each written by hand from the API's reference (expected.json, `decisions`, the page in `why`).
 */
describe('decisions for single resources of public documents', () => {
	it("reads each resource's update, media type, required headers and id as the references say", () => {
		const results = expected.flatMap(({ api, file, decisions }) => {
			const document = JSON.parse(
				readFileSync(path.join(FIXTURES, file), 'utf8'),
			) as OpenApiDocument;
			return decisions.flatMap((decision) =>
				Object.entries(decide(document, decision)).map(([kind, result]) => ({
					at: `${api} ${decision.path} ${kind}`,
					result,
				})),
			);
		});
		const count = (wanted: Outcome) => results.filter(({ result }) => result === wanted).length;
		console.log(
			`public documents: ${expected.length}, decisions checked ${results.length}, right ${count('right')}, said not followed ${count('not followed')}, wrong ${count('wrong')}`,
		);
		// A wrong decision sends every request of that operation wrong, unseen until the service
		// refuses it (or, worse, takes it); one said not followed is in Describe, with the built-in
		// convention standing in and an override to correct it. So a wrong one costs two, and the
		// bound is on the cost: at most 15% of the decisions (a reader of documents it never saw may
		// miss a name: today 3 of 56 are said, none wrong: ids named `sid`, `dag_id` or answered in
		// an array), and at most one decision in fifty wrong.
		const costly = results
			.filter(({ result }) => result !== 'right')
			.map(({ at, result }) => `${at}: ${result}`);
		expect({
			cost: (2 * count('wrong') + count('not followed')) / results.length <= 0.15,
			wrong: count('wrong') / results.length <= 0.02,
			costly,
		}).toMatchObject({ cost: true, wrong: true });
	});
});
