import { isRecord } from './pointer';
import { OPERATION_NAMES, OPERATIONS } from './types';
import type { JobReference, Paging, Placement, Profile } from './types';

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

function placement(field: string, { to, values, negate, why }: Placement): string {
	if (to === null) return `  ${field}: not sent. ${why ?? ''}`.trimEnd();
	const spelt =
		values === undefined
			? ''
			: ` (${Object.entries(values)
					.map(([node, service]) => `${node} as ${service}`)
					.join(', ')})`;
	return `  ${field} → ${to}${negate ? ' (negated)' : ''}${spelt}`;
}

function paging(rule: Paging): string {
	const size =
		rule.size === undefined ? '' : `; page size \`${rule.size}\` up to ${rule.max ?? 100}`;
	switch (rule.style) {
		case 'cursor':
			return `cursor \`${rule.cursor}\` from ${rule.next.join(' or ')}${size}`;
		case 'after':
			return `\`${rule.cursor}\` the last item's id${rule.more ? `, while ${rule.more} is true` : ''}${size}`;
		case 'page':
			return `page number \`${rule.page}\` from ${rule.first}${size}`;
		case 'offset':
			return `offset \`${rule.offset}\`${size}`;
		case 'link':
			return `next page's address at ${rule.next.join(' or ')}${size}`;
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
					? `its id at ${reference.id}`
					: `its address at ${reference.address}`,
		)
		.join(', or ');
}

export function describeProfile(read: Profile): string[] {
	const profile = shortened(read);
	const lines = [`Read from: ${profile.source}`];
	for (const name of OPERATION_NAMES) {
		const operation = profile.operations[name];
		const documented = operation.from === 'built-in' ? ' (not in the document: built-in)' : '';
		lines.push(`${OPERATIONS[name].title}: ${operation.method} ${operation.path}${documented}`);
		if (operation.mediaType !== undefined && operation.mediaType !== 'application/json')
			lines.push(`  sent as ${operation.mediaType}`);
		for (const [field, place] of Object.entries(operation.fields))
			lines.push(placement(field, place));
		if (operation.replaces)
			lines.push(
				`  replaces the whole object: the current one is read first, and its ${operation.replaces.keep.join(', ')} sent back with the changes`,
			);
		for (const [place, value] of Object.entries(operation.constants ?? {}))
			lines.push(`  always sends ${JSON.stringify(value)} at ${place}`);
		if (operation.idempotency)
			lines.push(`  idempotency key in header ${operation.idempotency.header}`);
		const { answer } = operation;
		if (answer.items)
			lines.push(
				`  items at ${answer.items.join(' or ')}; paging: ${paging(answer.paging ?? { style: 'none', from: '' })}`,
			);
		if (answer.jobs)
			lines.push(
				answer.jobs.length === 0
					? '  answers with the result at once: no job'
					: `  starts a job: ${references(answer.jobs)}`,
			);
		else if (answer.resource && answer.resource.join() !== '/body')
			lines.push(`  the resource at ${answer.resource.join(' or ')}`);
	}
	const { jobs, webhooks } = profile;
	const { completion } = jobs;
	lines.push(
		completion.by === 'flag'
			? `Jobs: finished when ${completion.done.join(' or ')} is true; failed if ${jobs.error.join(' or ')} is then present`
			: `Jobs: status at ${completion.status.join(' or ')}: ${
					Object.entries(completion.states)
						.map(([value, state]) => `${value} ${state}`)
						.join(', ') || 'no values known'
				}; any other value is pending`,
		`  id at ${jobs.id.join(' or ')}, result at ${jobs.result.join(' or ')}, error at ${jobs.error.join(' or ')}`,
		`Events: ${webhooks.events === undefined ? 'the service lists none (chosen events are sent as named)' : webhooks.events.join(', ')}`,
		...Object.entries(webhooks.meanings).map(
			([event, meant]) => `  ${event} is ${meant.length > 0 ? meant.join(', ') : 'none of them'}`,
		),
		`Registration: address at ${webhooks.registration.url}, events at ${webhooks.registration.events}`,
		`Signing secret: ${webhooks.secret.by === 'node' ? 'chosen by the node' : webhooks.secret.by === 'service' ? `chosen by the service, answered at ${webhooks.secret.at}` : 'none: the trigger cannot verify deliveries'}`,
		`Signature: header ${webhooks.signature.header} (${webhooks.signature.format}${webhooks.signature.prefix ? ` ${webhooks.signature.prefix}` : ''}), HMAC-${webhooks.signature.algorithm.toUpperCase()} ${webhooks.signature.encoding} of ${webhooks.signature.signed.map((part) => (typeof part === 'string' ? part : `"${part.text}"`)).join(webhooks.signature.separator)}`,
		`Deliveries: event at ${webhooks.delivery.type.join(' or ')}, id at ${webhooks.delivery.id.join(' or ') || 'nowhere signed (repeats are known by their body)'}, data at ${webhooks.delivery.data.join(' or ')}`,
	);
	for (const { part, why } of profile.notFollowed)
		lines.push(`Not followed: ${part}: ${why}; the built-in conventions stand in`);
	if (profile.overridden?.length)
		lines.push(`Set by the credential's Profile Overrides: ${profile.overridden.join(', ')}`);
	return lines;
}
