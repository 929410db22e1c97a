import { createHmac, timingSafeEqual } from 'crypto';

/** Headers a delivery carries; see the README's "Signatures" section. */
export const SIGNATURE_HEADER = 'x-content-publishing-signature';
export const TIMESTAMP_HEADER = 'x-content-publishing-timestamp';
/** The event id, repeated by every retry of the same delivery. */
export const DELIVERY_HEADER = 'x-content-publishing-delivery';

/** How far a delivery's timestamp may be from n8n's clock before it counts as a replay. */
export const TOLERANCE_SECONDS = 300;

export type SignatureCheck = { valid: true } | { valid: false; reason: string };

function headerText(value: string | string[] | undefined): string {
	return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * Checks `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` against the webhook's secret in
 * constant time, and refuses timestamps outside the tolerance so a captured delivery cannot be
 * replayed later.
 */
export function verifyDelivery(
	headers: Record<string, string | string[] | undefined>,
	rawBody: Buffer,
	secret: string,
	nowSeconds = Math.floor(Date.now() / 1000),
): SignatureCheck {
	const signature = headerText(headers[SIGNATURE_HEADER]).trim();
	const timestamp = headerText(headers[TIMESTAMP_HEADER]).trim();
	if (secret === '') return { valid: false, reason: 'no signing secret is stored for this trigger' };
	if (signature === '' || timestamp === '') return { valid: false, reason: 'signature headers missing' };
	if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) {
		return { valid: false, reason: 'timestamp outside the accepted window' };
	}
	const expected = createHmac('sha256', secret)
		.update(`${timestamp}.`)
		.update(rawBody)
		.digest();
	const match = /^sha256=([0-9a-f]{64})$/i.exec(signature);
	const given = match ? Buffer.from(match[1], 'hex') : Buffer.alloc(0);
	if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
		return { valid: false, reason: 'signature does not match' };
	}
	return { valid: true };
}
