import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IWebhookFunctions;

export interface Credentials {
	baseUrl: string;
	apiKey: string;
	/** Profile Overrides as typed: the executor checks them before anything is sent. */
	profileOverrides?: unknown;
}

// n8n gives every execution, list search, hook and delivery a context object of its own.
const credentialsOf = new WeakMap<RequestContext, Promise<Credentials>>();

/**
 * The credential, read and decrypted once per context instead of once per request; one that fails
 * is read again by the next item, which then gets an error naming itself.
 */
export async function readCredentials(
	this: RequestContext,
	itemIndex?: number,
): Promise<Credentials> {
	let credentials = credentialsOf.get(this);
	if (credentials === undefined) {
		credentials = readCredentialsOnce.call(this, itemIndex);
		credentialsOf.set(this, credentials);
		credentials.catch(() => credentialsOf.delete(this));
	}
	return await credentials;
}

async function readCredentialsOnce(this: RequestContext, itemIndex?: number): Promise<Credentials> {
	const credentials = await this.getCredentials<Partial<Record<keyof Credentials, unknown>>>(
		'contentPublishingApi',
		itemIndex,
	);
	const refuse = (message: string, description?: string) =>
		new NodeOperationError(this.getNode(), message, { itemIndex, description });
	// Without a trailing slash or `/v1`: endpoint paths carry the version.
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/v1$/i, '');
	// A URL with user info is not repeated: it would carry a password into the message.
	if (!/^https?:\/\/[^/]/i.test(baseUrl))
		throw refuse(
			"The credential's Base URL must start with http:// or https://",
			baseUrl.includes('@') ? undefined : `Base URL found: "${baseUrl}"`,
		);
	if (/^https?:\/\/[^/?#]*@/i.test(baseUrl))
		throw refuse(
			"The credential's Base URL must not contain a user name or password",
			'The API key authenticates every request; remove the "user:password@" part from the Base URL.',
		);
	const { apiKey, profileOverrides } = credentials;
	return { baseUrl, apiKey: String(apiKey ?? ''), profileOverrides };
}

/** Removes the key from a text, also where it appears escaped inside JSON. */
export function redact(text: string, secret: string): string {
	if (secret.length === 0) return text;
	const escaped = JSON.stringify(secret).slice(1, -1);
	return text.split(secret).join('***').split(escaped).join('***');
}

export function redactValue<T>(value: T, secret: string): T {
	if (value === undefined || secret.length === 0) return value;
	return JSON.parse(redact(JSON.stringify(value), secret)) as T;
}
