import { readFileSync } from 'node:fs';
import path from 'node:path';

import { BUILT_IN_PROFILE } from '../../nodes/shared/profile/builtIn';
import { own, pointerOf } from '../../nodes/shared/profile/pointer';
import { readList } from '../../nodes/shared/profile/read';
import { idOf, resourcePath } from '../../nodes/shared/profile/read/answers';
import { DocumentReader, type OpenApiDocument } from '../../nodes/shared/profile/read/document';
import { MAX_REQUEST_FIELDS, placeParameters } from '../../nodes/shared/profile/read/fields';
import { readJobs } from '../../nodes/shared/profile/read/jobs';
import {
	findOperation,
	operationsOf,
	parametersOf,
	requestOf,
	successes,
	type DocumentOperation,
} from '../../nodes/shared/profile/read/operations';
import { OWN_HEADERS } from '../../nodes/shared/profile/shape';
import type { JobState, Paging, Profile } from '../../nodes/shared/profile/types';

/**
 * The node's reading of lists against OpenAPI documents their APIs' owners publish, which no one
 * here wrote (test/fixtures/public-openapi/, sources in SOURCES.md). For each list operation,
 * where its items are and how it pages was written by hand from the API's own reference
 * documentation (expected.json), not from the node's output.
 *
 * The bounds: items right for at least 95% of the lists (every expected place is an array the
 * document describes; a few answers carry another array of objects with ids beside the list), and
 * paging right for at least 85% of the lists whose paging the document declares at all (lists
 * whose reference describes paging the document does not declare are `undocumented`, and a few
 * more are ambiguous from the document alone: picker parameters nothing feeds, a journal number
 * called offset).
 */

interface Expected {
	api: string;
	file: string;
	lists: Array<{
		method: string;
		path: string;
		items: string;
		paging: Record<string, string | number> & { style: Paging['style'] };
		undocumented?: string[];
	}>;
	/** For a resource (its path as the document writes it): what its reference says an update is. */
	decisions: Array<{
		path: string;
		update: string;
		mediaType: string;
		requiredHeaders: string[];
		id: string;
	}>;
	/**
	 * A resource the client polls until it is done (its read, as the document writes the path): its
	 * status as a pointer into the resource, one value that means it succeeded and one that it
	 * failed, and its id where the resource carries one.
	 */
	jobs?: Array<{ path: string; status: string; succeeded: string; failed: string; id?: string }>;
	/**
	 * A webhook registration: where its body takes the address and the list of event names (null:
	 * the reference names no such list), as pointers into the body, `-` for each entry of a list.
	 */
	webhooks?: Array<{ path: string; method: string; url: string; events: string | null }>;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'public-openapi');
const expected = JSON.parse(
	readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8'),
) as Expected[];

/**
 * Whether the node's paging is what the reference says, in every part the expectation gives but a
 * total, which the node does not read (a total never ends a list: the next page does).
 */
function samePaging(
	read: Paging | undefined,
	wanted: Expected['lists'][number]['paging'],
): boolean {
	if (read === undefined || read.style !== wanted.style) return false;
	return Object.entries(wanted).every(([key, value]) => {
		if (key === 'total') return true;
		const actual = (read as Record<string, unknown>)[key];
		return key === 'next' ? Array.isArray(actual) && actual.includes(value) : actual === value;
	});
}

describe('lists of public documents no one here wrote', () => {
	const results = expected.flatMap(({ api, file, lists }) => {
		const document = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as OpenApiDocument;
		return lists.map((list) => {
			// Each list with a reader of its own: the whole budget for each.
			const { reader, operations } = readerOf(document);
			const from = `#${pointerOf(['paths', list.path, list.method.toLowerCase()])}`;
			const entry = operations.find((candidate) => candidate.from === from);
			const read = entry && readList(reader, entry, undefined, undefined);
			return {
				api,
				list,
				items: read?.items?.[0] === list.items,
				paging: samePaging(read?.paging, list.paging),
				read,
			};
		});
	});
	const declared = results.filter(({ list }) => list.undocumented === undefined);

	it('reads where the items are and how they page as the references say', () => {
		const items = results.filter((result) => result.items).length;
		const paging = declared.filter((result) => result.paging).length;
		console.log(
			`public documents: ${expected.length}, list endpoints ${results.length}, items right ${items}, paging right ${paging} of ${declared.length} whose paging the document declares`,
		);
		const wrong = results
			.filter(
				(result) => !result.items || (!result.paging && result.list.undocumented === undefined),
			)
			.map(
				({ api, list, read }) =>
					`${api} ${list.path}: ${JSON.stringify({ items: read?.items, paging: read?.paging })}`,
			);
		expect({
			items: items / results.length >= 0.95,
			paging: paging / declared.length >= 0.85,
			wrong,
		}).toMatchObject({
			items: true,
			paging: true,
		});
	});
});

type Outcome = 'right' | 'not followed' | 'wrong';
const outcome = (read: string | undefined, wanted: string): Outcome =>
	read === undefined ? 'not followed' : read === wanted ? 'right' : 'wrong';

/**
 * The decisions the node's reader makes for one resource, each by the functions the profile's
 * reading uses: which operation updates it (the node's Post → Update rules, given the resource's
 * path), the media type its body is sent as, the header parameters it requires, and the property
 * that is its id (in the resource its read answers with, out of any envelope).
 */
function decide(document: OpenApiDocument, decision: Expected['decisions'][number]) {
	const { reader, operations, at } = readerOf(document);
	const read = at(decision.path, 'get');
	const update = at(decision.path, decision.update);
	const found = findOperation(reader, operations, 'updatePost', {
		method: 'PATCH',
		path: read.path,
	});
	const required = new Set<string>();
	parametersOf(reader, update, 'header', required);
	const headers = [...required]
		.map((name) => name.toLowerCase())
		.filter((name) => !OWN_HEADERS.test(name));
	const answer = successes(reader, read.operation).find(
		({ schema }) => schema !== undefined,
	)?.schema;
	const resource = reader.at(answer, resourcePath(reader, answer, new Set()));
	return {
		update: outcome(found && `${found.method} ${found.from}`, `${decision.update} ${update.from}`),
		mediaType: outcome(requestOf(reader, update.operation)?.mediaType, decision.mediaType),
		requiredHeaders: outcome(
			headers.sort().join(', '),
			[...decision.requiredHeaders].sort().join(', '),
		),
		id: outcome(idOf(reader.shape(resource)), decision.id),
	};
}

/** A document's reader, with the reader's own budget for a whole document, and its operations. */
function readerOf(document: OpenApiDocument) {
	const reader = new DocumentReader(document, 400_000);
	const reading = operationsOf(reader);
	let next = reading.next();
	while (next.done !== true) next = reading.next();
	const operations = next.value;
	/** The operation at a path as the document writes it. */
	const at = (path: string, method: string): DocumentOperation => {
		const found = operations.find(
			({ from }) => from === `#${pointerOf(['paths', path, method.toLowerCase()])}`,
		);
		if (found === undefined) throw new Error(`the fixture lacks ${method} ${path}`);
		return found;
	};
	return { reader, operations, at };
}

/**
 * The decisions the node's reader makes for the node's Job → Get, as the profile's reading makes
 * them with the job's read where the built-in path is: where its status is, the state each of two
 * values means, and where its id is. A value mapped to no state is said not followed: it counts as
 * pending, and a wait that ends at its time limit says so and names the override that maps it.
 */
function decideJob(document: OpenApiDocument, job: NonNullable<Expected['jobs']>[number]) {
	const { reader, operations, at } = readerOf(document);
	const found = findOperation(reader, operations, 'getJob', {
		method: 'GET',
		path: at(job.path, 'get').path,
	});
	const answer = found && successes(reader, found.operation)[0]?.schema;
	const schema = reader.at(answer, resourcePath(reader, answer, new Set(), 'job'));
	const notFollowed: Profile['notFollowed'] = [];
	const jobs = readJobs(reader, schema, found, notFollowed);
	// Without a job schema the built-in jobs stand in, unsaid; otherwise what is not followed is said.
	const said = (of: string) =>
		jobs === BUILT_IN_PROFILE.jobs || notFollowed.some((entry) => entry.of === of);
	const { completion } = jobs;
	const status = said('/jobs/completion/status')
		? undefined
		: completion.by === 'status'
			? completion.status[0]
			: `done at ${completion.done.join(', ')}`;
	const state = (value: string, wanted: JobState): Outcome =>
		status === undefined
			? 'not followed'
			: completion.by === 'status'
				? outcome(own(completion.states, value) as JobState | undefined, wanted)
				: 'wrong';
	return {
		'job status': outcome(status, job.status),
		'job succeeded': state(job.succeeded, 'succeeded'),
		'job failed': state(job.failed, 'failed'),
		...(job.id === undefined
			? {}
			: { 'job id': outcome(said('/jobs/id') ? undefined : jobs.id[0], job.id) }),
	};
}

/**
 * The decisions the node's reader makes for a webhook registration, by the rules that place the
 * node's Webhook → Create fields, given the registration's path: where the address and the events
 * go. A place the document does not give (the built-in name in a body that takes any field, or
 * none) is said not followed; where the reference names no list of events, no place is right.
 */
function decideWebhook(
	document: OpenApiDocument,
	webhook: NonNullable<Expected['webhooks']>[number],
) {
	const { reader, operations, at } = readerOf(document);
	const found = findOperation(reader, operations, 'createWebhook', {
		method: 'POST',
		path: at(webhook.path, webhook.method).path,
	});
	const shape = found && requestOf(reader, found.operation)?.shape;
	// The reading of an operation whose request has more fields is not followed as a whole.
	const placing =
		found === undefined || (shape?.properties.size ?? 0) > MAX_REQUEST_FIELDS
			? undefined
			: placeParameters(
					reader,
					'body',
					shape,
					BUILT_IN_PROFILE.operations.createWebhook.fields,
					`${found.from}/requestBody`,
				);
	let next = placing?.next();
	while (placing !== undefined && next?.done !== true) next = placing.next();
	const fields = next?.done === true ? next.value : {};
	/** Where the registration's body takes a field; null where the document says it has no place. */
	const place = (field: string) => {
		const placed = fields[field];
		if (placed === undefined || placed.from?.startsWith('built-in') !== false) return undefined;
		return placed.to === null ? null : placed.to.replace(/^\/body(?=\/)/, '');
	};
	const url = place('url');
	const events = place('events');
	return {
		'webhook url': outcome(url ?? undefined, webhook.url),
		'webhook events':
			webhook.events === null
				? events === undefined
					? 'not followed'
					: events === null
						? 'right'
						: 'wrong'
				: outcome(events ?? undefined, webhook.events),
	};
}

/**
 * Beyond lists: for one resource of each document, what its update is (method and operation), the
 * media type its body goes as, the header parameters it requires and the property that is its id;
 * for each job-like resource, where its status is, what a success and a failure of it mean and where
 * its id is; for each webhook registration, where the address and the events go. Each is written
 * by hand from the API's reference (expected.json: `decisions`, `jobs`, `webhooks`, the page in
 * `why`).
 */
describe('decisions for single resources of public documents', () => {
	it("reads each resource's update, media type, required headers and id, jobs and webhook registrations as the references say", () => {
		const results = expected.flatMap(({ api, file, decisions, jobs = [], webhooks = [] }) => {
			const document = JSON.parse(
				readFileSync(path.join(FIXTURES, file), 'utf8'),
			) as OpenApiDocument;
			return [
				...decisions.map((decision) => ({ path: decision.path, made: decide(document, decision) })),
				...jobs.map((job) => ({ path: job.path, made: decideJob(document, job) })),
				...webhooks.map((webhook) => ({
					path: webhook.path,
					made: decideWebhook(document, webhook),
				})),
			].flatMap(({ path: at, made }) =>
				Object.entries(made).map(([kind, result]) => ({ at: `${api} ${at} ${kind}`, result })),
			);
		});
		const count = (wanted: Outcome) => results.filter(({ result }) => result === wanted).length;
		console.log(
			`public documents: ${expected.length}, decisions checked ${results.length}, right ${count('right')}, said not followed ${count('not followed')}, wrong ${count('wrong')}`,
		);
		// A wrong decision sends every request of that operation wrong, unseen until the service
		// refuses it (or, worse, takes it); one said not followed is in Describe, with the built-in
		// convention standing in and an override to correct it. So a wrong one costs two, and the
		// bound is on the cost: at most 15% of the decisions (a reader of documents it never saw may
		// miss a name: today 8 of 114 are said: ids named `sid`, `dag_id` or answered in an array,
		// statuses no rule maps (Twilio's `delivered`, Square's values listed only in a description),
		// events in objects or in a list's entries), and at most one decision in fifty wrong (today
		// none; a job's id once taken from a parent's path parameter, Twilio's `account_sid` and
		// Airflow's `dag_id`, made two).
		const costly = results
			.filter(({ result }) => result !== 'right')
			.map(({ at, result }) => `${at}: ${result}`);
		expect({
			cost: (2 * count('wrong') + count('not followed')) / results.length <= 0.15,
			wrong: count('wrong') / results.length <= 0.02,
			costly,
		}).toMatchObject({ cost: true, wrong: true });
	});
});
