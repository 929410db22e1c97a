import { randomBytes } from 'crypto';
import { NodeApiError } from 'n8n-workflow';

import { itemIdOf, readResource } from './executor/answers';
import { signingKey } from './executor/signatures';
import { readAt } from './profile/pointer';
import type { Profile, SignatureScheme } from './profile/types';
import { callEndpoint, type RequestContext, type SendPolicy } from './executor/send';

// Webhook registrations and their signing secrets, as the trigger and an event wait both make them.

/** A secret of the kind the service's signatures use: `whsec_` + base64 for Standard Webhooks, else hex. */
export function secretFor(scheme: SignatureScheme, bytes: Buffer = randomBytes(32)): string {
	return scheme.secretEncoding === 'whsec'
		? `whsec_${bytes.toString('base64')}`
		: bytes.toString('hex');
}

// A guessable key signs forgeable deliveries. A key has at least 16 bytes (Standard Webhooks': 24
// to 64); 16 random bytes show fewer than 8 distinct values once in 10^12, 16 hex digits fewer
// than 5 once in 2.4 million: below those, the value is a pattern (`abab…`), not a secret.
const MIN_KEY_BYTES = 16;
const MIN_DISTINCT_KEY_BYTES = 8;
const MIN_DISTINCT_TEXT_BYTES = 5;
// What a service shows in place of a secret it keeps: its last digits after dots or stars.
const MASKED = /[•*…·●]|x{4,}|\.{3}/i;
const SPACES_OR_CONTROLS = /[\s\p{Cc}]/u;
// `whsec_`, `sk_live_`: a label in front of the secret, the same for everyone.
const LABEL = /^(?:[a-z]{1,12}_)+/i;

/** Whether `text` is base64 as an encoder writes it (standard or URL alphabet, padded or not). */
function isBase64(text: string): boolean {
	if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return false;
	const bare = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
	return Buffer.from(bare, 'base64').toString('base64').replace(/=+$/, '') === bare;
}

// A text the node sent shorter than this may turn up in a random secret by chance (an event `*`).
const MIN_SENT_LENGTH = 8;

/** The length of the shortest unit below MIN_KEY_BYTES the key repeats (`abcdeabcde…`), if any. */
function repeatedUnit(key: Buffer): number | undefined {
	for (let unit = 1; unit < MIN_KEY_BYTES; unit++)
		if (key.subarray(unit).equals(key.subarray(0, key.length - unit))) return unit;
	return undefined;
}

/**
 * What is wrong with a signing secret the service made, told by its shape and never its value;
 * undefined for a secret. The key is what signatures are checked with: the bytes after `whsec_`
 * for Standard Webhooks, else the text after any label such as `sk_`. `sent`: the texts the node
 * sent in the registration (its own address first), which whoever can post to it may know.
 */
export function secretProblem(
	value: unknown,
	pattern: string | undefined,
	scheme: Pick<SignatureScheme, 'secretEncoding'>,
	sent: string[] = [],
): string | undefined {
	if (typeof value !== 'string')
		return value === null || value === undefined ? 'no value' : `a ${typeof value}, not text`;
	const whsec = scheme.secretEncoding === 'whsec';
	const key = whsec ? signingKey(value, scheme) : Buffer.from(value.replace(LABEL, ''), 'utf8');
	const bytes = `${key.length} byte${key.length === 1 ? '' : 's'}`;
	const shape = `a value of ${value.length} characters${whsec ? ` decoding to ${bytes}` : ''}`;
	const kind = whsec ? 'byte value' : 'character';
	if (MASKED.test(value)) return `${shape}, masked (with •, *, …, xxxx or ... in it)`;
	if (SPACES_OR_CONTROLS.test(value)) return `${shape}, with spaces or control characters in it`;
	if (whsec && !isBase64(value.replace(/^whsec_/, ''))) return `${shape}, not base64 after whsec_`;
	if (key.length < MIN_KEY_BYTES) return `${shape}, fewer than ${MIN_KEY_BYTES} bytes`;
	const distinct = new Set(key).size;
	if (distinct === 1) return `${shape}, one repeated ${kind}`;
	if (distinct < (whsec ? MIN_DISTINCT_KEY_BYTES : MIN_DISTINCT_TEXT_BYTES))
		return `${shape}, only ${distinct} different ${kind}s`;
	// A unit shorter than a key, repeated, is no harder to guess than that unit.
	const unit = repeatedUnit(key);
	if (unit !== undefined) return `${shape}, a unit of ${unit} ${kind}s repeated`;
	if (sent.some((text) => text.length >= MIN_SENT_LENGTH && value.includes(text)))
		return `${shape}, holding the webhook address or another value the node sent in the registration`;
	try {
		if (pattern !== undefined && !new RegExp(pattern.slice(0, 200)).test(value))
			return `${shape}, not of the form the service's document gives`;
	} catch {
		// A pattern the node cannot read says nothing about the value.
	}
	return undefined;
}

/** The id of a registration the service answered with, where its document says it is (else `id`). */
export function registrationId(profile: Profile, created: unknown): string | undefined {
	return itemIdOf(profile.operations.listWebhooks.answer, created);
}

export function isNotFound(error: unknown): error is NodeApiError {
	return error instanceof NodeApiError && error.httpCode === '404';
}

/** Deletes a registration; one already gone is what deleting wants. */
export async function deleteRegistration(
	context: RequestContext,
	id: string,
	policy?: SendPolicy,
): Promise<void> {
	await callEndpoint.call(context, 'deleteWebhook', { id, policy }).catch((error: unknown) => {
		if (!isNotFound(error)) throw error;
	});
}

export interface Registered {
	id?: string;
	/** The registration as the service answered it, where it held no id: what it held instead. */
	withoutId?: unknown;
	/** The node's own secret, or the service's where it is one. */
	secret?: string;
	/** What is wrong with the secret the service made, by its shape only (it may be real but short). */
	weakness?: string;
}

/**
 * Registers a webhook. Its secret is the node's own (`ownSecret`, else random) where the registration
 * takes one; else the service's, where it makes one that is a secret, not a hint at it.
 */
export async function registerWebhook(
	context: RequestContext,
	profile: Profile,
	webhook: { url: string; events: string[]; description: string; ownSecret?: string },
): Promise<Registered> {
	const { secret: chosen, signature } = profile.webhooks;
	const own = chosen.by === 'node' ? (webhook.ownSecret ?? secretFor(signature)) : undefined;
	const { url, events, description } = webhook;
	const answer = await callEndpoint.call(context, 'createWebhook', {
		params: { url, events, ...(own === undefined ? {} : { secret: own }) },
		optional: { description },
		itemKey: randomBytes(16).toString('hex'),
	});
	const created = readResource(profile.operations.createWebhook.answer, answer.body);
	const id = registrationId(profile, created);
	const answered = id === undefined ? { id, withoutId: created } : { id };
	if (chosen.by !== 'service') return { ...answered, secret: own };
	const made = readAt(created, chosen.at);
	if (made === undefined) return answered;
	const weakness = secretProblem(made, chosen.pattern, signature, [url, description, ...events]);
	return weakness === undefined
		? { ...answered, secret: made as string }
		: { ...answered, weakness };
}
