import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { isRecord } from '../../shared/profile/pointer';
import type { Profile } from '../../shared/profile/types';
import { secretFor } from '../../shared/secrets';
import { readCredentials, type RequestContext } from '../../shared/executor/send';
import type { MediaOptions } from '../actions/types';

// Wait Method "Service Event" (docs/waiting.md). The wait's state travels sealed in the resume
// address: n8n keeps nothing of a waiting node's output for its webhook, and static data is the
// workflow's, not the execution's. A call of the address only prompts the node to read the jobs.

// Query parameters of the registered address, beside n8n's own `signature` (from n8n 2.14).
export const STATE_PARAM = 'cp_wait';
export const UNTIL_PARAM = 'cp_until';
export const RUN_MAC_PARAM = 'cp_run';
export const SECRET_PARAM = 'cp_key';
export const PROBE_PARAM = 'cp_probe';

export type WaitContext = IExecuteFunctions | IWebhookFunctions;

export interface WaitState {
	v: 1;
	/** Random per registration: tells this node's registrations apart, and seeds the signing secret. */
	n: string;
	/** When the wait ends, in Unix seconds: n8n resumes the execution itself then. */
	d: number;
	/** The Maximum Wait Time, in seconds, for the timeout's message. */
	w: number;
	/** Each item's job id, or null where the item's output was decided before the wait (in `o`). */
	j: Array<string | null>;
	/** Outputs decided before the wait, by item index: an error item, or an answer without a job. */
	o?: Record<string, IDataObject>;
	/** Download Media's field and bounds of each item (null: none), or one for every item. */
	m?: MediaOptions | Array<MediaOptions | null>;
	/** 1 where the node chose the signing secret: derived from the key, written nowhere. */
	k?: 1;
}

function hmac(key: Buffer | string, data: string): Buffer {
	return createHmac('sha256', key).update(data).digest();
}

/** The key that seals a wait's state (only this credential writes a state it believes), and the credential as sweeps know it. */
export async function credentialOf(context: RequestContext) {
	const { apiKey, baseUrl } = await readCredentials.call(context);
	const key = hmac(apiKey, 'n8n-nodes-content-publishing event wait v1');
	return { key, credential: hmac(key, `sweep\n${baseUrl}`).toString('base64url') };
}

export function sameText(a: string, b: string): boolean {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
}

export const stateScope = (executionId: string, nodeId: string) =>
	`state\n${executionId}\n${nodeId}`;
export const secretScope = (executionId: string, nodeId: string, nonce: string) =>
	`secret\n${executionId}\n${nodeId}\n${nonce}`;

/** The secret the node registers: derived from the key and the wait's secret scope, so it is never stored. */
export function derivedSecret(profile: Profile, key: Buffer, scope: string): string {
	return secretFor(profile.webhooks.signature, hmac(key, scope));
}

/** Text sealed with the key (AES-256-GCM), bound to `aad`: only this credential opens it, and nothing in it can be changed. */
export function seal(key: Buffer, aad: string, text: string): string {
	const iv = randomBytes(12);
	const cipher = createCipheriv('aes-256-gcm', hmac(key, 'seal'), iv);
	cipher.setAAD(Buffer.from(aad));
	const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
	return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** Undefined where the text was sealed with another key or for another `aad`, or changed. */
export function unseal(key: Buffer, aad: string, sealed: string): string | undefined {
	try {
		const bytes = Buffer.from(sealed, 'base64url');
		const decipher = createDecipheriv('aes-256-gcm', hmac(key, 'seal'), bytes.subarray(0, 12));
		decipher.setAAD(Buffer.from(aad));
		decipher.setAuthTag(bytes.subarray(12, 28));
		return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
	} catch {
		return undefined;
	}
}

/**
 * Binds the address to this run of the node (its input's node, output and run; not the item count,
 * which Execute Once changes): n8n serves one resume address per execution and node.
 */
export function runMac(context: WaitContext, key: Buffer, nonce: string): string {
	const run = context.evaluateExpression(
		'{{ JSON.stringify([$prevNode.name, $prevNode.outputIndex, $prevNode.runIndex]) }}',
		0,
	);
	const parts = [context.getExecutionId(), context.getNode().id, nonce, String(run)];
	return hmac(key, parts.join('\n')).toString('base64url');
}

function isState(value: unknown): value is WaitState {
	return (
		isRecord(value) &&
		value.v === 1 &&
		typeof value.n === 'string' &&
		typeof value.d === 'number' &&
		typeof value.w === 'number' &&
		Array.isArray(value.j) &&
		value.j.every((id) => id === null || typeof id === 'string')
	);
}

/** The wait's state from its address, where this credential sealed it for this execution and node. */
export function openState(
	key: Buffer,
	{ executionId, nodeId, sealed }: { executionId: string; nodeId: string; sealed: string },
): WaitState | undefined {
	try {
		const value: unknown = JSON.parse(
			unseal(key, stateScope(executionId, nodeId), sealed) ?? 'null',
		);
		return isState(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A failure's message without the wait's addresses, n8n's token or the node's query values, in any quoted form. */
export function safeMessage(error: unknown, resume: URL, ...addresses: URL[]): string {
	let result = error instanceof Error ? error.message : String(error);
	const waitingPath = resume.pathname.split('/').slice(0, -2).join('/');
	if (waitingPath !== '')
		result = result.replace(
			new RegExp(
				`(?:${escapeRegExp(resume.origin)})?${escapeRegExp(waitingPath)}/[^\\s"'<>()]*`,
				'g',
			),
			'[address]',
		);
	const secrets = [resume, ...addresses]
		.flatMap((address) => [address.toString(), ...address.searchParams.values()])
		.filter((secret) => secret.length >= 8)
		.sort((a, b) => b.length - a.length);
	for (const secret of secrets)
		for (const form of new Set([
			secret,
			encodeURIComponent(secret),
			JSON.stringify(secret).slice(1, -1),
		]))
			result = result.split(form).join('[address]');
	return result.replace(
		new RegExp(
			`\\b(${[STATE_PARAM, UNTIL_PARAM, RUN_MAC_PARAM, SECRET_PARAM, PROBE_PARAM, 'signature'].join('|')})(=|%3D)[^\\s"'&<>()]*`,
			'gi',
		),
		'$1=…',
	);
}

/** `$execution.resumeUrl` with this node's id: where n8n serves the node's webhook while the execution waits. */
export function resumeAddress(context: WaitContext): URL | undefined {
	const executionId = context.getExecutionId();
	let resume: URL;
	try {
		resume = new URL(String(context.evaluateExpression('{{ $execution.resumeUrl }}', 0)));
	} catch {
		return undefined;
	}
	if (!executionId || !resume.pathname.endsWith(`/${executionId}`)) return undefined;
	// From n8n 2.14 the address carries its token as a query parameter: the node's id goes in the path.
	resume.pathname = `${resume.pathname}/${encodeURIComponent(context.getNode().id)}`;
	return resume;
}
