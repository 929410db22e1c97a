import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IHttpRequestOptions,
	INodeCredentialTestResult,
	NodeOperationError,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { applyOverrides, OverrideError } from '../profile/overrides';
import type { Headers } from '../profile/pointer';
import { callEndpoint } from './index';
import {
	readCredentials,
	redact,
	type CredentialTestRequests,
	type Credentials,
} from './credentials';
import type { BodyStream } from './http';
import { rereadProfile, unreadableDocument } from './profiles';

/**
 * The credential's Test in n8n's credential dialog: the whole credential checked the way the nodes
 * use it, the part that fails named first in the message. In order: the Base URL and the Profile
 * Overrides as written; the service's OpenAPI document (read again, for the requests that follow
 * too) with the overrides over it; the API key, with Account → Get by that profile; and last a
 * document the service serves but the node cannot read. Where the service serves no document the
 * test passes: the built-in conventions are the node's way for such a service.
 */

const TEST_TIMEOUT_MS = 15_000;

type RequestHelper = ICredentialTestFunctions['helpers']['request'];

/**
 * n8n's `httpRequest` as a credential test has it: through `request`, the only request helper n8n
 * gives one (its proxy and TLS settings apply), for the options the transport sends (http.ts): a
 * streamed full answer, any status, no redirects followed, and the abort signal honoured.
 */
function httpRequestThrough(request: RequestHelper): CredentialTestRequests['helpers'] {
	return {
		async httpRequest(options: IHttpRequestOptions) {
			// The transport's deadline (http.ts), an AbortSignal.
			const abortSignal =
				options.abortSignal instanceof AbortSignal ? options.abortSignal : undefined;
			abortSignal?.throwIfAborted();
			const sent = request({
				method: options.method ?? 'GET',
				uri: String(options.url),
				qs: options.qs,
				body: options.body,
				headers: options.headers,
				json: false,
				useStream: true,
				resolveWithFullResponse: true,
				simple: false,
				followRedirect: false,
				timeout: TEST_TIMEOUT_MS,
			}) as Promise<{ statusCode: number; headers: Headers; body: BodyStream }>;
			return await new Promise((resolve, reject) => {
				const abandon = () => reject(new Error('The request was abandoned'));
				abortSignal?.addEventListener('abort', abandon, { once: true });
				sent.then((answer) => {
					abortSignal?.removeEventListener('abort', abandon);
					// An answer after the deadline is dropped; one being read stops at it.
					if (abortSignal?.aborted) answer.body.destroy();
					abortSignal?.addEventListener(
						'abort',
						() => answer.body.destroy(new Error('The request was abandoned')),
						{ once: true },
					);
					resolve(answer);
				}, reject);
			});
		},
	};
}

function failed(part: string, message: string, apiKey = ''): INodeCredentialTestResult {
	return { status: 'Error', message: redact(`${part}: ${message}`, apiKey) };
}

/** An error's message and description as one text, each a sentence. */
function told(message: string, description?: string | null): string {
	return [message, description]
		.filter(Boolean)
		.map((text) => String(text).replace(/([^.])$/, '$1.'))
		.join(' ');
}

/** Which part of the credential a failed Account → Get points at. */
function partOf(error: unknown): string {
	const httpCode = Number(error instanceof NodeApiError ? error.httpCode : undefined);
	if (httpCode === 401 || httpCode === 403) return 'API Key';
	if (httpCode === 429 || httpCode >= 500) return 'Service';
	// No answer, an answer that is not the API's (a web page), or a refusal of its path.
	return 'Base URL';
}

export async function testCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	// n8n's deprecated `request`: a credential test is given no other request helper.
	const { request } = this.helpers;
	const context: CredentialTestRequests = {
		getNode: () => ({
			id: 'credential-test',
			name: 'Credential test',
			type: 'contentPublishing',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		}),
		getCredentials: async <T extends object>() => (credential.data ?? {}) as T,
		helpers: httpRequestThrough(request),
	};
	let credentials: Credentials;
	try {
		credentials = await readCredentials.call(context);
	} catch (error) {
		const { message, description } = error as NodeOperationError;
		const [, part = 'Credential', rest = message] =
			/^The credential's (Base URL|Profile Overrides) ([\s\S]*)$/.exec(message) ?? [];
		return failed(part, told(rest, description));
	}
	const { apiKey } = credentials;
	try {
		const read = await rereadProfile.call(context, credentials);
		applyOverrides(read, credentials.overrides);
		try {
			await callEndpoint.call(context, 'getAccount', {
				timeoutMs: TEST_TIMEOUT_MS,
				retryReads: false,
			});
		} catch (error) {
			const { message, description } = error as NodeApiError;
			return failed(partOf(error), told(message, description), apiKey);
		}
		const why = unreadableDocument(read);
		if (why !== undefined)
			return failed(
				'OpenAPI document',
				`${why}. The key and the Base URL work: the node uses its built-in conventions (and the Profile Overrides) until it can read the document. Service → Describe shows the profile in use.`,
				apiKey,
			);
	} catch (error) {
		if (error instanceof OverrideError)
			return failed('Profile Overrides', error.message.replace(/^Profile Overrides /, ''));
		return failed('Service', told(String((error as Error).message)), apiKey);
	}
	return { status: 'OK', message: 'Connection successful!' };
}
