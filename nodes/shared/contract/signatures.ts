import { createHmac, timingSafeEqual } from 'crypto';

import { firstSentence, normalizeName, own, ownText, type Schema } from './schema';
import type { SignatureScheme } from './types';

/**
 * Signed deliveries: which scheme a service's document describes, and checking a delivery against
 * it. Every scheme is an HMAC of a text made of the delivery's parts, compared in constant time,
 * with a timestamp (where signed) inside the replay window. The schemes real services use differ
 * in where the signatures are and how they are written:
 * - Standard Webhooks (standardwebhooks.com, also Svix): `webhook-id`, `webhook-timestamp` and
 *   `webhook-signature: v1,<base64> v1,<base64>` over `<id>.<timestamp>.<body>`, keyed with the
 *   base64 after `whsec_`;
 * - Stripe: `t=<unix seconds>,v1=<hex>[,v1=<hex>]` over `<t>.<body>`;
 * - GitHub: `sha256=<hex>` over the body; Slack: `v0=<hex>` over `v0:<timestamp>:<body>`;
 * - Shopify: base64 over the body;
 * and this service's built-in one: `sha256=<hex>` over `<timestamp>.<body>` with a timestamp header.
 */

/** How far a delivery's timestamp may be from n8n's clock before it counts as a replay. */
export const TOLERANCE_SECONDS = 300;
// A header is read this far, and for at most this many signatures: a service rotating its secret
// sends two or three.
const MAX_HEADER_LENGTH = 4096;
const MAX_SIGNATURES = 10;

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

type Headers = Record<string, string | string[] | undefined>;

function headerText(headers: Headers, name: string | undefined): string {
	if (name === undefined) return '';
	const value = own(headers, name.toLowerCase()) as string | string[] | undefined;
	return ((Array.isArray(value) ? value[0] : value) ?? '').trim().slice(0, MAX_HEADER_LENGTH);
}

function textOf(name: string, schema: Schema | undefined): string {
	return [
		name,
		ownText(schema, 'description'),
		ownText(schema, 'pattern'),
		ownText(schema, 'example'),
		ownText(schema, 'format'),
	].join(' ');
}

/** The header the document names as a delivery's unique id, if it names one. */
export function deliveryIdHeader(headers: Map<string, Schema>): string | undefined {
	for (const [name, schema] of headers) {
		const normalized = normalizeName(name);
		const said = firstSentence(schema);
		if (/attempt|retry|retries|count|number|timestamp|signature/.test(normalized)) continue;
		if (/(delivery|event|webhook|message)id$/.test(normalized)) return name.toLowerCase();
		if (
			/delivery$/.test(normalized) &&
			(/\b(id|identifier|unique)\b/.test(said) || ownText(schema, 'format') === 'uuid')
		)
			return name.toLowerCase();
	}
	return undefined;
}

/** The header the document names as carrying the event type, such as `X-GitHub-Event`. */
export function eventTypeHeader(headers: Map<string, Schema>): string | undefined {
	return [...headers.keys()]
		.find((name) => /(event|eventtype|topic)$/.test(normalizeName(name)))
		?.toLowerCase();
}

/** The signature scheme the headers of a delivery describe, if any of them is a signature. */
export function signatureScheme(headers: Map<string, Schema>): SignatureScheme | undefined {
	const byName = (test: RegExp) =>
		[...headers.keys()].find((name) => test.test(normalizeName(name)));
	const standard = ['webhook', 'svix'].find((prefix) =>
		['id', 'timestamp', 'signature'].every((part) => byName(new RegExp(`^${prefix}${part}$`))),
	);
	if (standard !== undefined) {
		return {
			header: `${standard}-signature`,
			format: 'standard',
			algorithm: 'sha256',
			encoding: 'base64',
			signed: ['id', 'timestamp', 'body'],
			separator: '.',
			timestampHeader: `${standard}-timestamp`,
			idHeader: `${standard}-id`,
			secretEncoding: 'whsec',
		};
	}
	const header = byName(/signature/) ?? byName(/hmac/);
	if (header === undefined) return undefined;
	const text = textOf(header, headers.get(header));
	const lower = text.toLowerCase();
	const timestampHeader = [...headers.keys()].find(
		(name) =>
			name !== header &&
			(/timestamp/.test(normalizeName(name)) ||
				/\b(unix|epoch) (time|seconds)/.test(firstSentence(headers.get(name)))),
	);
	const algorithm = /sha-?512/.test(lower)
		? 'sha512'
		: /sha-?1\b/.test(lower) && !/sha-?256/.test(lower)
			? 'sha1'
			: 'sha256';
	const encoding = /base-?64/.test(lower) ? 'base64' : 'hex';
	const prefix = /\b(sha(?:1|256|512)=|v\d=)/i.exec(text)?.[1];
	const scheme: SignatureScheme = {
		header: header.toLowerCase(),
		format:
			/\bt=/.test(text) && /\bv1=/.test(text)
				? 'stripe'
				: prefix !== undefined
					? 'prefixed'
					: 'plain',
		prefix,
		algorithm,
		encoding,
		signed: ['body'],
		separator: '.',
		timestampHeader: timestampHeader?.toLowerCase(),
		idHeader: deliveryIdHeader(headers),
		secretEncoding: 'text',
	};
	if (scheme.format === 'stripe') scheme.signed = ['timestamp', 'body'];
	else if (prefix?.toLowerCase() === 'v0=' && timestampHeader !== undefined) {
		// Slack: `v0:<timestamp>:<body>`.
		scheme.signed = [{ text: 'v0' }, 'timestamp', 'body'];
		scheme.separator = ':';
	} else if (timestampHeader !== undefined && !/\bof (the )?(raw )?(request )?body\b/.test(lower))
		scheme.signed = ['timestamp', 'body'];
	return scheme;
}

/** The signatures a delivery carries, and the timestamp inside them where the scheme puts one there. */
function readSignatures(
	headers: Headers,
	scheme: SignatureScheme,
): { signatures: string[]; timestamp?: string } {
	const value = headerText(headers, scheme.header);
	switch (scheme.format) {
		case 'stripe': {
			const parts = value
				.split(',')
				.map((part) => part.trim().split('=') as [string, string | undefined]);
			return {
				timestamp: parts.find(([key]) => key === 't')?.[1],
				signatures: parts
					.filter(([key, signature]) => key === 'v1' && signature !== undefined)
					.map(([, signature]) => signature as string),
			};
		}
		case 'standard':
			return {
				signatures: value
					.split(' ')
					.map((part) => /^v1,(.+)$/.exec(part.trim())?.[1])
					.filter((signature): signature is string => signature !== undefined),
			};
		default: {
			const prefix = (scheme.prefix ?? '').toLowerCase();
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

function decode(signature: string, encoding: SignatureScheme['encoding']): Buffer {
	if (encoding === 'hex')
		return /^(?:[0-9a-f]{2})+$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
	return /^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)
		? Buffer.from(signature, 'base64')
		: Buffer.alloc(0);
}

/** The HMAC key a secret stands for: its text, or the bytes after `whsec_` (Standard Webhooks). */
export function signingKey(
	secret: string,
	scheme: Pick<SignatureScheme, 'secretEncoding'>,
): Buffer {
	return scheme.secretEncoding === 'whsec'
		? Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
		: Buffer.from(secret, 'utf8');
}

/**
 * Checks a delivery's signatures against the webhook's secret in constant time, and refuses
 * timestamps outside the tolerance, so a captured delivery cannot be replayed later.
 */
export function verifyDelivery(
	headers: Headers,
	rawBody: Buffer,
	secret: string,
	scheme: SignatureScheme,
	nowSeconds = Math.floor(Date.now() / 1000),
): SignatureCheck {
	if (secret === '')
		return { valid: false, reason: 'no signing secret is stored for this trigger' };
	const read = readSignatures(headers, scheme);
	const signatures = read.signatures.slice(0, MAX_SIGNATURES);
	const timestamp =
		read.timestamp ??
		(scheme.timestampHeader === undefined
			? undefined
			: headerText(headers, scheme.timestampHeader));
	const id = headerText(headers, scheme.idHeader);
	const signsTimestamp = scheme.signed.includes('timestamp');
	if (
		signatures.length === 0 ||
		(signsTimestamp && !timestamp) ||
		(scheme.signed.includes('id') && id === '')
	) {
		return { valid: false, reason: 'signature headers missing' };
	}
	if (timestamp) {
		if (!/^\d{1,13}$/.test(timestamp))
			return { valid: false, reason: 'timestamp outside the accepted window' };
		// Seconds, or milliseconds where a service writes those.
		const seconds =
			timestamp.length > 11 ? Math.floor(Number(timestamp) / 1000) : Number(timestamp);
		if (Math.abs(nowSeconds - seconds) > TOLERANCE_SECONDS)
			return { valid: false, reason: 'timestamp outside the accepted window' };
	}
	const hmac = createHmac(scheme.algorithm, signingKey(secret, scheme));
	scheme.signed.forEach((part, index) => {
		if (index > 0) hmac.update(scheme.separator);
		if (part === 'body') hmac.update(rawBody);
		else hmac.update(part === 'id' ? id : part === 'timestamp' ? (timestamp ?? '') : part.text);
	});
	const expected = hmac.digest();
	const matches = signatures.some((signature) => {
		const given = decode(signature, scheme.encoding);
		return given.length === expected.length && timingSafeEqual(given, expected);
	});
	return matches ? { valid: true } : { valid: false, reason: 'signature does not match' };
}
