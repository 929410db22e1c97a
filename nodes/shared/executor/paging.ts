import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readLocation } from '../profile/pointer';
import type { OperationName, Paging } from '../profile/types';
import { readCredentials, type RequestContext } from '../transport/credentials';
import { itemIdOf, pointerToMember, readListPage, type ListPage, type PageToken } from './answers';
import { notAsProfiled } from './errors';
import { loadProfile, profileFor } from './profiles';
import { callEndpoint, type CallOptions } from './send';

/**
 * Reading lists page by page, in the service's paging, so that it always ends: at the end the
 * service names, at a page that brings nothing new, and at caps on items and requests that no Limit
 * lifts. A total the service states is a hint for going on, never a reason to drop items.
 */

/** Most items one list read outputs, with Return All or any Limit. */
export const MAX_LIST_ITEMS = 10_000;
const MAX_LIST_REQUESTS = 1_000;
const DEFAULT_PAGE_SIZE = 100;

interface ListOptions extends Pick<CallOptions, 'itemIndex' | 'timeoutMs' | 'signal' | 'policy'> {
	/** Filters as the node's parameters, which the profile places in the query. */
	filters?: IDataObject;
	/** Query parameters sent as given (Extra Query Parameters). */
	qs?: IDataObject;
}

function pageQuery(
	paging: Paging | undefined,
	next: PageToken | undefined,
	pageSize: number,
): IDataObject {
	const query: IDataObject = {};
	if (paging === undefined || paging.style === 'none') return query;
	if (paging.size !== undefined)
		query[paging.size] = Math.max(1, Math.min(pageSize, paging.max ?? DEFAULT_PAGE_SIZE));
	if (paging.style === 'cursor' && next !== undefined && 'cursor' in next)
		query[paging.cursor] = next.cursor;
	if (paging.style === 'after' && next !== undefined && 'after' in next)
		query[paging.cursor] = next.after;
	if (paging.style === 'page')
		query[paging.page] = next !== undefined && 'page' in next ? next.page : paging.first;
	if (paging.style === 'offset')
		query[paging.offset] = next !== undefined && 'offset' in next ? next.offset : 0;
	return query;
}

/**
 * A list's pages from `next` (the first where none is given), each with its next page only where the
 * list goes on: not after a page without one, an empty page, or a next page that repeats an earlier
 * one. Stops there, or after `maxPages` pages; a reader that has what it needs leaves the loop.
 * `pageSize` is asked before each request, so it may follow what was read.
 */
export async function* readPages(
	this: RequestContext,
	name: OperationName,
	{
		filters,
		qs = {},
		next,
		maxPages,
		pageSize,
		...request
	}: ListOptions & { next?: PageToken; maxPages: number; pageSize: () => number },
): AsyncGenerator<ListPage> {
	const seenTokens = new Set<string>();
	for (let pages = 0; pages < maxPages; pages++) {
		const credentials = await readCredentials.call(this, request.itemIndex);
		const profile = await profileFor.call(this, credentials, request.itemIndex);
		const { answer: reading, path } = profile.operations[name];
		// A next link names the whole address, query included; it is read only within the Base URL's origin.
		const answer = await callEndpoint.call(
			this,
			name,
			next !== undefined && 'url' in next
				? { url: new URL(next.url, `${credentials.baseUrl}${path}`).toString(), ...request }
				: {
						qs: { ...pageQuery(reading.paging, next, pageSize()), ...qs },
						params: filters,
						...request,
					},
		);
		const { answer: read, method } = answer.profile.operations[name];
		// A list is never read as empty where the answer holds no list at the profile's places.
		const { items = [] } = read;
		if (items.length > 0 && !items.some((at) => Array.isArray(readLocation(answer, at)))) {
			const found = Array.isArray(answer.body)
				? ''
				: pointerToMember(answer.body, (_name, member) => Array.isArray(member));
			throw notAsProfiled(
				this,
				`The service's answer to ${method} ${path} holds no list where the profile says`,
				`the items at ${items.join(' or ')} (operations.${name}.answer.items)`,
				answer.body,
				`{"operations": {"${name}": {"answer": {"items": "/body${found ?? '/data'}"}}}}`,
				request.itemIndex,
			);
		}
		const page = readListPage(read, answer, next);
		const token = page.next === undefined ? undefined : JSON.stringify(page.next);
		// Page numbers and offsets go on to an empty page: a short page may only be the service's own
		// page size, and a total may lie, so neither ends the list (it costs one request at its end).
		const goesOn = token !== undefined && page.items.length > 0 && !seenTokens.has(token);
		yield goesOn ? page : { items: page.items };
		if (!goesOn) return;
		seenTokens.add(token);
		next = page.next;
	}
}

/** Reads pages until `limit` items were read (all of them, up to MAX_LIST_ITEMS, when no limit is given). */
export async function readAllItems(
	this: RequestContext,
	name: OperationName,
	{ limit, ...options }: ListOptions & { limit?: number },
): Promise<IDataObject[]> {
	const wanted = Math.min(limit ?? MAX_LIST_ITEMS, MAX_LIST_ITEMS);
	const { answer: reading } = (await loadProfile.call(this, options.itemIndex)).operations[name];
	const refuse = (message: string, description: string) =>
		new NodeOperationError(this.getNode(), message, { itemIndex: options.itemIndex, description });
	const collected: IDataObject[] = [];
	const seenIds = new Set<string>();
	// Page numbers add up only when every page has one size; other styles ask for what is missing.
	// Return All asks for one item beyond its cap, which shows whether the list goes on.
	const pageSize = () =>
		reading.paging?.style === 'page'
			? Math.min(limit ?? DEFAULT_PAGE_SIZE, DEFAULT_PAGE_SIZE)
			: Math.min(wanted - collected.length + (limit === undefined ? 1 : 0), DEFAULT_PAGE_SIZE);
	let done = false;
	const pages = readPages.call(this, name, { ...options, pageSize, maxPages: MAX_LIST_REQUESTS });
	for await (const page of pages) {
		let fresh = 0;
		for (const item of page.items) {
			const id = itemIdOf(reading, item);
			// A service whose paging loops hands the same items back; each is output once.
			if (id !== undefined) {
				if (seenIds.has(id)) continue;
				seenIds.add(id);
			}
			fresh++;
			// One by one: spreading a huge page into push() would overflow the call stack.
			collected.push(item);
		}
		done =
			page.next === undefined ||
			fresh === 0 ||
			collected.length > wanted ||
			(limit !== undefined && collected.length >= wanted);
		if (done) break;
	}
	if (!done)
		throw refuse(
			`Reading the list stopped after ${MAX_LIST_REQUESTS.toLocaleString('en-US')} requests`,
			`${collected.length.toLocaleString('en-US')} items were read by then, and the service still named a next page. Set a Limit, or narrow the list with filters.`,
		);
	if (limit === undefined && collected.length > MAX_LIST_ITEMS)
		throw refuse(
			`Return All stopped after ${MAX_LIST_ITEMS.toLocaleString('en-US')} items`,
			'The list goes on further than one execution should read. Turn off Return All and set a Limit, or narrow the list with filters.',
		);
	return collected.slice(0, wanted);
}
