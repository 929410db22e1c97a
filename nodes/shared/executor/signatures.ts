import { createHmac, timingSafeEqual } from 'crypto';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { Headers } from '../http-values';
import { own } from '../profile/pointer';
import type { SignatureScheme } from '../profile/types';

/** How far a delivery's timestamp may be from n8n's clock before it counts as a replay. */
export const TOLERANCE_SECONDS = 300;
// A header is read this far, and for at most this many signatures: a service rotating its secret
// sends two or three.
const MAX_HEADER_LENGTH = 4096;
const MAX_SIGNATURES = 10;
// No form a service posts has more parameters than this; one with more is not checked.
const MAX_FORM_PARAMETERS = 1000;

function headerText(headers: Headers, name: string | undefined): string {
	if (name === undefined) return '';
	const value = own(headers, name.toLowerCase()) as string | string[] | undefined;
	return ((Array.isArray(value) ? value[0] : value) ?? '').trim().slice(0, MAX_HEADER_LENGTH);
}

/** The signatures a delivery carries, and the timestamp inside them where the scheme puts one there. */
function readSignatures(headers: Headers, scheme: SignatureScheme) {
	const value = headerText(headers, scheme.header);
	switch (scheme.format) {
		case 'stripe': {
			const parts = value
				.split(',')
				.map((part) => part.trim().split('=') as [string, string | undefined]);
			return {
				timestamp: parts.find(([key]) => key === 't')?.[1],
				signatures: parts.flatMap(([key, signature]) =>
					key === 'v1' && signature !== undefined ? [signature] : [],
				),
			};
		}
		case 'standard':
			return {
				signatures: value.split(' ').flatMap((part) => /^v1,(.+)$/.exec(part.trim())?.[1] ?? []),
			};
		default: {
			// GitHub writes `sha256=` before its digest whether or not a document says so.
			const prefix = (scheme.prefix ?? `${scheme.algorithm}=`).toLowerCase();
			return {
				signatures: value
					.split(/[\s,]+/)
					.map((part) =>
						prefix !== '' && part.toLowerCase().startsWith(prefix)
							? part.slice(prefix.length)
							: part,
					)
					.filter(Boolean),
			};
		}
	}
}

/** The HMAC key a secret stands for: its text, or the bytes after `whsec_` (Standard Webhooks). */
export function signingKey(secret: string, scheme: Pick<SignatureScheme, 'secretEncoding'>) {
	return scheme.secretEncoding === 'whsec'
		? Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
		: Buffer.from(secret, 'utf8');
}

/** A delivery's headers and body, with the body's bytes as sent where n8n kept them. */
export function deliveryOf(context: IWebhookFunctions) {
	const { rawBody } = context.getRequestObject();
	const body = context.getBodyData();
	return {
		headers: context.getHeaderData() as Headers,
		body,
		rawBody: Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(JSON.stringify(body)),
	};
}

/** Answers a webhook call itself, unless it was answered already: n8n then sends nothing. */
export function answer(context: IWebhookFunctions, status: number, body: IDataObject) {
	const response = context.getResponseObject();
	if (!response.headersSent) response.status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * A form body's parameters sorted by name (stable for repeats), each name then its value, as
 * Twilio signs them; undefined for a body that is not a form, whose parts a sort could reorder.
 */
function formText(headers: Headers, rawBody: Buffer): string | undefined {
	if (!/^application\/x-www-form-urlencoded\b/i.test(headerText(headers, 'content-type')))
		return undefined;
	const parameters = [...new URLSearchParams(rawBody.toString('utf8'))];
	if (parameters.length > MAX_FORM_PARAMETERS) return undefined;
	parameters.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return parameters.map(([name, value]) => `${name}${value}`).join('');
}

/**
 * Checks a delivery against its scheme (the profile's `webhooks.signature`): an HMAC of its parts,
 * compared in constant time, with a signed timestamp inside the replay window, so a captured delivery
 * cannot be replayed later. `url`: the address the delivery was sent to, where the scheme signs it.
 * Schemes differ in where the signatures are and how they are written: Standard Webhooks and Svix
 * (`v1,<base64>` over `<id>.<timestamp>.<body>`, keyed with the base64 after `whsec_`), Stripe
 * (`t=<seconds>,v1=<hex>` over `<t>.<body>`), GitHub (`sha256=<hex>` over the body), Slack
 * (`v0=<hex>` over `v0:<timestamp>:<body>`), Shopify (base64 over the body) and the built-in one
 * (`sha256=<hex>` over `<timestamp>.<body>`).
 */
export function verifyDelivery(
	headers: Headers,
	rawBody: Buffer,
	secret: string,
	scheme: SignatureScheme,
	{ url = '' }: { url?: string } = {},
): { valid: true } | { valid: false; reason: string } {
	if (secret === '')
		return { valid: false, reason: 'no signing secret is stored for this trigger' };
	const form = scheme.signed.includes('form') ? formText(headers, rawBody) : '';
	if (form === undefined)
		return { valid: false, reason: 'a signature over form parameters needs a form body' };
	const read = readSignatures(headers, scheme);
	const signatures = read.signatures.slice(0, MAX_SIGNATURES);
	const timestamp = read.timestamp ?? headerText(headers, scheme.timestampHeader);
	const id = headerText(headers, scheme.idHeader);
	if (
		signatures.length === 0 ||
		(scheme.signed.includes('timestamp') && !timestamp) ||
		(scheme.signed.includes('id') && id === '')
	)
		return { valid: false, reason: 'signature headers missing' };
	if (timestamp) {
		// Seconds, or milliseconds where a service writes those.
		const seconds = Math.floor(Number(timestamp) / (timestamp.length > 11 ? 1000 : 1));
		const late = Math.abs(Math.floor(Date.now() / 1000) - seconds) > TOLERANCE_SECONDS;
		if (!/^\d{1,13}$/.test(timestamp) || late)
			return { valid: false, reason: 'timestamp outside the accepted window' };
	}
	const hmac = createHmac(scheme.algorithm, signingKey(secret, scheme));
	scheme.signed.forEach((part, index) => {
		if (index > 0) hmac.update(scheme.separator);
		if (part === 'body') hmac.update(rawBody);
		else if (typeof part !== 'string') hmac.update(part.text);
		else hmac.update({ id, timestamp, url, form }[part]);
	});
	const expected = hmac.digest();
	const written = scheme.encoding === 'hex' ? /^(?:[0-9a-f]{2})+$/i : /^[A-Za-z0-9+/_-]+={0,2}$/;
	const matches = signatures.some((signature) => {
		const given = written.test(signature)
			? Buffer.from(signature, scheme.encoding)
			: Buffer.alloc(0);
		return given.length === expected.length && timingSafeEqual(given, expected);
	});
	return matches ? { valid: true } : { valid: false, reason: 'signature does not match' };
}
