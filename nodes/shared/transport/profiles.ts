import { createHash } from 'crypto';
import { NodeApiError, sleep } from 'n8n-workflow';

import {
	builtInContract,
	DOCUMENT_PATH,
	isOpenApiDocument,
	resolveContract,
	type Contract,
} from '../contract';
import { JsonLimitError, parseJson } from '../json';
import { readCredentials, type Credentials, type RequestContext } from './credentials';
import { isTransient } from './errors';
import { exchange } from './http';

/**
 * The service's contract, read from its OpenAPI document once per Base URL and kept a while,
 * shared by every item, execution, list search and trigger of this n8n process. A document that was
 * read serves every credential on that Base URL; a failed read (another key's 401, a 503) is kept
 * only for the credential that met it, so one credential's failure never changes what another
 * one's requests look like.
 */

const CONTRACT_TTL_MS = 10 * 60_000;
// A service may just have been down: a document that could not be read is tried again soon.
const UNREADABLE_CONTRACT_TTL_MS = 30_000;
const DOCUMENT_TIMEOUT_MS = 15_000;
const DOCUMENT_ATTEMPTS = 3;
const DOCUMENT_RETRY_MS = 500;
// Bounds on the document itself: well above any real API's description, far below harm.
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
// No object of a real document comes near 10,000 members (paths, schemas, properties); a larger
// one costs every reader of it a stall (see JsonLimits.maxMembers).
const DOCUMENT_LIMITS = {
	maxLength: MAX_DOCUMENT_BYTES,
	maxDepth: 256,
	maxValues: 4_000_000,
	maxMembers: 10_000,
};
// A 404 or 405 on a route the document named suggests the document changed, unless it was just read.
const MIN_CONTRACT_AGE_FOR_REFRESH_MS = 1_000;

interface CachedContract {
	contract: Promise<Contract>;
	readAt: number;
	expires: number;
}

/** Documents read, by Base URL; failures and missing documents, by Base URL and key. */
const documents = new Map<string, CachedContract>();
const failures = new Map<string, CachedContract>();

function failureKey({ baseUrl, apiKey }: Credentials): string {
	return `${baseUrl}#${createHash('sha256').update(apiKey).digest('hex').slice(0, 32)}`;
}

async function builtInWith(notice: string): Promise<Contract> {
	return { ...(await builtInContract()), notice };
}

async function readContract(
	this: RequestContext,
	credentials: Credentials,
): Promise<{ contract: Contract; shared: boolean; ttl: number }> {
	const { baseUrl, apiKey } = credentials;
	const where = `${baseUrl}${DOCUMENT_PATH}`;
	let answer;
	// A service that is briefly down (a 502, 503 or 504, or no answer) is asked again, twice.
	for (let attempt = 1; ; attempt++) {
		try {
			answer = await exchange.call(
				this,
				{ method: 'GET', url: where },
				{ baseUrl, apiKey, timeoutMs: DOCUMENT_TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES },
			);
			if (attempt < DOCUMENT_ATTEMPTS && [502, 503, 504].includes(answer.statusCode)) {
				await sleep(DOCUMENT_RETRY_MS * attempt);
				continue;
			}
			break;
		} catch (error) {
			if (attempt < DOCUMENT_ATTEMPTS && isTransient(error)) {
				await sleep(DOCUMENT_RETRY_MS * attempt);
				continue;
			}
			const reason =
				error instanceof NodeApiError ? error.message : String((error as Error).message);
			return {
				contract: await builtInWith(
					`The service's OpenAPI document could not be read (${reason}), so the node used its built-in conventions.`,
				),
				shared: false,
				ttl: UNREADABLE_CONTRACT_TTL_MS,
			};
		}
	}
	if (answer.statusCode === 404 || answer.statusCode === 410) {
		return {
			contract: await builtInWith(
				`The service has no OpenAPI document at ${DOCUMENT_PATH} (HTTP ${answer.statusCode}), so the node used its built-in conventions.`,
			),
			shared: false,
			ttl: CONTRACT_TTL_MS,
		};
	}
	if (answer.statusCode >= 300) {
		return {
			contract: await builtInWith(
				`The service's OpenAPI document could not be read (HTTP ${answer.statusCode}), so the node used its built-in conventions.`,
			),
			shared: false,
			ttl: UNREADABLE_CONTRACT_TTL_MS,
		};
	}
	let document: unknown;
	try {
		document = await parseJson(answer.text, DOCUMENT_LIMITS);
	} catch (error) {
		const why =
			error instanceof JsonLimitError
				? `it is too large to follow: ${error.message}`
				: 'it is not JSON';
		return {
			contract: await builtInWith(
				`The node could not read ${where}: ${why}, so it used its built-in conventions.`,
			),
			shared: false,
			ttl: UNREADABLE_CONTRACT_TTL_MS,
		};
	}
	if (!isOpenApiDocument(document)) {
		return {
			contract: await builtInWith(
				`${where} is not an OpenAPI 3.0 or 3.1 document, so the node used its built-in conventions.`,
			),
			shared: false,
			ttl: UNREADABLE_CONTRACT_TTL_MS,
		};
	}
	return { contract: await resolveContract(document), shared: true, ttl: CONTRACT_TTL_MS };
}

function cached(credentials: Credentials): CachedContract | undefined {
	const now = Date.now();
	for (const [cache, key] of [
		[documents, credentials.baseUrl],
		[failures, failureKey(credentials)],
	] as const) {
		const entry = cache.get(key);
		if (entry !== undefined && entry.expires > now) return entry;
	}
	return undefined;
}

/** The contract for the credential's service. */
export async function loadContract(this: RequestContext, itemIndex?: number): Promise<Contract> {
	return await contractFor.call(this, await readCredentials.call(this, itemIndex));
}

export async function contractFor(
	this: RequestContext,
	credentials: Credentials,
): Promise<Contract> {
	const found = cached(credentials);
	if (found !== undefined) return await found.contract;
	// Concurrent items of this credential wait for the one read in flight instead of each starting their own.
	const entry: CachedContract = {
		contract: Promise.resolve(builtInContract()),
		readAt: Date.now(),
		expires: Infinity,
	};
	const pending = failureKey(credentials);
	failures.set(pending, entry);
	entry.contract = readContract.call(this, credentials).then(
		({ contract, shared, ttl }) => {
			entry.expires = Date.now() + ttl;
			if (shared) {
				failures.delete(pending);
				documents.set(credentials.baseUrl, entry);
			}
			return contract;
		},
		(error: unknown) => {
			failures.delete(pending);
			throw error;
		},
	);
	return await entry.contract;
}

/** Reads the document again on the next request, unless it was read moments ago. */
export function refreshContract(credentials: Credentials): boolean {
	const entry = cached(credentials);
	if (entry === undefined || Date.now() - entry.readAt < MIN_CONTRACT_AGE_FOR_REFRESH_MS)
		return false;
	documents.delete(credentials.baseUrl);
	failures.delete(failureKey(credentials));
	return true;
}
