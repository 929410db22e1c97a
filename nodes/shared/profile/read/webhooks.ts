import { own, ownEntries, pointerOf, resourcePlaces, segmentsOf } from '../pointer';
import {
	BUILT_IN_EVENTS,
	type BuiltInEvent,
	type ConditionalEvent,
	type DeliveryReading,
	type Location,
	type NotFollowed,
	type OperationProfile,
	type Pointer,
	type WebhookProfile,
} from '../types';
import { BUILT_IN_PROFILE } from '../builtIn';
import { checkablePattern, isSigned, webhookWeakness } from '../signing';
import { body, jobReferences, resourceIn } from './answers';
import {
	DocumentReader,
	firstSentence,
	nameOf,
	normalizeName,
	ownArray,
	ownRecord,
	ownText,
	SchemaBudgetError,
	type Schema,
} from './document';
import {
	named,
	parametersOf,
	requestOf,
	responseSchema,
	successes,
	unique,
	type DocumentOperation,
} from './operations';
import { absentFrom, notThere } from './places';
import { deliveryIdHeader, eventTypeHeader, signatureScheme } from './signatures';
import { enumExplanations, eventMeaning } from './words';

// No real service has more events than this; a list beyond it is not followed.
const MAX_EVENTS = 1_000;
const TOO_MANY_EVENTS = `its events list has more than ${MAX_EVENTS.toLocaleString('en-US')} values`;

const EVENT_TYPE = named('type', 'event', 'event_type', 'kind', 'topic');

interface Delivery {
	event: string;
	headers: Map<string, Schema>;
	body?: Schema;
	said: string;
}

/**
 * Every delivery the document describes: 3.1 `webhooks`, and the `callbacks` of the registration.
 * It pauses (yields) after each: there may be a thousand, each read on its own.
 */
function* deliveriesOf(reader: DocumentReader, registration: DocumentOperation | undefined) {
	const found: Delivery[] = [];
	const add = (event: string, pathItem: unknown) => {
		const item = reader.deref(pathItem);
		const post = ownRecord(item, 'post');
		reader.spend();
		if (post === undefined || item === undefined) return;
		found.push({
			event: nameOf(event),
			headers: parametersOf(reader, { pathItem: item, operation: post }, 'header'),
			body: responseSchema(reader, own(post, 'requestBody')),
			said: `${ownText(post, 'summary')} ${ownText(post, 'description')}`,
		});
	};
	for (const [event, pathItem] of ownEntries(ownRecord(reader.document, 'webhooks'))) {
		add(event, pathItem);
		yield;
	}
	for (const [name, callback] of ownEntries(ownRecord(registration?.operation, 'callbacks')))
		for (const [, pathItem] of ownEntries(reader.deref(callback))) {
			add(name, pathItem);
			yield;
		}
	return found;
}

/** The service's events for each of the node's own. */
function meaningsOf(events: string[], explanations: Map<string, string>) {
	const meaning = events.map((event) => eventMeaning(event, explanations.get(event) ?? ''));
	return Object.fromEntries(
		BUILT_IN_EVENTS.map((own) => [own, events.filter((_, index) => meaning[index] === own)]),
	) as WebhookProfile['meanings'];
}

/**
 * Meanings the events' names do not give, read from an event per resource whose delivery says what
 * happened in a top-level `action` of several values (GitHub's webhooks): `job` with `"action":
 * "completed"` is a finished job; without a failed action of its own, a finished job with its error
 * present failed.
 */
function* actionMeanings(
	reader: DocumentReader,
	deliveries: Delivery[],
	readings: DeliveryReading[],
	offered: Set<string>,
	jobError: Pointer[],
	meanings: Record<BuiltInEvent, WebhookProfile['meanings'][BuiltInEvent]>,
): Generator<void> {
	for (const [index, delivery] of deliveries.entries()) {
		// Only an event the service offers for registration can be one the node registers.
		if (!offered.has(delivery.event)) continue;
		const properties = [...(reader.shape(delivery.body)?.properties.entries() ?? [])];
		reader.spend(properties.length);
		const action = properties.find(([name]) => named('action')(name));
		if (action === undefined) continue;
		// An action of one value says no more than the event's name (the nested fake's GitHub-style events).
		const actions = listedEvents(reader, action[1]) ?? [];
		if (actions.length < 2) continue;
		const said = new Map<BuiltInEvent | undefined, string>();
		for (const value of actions) {
			reader.spend();
			const meaning = eventMeaning(value, '');
			if (!said.has(meaning)) said.set(meaning, value);
		}
		const when = (value: string, more: Record<string, boolean> = {}): ConditionalEvent => ({
			event: delivery.event,
			when: { [body([action[0]])]: value, ...more },
		});
		const { data, jobs, post } = readings[index];
		const job = jobs.find((reference) => 'job' in reference);
		const completed = said.get('job.completed');
		const failed = said.get('job.failed');
		const derived: Array<[BuiltInEvent, ConditionalEvent]> = [];
		if (job !== undefined && 'job' in job && completed !== undefined) {
			const error = jobError[0] === undefined ? undefined : `${data[0]}${job.job}${jobError[0]}`;
			if (failed !== undefined)
				derived.push(['job.completed', when(completed)], ['job.failed', when(failed)]);
			else if (error !== undefined)
				derived.push(
					['job.completed', when(completed, { [error]: false })],
					['job.failed', when(completed, { [error]: true })],
				);
		}
		const published = said.get('post.published');
		if (post.length > 0 && published !== undefined)
			derived.push(['post.published', when(published)]);
		// The action says more than the event's name: `job` alone is every change of a job.
		if (derived.length > 0)
			for (const event of BUILT_IN_EVENTS)
				meanings[event] = meanings[event].filter((meant) => meant !== delivery.event);
		for (const [event, meaning] of derived)
			if (meanings[event].length === 0) meanings[event] = [meaning];
		yield;
	}
}

const SECRET_NAME = /^((signing|webhook|hmac|signature)?secret|secretkey|signingkey|hmackey)$/;
// A property that only hints at the secret (its last digits, a masked copy) is never the secret.
const NOT_THE_SECRET =
	/last|hint|mask|prefix|suffix|preview|hash|digest|redact|partial|length|expire|rotat/;

/**
 * Who chooses the signing secret: the node, where the registration takes one; the service only
 * where its answer is documented to carry the secret, never a property that only hints at it.
 */
function secretPolicy(
	reader: DocumentReader,
	create: OperationProfile,
	answer: Schema | undefined,
): WebhookProfile['secret'] {
	// The node's own secret only where the document places it: an open body takes any field, so a
	// `secret` there is the built-in guess, and the service's documented secret counts first.
	const placed = create.fields.secret;
	if (placed?.to && !placed.from?.startsWith('built-in')) return { by: 'node' };
	for (const [name, property] of reader.shape(answer)?.properties ?? []) {
		reader.spend();
		const normalized = normalizeName(name);
		if (NOT_THE_SECRET.test(normalized) || !reader.types(property).includes('string')) continue;
		const said = firstSentence(property);
		if (
			SECRET_NAME.test(normalized) ||
			(/\bsecret\b/.test(said) && /\b(sign|verif|hmac)/.test(said) && !NOT_THE_SECRET.test(said))
		) {
			const pattern = checkablePattern(ownText(property, 'pattern'));
			return { by: 'service', at: pointerOf([name]), ...(pattern ? { pattern } : {}) };
		}
	}
	return { by: 'none' };
}

function deliveryReading(
	reader: DocumentReader,
	delivery: Delivery,
	isJob: (schema: Schema | undefined) => boolean,
	post: Schema | undefined,
): DeliveryReading {
	const shape = reader.shape(delivery.body);
	const properties = [...(shape?.properties.entries() ?? [])];
	// Counted: deliveries may share one body, and each is read on its own.
	const pick = (test: (name: string, schema: Schema) => boolean) => {
		reader.spend(properties.length);
		return properties.filter(([name, schema]) => test(name, schema)).map(([name]) => name);
	};
	const inHeader = (name: string | undefined) => (name ? [`/headers/${name}`] : []);
	const data = pick(
		(name, schema) =>
			named('data', 'payload', 'object', 'resource', 'detail')(name) &&
			reader.shape(schema) !== undefined,
	);
	const dataSchema = data.length > 0 ? shape?.properties.get(data[0]) : delivery.body;
	const jobs = jobReferences(reader, dataSchema, isJob, '');
	const posts: string[] = [];
	for (const variant of reader.variants(dataSchema)) {
		if (post !== undefined && variant === post) posts.push('');
		for (const [name, property] of reader.shape(variant)?.properties ?? []) {
			reader.spend();
			if ((post !== undefined && reader.variants(property).includes(post)) || named('post')(name))
				posts.push(pointerOf([name]));
		}
	}
	return {
		type: [
			...pick((name, schema) => EVENT_TYPE(name) && reader.types(schema).includes('string')).map(
				(name) => body([name]),
			),
			...inHeader(eventTypeHeader(delivery.headers)),
		],
		// A delivery's id is taken only from where the document says it is: a repeat is recognised by it.
		id: [
			...pick(named('id', 'event_id', 'delivery_id')).map((name) => body([name])),
			...inHeader(deliveryIdHeader(delivery.headers)),
		],
		time: pick(
			(name, schema) =>
				ownText(schema, 'format') === 'date-time' ||
				named('timestamp', 'created', 'created_at', 'occurred_at')(name),
		).map((name) => body([name])),
		data: data.length > 0 ? data.map((name) => body([name])) : ['/body'],
		jobs,
		post: unique(posts),
	};
}

/** The schema at a request placement, down the body's objects to a list's entries. */
function schemaAt(reader: DocumentReader, request: Schema | undefined, to?: string | null) {
	const [, ...path] = segmentsOf(to ?? '');
	const end = path.indexOf('-');
	if (path.length === 0 || end === 0) return undefined;
	return reader.at(request, end === -1 ? path : path.slice(0, end));
}

/**
 * Where a registration as the service answers it (`answer`, the resource its create answers with)
 * holds a field the node places at `to` in the request. The answer's schema says which of its
 * places: the longest it has (JSON:API's `/data/attributes/url` is `/attributes/url` in the
 * resource object); else the built-in place, and where the answer lacks that too, why.
 */
function inRegistration(
	reader: DocumentReader,
	answer: Schema | undefined,
	to: Location | null | undefined,
	fallback: Pointer,
): [Pointer, string | undefined] {
	const places = resourcePlaces(to);
	const found = places.find((place) => absentFrom(reader, answer, segmentsOf(place)) === undefined);
	if (found !== undefined) return [found, undefined];
	const lacks = absentFrom(reader, answer, segmentsOf(fallback));
	return [fallback, lacks && `has no ${unique([...places, fallback]).join(' or ')} (${lacks})`];
}

/** The values a schema lists, counted before they are read, so that a list beyond the bound is refused as such. */
function listedEvents(reader: DocumentReader, schema: Schema | undefined): string[] | undefined {
	let count = 0;
	for (const variant of reader.variants(schema))
		count += ownArray(variant, 'enum').length + (own(variant, 'const') === undefined ? 0 : 1);
	if (count > MAX_EVENTS) throw new SchemaBudgetError(TOO_MANY_EVENTS);
	return reader.enumValues(schema);
}

/**
 * How a service registers webhooks and delivers events: the events and their meanings, a
 * registration's address and events, who chooses the signing secret, and each delivery's body,
 * headers and signature, from 3.1's top-level `webhooks` or 3.0 `callbacks` of the registration.
 * It pauses (yields) after each delivery it reads.
 */
export function* readWebhooks(
	reader: DocumentReader,
	registration: DocumentOperation | undefined,
	create: OperationProfile,
	isJob: (schema: Schema | undefined) => boolean,
	post: Schema | undefined,
	jobError: Pointer[],
	notFollowed: NotFollowed[],
): Generator<void, WebhookProfile> {
	const fallback = BUILT_IN_PROFILE.webhooks;
	const answer =
		registration &&
		resourceIn(reader, successes(reader, registration.operation)[0]?.schema, create.answer);
	const request = registration && requestOf(reader, registration.operation)?.schema;
	const eventsSchema = schemaAt(reader, request, create.fields.events?.to);
	const urlSchema = schemaAt(reader, request, create.fields.url?.to);
	const deliveries = yield* deliveriesOf(reader, registration);

	// The events: the registration's enum, else what the deliveries are called or carry as their type.
	const items = reader.items(eventsSchema);
	const listed = listedEvents(reader, items);
	const explanations = new Map<string, string>();
	// Explained with the enum, or in the description of the registration's events field (GitHub's way).
	for (const schema of listed ? [items, { description: ownText(eventsSchema, 'description') }] : [])
		for (const [event, text] of enumExplanations(reader, schema, listed ?? []).explained)
			if (!explanations.has(event)) explanations.set(event, text);
	const delivered = new Set<string>();
	for (const delivery of deliveries) {
		const properties = [...(reader.shape(delivery.body)?.properties.entries() ?? [])];
		reader.spend(properties.length);
		const values = listedEvents(reader, properties.find(([name]) => EVENT_TYPE(name))?.[1]);
		for (const value of values ??
			(own(reader.document, 'webhooks') !== undefined ? [delivery.event] : [])) {
			reader.spend();
			delivered.add(value);
			// Refused as a whole, as a listed one is: the first 1,000 would be All Events without a word.
			if (delivered.size > MAX_EVENTS) throw new SchemaBudgetError(TOO_MANY_EVENTS);
			if (!explanations.has(value) && delivery.said.trim() !== '')
				explanations.set(value, delivery.said);
		}
		yield;
	}
	const known = delivered.size > 0 ? [...delivered] : undefined;
	const events = listed ?? known ?? (registration ? undefined : fallback.events);

	const signed = deliveries.find((delivery) => signatureScheme(delivery.headers) !== undefined);
	const readings: DeliveryReading[] = [];
	for (const delivery of deliveries) {
		readings.push(deliveryReading(reader, delivery, isJob, post));
		yield;
	}
	// Each part as all deliveries have it, or where none says, the built-in one.
	const merged = <K extends keyof DeliveryReading>(key: K, otherwise?: DeliveryReading[K]) => {
		const found = unique(
			readings.flatMap((reading) => reading[key] as DeliveryReading[K][number][]),
		);
		return (found.length === 0 && otherwise ? otherwise : found) as DeliveryReading[K];
	};
	const types = merged('type');
	const delivery: DeliveryReading =
		readings.length === 0
			? fallback.delivery
			: {
					type: types.length > 0 ? types : fallback.delivery.type,
					id: merged('id'),
					time: merged('time'),
					data: merged('data'),
					jobs: merged('jobs', fallback.delivery.jobs),
					post: merged('post', fallback.delivery.post),
				};
	const meanings = events === undefined ? fallback.meanings : meaningsOf(events, explanations);
	if (events !== undefined)
		yield* actionMeanings(reader, deliveries, readings, new Set(events), jobError, meanings);
	const signature = (signed && signatureScheme(signed.headers)) ?? fallback.signature;
	const active = create.fields.active;
	const maxUrlLength = own(urlSchema, 'maxLength');
	const lacking: NotFollowed[] = [];
	const registered = (key: 'url' | 'events', part: string) => {
		const [at, why] = inRegistration(
			reader,
			answer,
			create.fields[key]?.to,
			fallback.registration[key],
		);
		if (why !== undefined)
			lacking.push({
				part: `its registrations' ${part}`,
				of: `/webhooks/registration/${key}`,
				why: `the webhook ${registration?.from}/responses answers with ${why}`,
			});
		return at;
	};
	// A switch the registration as answered does not show is not read: an absent one reads as on.
	const [switchAt, noSwitch] = inRegistration(reader, answer, active?.to, '/active');
	// The built-in event place is a guess where the document describes deliveries: it must be in them.
	const unnamed = (readings.length > 0 && types.length === 0 ? deliveries : [])
		.map(({ event, body }) =>
			notThere(
				reader,
				body,
				fallback.delivery.type,
				{
					part: "its deliveries' event",
					of: '/webhooks/delivery/type',
					what: `the delivery of ${event}, which names its event in no header either,`,
				},
				true,
			),
		)
		.find((entry) => entry !== undefined);
	if (unnamed !== undefined) lacking.push(unnamed);
	const profile: WebhookProfile = {
		...(events === undefined ? {} : { events }),
		wildcard: events === undefined || events.includes('*'),
		meanings,
		registration: {
			url: registered('url', 'address'),
			events: registered('events', 'events'),
			...(active?.to && noSwitch === undefined
				? { active: switchAt, ...(active.negate ? { negated: true } : {}) }
				: {}),
			...(typeof maxUrlLength === 'number' && maxUrlLength > 0
				? { maxUrlLength: Math.floor(maxUrlLength) }
				: {}),
		},
		secret: registration !== undefined ? secretPolicy(reader, create, answer) : fallback.secret,
		// A repeat is known by an id the signature covers: one in an unsigned header a replay could change.
		delivery: { ...delivery, id: delivery.id.filter((location) => isSigned(location, signature)) },
		signature,
		from: registration?.from ?? 'built-in',
	};
	// A reading anyone could sign or replay deliveries by is not followed: the built-in one stands in.
	const weakness = webhookWeakness(profile);
	if (weakness !== undefined)
		throw new SchemaBudgetError(`its reading's ${pointerOf(weakness.path)} ${weakness.rule}`);
	notFollowed.push(...lacking);
	return profile;
}
