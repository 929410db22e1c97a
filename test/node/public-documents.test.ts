import { readFileSync } from 'node:fs';
import path from 'node:path';

import { readListOperation } from '../../nodes/shared/profile/read';
import type { OpenApiDocument } from '../../nodes/shared/profile/read/document';
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
