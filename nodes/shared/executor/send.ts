import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { MAX_QUOTED_TEXT, type Headers } from '../http-values';
import { outsideBase } from '../origin';
import { isRecord, own, readLocation } from '../profile/pointer';
import {
	OPERATIONS,
	type OperationName,
	type OperationProfile,
	type Placement,
	type Profile,
	type WebhookProfile,
} from '../profile/types';
import { readCredentials, type Credentials, type RequestContext } from '../transport/credentials';
import { asNodeError } from '../transport/errors';
import { parseAnswer } from '../transport/http';
import { sendPolicy, sendUnderPolicy, type SendPolicy } from '../transport/policy';
import { describeError, findJob, readResource } from './answers';
import { kindOf, memberPlaces, notAsProfiled, refusal, withSentRequest } from './errors';
import { eventsToSend } from './events';
import { profileFor, refreshProfile, WHOLE_DOCUMENT } from './profiles';
import { pathFor, placeFields, ProfileFieldError, type PlacedFields } from './request';

/**
 * Calling the profile's operations. The nodes reach the service only through the executor: the
 * transport's parts they use directly are passed on here.
 */

export { asNodeError, isTransient, retryAfterMs } from '../transport/errors';
export { readCredentials, type RequestContext } from '../transport/credentials';
export { downloadFile, type DownloadLimits, type MediaContext } from '../transport/download';
export { isLoopbackHost, readHostRules } from '../transport/hosts';
export { CLEAN_UP, READ_ONCE, type SendPolicy } from '../transport/policy';
export { keepInMemory } from '../memory';

export const DEFAULT_TIMEOUT_MS = 60_000;
// One answer is read up to this size, and parsed within these bounds.
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const ANSWER_LIMITS = { maxLength: MAX_ANSWER_BYTES, maxDepth: 256, maxValues: 4_000_000 };

export interface CallOptions {
	id?: string;
	/** The node's parameters, which the profile places in the request. */
	params?: IDataObject;
	/** Parameters left out where the service has no place for them, instead of failing (a webhook's description). */
	optional?: IDataObject;
	/** Sent as given, after (and over) the mapped fields: Extra Body Fields, Extra Query Parameters, paging. */
	body?: IDataObject;
	qs?: IDataObject;
	/** An address to read instead of the endpoint's path, such as a list's next link; same origin only. */
	url?: string;
	itemIndex?: number;
	/** The item's key: the same for the same execution, node, run and item (see policy.ts). */
	itemKey?: string;
	/** How long one attempt may take; default DEFAULT_TIMEOUT_MS. */
	timeoutMs?: number;
	/** No pause may end after this time (a job wait's Maximum Wait Time). */
	deadline?: number;
	signal?: AbortSignal;
	/** When to send again, where not by the method and the service's idempotency (policy.ts). */
	policy?: SendPolicy;
}

export interface Answer {
	statusCode: number;
	headers: Headers;
	/** The parsed body; undefined for an empty one. */
	body: unknown;
	/** The profile the request was sent by, which reads the answer. */
	profile: Profile;
}

/** The node's parameters placed by the profile; one it has no place for fails the item here. */
export function placeParams(
	this: RequestContext,
	operation: OperationProfile,
	params: IDataObject | undefined,
	optional?: IDataObject,
	itemIndex?: number,
	id?: string,
): PlacedFields {
	try {
		return placeFields(operation, params ?? {}, optional, id);
	} catch (error) {
		throw refusal(this, error, itemIndex);
	}
}

/** The chosen events as the service names them, checked against the events it lists. */
export function serviceEvents(
	this: RequestContext,
	webhooks: WebhookProfile,
	events: string[],
	itemIndex?: number,
): string[] {
	try {
		return eventsToSend(webhooks, events);
	} catch (error) {
		throw refusal(this, error, itemIndex, 'Events');
	}
}

/** A form body as services that take one read it: `a=1&b[]=x&c[d]=y`. */
function formText(fields: IDataObject): string {
	const parts: string[] = [];
	const add = (key: string, value: unknown) => {
		if (Array.isArray(value)) value.forEach((entry) => add(`${key}[]`, entry));
		else if (isRecord(value))
			for (const [inner, entry] of Object.entries(value)) add(`${key}[${inner}]`, entry);
		else if (value !== undefined && value !== null)
			parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
	};
	for (const [key, value] of Object.entries(fields)) add(key, value);
	return parts.join('&');
}

// Written once per profile: every request carries it for the refusals it explains.
const notices = new WeakMap<Profile, string | undefined>();

/** What a refusal means where the built-in conventions stood in for (part of) the document. */
export function builtInNotice(profile: Profile): string | undefined {
	if (notices.has(profile)) return notices.get(profile);
	const [first] = profile.notFollowed;
	const parts = profile.notFollowed.map(({ part, why }) => `${part} (${why})`).join('; ');
	const notice =
		first === undefined
			? undefined
			: `${first.part === WHOLE_DOCUMENT ? `${first.why}, so the node used its built-in conventions.` : `The node could not follow these parts of the service's OpenAPI document and used its built-in conventions for them: ${parts}.`} Service → Describe shows the profile in use.`;
	notices.set(profile, notice);
	return notice;
}

/**
 * The one function that talks to the service for an operation. A 405, or a 404 on a collection,
 * reads the document again (it may have changed) and sends once more if the operation moved.
 */
export async function callEndpoint(
	this: RequestContext,
	name: OperationName,
	options: CallOptions = {},
): Promise<Answer> {
	const credentials = await readCredentials.call(this, options.itemIndex);
	const profile = await profileFor.call(this, credentials, options.itemIndex);
	try {
		return await callByProfile.call(this, profile, name, options, credentials);
	} catch (error) {
		const httpCode = error instanceof NodeApiError ? error.httpCode : undefined;
		const operation = profile.operations[name];
		const moved = httpCode === '405' || (httpCode === '404' && !operation.path.includes('{id}'));
		if (!moved || !refreshProfile(credentials)) throw asNodeError(this, error, options.itemIndex);
		const fresh = await profileFor.call(this, credentials, options.itemIndex);
		const freshOperation = fresh.operations[name];
		if (freshOperation.method === operation.method && freshOperation.path === operation.path)
			throw asNodeError(this, error, options.itemIndex);
		return await callByProfile.call(this, fresh, name, options, credentials);
	}
}

async function callByProfile(
	this: RequestContext,
	profile: Profile,
	name: OperationName,
	options: CallOptions,
	credentials: Credentials,
): Promise<Answer> {
	const { baseUrl, apiKey } = credentials;
	const { id, itemIndex, timeoutMs = DEFAULT_TIMEOUT_MS, signal } = options;
	const operation = profile.operations[name];
	const placed = placeParams.call(this, operation, options.params, options.optional, itemIndex, id);
	let body =
		placed.body === undefined && options.body === undefined
			? undefined
			: { ...placed.body, ...options.body };
	const query = { ...placed.query, ...options.qs };
	const { reads } = OPERATIONS[name];
	const { precondition } = operation;
	if (precondition !== undefined && reads === undefined)
		throw refusal(
			this,
			new ProfileFieldError(
				`The node sends no precondition with ${OPERATIONS[name].title}`,
				'A precondition (If-Match) goes with an update or a delete, which the node reads first. Remove "precondition" from this operation in the credential\'s Profile Overrides.',
			),
			itemIndex,
		);
	const replacing = operation.replaces !== undefined && body !== undefined;
	if (reads !== undefined && (replacing || precondition !== undefined)) {
		const read = await callEndpoint.call(this, reads, {
			id,
			itemIndex,
			timeoutMs,
			signal,
			deadline: options.deadline,
		});
		if (precondition !== undefined) {
			// Never sent without it: the write would overwrite a change made since, or be refused (428).
			const value = readLocation(read, precondition.from);
			if (typeof value !== 'string' || value === '')
				throw notAsProfiled(
					this,
					`${OPERATIONS[reads].title} answered without the value its precondition needs`,
					`a value at ${precondition.from} to send in ${precondition.header}`,
					precondition.from.startsWith('/headers/') ? read.headers : read.body,
					`{"operations": {"${name}": {"precondition": {"header": "${precondition.header}", "from": "/headers/etag"}}}}`,
					itemIndex,
				);
			placed.headers[precondition.header] = value;
		}
		if (replacing && operation.replaces !== undefined) {
			// A PUT replaces the whole object: the properties the profile keeps go back as they are.
			const current = readResource(profile.operations[reads].answer, read.body);
			const kept: IDataObject = {};
			for (const name of isRecord(current) ? operation.replaces.keep : []) {
				const value = own(current, name) as IDataObject[string];
				if (value !== undefined && value !== null) kept[name] = value;
			}
			body = { ...kept, ...body };
		}
	}
	// An operation's address is below the Base URL, an address the service handed over (a next link) at its origin.
	const target = options.url ?? `${baseUrl}${pathFor(operation, id)}`;
	const outside = outsideBase(baseUrl, target, options.url === undefined);
	if (outside !== undefined)
		throw new NodeApiError(
			this.getNode(),
			{ operation: `${operation.method} ${operation.path}` },
			{
				message: `The node does not send ${operation.method} ${options.url === undefined ? operation.path : 'a next-page link'} outside the credential's Base URL: ${outside}`,
				description:
					"Only addresses at the origin of the credential's Base URL receive the API key, and an operation's only below its path. Service → Describe shows where the profile says the operation is; correct it with the credential's Profile Overrides.",
				itemIndex,
			},
		);
	const policy = options.policy ?? sendPolicy(name, operation, options.itemKey);
	const mediaType = operation.mediaType ?? 'application/json';
	const form = /x-www-form-urlencoded/i.test(mediaType);
	const request: IHttpRequestOptions = {
		method: operation.method,
		url: target,
		qs: Object.keys(query).length > 0 ? query : undefined,
		// Sent as text in the media type the document declares (`application/merge-patch+json`, a form).
		body: body === undefined ? undefined : form ? formText(body) : JSON.stringify(body),
		headers: {
			...placed.headers,
			...(body === undefined ? {} : { 'Content-Type': mediaType }),
			...policy.idempotency,
		},
	};

	// The one place a request's failure learns what was sent: every error below carries it, and
	// none the key or the signing secret a webhook's registration sends. Described only on failure.
	try {
		return await sendUnderPolicy(this, operation, request, policy, {
			baseUrl,
			apiKey,
			itemIndex,
			timeoutMs,
			signal,
			maxBytes: MAX_ANSWER_BYTES,
			deadline: options.deadline ?? Date.now() + timeoutMs,
			describe: (body) => describeError(profile.errors, body),
			notice: builtInNotice(profile),
			read: async (answer): Promise<Answer> => ({
				statusCode: answer.statusCode,
				headers: answer.headers,
				body: await parseAnswer.call(this, answer, ANSWER_LIMITS, apiKey, itemIndex),
				profile,
			}),
		});
	} catch (error) {
		const sent = {
			operation: name,
			method: operation.method,
			path: new URL(target).pathname.slice(0, MAX_QUOTED_TEXT),
			query: Object.keys(query),
			body: memberPlaces(body),
			places: placesUsed(operation, { ...options.params, ...options.optional }),
		};
		throw withSentRequest(error, sent, [apiKey, options.params?.secret]);
	}
}

/** Where the profile put the parameters given, and the places of its constants. */
function placesUsed(operation: OperationProfile, params: IDataObject): string[] {
	const places = Object.entries(params).flatMap(([param, value]) => {
		const to = (own(operation.fields, param) as Placement | undefined)?.to;
		return value === undefined || typeof to !== 'string' ? [] : [`${param} → ${to}`];
	});
	return [...places, ...Object.keys(operation.constants ?? {}).map((to) => `constant → ${to}`)];
}

/** Reads a job by its id: the job object, out of whatever the service wraps it in. */
export async function readJobById(
	this: RequestContext,
	id: string,
	options: Omit<CallOptions, 'id'> = {},
): Promise<IDataObject> {
	const answer = await callEndpoint.call(this, 'getJob', { ...options, id });
	const { jobs, operations } = answer.profile;
	const found = findJob(jobs, operations.getJob.answer.jobs, answer, operations.getJob.path);
	return requireObject(
		this,
		found?.job ?? readResource(operations.getJob.answer, answer.body),
		options.itemIndex,
	);
}

/** An answer every endpoint but a list gives: one object; anything else fails the item. */
export function requireObject(
	context: RequestContext,
	answer: unknown,
	itemIndex?: number,
): IDataObject {
	if (isRecord(answer)) return answer;
	const found = kindOf(answer);
	throw new NodeApiError(
		context.getNode(),
		{ answer: found },
		{
			message: `The service answered with ${found} where it should return an object`,
			description:
				'Nothing was output for this item. Check that the Base URL points at the API; if it does, the service broke its own contract.',
			itemIndex,
		},
	);
}
