import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { apiRequestPage, type PageToken } from '../transport';
import type { EndpointName } from '../transport/endpoints';

const SEARCH_PAGE_SIZE = 50;

function text(value: unknown): string {
	return typeof value === 'string' ? value : '';
}

function shorten(value: string, length: number): string {
	const single = value.replace(/\s+/g, ' ').trim();
	return single.length > length ? `${single.slice(0, length - 1)}…` : single;
}

/**
 * Lists one page of an endpoint and filters it by the search text on the n8n side, since the
 * service's own search parameters are not published.
 */
async function search(
	context: ILoadOptionsFunctions,
	endpoint: EndpointName,
	toEntry: (record: IDataObject) => INodeListSearchItems,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = await apiRequestPage.call(context, endpoint, {
		next: paginationToken ? (JSON.parse(paginationToken) as PageToken) : undefined,
		pageSize: SEARCH_PAGE_SIZE,
	});
	const needle = (filter ?? '').trim().toLowerCase();
	const results = page.items
		.map(toEntry)
		.filter(
			(entry) =>
				needle === '' ||
				entry.name.toLowerCase().includes(needle) ||
				String(entry.value).toLowerCase().includes(needle),
		);
	const more = page.next !== undefined && page.items.length > 0;
	return { results, paginationToken: more ? JSON.stringify(page.next) : undefined };
}

export async function searchPages(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await search(
		this,
		'listPages',
		(page) => ({
			name: text(page.name) || text(page.title) || String(page.id),
			value: String(page.id),
			url: text(page.url) || undefined,
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
		(post) => {
			const label = text(post.title) || shorten(text(post.content), 60) || String(post.id);
			const status = text(post.status);
			return { name: status ? `${label} (${status})` : label, value: String(post.id) };
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
		(webhook) => {
			const events = Array.isArray(webhook.events) ? ` (${webhook.events.join(', ')})` : '';
			return { name: `${text(webhook.url) || String(webhook.id)}${events}`, value: String(webhook.id) };
		},
		filter,
		paginationToken,
	);
}
