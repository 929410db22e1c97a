import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import {
	findField,
	type EndpointName,
	type ObjectShape,
	type PageToken,
} from '../../shared/contract';
import { loadContract } from '../../shared/transport';
import { readPage } from '../../shared/transport/paging';

const SEARCH_PAGE_SIZE = 50;
// One answer to the editor reads at most this many pages (1,000 records) looking for matches;
// "load more" goes on from there.
const MAX_PAGES_PER_ANSWER = 20;

function shorten(value: string, length: number): string {
	const single = value.replace(/\s+/g, ' ').trim();
	return single.length > length ? `${single.slice(0, length - 1)}…` : single;
}

/** Reads a record's field by the service's name for it, such as `headline` for `title`. */
type FieldReader = (record: IDataObject, field: string) => unknown;

function fieldReader(item: ObjectShape | undefined): FieldReader {
	// Answers may mark fields read-only; that matters for sending, not for reading.
	const own = (record: IDataObject, name: string | undefined) =>
		name !== undefined && Object.prototype.hasOwnProperty.call(record, name)
			? record[name]
			: undefined;
	if (item === undefined) {
		return (record, field) =>
			own(
				record,
				findField(
					{ properties: new Map(Object.keys(record).map((name) => [name, {}])) },
					field,
					undefined,
					new Set(),
					{ writable: false },
				),
			);
	}
	// A documented list names the same fields in every record: each is looked up once.
	const names = new Map<string, string | undefined>();
	return (record, field) => {
		if (!names.has(field))
			names.set(field, findField(item, field, undefined, new Set(), { writable: false }));
		return own(record, names.get(field));
	};
}

function text(value: unknown): string {
	return typeof value === 'string' ? value : '';
}

/**
 * One answer to the editor's list search. Where the service documents a search parameter, it
 * searches; otherwise pages are read and filtered here until matches turn up, so a match far
 * down the list is found too.
 */
async function search(
	context: ILoadOptionsFunctions,
	endpoint: EndpointName,
	toEntry: (read: (field: string) => unknown) => INodeListSearchItems,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim();
	const route = (await loadContract.call(context)).endpoints[endpoint];
	const parameter = needle === '' ? undefined : route.search;
	const qs = parameter === undefined ? {} : { [parameter]: needle };
	const filtersHere = needle !== '' && parameter === undefined;
	const read = fieldReader(route.answer.item);
	const matches = (entry: INodeListSearchItems) =>
		!filtersHere ||
		entry.name.toLowerCase().includes(needle.toLowerCase()) ||
		String(entry.value).toLowerCase().includes(needle.toLowerCase());
	const results: INodeListSearchItems[] = [];
	let next = paginationToken ? (JSON.parse(paginationToken) as PageToken) : undefined;
	for (let pages = 1; ; pages++) {
		const page = await readPage.call(context, endpoint, { qs, next, pageSize: SEARCH_PAGE_SIZE });
		for (const record of page.items) {
			const entry = toEntry((field) => read(record, field));
			if (matches(entry)) results.push(entry);
		}
		next = page.next !== undefined && page.items.length > 0 ? page.next : undefined;
		if (
			!filtersHere ||
			next === undefined ||
			results.length >= SEARCH_PAGE_SIZE ||
			pages >= MAX_PAGES_PER_ANSWER
		)
			break;
	}
	return { results, paginationToken: next === undefined ? undefined : JSON.stringify(next) };
}

export async function searchPages(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await search(
		this,
		'listPages',
		(read) => ({
			name: text(read('name')) || text(read('title')) || String(read('id')),
			value: String(read('id')),
			url: text(read('url')) || undefined,
		}),
		filter,
		paginationToken,
	);
}

export async function searchPosts(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await search(
		this,
		'listPosts',
		(read) => {
			const label = text(read('title')) || shorten(text(read('content')), 60) || String(read('id'));
			const status = text(read('status'));
			return { name: status ? `${label} (${status})` : label, value: String(read('id')) };
		},
		filter,
		paginationToken,
	);
}

export async function searchWebhooks(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await search(
		this,
		'listWebhooks',
		(read) => {
			const listed = read('events');
			const events = Array.isArray(listed) ? ` (${listed.join(', ')})` : '';
			return {
				name: `${text(read('url')) || String(read('id'))}${events}`,
				value: String(read('id')),
			};
		},
		filter,
		paginationToken,
	);
}
