import type { Location, SignatureScheme, WebhookProfile } from './types';

/**
 * What keeps deliveries from being forged or replayed, whoever wrote the webhooks profile (a
 * document, the built-in conventions, the credential's Profile Overrides): the signature covers the
 * raw body, the secret is not something anyone can read, repeats are known by signed values only,
 * and a secret's pattern is one the node can test without backtracking.
 */

/**
 * A secret's pattern, where the node can test a value against it without backtracking without end
 * (as `^(a+)+$` does): anchored at the start, no groups or alternatives, at most one
 * quantifier (character classes and escapes aside), as `^whsec_[A-Za-z0-9+/=]{32,}$`; else none,
 * the other checks of the value still made. Classes are read without `[` inside, in linear time.
 */
export function checkablePattern(pattern: string): string | undefined {
	const bare = pattern.slice(0, 200).replace(/\\.|\[(?:\\.|[^\][\\])*\]/g, 'x');
	const quantifiers = bare.match(/[*+?{]/g)?.length ?? 0;
	return bare.startsWith('^') && !/[(|]/.test(bare) && quantifiers <= 1
		? pattern.slice(0, 200)
		: undefined;
}

/**
 * Whether the signature covers a delivery's value at `location`: anything in the body (always
 * signed), or the id header where the scheme signs the id (Standard Webhooks' `webhook-id`).
 */
export function isSigned(location: Location, signature: SignatureScheme): boolean {
	return (
		/^\/body(\/|$)/.test(location) ||
		(signature.signed.includes('id') &&
			signature.idHeader !== undefined &&
			location === `/headers/${signature.idHeader}`)
	);
}

/** What in a webhooks profile lets anyone sign or replay deliveries: the path below `webhooks`, and the rule. */
export function webhookWeakness(webhooks: WebhookProfile) {
	const { signature, secret, registration, delivery } = webhooks;
	if (!signature.signed.includes('body') && !signature.signed.includes('form'))
		return {
			path: ['signature', 'signed'],
			rule: 'must include "body" (or "form", for form bodies): a signature over less than the body signs any body',
		};
	if (secret.by === 'service') {
		const readable = [registration.url, registration.events, registration.active];
		if (readable.some((at) => at !== undefined && `${secret.at}/`.startsWith(`${at}/`)))
			return {
				path: ['secret', 'at'],
				rule: "must not be where the registration's address, events or switch are read (webhooks/registration): anyone who knows them could sign",
			};
		if (secret.pattern !== undefined && checkablePattern(secret.pattern) === undefined)
			return {
				path: ['secret', 'pattern'],
				rule: 'must be a pattern the node can test in linear time: starting with ^, with no groups or alternatives and at most one quantifier, such as "^whsec_[A-Za-z0-9+/=]{32,}$"',
			};
	}
	const unsigned = delivery.id.findIndex((location) => !isSigned(location, signature));
	if (unsigned >= 0)
		return {
			path: ['delivery', 'id', String(unsigned)],
			rule: 'must be in the body ("/body/…"), or the header the signature names as idHeader with "id" in signed: a replay could change anything else',
		};
	return undefined;
}
