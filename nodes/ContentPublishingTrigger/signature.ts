import { createHmac, timingSafeEqual } from 'crypto';

import type { SignatureScheme } from '../ContentPublishing/transport/contract';

/** How far a delivery's timestamp may be from n8n's clock before it counts as a replay. */
export const TOLERANCE_SECONDS = 300;

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

function headerText(value: string | string[] | undefined): string {
	return ((Array.isArray(value) ? value[0] : value) ?? '').trim();
}

/** The timestamp and the signatures a delivery carries, in the scheme the service documents. */
function readSignature(
	headers: Record<string, string | string[] | undefined>,
	scheme: SignatureScheme,
): { timestamp?: string; signatures: string[] } {
	const signature = headerText(headers[scheme.header]);
	if (scheme.format === 'timestamped') {
		// `t=<unix seconds>,v1=<hex>`; a service rotating its secret may send several v1 entries.
		const parts = signature.split(',').map((part) => part.trim().split('=') as [string, string | undefined]);
		return {
			timestamp: parts.find(([key]) => key === 't')?.[1],
			signatures: parts.filter(([key, value]) => key === 'v1' && value !== undefined).map(([, value]) => value as string),
		};
	}
	const hex = /^(?:sha256=)?([0-9a-f]{64})$/i.exec(signature)?.[1];
	return {
		timestamp: scheme.timestampHeader === undefined ? undefined : headerText(headers[scheme.timestampHeader]),
		signatures: hex === undefined ? [] : [hex],
	};
}

/**
 * Checks the HMAC-SHA256 of `<timestamp>.<raw body>` (of the raw body where the service signs no
 * timestamp) against the webhook's secret in constant time, and refuses timestamps outside the
 * tolerance so a captured delivery cannot be replayed later.
 */
export function verifyDelivery(
	headers: Record<string, string | string[] | undefined>,
	rawBody: Buffer,
	secret: string,
	scheme: SignatureScheme,
	nowSeconds = Math.floor(Date.now() / 1000),
): SignatureCheck {
	if (secret === '') return { valid: false, reason: 'no signing secret is stored for this trigger' };
	const { timestamp, signatures } = readSignature(headers, scheme);
	const signsTimestamp = scheme.format === 'timestamped' || scheme.timestampHeader !== undefined;
	if (signatures.length === 0 || (signsTimestamp && !timestamp)) return { valid: false, reason: 'signature headers missing' };
	if (timestamp !== undefined && (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS)) {
		return { valid: false, reason: 'timestamp outside the accepted window' };
	}
	const expected = createHmac('sha256', secret)
		.update(timestamp === undefined ? '' : `${timestamp}.`)
		.update(rawBody)
		.digest();
	const matches = signatures.some((hex) => {
		const given = /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(0);
		return given.length === expected.length && timingSafeEqual(given, expected);
	});
	return matches ? { valid: true } : { valid: false, reason: 'signature does not match' };
}
