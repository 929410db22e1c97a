import { createHash } from 'crypto';
import { NodeOperationError, type NodeApiError } from 'n8n-workflow';

import { JsonLimitError, parseJson } from '../json';
import { BUILT_IN_PROFILE } from '../profile/builtIn';
import { applyOverrides, checkedOverrides } from '../profile/overrides';
import { readProfile } from '../profile/read';
import { isOpenApiDocument } from '../profile/read/document';
import type { Profile } from '../profile/types';
import { readCredentials, type Credentials, type RequestContext } from '../transport/credentials';
import { READ, sendUnderPolicy } from '../transport/policy';

/**
 * The service's profile, read from its OpenAPI document once per Base URL and key and kept a while
 * for the whole n8n process: a service may describe itself differently to each key, and a key's
 * failed read (a 401, a 503) never changes another one's requests.
 */

/** Where the spec says the service describes itself (section 9). */
const DOCUMENT_PATH = '/v1/openapi.json';

const PROFILE_TTL_MS = 10 * 60_000;
// A service may just have been down: a document that could not be read is tried again soon.
const UNREADABLE_PROFILE_TTL_MS = 30_000;
const DOCUMENT_TIMEOUT_MS = 15_000;
// Bounds on the document itself: well above any real API's description, far below harm.
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
// No real document's object nears 10,000 members, nor an array (an enum) 200,000 items; a larger
// one stalls its every reader.
const DOCUMENT_LIMITS = {
	maxLength: MAX_DOCUMENT_BYTES,
	maxDepth: 256,
	maxValues: 4_000_000,
	maxMembers: 10_000,
	maxItems: 200_000,
};
// A 404 or 405 on a route the document named suggests the document changed, unless it was just read.
const MIN_PROFILE_AGE_FOR_REFRESH_MS = 1_000;

interface CachedProfile {
	profile: Promise<Profile>;
	readAt: number;
	expires: number;
}

/** Profiles read, by Base URL and key. */
const readings = new Map<string, CachedProfile>();
// Readings kept at most; the oldest goes first.
const MAX_READINGS = 1_000;

// A credential is read once per execution; its key is hashed once for it, not for every request.
const readingKeys = new WeakMap<Credentials, string>();

function readingKey(credentials: Credentials): string {
	let key = readingKeys.get(credentials);
	if (key === undefined) {
		const { baseUrl, apiKey } = credentials;
		key = `${baseUrl}#${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}`;
		readingKeys.set(credentials, key);
	}
	return key;
}

export const WHOLE_DOCUMENT = 'the whole document';

function builtInBecause(why: string, ttl = UNREADABLE_PROFILE_TTL_MS) {
	return { profile: { ...BUILT_IN_PROFILE, notFollowed: [{ part: WHOLE_DOCUMENT, why }] }, ttl };
}

async function readServiceProfile(this: RequestContext, credentials: Credentials) {
	const { baseUrl, apiKey } = credentials;
	const where = `${baseUrl}${DOCUMENT_PATH}`;
	let answer;
	// As any read: a service briefly down (a rate limit, a gateway error, no answer) is asked again.
	try {
		answer = await sendUnderPolicy(
			this,
			{ method: 'GET', path: DOCUMENT_PATH },
			{ method: 'GET', url: where },
			READ,
			{
				baseUrl,
				apiKey,
				timeoutMs: DOCUMENT_TIMEOUT_MS,
				maxBytes: MAX_DOCUMENT_BYTES,
				deadline: Date.now() + DOCUMENT_TIMEOUT_MS,
				read: async (answer) => answer,
			},
		);
	} catch (error) {
		const { httpCode, message } = error as NodeApiError;
		if (httpCode === '404' || httpCode === '410')
			return builtInBecause(
				`The service has no OpenAPI document at ${DOCUMENT_PATH} (HTTP ${httpCode})`,
				PROFILE_TTL_MS,
			);
		const reason = Number(httpCode) >= 400 ? `HTTP ${httpCode}` : message;
		return builtInBecause(`The service's OpenAPI document could not be read (${reason})`);
	}
	if (answer.statusCode >= 300)
		return builtInBecause(
			`The service's OpenAPI document could not be read (HTTP ${answer.statusCode})`,
		);
	let document: unknown;
	try {
		document = await parseJson(answer.text, DOCUMENT_LIMITS);
	} catch (error) {
		const why =
			error instanceof JsonLimitError
				? `it is too large to follow: ${error.message}`
				: 'it is not JSON';
		return builtInBecause(`The node could not read ${where}: ${why}`);
	}
	if (!isOpenApiDocument(document))
		return builtInBecause(`${where} is not an OpenAPI 3.0 or 3.1 document`);
	return { profile: await readProfile(document, where), ttl: PROFILE_TTL_MS };
}

function cached(credentials: Credentials): CachedProfile | undefined {
	const entry = readings.get(readingKey(credentials));
	return entry !== undefined && entry.expires > Date.now() ? entry : undefined;
}

/** The profile for the credential's service, with the credential's Profile Overrides over it. */
export async function loadProfile(this: RequestContext, itemIndex?: number): Promise<Profile> {
	return await profileFor.call(this, await readCredentials.call(this, itemIndex), itemIndex);
}

// The profile with each credential's overrides, kept as long as the profile read is.
const overridden = new WeakMap<Profile, Map<string, Profile>>();
// The overrides as a key, written once per credential read rather than per request.
const overridesKeys = new WeakMap<Record<string, unknown>, string>();

export async function profileFor(
	this: RequestContext,
	credentials: Credentials,
	itemIndex?: number,
): Promise<Profile> {
	// Checked over the built-in profile before anything is sent; the document's profile takes them alike.
	const { overrides, problem } = checkedOverrides(credentials.profileOverrides);
	if (problem !== undefined)
		throw new NodeOperationError(this.getNode(), `The credential's ${problem.message}`, {
			itemIndex,
			description:
				'Correct the Profile Overrides in the credential: Service → Describe shows the profile they go over, and docs/service.md, "Correcting it: Profile Overrides", has worked examples (a service the node misreads, one that serves no document, constants).',
		});
	const read = await readProfileOnce.call(this, credentials);
	if (overrides === undefined) return read;
	let key = overridesKeys.get(overrides);
	if (key === undefined) overridesKeys.set(overrides, (key = JSON.stringify(overrides)));
	let byOverrides = overridden.get(read);
	if (byOverrides === undefined) overridden.set(read, (byOverrides = new Map()));
	let profile = byOverrides.get(key);
	if (profile === undefined) byOverrides.set(key, (profile = applyOverrides(read, overrides)));
	return profile;
}

async function readProfileOnce(this: RequestContext, credentials: Credentials): Promise<Profile> {
	const found = cached(credentials);
	if (found !== undefined) return await found.profile;
	// Concurrent items of this credential wait for the one read in flight instead of each starting their own.
	const entry: CachedProfile = {
		profile: Promise.resolve(BUILT_IN_PROFILE),
		readAt: Date.now(),
		expires: Infinity,
	};
	const key = readingKey(credentials);
	readings.delete(key);
	readings.set(key, entry);
	if (readings.size > MAX_READINGS) readings.delete(readings.keys().next().value as string);
	entry.profile = readServiceProfile.call(this, credentials).then(
		({ profile, ttl }) => {
			entry.expires = Date.now() + ttl;
			return profile;
		},
		(error: unknown) => {
			if (readings.get(key) === entry) readings.delete(key);
			throw error;
		},
	);
	return await entry.profile;
}

/** Reads the document again on the next request, unless it was read moments ago. */
export function refreshProfile(credentials: Credentials): boolean {
	const entry = cached(credentials);
	if (entry === undefined || Date.now() - entry.readAt < MIN_PROFILE_AGE_FOR_REFRESH_MS)
		return false;
	readings.delete(readingKey(credentials));
	return true;
}
