import {
	closeSync,
	existsSync,
	fsyncSync,
	mkdirSync,
	openSync,
	readFileSync,
	renameSync,
	statSync,
	writeSync,
} from 'node:fs';
import path from 'node:path';

import { JOB_STATUSES } from './openapi';
import type { Account, Job, JobInput, JobPlan, Page, Post, StoredWebhook } from './server';

/**
 * The fake service's data kept in a file between runs (`npm start`): the account, pages, posts,
 * jobs (with what an unfinished one needs to finish) and webhooks with their secrets, so an id a
 * workflow picked, or a trigger registered, is still there after a restart. Written whole and
 * atomically (a temporary file renamed over the old one), never larger than MAX_STATE_BYTES: the
 * oldest posts, jobs and webhooks give way first. A file that is not one of these is set aside and
 * the service starts from its seed data.
 */

/** The most a state file may hold; 8 MiB keeps hundreds of generated blog posts and loads in milliseconds. */
export const MAX_STATE_BYTES = 8 * 2 ** 20;
const VERSION = 1;

/** What an unfinished job needs to finish after a restart. */
interface PendingJob {
	input: JobInput;
	sourceText: string;
	plan: Required<JobPlan>;
}

export interface SavedState {
	version: typeof VERSION;
	account: Account;
	pages: Page[];
	posts: Post[];
	jobs: Array<{ job: Job; pending?: PendingJob }>;
	webhooks: StoredWebhook[];
}

export class StateFileError extends Error {}

// Ids end in a creation sequence (base 36) and 12 random hex digits: see newId in server.ts.
const ID = /^(acc|page|post|job|wh)_([0-9a-z]{6,})[0-9a-f]{12}$/;

/** An id's place in creation order, or -1 for an id the service did not make. */
export function creationOrder(id: string): number {
	const match = ID.exec(id);
	return match ? parseInt(match[2], 36) : -1;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

function hasId(value: unknown, prefix: string): boolean {
	return isRecord(value) && typeof value.id === 'string' && ID.exec(value.id)?.[1] === prefix;
}

/** The records of a list that look like the kind they should be; the others are dropped. */
function recordsOf<T>(
	value: unknown,
	prefix: string,
	fits: (record: Record<string, unknown>) => boolean = () => true,
): T[] {
	if (!Array.isArray(value)) throw new StateFileError(`its ${prefix} list is not a list`);
	return value.filter(
		(record) => hasId(record, prefix) && fits(record as Record<string, unknown>),
	) as T[];
}

/** Reads a state file; undefined when there is none, StateFileError when it is not one. */
export function readState(file: string): SavedState | undefined {
	if (!existsSync(file)) return undefined;
	const size = statSync(file).size;
	if (size > MAX_STATE_BYTES)
		throw new StateFileError(
			`it has ${size} bytes, more than the ${MAX_STATE_BYTES} a state file may have`,
		);
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(file, 'utf8'));
	} catch (error) {
		throw new StateFileError(`it is not JSON (${(error as Error).message})`);
	}
	if (!isRecord(parsed) || parsed.version !== VERSION)
		throw new StateFileError(`it is not version ${VERSION} of the fake service's state`);
	if (!hasId(parsed.account, 'acc')) throw new StateFileError('it has no account');
	const jobs = (Array.isArray(parsed.jobs) ? parsed.jobs : []).filter(
		(entry): entry is { job: Job; pending?: PendingJob } =>
			isRecord(entry) &&
			hasId(entry.job, 'job') &&
			(JOB_STATUSES as readonly unknown[]).includes((entry.job as Job).status),
	);
	return {
		version: VERSION,
		account: parsed.account as unknown as Account,
		pages: recordsOf<Page>(parsed.pages, 'page', (page) => typeof page.name === 'string'),
		posts: recordsOf<Post>(parsed.posts, 'post', (post) => typeof post.content === 'string'),
		jobs: jobs.map(({ job, pending }) => ({
			job,
			// Only a job that has not finished goes on, and only with everything it needs.
			...(job.status !== 'succeeded' &&
			job.status !== 'failed' &&
			isRecord(pending) &&
			isRecord(pending.input) &&
			isRecord(pending.plan)
				? {
						pending: {
							input: pending.input,
							sourceText: String(pending.sourceText ?? ''),
							plan: pending.plan as Required<JobPlan>,
						},
					}
				: {}),
		})),
		webhooks: recordsOf<StoredWebhook>(
			parsed.webhooks,
			'wh',
			(webhook) => typeof webhook.url === 'string' && typeof webhook.secret === 'string',
		),
	};
}

/**
 * The state as it fits the bound: the account and pages always, then posts, jobs and webhooks from
 * the newest back until the next one would not fit.
 */
export function boundedState(state: SavedState, maxBytes = MAX_STATE_BYTES): SavedState {
	const kept: SavedState = { ...state, posts: [], jobs: [], webhooks: [] };
	let room = maxBytes - Buffer.byteLength(JSON.stringify(kept));
	const order = (record: { id: string } | { job: Job }) =>
		creationOrder('job' in record ? record.job.id : record.id);
	const records = (['posts', 'jobs', 'webhooks'] as const)
		.flatMap((list) =>
			(state[list] as Array<{ id: string } | { job: Job }>).map((record) => ({ list, record })),
		)
		.sort((a, b) => order(b.record) - order(a.record));
	for (const { list, record } of records) {
		// One comma between records, besides the record itself.
		const bytes = Buffer.byteLength(JSON.stringify(record)) + 1;
		if (bytes > room) break;
		room -= bytes;
		// Newest first, so each list ends up in creation order, which lists and cursors go by.
		(kept[list] as unknown[]).unshift(record);
	}
	return kept;
}

/** Writes the state within its bound, atomically: readers see the old file or the new one, never half of one. */
export function writeState(file: string, state: SavedState): void {
	mkdirSync(path.dirname(file), { recursive: true });
	const text = JSON.stringify(boundedState(state));
	const temporary = `${file}.${process.pid}.tmp`;
	// Only this user may read it: it holds the webhooks' signing secrets.
	const descriptor = openSync(temporary, 'w', 0o600);
	try {
		writeSync(descriptor, text);
		fsyncSync(descriptor);
	} finally {
		closeSync(descriptor);
	}
	renameSync(temporary, file);
}

/** Moves a file that is not a state file out of the way, so that the service can start afresh beside it. */
export function setAside(file: string): string {
	const aside = `${file}.broken`;
	renameSync(file, aside);
	return aside;
}
