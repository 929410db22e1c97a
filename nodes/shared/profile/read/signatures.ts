import type { SignatureScheme } from '../types';
import { firstSentence, normalizeName, ownText, type Schema } from './document';

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

/** The header the document names as carrying the event type, such as `X-GitHub-Event` or Lemon Squeezy's `X-Event-Name`. */
export function eventTypeHeader(headers: Map<string, Schema>): string | undefined {
	return [...headers.keys()]
		.find((name) => /(event|eventtype|eventname|topic)$/.test(normalizeName(name)))
		?.toLowerCase();
}

/**
 * The signature scheme a delivery's headers describe: Standard Webhooks by its three headers, else a
 * header named as a signature or an HMAC, read for its prefix, algorithm, encoding and what it signs.
 */
export function signatureScheme(headers: Map<string, Schema>): SignatureScheme | undefined {
	const byName = (test: RegExp) =>
		[...headers.keys()].find((name) => test.test(normalizeName(name)));
	const standard = ['webhook', 'svix'].find((prefix) =>
		['id', 'timestamp', 'signature'].every((part) => byName(new RegExp(`^${prefix}${part}$`))),
	);
	if (standard !== undefined)
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
	const header = byName(/signature/) ?? byName(/hmac/);
	if (header === undefined) return undefined;
	const said = ['description', 'pattern', 'example', 'format'].map((key) =>
		ownText(headers.get(header), key),
	);
	const text = [header, ...said].join(' ');
	const lower = text.toLowerCase();
	const timestampHeader = [...headers.keys()].find(
		(name) =>
			name !== header &&
			(/timestamp/.test(normalizeName(name)) ||
				/\b(unix|epoch) (time|seconds)/.test(firstSentence(headers.get(name)))),
	);
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
		algorithm: /sha-?512/.test(lower)
			? 'sha512'
			: /sha-?1\b/.test(lower) && !/sha-?256/.test(lower)
				? 'sha1'
				: 'sha256',
		encoding: /base-?64/.test(lower) ? 'base64' : 'hex',
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
