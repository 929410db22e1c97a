import { randomBytes } from 'crypto';

import { readAt } from './profile/pointer';
import type { Profile, SignatureScheme } from './profile/types';

/**
 * Webhook registrations, as the trigger and a wait for the service's event both make them: the
 * secret the node sends, the secret a service answers with, and the id the answer names.
 */

// A secret shorter than this, or with masking characters in it, is a hint at the secret, not the secret.
const MIN_SECRET_LENGTH = 16;
const MASKED = /[•*…·●]|x{4,}|\.{3}/i;

/** A secret of the kind the service's signatures use: `whsec_` + base64 for Standard Webhooks, else hex. */
export function secretFor(scheme: SignatureScheme, bytes: Buffer = randomBytes(32)): string {
	return scheme.secretEncoding === 'whsec'
		? `whsec_${bytes.toString('base64')}`
		: bytes.toString('hex');
}

/** Whether the service's answer holds its secret itself, not a hint at it (its last digits, a masked copy). */
export function usableSecret(value: unknown, pattern: string | undefined): value is string {
	if (typeof value !== 'string' || MASKED.test(value)) return false;
	if (value.replace(/^[a-z]+_/i, '').length < MIN_SECRET_LENGTH) return false;
	try {
		return pattern === undefined || new RegExp(pattern.slice(0, 200)).test(value);
	} catch {
		return true;
	}
}

/** The id of a registration the service answered with, where its document says it is (else `id`). */
export function registrationId(profile: Profile, created: unknown): string | undefined {
	const id = readAt(created, profile.operations.listWebhooks.answer.itemId ?? '/id');
	return (typeof id === 'string' && id !== '') || typeof id === 'number' ? String(id) : undefined;
}
