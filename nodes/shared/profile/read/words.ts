import { isRecord, own, setOwn } from '../pointer';
import { BUILT_IN_EVENTS, type BuiltInEvent, type JobState } from '../types';
import { DocumentReader, ownArray, ownRecord, ownText, type Schema } from './document';

/**
 * What a document's words say of values: an enum's explanations, the state a job's status means,
 * the node's event a service's event means; linear in the text, counted against the budget.
 */

// A value's explanation is read for its first words: a description of a megabyte would hold n8n.
const MAX_EXPLANATION = 300;

const FAILED = /\b(fail|error|broke|cancel|abort|expire|reject|denied|timed? ?out|crash)/;
const SCHEDULED = /\b(scheduled|will (run|start|publish)|deferred|later)\b/;
const PENDING =
	/\b(not (yet )?(started|finished|done|complete)|in progress|pending|queued|waiting|running|processing|started|accepted|rendering|new|busy|working|active|created|submitted|starting)\b/;
const SUCCEEDED = /\b(succe|finished|complete|done|ready|ok\b|published|live\b)/;

/** Lower-case words of a name, a value or a text: `posts.replace`, `PostCustomersCustomer`, `IN_PROGRESS`. */
export function wordsOf(text: string): string {
	return text
		.slice(0, MAX_EXPLANATION)
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, ' ')
		.trim();
}

/** The state a status's explanation (or the status word itself) describes, if it says clearly. */
function stateFromText(text: string): JobState | undefined {
	const lower = wordsOf(text);
	if (FAILED.test(lower)) return 'failed';
	if (SCHEDULED.test(lower)) return 'scheduled';
	if (PENDING.test(lower)) return 'pending';
	if (SUCCEEDED.test(lower)) return 'succeeded';
	return undefined;
}

/** What a service's event means: itself if the node names it so, else by its name or explanation. */
export function eventMeaning(event: string, explanation: string): BuiltInEvent | undefined {
	if ((BUILT_IN_EVENTS as readonly string[]).includes(event)) return event as BuiltInEvent;
	if (event === '*') return undefined;
	for (const text of [wordsOf(event), wordsOf(explanation)]) {
		if (FAILED.test(text)) return 'job.failed';
		if (/\bposts?\b/.test(text) && /\b(publish|live\b|posted|public)/.test(text))
			return 'post.published';
		if (/\b(complet|finish|succe|ready|done|generated|rendered)/.test(text)) return 'job.completed';
		if (/\b(publish|live\b|posted)/.test(text)) return 'post.published';
	}
	return undefined;
}

// What may stand between the steps of a sequence (`a -> b -> c | d`, `a → b`, `a, then b or c`).
const ARROW = /^\s*(?:->|→|=>|⇒|>|\bthen\b|,\s*then\b)\s*$/i;
const ALTERNATIVE = /^\s*(?:\||\/|,|\bor\b|,\s*or\b)\s*$/i;

/**
 * What a description says of each of an enum's values not yet `explained`, read once: in a
 * sequence (`queued -> running -> succeeded | failed`) every value before the last step is
 * `pending`; else a value's explanation is the text after it, up to the next value it names or the
 * end of the sentence, so that it never runs into the next one's.
 */
function proseExplanations(
	reader: DocumentReader,
	description: string,
	values: Set<string>,
	explained: Map<string, string>,
	pending: Set<string>,
): void {
	const text = description.slice(0, 2000);
	const mentions: Array<{ value: string; start: number; end: number }> = [];
	// Each token that may be an enum value: `queued`, `job.completed`, `IN_PROGRESS`.
	for (const match of text.matchAll(/[A-Za-z0-9][\w.:-]{0,80}/g)) {
		reader.spend();
		// A value followed by sentence punctuation is still the value: `failed.` ends a sentence.
		const token = match[0].replace(/[.:-]+$/, '');
		if (values.has(token))
			mentions.push({ value: token, start: match.index, end: match.index + token.length });
	}
	// Steps of the longest sequence: runs of mentions joined only by arrows or alternatives.
	let steps: string[][] = [];
	const flush = () => {
		if (steps.length > 1)
			for (const step of steps.slice(0, -1)) for (const value of step) pending.add(value);
		steps = [];
	};
	mentions.forEach(({ value, start, end }, index) => {
		const between =
			index === 0 ? '' : text.slice(mentions[index - 1].end, start).replace(/[`'"*]/g, '');
		if (ARROW.test(between)) steps.push([value]);
		else if (ALTERNATIVE.test(between)) steps[steps.length - 1].push(value);
		else {
			flush();
			steps = [[value]];
		}
		const after = text
			.slice(end, mentions[index + 1]?.start ?? text.length)
			.replace(/[`'"*]/g, ' ');
		const sentence = after.search(/[.;!?](\s|$)|\n/);
		const clause = (sentence === -1 ? after : after.slice(0, sentence))
			.replace(/^\s*(?::|=|–|—|-(?!>)|means\b|is\b)?\s*/i, '')
			.trim();
		if (clause !== '' && !ARROW.test(clause) && !ALTERNATIVE.test(clause) && !explained.has(value))
			explained.set(value, clause.slice(0, MAX_EXPLANATION));
	});
	flush();
}

/**
 * Explanations of an enum's values: per value (`x-enum-descriptions`, `x-enumDescriptions`,
 * `x-ms-enum`, `oneOf` of `const`s with descriptions), else in the schema's description, read as
 * prose (`proseExplanations`). Values a sequence puts before its last step are in `pending`.
 */
export function enumExplanations(
	reader: DocumentReader,
	schema: Schema | undefined,
	values: string[],
): { explained: Map<string, string>; pending: Set<string> } {
	const wanted = new Set(values);
	const explained = new Map<string, string>();
	const pending = new Set<string>();
	const explain = (value: unknown, text: unknown) => {
		reader.spend();
		if (typeof value !== 'string' || typeof text !== 'string' || text === '') return;
		if (wanted.has(value) && !explained.has(value))
			explained.set(value, text.slice(0, MAX_EXPLANATION));
	};
	for (const variant of [schema, ...reader.variants(schema)]) {
		const listed = ownArray(variant, 'enum');
		const extension = own(variant, 'x-enum-descriptions') ?? own(variant, 'x-enumDescriptions');
		if (Array.isArray(extension))
			listed.forEach((value, index) => explain(value, extension[index]));
		else if (isRecord(extension)) for (const value of values) explain(value, own(extension, value));
		for (const entry of ownArray(ownRecord(variant, 'x-ms-enum'), 'values'))
			explain(own(entry, 'value'), own(entry, 'description'));
		explain(own(variant, 'const'), own(variant, 'description') ?? own(variant, 'title'));
		proseExplanations(reader, ownText(variant, 'description'), wanted, explained, pending);
	}
	return { explained, pending };
}

/**
 * The state of each status value: on its way where a sequence puts it before the end, else as its
 * explanation says, else as its own word says; a value neither says is left out (and counts as
 * pending when a job reports it).
 */
export function statesOf(reader: DocumentReader, schema: Schema | undefined, values: string[]) {
	const { explained, pending } = enumExplanations(reader, schema, values);
	const states: Record<string, JobState> = {};
	for (const value of values) {
		reader.spend();
		const state = pending.has(value)
			? 'pending'
			: (stateFromText(explained.get(value) ?? '') ?? stateFromText(value));
		if (state !== undefined) setOwn(states, value, state);
	}
	return states;
}
