import type { EndpointName } from './catalog';
import { findField } from './fields';
import {
	enumExplanations,
	named,
	parametersOf,
	responseSchema,
	successes,
	type Operation,
} from './operations';
import {
	DocumentReader,
	firstSentence,
	isRecord,
	normalizeName,
	own,
	ownRecord,
	ownText,
	type Schema,
} from './schema';
import { deliveryIdHeader, eventTypeHeader, signatureScheme } from './signatures';
import type {
	BuiltInEvent,
	DeliveryReading,
	JobReference,
	Path,
	Pointer,
	ResolvedEndpoint,
	SecretPolicy,
	WebhookContract,
} from './types';

/**
 * How a service registers webhooks and delivers events, from its document: the registration's
 * fields and events, who chooses the signing secret, and each delivery's body, headers and
 * signature, described by OpenAPI 3.1's top-level `webhooks` or by 3.0 `callbacks` on the
 * operation that registers a webhook.
 */

interface Delivery {
	event?: string;
	headers: Map<string, Schema>;
	body?: Schema;
	said: string;
}

/** Every delivery the document describes: 3.1 `webhooks`, and the `callbacks` of the registration. */
function deliveriesOf(
	reader: DocumentReader,
	operations: Operation[],
	create: ResolvedEndpoint,
): Delivery[] {
	const found: Delivery[] = [];
	const add = (event: string | undefined, pathItem: unknown) => {
		const post = ownRecord(reader.deref(pathItem), 'post');
		if (post === undefined || !isRecord(pathItem)) return;
		reader.spend();
		const body = responseSchema(reader, own(post, 'requestBody'));
		const said = `${ownText(post, 'summary')} ${ownText(post, 'description')}`;
		found.push({
			event,
			headers: parametersOf(
				reader,
				{ path: '', method: 'post', pathItem: reader.deref(pathItem) ?? {}, operation: post },
				'header',
			),
			body,
			said,
		});
	};
	for (const [event, pathItem] of Object.entries(ownRecord(reader.document, 'webhooks') ?? {}))
		add(event, pathItem);
	const registration = operations.find(
		(entry) => entry.path === create.path && entry.method === create.method.toLowerCase(),
	);
	for (const [name, callback] of Object.entries(
		ownRecord(registration?.operation, 'callbacks') ?? {},
	)) {
		for (const pathItem of Object.values(reader.deref(callback) ?? {})) add(name, pathItem);
	}
	return found;
}

const MEANINGS: Array<[BuiltInEvent, RegExp]> = [
	['job.failed', /\b(fail|error|broke|cancel|abort|reject)/],
	['post.published', /\b(publish|public|live\b|posted)/],
	['job.completed', /\b(complet|finish|succe|ready|done|generated|rendered)/],
];

/** What each of the service's events means, as its name and explanation say: one of the node's own events, if any. */
function meaningOf(event: string, explanation: string): BuiltInEvent | undefined {
	const text =
		`${event.replace(/[._:/-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2')} ${explanation}`.toLowerCase();
	if (event === '*') return undefined;
	return MEANINGS.find(([, words]) => words.test(text))?.[0];
}

function meaningsOf(
	events: string[] | undefined,
	explanations: Record<string, string>,
	fallback: WebhookContract | undefined,
): Record<BuiltInEvent, string[]> {
	if (events === undefined)
		return (
			fallback?.meanings ?? {
				'job.completed': ['job.completed'],
				'job.failed': ['job.failed'],
				'post.published': ['post.published'],
			}
		);
	const meanings: Record<BuiltInEvent, string[]> = {
		'job.completed': [],
		'job.failed': [],
		'post.published': [],
	};
	for (const event of events) {
		// An event the service names as the node does means what it says.
		const meaning =
			(event in meanings ? (event as BuiltInEvent) : undefined) ??
			meaningOf(event, explanations[event] ?? '');
		if (meaning !== undefined) meanings[meaning].push(event);
	}
	return meanings;
}

const SECRET_NAMES = new Set([
	'secret',
	'signingsecret',
	'webhooksecret',
	'secretkey',
	'signingkey',
	'hmacsecret',
	'hmackey',
	'signaturesecret',
]);
// A property that only hints at the secret (its last digits, a masked copy) is never the secret.
const NOT_THE_SECRET =
	/last|hint|mask|prefix|suffix|preview|hash|digest|redact|partial|length|expire|rotat/;

/**
 * A secret's pattern, where the node can test a value against it without backtracking without end:
 * anchored at the start, no groups or alternatives, at most one quantifier (character classes and
 * escapes aside), as `^whsec_[A-Za-z0-9+/=]{32,}$`. Testing `^(a+)+$` against 40 `a`s and a `!`
 * held n8n's event loop for over two minutes. A pattern beyond this is not followed; the other
 * checks of the value still are. Classes are read without `[` inside, so that the reading is linear.
 */
function checkablePattern(pattern: string): string | undefined {
	const bare = pattern.slice(0, 200).replace(/\\.|\[(?:\\.|[^\][\\])*\]/g, 'x');
	const quantifiers = bare.match(/[*+?{]/g)?.length ?? 0;
	return bare.startsWith('^') && !/[(|]/.test(bare) && quantifiers <= 1
		? pattern.slice(0, 200)
		: undefined;
}

/**
 * Who chooses the signing secret: the node, where the registration takes one; the service, only
 * where the document says its answer carries the secret (a property named as the secret, or whose
 * description says it signs or verifies deliveries); never a property that only hints at it.
 */
function secretPolicy(
	reader: DocumentReader,
	create: ResolvedEndpoint,
	answer: Schema | undefined,
): SecretPolicy {
	const sent = create.request ? findField(create.request, 'secret', '') : undefined;
	if (sent !== undefined) return { sent };
	const shape = reader.shape(answer);
	for (const [name, property] of shape?.properties ?? []) {
		const normalized = normalizeName(name);
		if (NOT_THE_SECRET.test(normalized) || !reader.types(property).includes('string')) continue;
		const said = firstSentence(property);
		if (
			SECRET_NAMES.has(normalized) ||
			(/\bsecret\b/.test(said) && /\b(sign|verif|hmac)/.test(said) && !NOT_THE_SECRET.test(said))
		) {
			return {
				answered: { path: [name], pattern: checkablePattern(ownText(property, 'pattern')) },
			};
		}
	}
	return {};
}

function deliveryReading(
	reader: DocumentReader,
	body: Schema | undefined,
	headers: Map<string, Schema>,
	isJob: (schema: Schema | undefined) => boolean,
	post: Schema | undefined,
	fallback: DeliveryReading | undefined,
): DeliveryReading {
	const shape = reader.shape(body);
	if (shape === undefined && fallback !== undefined) return fallback;
	const properties = [...(shape?.properties.entries() ?? [])];
	const pick = (test: (name: string, schema: Schema) => boolean) =>
		properties.filter(([name, schema]) => test(name, schema)).map(([name]): Path => [name]);
	const typeHeader = eventTypeHeader(headers);
	const idHeader = deliveryIdHeader(headers);
	const type: Pointer[] = [
		...pick(
			(name, schema) =>
				named('type', 'event', 'event_type', 'eventType', 'kind', 'topic')(name) &&
				reader.types(schema).includes('string'),
		).map((path): Pointer => ({ in: 'body', path })),
		...(typeHeader ? [{ in: 'header', name: typeHeader } as Pointer] : []),
	];
	const id: Pointer[] = [
		...pick(named('id', 'event_id', 'eventId', 'delivery_id', 'deliveryId')).map(
			(path): Pointer => ({ in: 'body', path }),
		),
		...(idHeader ? [{ in: 'header', name: idHeader } as Pointer] : []),
	];
	const time = pick(
		(name, schema) =>
			ownText(schema, 'format') === 'date-time' ||
			named('timestamp', 'created', 'created_at', 'occurred_at')(name),
	);
	const data = pick(
		(name, schema) =>
			named('data', 'payload', 'object', 'resource', 'detail')(name) &&
			reader.shape(schema) !== undefined,
	);
	const dataSchema = data[0] ? shape?.properties.get(data[0][0]) : body;
	const jobs: JobReference[] = [];
	const posts: Path[] = [];
	for (const variant of reader.variants(dataSchema)) {
		if (isJob(variant)) jobs.push({ kind: 'job', path: [] });
		if (post !== undefined && variant === post) posts.push([]);
		for (const [name, property] of reader.shape(variant)?.properties ?? []) {
			if (isJob(property)) jobs.push({ kind: 'job', path: [name] });
			else if (
				normalizeName(name) === 'jobid' ||
				/\b(id|identifier) of the job\b/.test(firstSentence(property))
			)
				jobs.push({ kind: 'id', path: [name] });
			else if (
				(post !== undefined && reader.variants(property).includes(post)) ||
				named('post')(name)
			)
				posts.push([name]);
		}
	}
	// A delivery's id is taken only from where the document says it is: a repeat is recognised by it.
	return {
		type: type.length > 0 ? type : (fallback?.type ?? [{ in: 'body', path: ['type'] }]),
		id: shape !== undefined || fallback === undefined ? id : fallback.id,
		time: shape !== undefined || fallback === undefined ? time : fallback.time,
		data: data.length > 0 ? data : shape !== undefined ? [[]] : (fallback?.data ?? [['data']]),
		jobs: jobs.length > 0 ? jobs : (fallback?.jobs ?? []),
		post: posts.length > 0 ? posts : (fallback?.post ?? []),
	};
}

export function resolveWebhooks(
	reader: DocumentReader,
	operations: Operation[],
	endpoints: Record<EndpointName, ResolvedEndpoint>,
	fallback: WebhookContract | undefined,
	isJob: (schema: Schema | undefined) => boolean,
	resources: Map<string, Schema>,
): WebhookContract {
	const create = endpoints.createWebhook;
	const request = create.request;
	const field = (name: string, otherwise: string, value?: unknown) =>
		(request && findField(request, name, value)) ?? otherwise;
	const eventsField = field('events', 'events', []);
	const eventsSchema = request?.properties.get(eventsField);
	const deliveries = deliveriesOf(reader, operations, create);

	// The events: the registration's enum, else what the deliveries are called or carry as their type.
	const listed = reader.enumValues(reader.items(eventsSchema));
	const explanations = listed ? enumExplanations(reader, reader.items(eventsSchema), listed) : {};
	const delivered = new Set<string>();
	for (const delivery of deliveries) {
		const typeProperty = [...(reader.shape(delivery.body)?.properties.entries() ?? [])].find(
			([name]) => named('type', 'event', 'event_type', 'eventType', 'kind', 'topic')(name),
		);
		const values = reader.enumValues(typeProperty?.[1]);
		for (const value of values ??
			(delivery.event !== undefined && own(reader.document, 'webhooks') !== undefined
				? [delivery.event]
				: [])) {
			delivered.add(value);
			explanations[value] ||= delivery.said;
		}
	}
	const events =
		listed ??
		(delivered.size > 0 ? [...delivered] : create.documented ? undefined : fallback?.events);

	const registration = operations.find(
		(entry) => entry.path === create.path && entry.method === create.method.toLowerCase(),
	);
	let answer = registration ? successes(reader, registration.operation)[0]?.schema : undefined;
	for (const key of create.answer.resource[0] ?? [])
		answer = reader.shape(answer)?.properties.get(key);

	const signed = deliveries.find((delivery) => signatureScheme(delivery.headers) !== undefined);
	const post = resources.get('Post');
	// Each event's delivery may carry other data (a job, a post): what any of them says is read.
	const readings = deliveries.map((delivery) =>
		deliveryReading(reader, delivery.body, delivery.headers, isJob, post, fallback?.delivery),
	);
	const merged = (key: keyof DeliveryReading) => {
		const seen = new Set<string>();
		return readings
			.flatMap((reading) => reading[key] as unknown[])
			.filter(
				(entry) =>
					!seen.has(JSON.stringify(entry)) && seen.add(JSON.stringify(entry)) !== undefined,
			);
	};
	const delivery: DeliveryReading =
		readings.length === 0
			? deliveryReading(reader, undefined, new Map(), isJob, post, fallback?.delivery)
			: {
					type: merged('type') as Pointer[],
					id: merged('id') as Pointer[],
					time: merged('time') as Path[],
					data: merged('data') as Path[],
					jobs: merged('jobs') as JobReference[],
					post: merged('post') as Path[],
				};
	return {
		events,
		wildcard: events === undefined || events.includes('*'),
		meanings: meaningsOf(events, explanations, fallback),
		fields: {
			url: field('url', 'url', ''),
			events: eventsField,
			active: field('active', 'active', true),
		},
		secret:
			create.documented || fallback === undefined
				? secretPolicy(reader, create, answer)
				: fallback.secret,
		delivery,
		signature:
			(signed && signatureScheme(signed.headers)) ??
			(fallback?.signature as WebhookContract['signature']),
	};
}
