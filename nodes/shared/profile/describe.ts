import { isRecord } from './pointer';
import { capped, operationAt, PROFILE, type Shape } from './shape';
import type { Profile } from './types';

/**
 * A profile in words, a line per decision, as Service → Describe and `npm run profile` print it:
 * the words are the shape's (shape.ts), said part by part in its order.
 */

// A document's texts and lists are shown this far, so that what Describe prints stays small on any document.
const MAX_SHOWN_TEXT = 200;
const MAX_SHOWN_ENTRIES = 50;

/**
 * A profile as Describe shows it: a text longer than MAX_SHOWN_TEXT characters ends in `…`, and a
 * list (an array or a record) longer than MAX_SHOWN_ENTRIES ends in an entry saying how many more.
 */
export function shortened<T>(value: T): T {
	if (typeof value === 'string') return capped(value, MAX_SHOWN_TEXT) as T;
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

/** The lines the shape's words say of `value`, each with the path of the part they say. */
function said(shape: Shape, value: unknown, path: string[]): Array<[string[], string[]]> {
	const parts = typeof shape === 'function' ? shape.parts : shape;
	if (parts === undefined || !isRecord(value)) return [];
	const names = Object.keys(parts).map((key) => [key, key.replace(/\?$/, '')]);
	return [
		...((typeof shape === 'function' && shape.says?.(value, path)) || []),
		...names.flatMap(([key, name]) => said(parts[key], value[name], [...path, name])),
	];
}

const GROUPS: Record<string, string> = {
	notFollowed: 'Not followed',
	jobs: 'Job',
	webhooks: 'Webhook',
};

/**
 * The profile in words, grouped: what was not followed first, then where it was read from, then
 * each resource's operations in the node's order, the jobs beside Job and the webhooks beside
 * Webhook (where the trigger reads them). Every line says one decision and stands alone.
 */
export function describeGroups(read: Profile): Array<[string, string[]]> {
	const groups = new Map<string, string[]>();
	for (const [path, lines] of said(PROFILE, shortened(read), [])) {
		const group =
			path[0] === 'operations'
				? operationAt(path).title.split(' → ')[0]
				: (GROUPS[path[0]] ?? 'Service');
		if (lines.length > 0) groups.set(group, [...(groups.get(group) ?? []), ...lines]);
	}
	return [...groups];
}
