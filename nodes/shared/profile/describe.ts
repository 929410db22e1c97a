import { isRecord } from './pointer';
import { OPERATION_NAMES, OPERATIONS } from './types';
import type {
	EventMeaning,
	JobReference,
	OperationName,
	OperationProfile,
	Paging,
	Placement,
	Profile,
} from './types';

/** A profile in words, a line per decision, as Service → Describe and `npm run profile` print it. */

// A document's texts and lists are shown this far, so that what Describe prints stays small on any document.
const MAX_SHOWN_TEXT = 200;
const MAX_SHOWN_ENTRIES = 50;

/**
 * A profile as Describe shows it: a text longer than MAX_SHOWN_TEXT characters ends in `…`, and a
 * list (an array or a record) longer than MAX_SHOWN_ENTRIES ends in an entry saying how many more.
 */
export function shortened<T>(value: T): T {
	if (typeof value === 'string')
		return (value.length > MAX_SHOWN_TEXT ? `${value.slice(0, MAX_SHOWN_TEXT - 1)}…` : value) as T;
	if (!Array.isArray(value) && !isRecord(value)) return value;
	const entries = Object.entries(value);
	const shown = entries.slice(0, MAX_SHOWN_ENTRIES).map(([key, entry]) => [key, shortened(entry)]);
	if (entries.length > MAX_SHOWN_ENTRIES)
		shown[MAX_SHOWN_ENTRIES - 1] = ['…', `and ${entries.length - MAX_SHOWN_ENTRIES + 1} more`];
	return (
		Array.isArray(value)
			? shown.map(([key, entry]) => (key === '…' ? `… ${entry}` : entry))
			: Object.fromEntries(shown)
	) as T;
}

/** Places as Describe names them: each way the service may put it, or `nowhere` for none. */
function at(places: string[]): string {
	return places.join(' or ') || 'nowhere';
}

/**
 * A parameter's place, a guess marked as one: where a document's operation has no place for it, it
 * goes by the built-in name into a body or query that takes other members.
 */
function placement(
	field: string,
	{ to, values, negate, why, beside, from }: Placement,
	documented: boolean,
): string {
	if (to === null) return `  ${field}: not sent${why ? `. ${why}` : ''}`;
	const spelt =
		values === undefined
			? ''
			: ` (${Object.entries(values)
					.map(([node, service]) => `${node} as ${service}`)
					.join(', ')})`;
	const besides =
		beside === undefined
			? ''
			: `, with ${Object.entries(beside)
					.map(([name, value]) => `${name} ${JSON.stringify(value)}`)
					.join(', ')} beside it`;
	const guess =
		documented && from?.startsWith('built-in') === true
			? ` (a guess, by its built-in name: ${from.replace(/^built-in \((.*)\)$/, '$1')})`
			: '';
	return `  ${field} → ${to}${negate ? ' (negated)' : ''}${spelt}${besides}${guess}`;
}

function paging(rule: Paging): string {
	const size =
		rule.size === undefined ? '' : `; page size \`${rule.size}\` up to ${rule.max ?? 100}`;
	switch (rule.style) {
		case 'cursor':
			return `cursor \`${rule.cursor}\` from ${at(rule.next)}${size}`;
		case 'after':
			return `\`${rule.cursor}\` the last item's id${rule.more ? `, while ${rule.more} is true` : ''}${size}`;
		case 'page':
			return `page number \`${rule.page}\` from ${rule.first}${size}`;
		case 'offset':
			return `offset \`${rule.offset}\`${size}`;
		case 'link':
			return `next page's address at ${at(rule.next)}${size}`;
		default:
			return 'none: one answer holds the whole list';
	}
}

function references(jobs: JobReference[]): string {
	return jobs
		.map((reference) =>
			'job' in reference
				? `the job at ${reference.job || 'the data'}`
				: 'id' in reference
					? `its id at ${reference.id || 'the data'}`
					: `its address at ${reference.address || 'the data'}`,
		)
		.join(', or ');
}

function operationLines(operation: OperationProfile, name: OperationName): string[] {
	const { title } = OPERATIONS[name];
	const documented = operation.from === 'built-in' ? ' (not in the document: built-in)' : '';
	const lines = [`${title}: ${operation.method} ${operation.path}${documented}`];
	if (operation.mediaType !== undefined && operation.mediaType !== 'application/json')
		lines.push(`  sent as ${operation.mediaType}`);
	for (const [field, place] of Object.entries(operation.fields))
		lines.push(placement(field, place, operation.from !== 'built-in'));
	if (operation.replaces)
		lines.push(
			`  replaces the whole object: the current one is read first, and its ${operation.replaces.keep.join(', ') || 'nothing'} sent back with the changes`,
		);
	const stated = (place: string) =>
		operation.stated?.[place] === undefined ? '' : ` (from ${operation.stated[place]})`;
	for (const [place, value] of Object.entries(operation.constants ?? {}))
		lines.push(`  always sends ${JSON.stringify(value)} at ${place}${stated(place)}`);
	if (operation.idAt)
		lines.push(`  sends the resource's id at ${operation.idAt} too${stated(operation.idAt)}`);
	if (operation.precondition)
		lines.push(
			`  reads the resource first and sends its ${operation.precondition.from} in ${operation.precondition.header} (412 if it changed meanwhile)${stated(`/headers/${operation.precondition.header}`)}`,
		);
	if (operation.idempotency)
		lines.push(`  idempotency key in header ${operation.idempotency.header}`);
	const { answer } = operation;
	if (answer.items)
		lines.push(
			`  items at ${at(answer.items)}; paging: ${paging(answer.paging ?? { style: 'none', from: '' })}`,
		);
	if (answer.jobs)
		lines.push(
			answer.jobs.length === 0
				? '  answers with the result at once: no job'
				: `  ${OPERATIONS[name].verb === 'wait' ? 'reads' : 'starts a job:'} ${references(answer.jobs)}`,
		);
	// No place (`[]`) reads the body as it is, as `/body` does: neither is a line of its own.
	else if (answer.resource?.length && answer.resource.join() !== '/body')
		lines.push(`  the resource at ${at(answer.resource)}`);
	return lines;
}

function jobLines({ completion, id, result, error }: Profile['jobs']): string[] {
	const states = (values: Record<string, string>) =>
		Object.entries(values)
			.map(([value, state]) => `${value} → ${state}`)
			.join('; ') || 'no values known';
	return [
		completion.by === 'flag'
			? `Jobs: finished when ${at(completion.done)} is true; failed if ${at(error)} is then present`
			: `Jobs: status at ${at(completion.status)}: ${states(completion.states)}; any other value → pending`,
		`  id at ${at(id)}; result at ${at(result)}; error at ${at(error)}`,
	];
}

/** `job where /body/action is "completed" and /body/job/error is absent`. */
function meaningText(meaning: EventMeaning): string {
	if (typeof meaning === 'string') return meaning;
	const conditions = Object.entries(meaning.when).map(
		([place, wanted]) =>
			`${place} is ${typeof wanted === 'string' ? `"${wanted}"` : wanted ? 'present' : 'absent'}`,
	);
	return `${meaning.event} where ${conditions.join(' and ')}`;
}

function webhookLines({
	events,
	meanings,
	registration,
	secret,
	signature,
	delivery,
}: Profile['webhooks']): string[] {
	const signed = signature.signed
		.map((part) => (typeof part === 'string' ? part : `"${part.text}"`))
		.join(signature.separator || ' then ');
	return [
		`Events: ${events === undefined ? 'the service lists none (chosen events are sent as named)' : events.join(', ') || 'none'}`,
		...Object.entries(meanings).map(
			([event, meant]) =>
				`  ${event} is ${meant.length > 0 ? meant.map(meaningText).join(', ') : 'none of them'}`,
		),
		`Registration: address at ${registration.url || 'the registration'}, events at ${registration.events || 'the registration'}`,
		`Signing secret: ${secret.by === 'node' ? 'chosen by the node' : secret.by === 'service' ? `chosen by the service, answered at ${secret.at || 'the registration'}` : 'none: the trigger cannot verify deliveries'}`,
		`Signature: header ${signature.header} (${signature.format}${signature.prefix ? ` ${signature.prefix}` : ''}), HMAC-${signature.algorithm.toUpperCase()} ${signature.encoding} of ${signed}${signature.key === 'apiKey' ? ", keyed with the credential's API key" : ''}`,
		`Deliveries: event at ${at(delivery.type)}, id at ${delivery.id.join(' or ') || 'nowhere signed (repeats are known by their body)'}, data at ${at(delivery.data)}`,
	];
}

/**
 * The profile in words, grouped: what was not followed first, then where it was read from, then
 * each resource's operations in the node's order, jobs beside Job and the webhooks beside Webhook
 * (where the trigger reads them). Every line says one decision and stands alone.
 */
export function describeGroups(read: Profile): Array<[string, string[]]> {
	const profile = shortened(read);
	const groups = new Map<string, string[]>();
	const add = (group: string, lines: string[]) => {
		const known = groups.get(group);
		if (known === undefined) groups.set(group, lines);
		else known.push(...lines);
	};
	if (profile.notFollowed.length > 0)
		add(
			'Not followed',
			// A required part the profile does not send has nothing built-in standing in for it.
			profile.notFollowed.map(
				({ part, why, place }) =>
					`Not followed: ${part}: ${why}${place === undefined ? '; the built-in conventions stand in' : ''}`,
			),
		);
	add('Service', [`Read from: ${profile.source}`]);
	if (profile.overridden?.length)
		add('Service', [`Set by the credential's Profile Overrides: ${profile.overridden.join(', ')}`]);
	for (const name of OPERATION_NAMES) {
		const [resource] = OPERATIONS[name].title.split(' → ');
		add(resource, operationLines(profile.operations[name], name));
	}
	add('Job', jobLines(profile.jobs));
	add('Webhook', webhookLines(profile.webhooks));
	return [...groups];
}
