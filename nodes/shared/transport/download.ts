import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { readCredentials, redact } from './credentials';
import { DEFAULT_TIMEOUT_MS } from './index';

/** Where media are downloaded: an execution, or the webhook that resumes a waiting one. */
export type MediaContext = IExecuteFunctions | IWebhookFunctions;

/** What n8n's prepareBinaryData takes: a buffer or, here, a stream. */
export type BinarySource = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/**
 * Streams a file the service's answer names, such as a finished video. The API key goes along
 * only to the Base URL's origin (and redirects are not followed there); media elsewhere, such as
 * on a CDN, is fetched without it.
 */
export async function downloadFile(
	this: MediaContext,
	url: string,
	itemIndex: number,
): Promise<{ body: BinarySource; mimeType?: string; fileName?: string }> {
	const { baseUrl, apiKey } = await readCredentials.call(this, itemIndex);
	let target: URL;
	try {
		target = new URL(url);
	} catch {
		throw new NodeOperationError(this.getNode(), `Item ${itemIndex}: the media address "${url.slice(0, 200)}" is not a URL`, { itemIndex });
	}
	const sameOrigin = target.origin === new URL(baseUrl).origin;
	try {
		const response = (await this.helpers.httpRequest({
			method: 'GET',
			url: target.toString(),
			headers: sameOrigin ? { Authorization: `Bearer ${apiKey}` } : {},
			encoding: 'stream',
			returnFullResponse: true,
			disableFollowRedirect: sameOrigin,
			timeout: DEFAULT_TIMEOUT_MS,
			abortSignal: 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined,
		})) as { body: BinarySource; headers: Record<string, string | undefined> };
		const mimeType = response.headers['content-type']?.split(';')[0].trim() || undefined;
		const fileName = decodeURIComponent(target.pathname.split('/').pop() ?? '') || undefined;
		return { body: response.body, mimeType, fileName };
	} catch (error) {
		const reason = redact(String((error as Error).message ?? ''), apiKey);
		throw new NodeApiError(this.getNode(), { message: reason }, {
			message: `Could not download the media at ${target.origin}${target.pathname}`,
			description: reason,
			itemIndex,
		});
	}
}
