import { createHmac } from 'node:crypto';

import type { FakeService, ProfileAdapter, Query, RouteResult, WebhookEvent } from './server';

/**
 * The skeleton every translated profile shares: answers, lists and deliveries translated resource by
 * resource, and the helpers their conventions are written with. A profile's module states only its
 * conventions (names, envelopes, paging, errors, signatures) and passes them to defineProfile.
 */

export type Json = Record<string, unknown>;
type Resources<T> = Record<'Account' | 'Page' | 'Post' | 'Job' | 'Webhook', T>;

/** What a profile's answer is made from: the primary's answer and its one resource translator. */
export interface Answered {
	operation: string;
	status: number;
	answer: Json;
	resource: (value: Json) => Json;
	request: { id?: string; body: unknown };
	service: FakeService;
}

interface ProfileSpec extends Omit<ProfileAdapter, 'outgoing' | 'event'> {
	/** Each resource in the profile's terms. */
	resources(service: FakeService): Resources<(value: Json) => Json>;
	/** The member of a list answer that holds its items. */
	items(operation: string): string | undefined;
	/** A delete's body, answered with 200; without it, the primary's 204 as is. */
	deleted?(id: string | undefined): unknown;
	/** A list answer from its translated items and the rest of the primary's; without it, the primary's answer with them in its place. */
	list?(answered: Answered, items: Json[], rest: Json): RouteResult;
	/** An answer of one resource (or an acceptance). */
	one(answered: Answered): RouteResult;
	/** Of every answer with a body; default application/json. */
	contentType?: string;
	/** A delivery: its event name and body, from the event's job or post; or `event` in full. */
	delivery?: {
		name(type: string): string;
		job(job: Json): Json;
		post(post: Json): Json;
		body(payload: Json, name: string, event: WebhookEvent, of: 'job' | 'post'): unknown;
	};
	event?: ProfileAdapter['event'];
}

export function defineProfile({
	resources,
	items,
	deleted,
	list,
	one,
	contentType,
	delivery,
	event,
	...adapter
}: ProfileSpec): ProfileAdapter {
	const typed = (result: RouteResult): RouteResult =>
		contentType === undefined ? result : { ...result, contentType };
	return {
		...adapter,
		outgoing: (operation, answered, request, service) => {
			const { status } = answered;
			if (operation === 'getOpenApiDocument') return answered;
			if (status === 204)
				return deleted === undefined ? answered : { status: 200, body: deleted(request.id) };
			const answer = answered.body as Json;
			const resource = resourceOf(operation, resources(service));
			const context = { operation, status, answer, resource, request, service };
			const key = items(operation);
			if (key === undefined || !Array.isArray(answer[key])) return typed(one(context));
			const { [key]: primaryItems, ...rest } = answer;
			const translated = (primaryItems as Json[]).map(resource);
			return typed(
				list ? list(context, translated, rest) : { status, body: { ...answer, [key]: translated } },
			);
		},
		event:
			event ??
			((sent) => {
				const { name, job, post, body } = delivery as NonNullable<ProfileSpec['delivery']>;
				const data = sent.data as unknown as { job?: Json; post?: Json };
				const type = name(sent.type);
				return {
					type,
					body: data.job
						? body(job(data.job), type, sent, 'job')
						: body(post(data.post as Json), type, sent, 'post'),
				};
			}),
	};
}

/** The collection each list reads. */
export const LISTS: Record<string, string> = {
	listPages: 'pages',
	listPosts: 'posts',
	listWebhooks: 'webhooks',
};

/** Which resource a primary operation answers with. */
function resourceOf<T>(primaryOperation: string, resources: Resources<T>): T {
	if (/Account/.test(primaryOperation)) return resources.Account;
	if (/Page/.test(primaryOperation)) return resources.Page;
	if (/Webhook/.test(primaryOperation)) return resources.Webhook;
	return /Post|Posts/.test(primaryOperation) && !/^publish/.test(primaryOperation)
		? resources.Post
		: resources.Job;
}

/** The primary's name for a profile's `value`: the key `names` maps to it, else the value itself. */
export const primaryOf = (names: Record<string, string>, value: unknown) =>
	Object.keys(names).find((name) => names[name] === value) ?? value;

/** Names the other way round: value → key. */
export const inverted = (names: Record<string, string>): Record<string, string> =>
	Object.fromEntries(Object.entries(names).map(([name, value]) => [value, name]));

/** The fields under their names in `names` (else their own), each value as `convert` makes it. */
export function renamed(
	fields: Json,
	names: Record<string, string>,
	convert = (_name: string, value: unknown) => value,
): Json {
	return Object.fromEntries(
		Object.entries(fields).map(([name, value]) => [
			names[name] ?? name,
			convert(names[name] ?? name, value),
		]),
	);
}

/** A webhook's events in a profile's names; the primary's wildcard is every event. */
export const eventsIn = (events: string[], names: Record<string, string>) =>
	events.includes('*') ? Object.values(names) : events.map((event) => names[event]);

/** The first value of a query parameter (or a header). */
export const single = (query: Partial<Query>, name: string) => [query[name]].flat()[0];

/** A page's size: the query's `name`, else `fallback`, at most `maxPageSize`. */
export const pageSize = (query: Query, name: string, fallback: number, maxPageSize: number) =>
	Math.min(Number(single(query, name) ?? fallback), maxPageSize);

/** The hex HMAC-SHA256 of `text` under `secret`. */
export const hexHmac = (secret: string, text: string) =>
	createHmac('sha256', secret).update(text).digest('hex');

/** `labels[0]` → `/labels/0`, `query.limit` → `/query/limit`, the whole body → ``; `names` renames each part. */
export const pointer = (field: string, names: Record<string, string> = {}) =>
	field === 'body'
		? ''
		: `/${field
				.replace(/\[(\d+)\]/g, '.$1')
				.split('.')
				.map((part) => names[part] ?? part)
				.join('/')}`;

/**
 * The names an error's fields need: a handler's own error reads `<primary field> <message>`, so its
 * field gets the profile's name; errors against the profile's document already use the profile's names.
 */
export function namesFor(
	message: string,
	details: Array<{ field: string; message: string }> | undefined,
	outgoing: Record<string, string>,
) {
	const [first] = details ?? [];
	return details?.length === 1 && message === `${first.field} ${first.message}` ? outgoing : {};
}
