import { sleep } from 'n8n-workflow';

import { TURN_MS } from '../../json';
import { BUILT_IN_PROFILE } from '../builtIn';
import { own, pointerOf } from '../pointer';
import {
	OPERATION_NAMES,
	OPERATIONS,
	type AnswerReading,
	type OperationName,
	type OperationProfile,
	type Placement,
	type Profile,
} from '../types';
import {
	answersAtOnce,
	body,
	envelopesOf,
	idOf,
	itemsPath,
	jobReferences,
	pagingOf,
	pagingParameters,
	resourceIn,
	resourcePath,
	searchOf,
} from './answers';
import {
	DocumentReader,
	SchemaBudgetError,
	firstSentence,
	type OpenApiDocument,
	type Schema,
} from './document';
import { readErrors } from './errors';
import { placeParameters, MAX_REQUEST_FIELDS } from './fields';
import { readJobs } from './jobs';
import { statedPlaces } from './places';
import { followRequired } from './required';
import {
	findOperation,
	operationsOf,
	parametersOf,
	requestOf,
	successes,
	successOf,
	unique,
	type DocumentOperation,
} from './operations';
import { readWebhooks } from './webhooks';

// Steps (schema expansions, properties read, rules tried, references followed) one document may take.
const READ_BUDGET = 400_000;
// Steps one part (an operation, the jobs, the webhooks) may take between two breaks for n8n.
const STEP_BUDGET = 5_000;
// How long reading one document may take in all; what is left then is the built-in profile's.
const READ_DEADLINE_MS = 3_000;
// Required parts the profile does not send are named up to this many (Profile Overrides take 64 entries); the rest are counted.
const MAX_UNFILLED_NAMED = 20;

/** What reading one operation needs of the others; `resources`: what each resource's own read answers with. */
interface Context {
	envelopes: Set<string>;
	isJob(schema: Schema | undefined): boolean;
	resources: Map<string, Schema>;
	/** For the stated places: the cursor each list takes that its answer names no next one of. */
	unpaged: Map<OperationName, string>;
}

/** A list's reading: where its items are and how it pages (the rules Get Many follows on any service). */
export function readList(
	reader: DocumentReader,
	entry: DocumentOperation,
	resourceSchema: Schema | undefined,
	resource: string | undefined,
) {
	const success = successOf(reader, entry.operation);
	const variants = reader.variants(success?.schema);
	const found = variants
		.map((variant) => ({ variant, path: itemsPath(reader, variant, resourceSchema, resource) }))
		.filter((entry): entry is { variant: Schema; path: string[] } => entry.path !== undefined);
	const listed = reader.at(found[0]?.variant, found[0]?.path ?? []);
	const { unpaged, ...paging } = pagingOf(reader, entry, variants, success);
	return {
		items: unique(found.map(({ path }) => body(path))),
		itemId: pointerOf([idOf(reader.shape(reader.items(listed)), resource) ?? 'id']),
		paging,
		unpaged,
	};
}

/** One operation's profile; it pauses (yields) between its request, its answer and each rule placing its fields. */
function* readOperation(
	reader: DocumentReader,
	entry: DocumentOperation,
	name: OperationName,
	context: Context,
): Generator<void, OperationProfile> {
	const builtIn = BUILT_IN_PROFILE.operations[name];
	const { verb, resource: answered } = OPERATIONS[name];
	// The resource it answers with: none where it deletes or starts a job.
	const resource = ['delete', 'generate', 'publish'].includes(verb) ? undefined : answered;
	const request = requestOf(reader, entry.operation);
	const success = successOf(reader, entry.operation);
	const query = parametersOf(reader, entry, 'query');
	const headers = parametersOf(reader, entry, 'header');
	const parameters = `${entry.from}/parameters`;
	if ((request?.shape?.properties.size ?? 0) > MAX_REQUEST_FIELDS)
		throw new SchemaBudgetError(`its request has more than ${MAX_REQUEST_FIELDS} fields`);
	yield;
	const answer: AnswerReading = { from: `${entry.from}/responses` };
	if (verb === 'list') {
		const resourceSchema = context.resources.get(resource ?? '');
		const { unpaged, ...list } = readList(reader, entry, resourceSchema, resource);
		Object.assign(answer, list);
		if (unpaged !== undefined) context.unpaged.set(name, unpaged);
		// No list found: the built-in places, so that an answer without one fails rather than reads as empty.
		if (answer.items?.length === 0) answer.items = builtIn.answer.items;
	} else
		answer.resource = unique(
			reader
				.variants(success?.schema)
				.map((variant) => body(resourcePath(reader, variant, context.envelopes, resource))),
		);
	if (['generate', 'publish', 'wait'].includes(verb)) {
		const jobs = jobReferences(reader, success?.schema, context.isJob, '/body');
		if (success?.headers.has('location') || success?.status === '202')
			jobs.push({ address: '/headers/location' });
		// An answer the document shows without a job is the result itself (`[]`); where the document
		// does not say, the built-in ways of referring to a job stand in.
		answer.jobs =
			jobs.length > 0
				? jobs
				: verb !== 'wait' && answersAtOnce(reader, success?.schema)
					? []
					: builtIn.answer.jobs;
	}

	yield;
	const paged = pagingParameters(answer.paging);
	const filters = new Map([...query].filter(([name]) => !paged.includes(name)));
	const fields: Record<string, Placement> = {};
	const requested = [
		['body', request?.shape, `${entry.from}/requestBody`],
		['query', { properties: filters, closed: query.size > 0 }, parameters],
	] as const;
	for (const [root, shape, from] of requested)
		Object.assign(fields, yield* placeParameters(reader, root, shape, builtIn.fields, from));
	const search = verb === 'list' ? searchOf(reader, filters) : undefined;
	if (search !== undefined)
		fields.search = { to: pointerOf(['query', search]), from: `${parameters}: ${search}` };

	// `Idempotency-Key` (IETF draft, Stripe), OASIS Repeatable Requests (Azure), or a header described as such.
	const header = [...headers.keys()].find(
		(name) =>
			/^(x-)?idempotency-?key$|^repeatability-request-id$/i.test(name) ||
			/idempoten|carried out once/.test(firstSentence(headers.get(name))),
	);
	const firstSent = [...headers.keys()].find((name) => /^repeatability-first-sent$/i.test(name));
	const mediaType = request?.mediaType ?? builtIn.mediaType;
	const profile: OperationProfile = {
		method: entry.method,
		path: entry.path,
		from: entry.from,
		...(mediaType ? { mediaType } : {}),
		fields,
		...(header === undefined
			? {}
			: { idempotency: { header, ...(firstSent ? { firstSent } : {}), from: parameters } }),
		answer,
	};
	// A PUT whose body has required fields replaces the whole object.
	if (verb === 'update' && entry.method === 'PUT' && request?.shape?.required.size) {
		profile.replaces = {
			keep: [...request.shape.properties]
				.filter(
					([property, schema]) =>
						own(schema, 'readOnly') !== true && fields.secret?.to !== pointerOf(['body', property]),
				)
				.map(([property]) => property),
		};
	}
	return profile;
}

/**
 * A service's OpenAPI document read into its profile: each of the node's operations (method, path,
 * parameters' places, how its answer is read), then the jobs, errors and webhooks. Deterministic,
 * and bounded: a budget of steps, each part a step with n8n running in between; a part the document
 * does not allow (missing, beyond the budget, built as nothing foresaw) is the built-in profile's,
 * with the reason in `notFollowed`. `source` says where the document was read from.
 */
export async function readProfile(document: OpenApiDocument, source: string): Promise<Profile> {
	const reader = new DocumentReader(document, READ_BUDGET);
	const deadline = performance.now() + READ_DEADLINE_MS;
	const notFollowed: Profile['notFollowed'] = [];
	let slice = performance.now();
	/**
	 * One part of the reading, after a break for n8n once the parts since the last took a few
	 * milliseconds; a part that pauses (yields) may have such breaks within, each piece between two
	 * pauses then a step with a budget of its own.
	 */
	async function pausing<T>(part: string, read: () => Iterator<void, T>, otherwise: T) {
		let why = `reading took longer than ${READ_DEADLINE_MS / 1000} seconds`;
		try {
			const reading = read();
			for (;;) {
				if (performance.now() - slice >= TURN_MS) {
					await sleep(0);
					slice = performance.now();
				}
				if (performance.now() > deadline) break;
				reader.beginStep(STEP_BUDGET);
				const next = reading.next();
				if (next.done === true) return next.value;
			}
		} catch (error) {
			why =
				error instanceof SchemaBudgetError
					? error.message
					: 'it is not built as an OpenAPI document describes';
		}
		notFollowed.push({ part, why });
		return otherwise;
	}
	/** A part read at once: one that never pauses. */
	const step = async <T>(part: string, read: () => T, otherwise: T) =>
		await pausing(part, () => ({ next: () => ({ done: true, value: read() }) }), otherwise);

	const operations = await pausing('its paths', () => operationsOf(reader, notFollowed), []);
	const found = new Map<OperationName, DocumentOperation>();
	await pausing(
		'which of its operations is each of the node’s',
		function* () {
			for (const name of OPERATION_NAMES) {
				const entry = findOperation(reader, operations, name, BUILT_IN_PROFILE.operations[name]);
				if (entry !== undefined) found.set(name, entry);
				yield;
			}
		},
		undefined,
	);
	const answerOf = (name: OperationName) => {
		const entry = found.get(name);
		return entry && successes(reader, entry.operation)[0]?.schema;
	};
	// A step of its own: envelopes beyond the budget must not also lose how jobs are recognised.
	const jobSchema = await step(
		'its jobs',
		() => {
			const schema = answerOf('getJob');
			return reader.at(schema, resourcePath(reader, schema, new Set(), 'job'));
		},
		undefined,
	);
	const context: Context = {
		envelopes: await step(
			"its answers' envelopes",
			() => envelopesOf(reader, OPERATION_NAMES.map(answerOf)),
			new Set<string>(),
		),
		isJob: (schema) => jobSchema !== undefined && reader.variants(schema).includes(jobSchema),
		resources: new Map(),
		unpaged: new Map(),
	};

	// Single resources first: a list's items are recognised as the resource its own read answers with.
	const order = [...OPERATION_NAMES].sort(
		(a, b) => Number(OPERATIONS[a].verb === 'list') - Number(OPERATIONS[b].verb === 'list'),
	);
	const profiled = { ...BUILT_IN_PROFILE.operations };
	const unfilled: Profile['notFollowed'] = [];
	for (const name of order) {
		const entry = found.get(name);
		if (entry === undefined) continue;
		profiled[name] = await pausing(
			`${entry.method} ${entry.path}`,
			function* () {
				const operation = yield* readOperation(reader, entry, name, context);
				const { verb, resource } = OPERATIONS[name];
				// Noted within the part: noted after it, past the budget, it threw out of the whole reading.
				if (verb === 'get' && !context.resources.has(resource)) {
					const schema = resourceIn(reader, answerOf(name), operation.answer);
					if (schema !== undefined) context.resources.set(resource, schema);
				}
				yield;
				unfilled.push(...followRequired(reader, entry, name, operation, found));
				return operation;
			},
			BUILT_IN_PROFILE.operations[name],
		);
	}
	notFollowed.push(...unfilled.slice(0, MAX_UNFILLED_NAMED));
	if (unfilled.length > MAX_UNFILLED_NAMED)
		notFollowed.push({
			part: `${unfilled.length - MAX_UNFILLED_NAMED} more required parts of its operations`,
			why: 'the profile does not send them either, as those above',
		});
	const jobs = await step(
		'its jobs',
		() => readJobs(reader, jobSchema, found.get('getJob'), notFollowed),
		BUILT_IN_PROFILE.jobs,
	);
	const errors = await step(
		'its error answers',
		() => readErrors(reader, operations),
		BUILT_IN_PROFILE.errors,
	);
	const webhooks = await pausing(
		'its webhooks',
		() =>
			readWebhooks(
				reader,
				found.get('createWebhook'),
				profiled.createWebhook,
				context.isJob,
				context.resources.get('post'),
				jobs.error,
				notFollowed,
			),
		BUILT_IN_PROFILE.webhooks,
	);
	notFollowed.push(
		...(await pausing(
			"its answers' places",
			() =>
				statedPlaces(
					reader,
					found,
					profiled,
					{ schema: jobSchema, profile: jobs, from: found.get('getJob')?.from ?? 'built-in' },
					context.unpaged,
					notFollowed,
				),
			[],
		)),
	);
	return { source, operations: profiled, jobs, errors, webhooks, notFollowed };
}
