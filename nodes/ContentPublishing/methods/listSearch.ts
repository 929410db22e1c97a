import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import type { PageToken } from '../../shared/executor/answers';
import {
	isRecord,
	nonEmptyText,
	readAt,
	segmentsOf,
	pointerOf,
	resourcePlaces,
} from '../../shared/profile/pointer';
import type { OperationName, Profile } from '../../shared/profile/types';
import { readPages } from '../../shared/executor/paging';
import { loadProfile } from '../../shared/executor/profiles';

const SEARCH_PAGE_SIZE = 50;
// One answer to the editor reads at most this many pages (1,000 records) looking for matches;
// "load more" goes on from there.
const MAX_PAGES_PER_ANSWER = 20;

function shorten(value: string, length: number): string {
	const single = value.replace(/\s+/g, ' ').trim();
	return single.length > length ? `${single.slice(0, length - 1)}…` : single;
}

/**
 * A request placement as the answered resource holds it. The create's answer says which of its
 * places: the one below its resource (`/attributes/title` where that is `/body/data`), else below
 * the body; a list's entry is none.
 */
function inResource(to: string | null | undefined, resource: string[]): string | undefined {
	if (!to || segmentsOf(to).includes('-')) return undefined;
	const places = resourcePlaces(to);
	return [...resource, '/body']
		.map((prefix) => places.find((place) => `${prefix}${place}` === to))
		.find((place) => place !== undefined);
}

// A page's name, where a service has no request of its own naming it: the usual names for one.
const PAGE_NAMES = ['/name', '/title', '/display_name', '/displayName', '/label', '/handle'];

/** What a picker's entry shows of a record: read where the profile says the service keeps it. */
function fieldReader(profile: Profile, list: OperationName) {
	const { fields, answer } = profile.operations.createPost;
	const place = (field: string) => inResource(fields[field]?.to, answer.resource ?? []);
	const { registration } = profile.webhooks;
	const places: Record<string, Array<string | undefined>> = {
		id: [profile.operations[list].answer.itemId ?? '/id'],
		name: PAGE_NAMES,
		url: ['/url', '/link', '/permalink'],
		title: [place('title'), '/title'],
		content: [place('content'), '/content'],
		status: [place('status'), '/status'],
		webhookUrl: [registration.url],
		events: [registration.events],
	};
	// Where a post's fields are held (JSON:API's `attributes`), a page's and a webhook's are too.
	const holder = segmentsOf(place('content') ?? '').slice(0, -1);
	return (record: IDataObject, field: string) =>
		[record, holder.length > 0 ? readAt(record, pointerOf(holder)) : undefined]
			.filter(isRecord)
			.flatMap((held) =>
				(places[field] ?? []).map((pointer) =>
					pointer === undefined ? undefined : readAt(held, pointer),
				),
			)
			.find((value) => value !== undefined && value !== null && !isRecord(value));
}

/**
 * The editor's list search over one list endpoint, each record shown as `toEntry` says. Where the
 * service documents a search parameter, it searches; otherwise pages are read and filtered here
 * until matches turn up, so a match far down the list is found too.
 */
function listSearch(
	endpoint: OperationName,
	toEntry: (read: (field: string) => unknown) => INodeListSearchItems,
) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		const needle = (filter ?? '').trim();
		const profile = await loadProfile.call(this);
		const search = profile.operations[endpoint].fields.search?.to;
		const parameter = needle === '' || !search ? undefined : segmentsOf(search)[1];
		const qs = parameter === undefined ? {} : { [parameter]: needle };
		const filtersHere = needle !== '' && parameter === undefined;
		const read = fieldReader(profile, endpoint);
		const matches = (entry: INodeListSearchItems) =>
			!filtersHere ||
			entry.name.toLowerCase().includes(needle.toLowerCase()) ||
			String(entry.value).toLowerCase().includes(needle.toLowerCase());
		const results: INodeListSearchItems[] = [];
		let next = paginationToken ? (JSON.parse(paginationToken) as PageToken) : undefined;
		const pages = readPages.call(this, endpoint, {
			qs,
			next,
			pageSize: () => SEARCH_PAGE_SIZE,
			maxPages: MAX_PAGES_PER_ANSWER,
		});
		for await (const page of pages) {
			for (const record of page.items) {
				const entry = toEntry((field) => read(record, field));
				if (matches(entry)) results.push(entry);
			}
			next = page.next;
			if (!filtersHere || next === undefined || results.length >= SEARCH_PAGE_SIZE) break;
		}
		return { results, paginationToken: next === undefined ? undefined : JSON.stringify(next) };
	};
}

export const searchPages = listSearch('listPages', (read) => ({
	name: nonEmptyText(read('name')) ?? nonEmptyText(read('title')) ?? String(read('id')),
	value: String(read('id')),
	url: nonEmptyText(read('url')),
}));

export const searchPosts = listSearch('listPosts', (read) => {
	const label =
		nonEmptyText(read('title')) ??
		(shorten(nonEmptyText(read('content')) ?? '', 60) || String(read('id')));
	const status = nonEmptyText(read('status'));
	return { name: status ? `${label} (${status})` : label, value: String(read('id')) };
});

export const searchWebhooks = listSearch('listWebhooks', (read) => {
	const listed = read('events');
	const events = Array.isArray(listed) ? ` (${listed.join(', ')})` : '';
	return {
		name: `${nonEmptyText(read('webhookUrl')) ?? String(read('id'))}${events}`,
		value: String(read('id')),
	};
});
