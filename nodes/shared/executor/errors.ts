import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isRecord, pointerOf } from '../profile/pointer';
import type { OperationName } from '../profile/types';
import { redact, redactValue, type RequestContext } from '../transport/credentials';
import { asNodeError } from '../transport/errors';
import { ProfileFieldError } from './request';

/** Errors that speak of the profile, and what a failed request sent, by the places it used. */

// An answer, or a request sent, is described by at most this many names, each cut to this length.
const MAX_NAMES = 30;
const MAX_NAME_LENGTH = 40;

const listed = (names: string[]) =>
	`${names.slice(0, MAX_NAMES).join(', ')}${names.length > MAX_NAMES ? ', …' : ''}`;

/** What an answer that is not an object is: `no body`, `a list`, `null`, `a string`. */
export function kindOf(value: unknown): string {
	if (value === undefined || value === null) return value === null ? 'null' : 'no body';
	return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

/** What an answer holds, by its member names two levels deep (`data`, `data.attributes`), never a value. */
export function heldBy(value: unknown): string {
	if (!isRecord(value)) return kindOf(value);
	const names: string[] = [];
	const name = (text: string) => JSON.stringify(text.slice(0, MAX_NAME_LENGTH));
	for (const [outer, inner] of Object.entries(value)) {
		names.push(name(outer));
		for (const key of isRecord(inner) ? Object.keys(inner).slice(0, MAX_NAMES) : [])
			names.push(`${name(outer)}.${name(key)}`);
		// One more than is shown tells listed() that there are more.
		if (names.length > MAX_NAMES) break;
	}
	return names.length === 0 ? 'an empty object' : `the members ${listed(names)}`;
}

/** What the profile refused, as the node's error naming the parameter and the item it is about. */
export function refusal(
	context: RequestContext,
	error: unknown,
	itemIndex?: number,
	parameter?: string,
): NodeApiError | NodeOperationError {
	if (!(error instanceof ProfileFieldError)) return asNodeError(context, error, itemIndex);
	const item =
		itemIndex === undefined ? undefined : parameter ? `of item ${itemIndex}` : `Item ${itemIndex}`;
	const subject = [parameter && `"${parameter}"`, item].filter(Boolean).join(' ');
	return new NodeOperationError(
		context.getNode(),
		subject ? `${subject}: ${error.message}` : error.message,
		{ itemIndex, description: error.description },
	);
}

/**
 * An answer that does not hold what the profile says, as the error that names what was expected
 * where, what the answer held (member names, never values) and the override that would fix it.
 */
export function notAsProfiled(
	context: Pick<RequestContext, 'getNode'>,
	message: string,
	expected: string,
	held: unknown,
	fix: string,
	itemIndex?: number,
): NodeApiError {
	const error = new NodeApiError(
		context.getNode(),
		{ held: heldBy(held) },
		{
			message,
			description: `Expected ${expected}; the answer held ${heldBy(held)}. Nothing is reported as done that the service did not say. Service → Describe shows the profile; where the service puts it elsewhere, set it in the credential's Profile Overrides, such as ${fix}.`,
			itemIndex,
		},
	);
	// Every request succeeded: no HTTP code to show.
	error.httpCode = null;
	return error;
}

/**
 * What the node sent, by names and places only, never a value: what a Profile Override is written
 * from. The query's values and the headers (the key among them) stay out.
 */
interface SentRequest {
	operation: OperationName;
	method: string;
	path: string;
	query: string[];
	/** The body's members as places below it (`/data/attributes/title`); a list's entries as `-`. */
	body: string[];
	/** Where the profile put each of the node's parameters (`title → /body/title`), and its constants. */
	places: string[];
}

const MAX_SENT_DEPTH = 6;
const MAX_SENT_NAME_LENGTH = 60;

/** The places of a value's members, depth first, up to MAX_NAMES (and one more, to tell there are more). */
export function memberPlaces(
	value: unknown,
	at: string[] = [],
	found = new Set<string>(),
): string[] {
	const entries: Array<[string, unknown]> = Array.isArray(value)
		? value.slice(0, MAX_NAMES).map((entry) => ['-', entry])
		: isRecord(value)
			? Object.entries(value)
			: [];
	if (entries.length === 0 || at.length === MAX_SENT_DEPTH) {
		if (at.length > 0) found.add(pointerOf(at));
	} else
		for (const [name, inner] of entries) {
			if (found.size > MAX_NAMES) break;
			memberPlaces(inner, [...at, name.slice(0, MAX_SENT_NAME_LENGTH)], found);
		}
	return [...found];
}

/**
 * A failed request's error with what was sent: a sentence after its description, which the editor
 * shows first, and the parts under `context.request`, which its error details show as "Request".
 * The secrets sent (the key, a signing secret) are taken out of all of it: a refusal may quote them.
 */
export function withSentRequest(error: unknown, sent: SentRequest, secrets: unknown[]): unknown {
	if (!(error instanceof NodeApiError) || error.context.request !== undefined) return error;
	const { operation, method, path, query, body, places } = sent;
	const parts = [
		`Request: ${method} ${path}, operation ${operation}`,
		body.length > 0 ? `body members ${listed(body)}` : undefined,
		query.length > 0 ? `query parameters ${listed(query)}` : undefined,
		places.length > 0
			? `profile places ${listed(places)} (the credential's Profile Overrides change them)`
			: undefined,
	];
	const text = `${parts.filter(Boolean).join('; ')}.`;
	error.description = error.description ? `${error.description} ${text}` : text;
	error.context.request = { ...sent };
	for (const secret of secrets) {
		if (typeof secret !== 'string' || secret === '') continue;
		error.message = redact(error.message, secret);
		error.description = redact(error.description, secret);
		if (error.stack !== undefined) error.stack = redact(error.stack, secret);
		error.messages = error.messages.map((message) => redact(message, secret));
		error.errorResponse = redactValue(error.errorResponse, secret);
		error.context = redactValue(error.context, secret);
	}
	return error;
}
