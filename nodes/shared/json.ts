import { sleep, type IDataObject } from 'n8n-workflow';

import { setOwn } from './profile/pointer';

/**
 * Parses JSON the service sent, within limits, without holding n8n's event loop: JSON.parse of a
 * few megabytes blocks every execution for tens of milliseconds, so a large text is parsed in
 * slices that yield in between. A key named `__proto__` is an own property, as with JSON.parse.
 */

export interface JsonLimits {
	maxLength: number;
	maxDepth: number;
	/** Most values (objects, arrays, strings, numbers, literals) in the whole text. */
	maxValues: number;
	/** Most members of one object: listing a huge object's keys is one long turn of the event loop. */
	maxMembers?: number;
	/** Most entries of one array: growing an array of millions copies it whole, in one turn. */
	maxItems?: number;
}

export class JsonLimitError extends Error {}

// Below this length JSON.parse takes well under a millisecond: slicing would only cost.
const DIRECT_PARSE_LENGTH = 64 * 1024;
// How long one piece of our own work (parsing, reading a document) may run before it lets n8n run.
export const TURN_MS = 4;
// The clock is read every so many values, or every so many characters: values of a megabyte each
// (descriptions, enum values) would otherwise put long stretches between two checks.
const CHECK_EVERY_VALUES = 2048;
const CHECK_EVERY_CHARACTERS = 256 * 1024;
// A string is read in pieces of about this many characters (well under a millisecond each).
const STRING_PIECE = 64 * 1024;
// V8 copies a shorter slice of a string; a longer one shares the whole string's characters.
const MIN_SHARED_LENGTH = 13;

// No real number nears this many digits; reading and converting millions of them is one long turn.
const MAX_NUMBER_DIGITS = 1_000;
// Each part read up to that bound, so that a longer number is found without reading it whole.
const NUMBER = /-?(?:0|[1-9]\d{0,999})(?:\.\d{1,1000})?(?:[eE][+-]?\d{1,1000})?/y;
// No real text has a megabyte of whitespace in a row; stepping over more at once is one long turn.
const MAX_WHITESPACE = 1024 * 1024;
const WHITESPACE = new RegExp(`[ \\t\\n\\r]{0,${MAX_WHITESPACE}}`, 'y');
const LITERALS = [
	['true', true],
	['false', false],
	['null', null],
] as const;

type Container =
	| { kind: 'object'; value: Record<string, unknown>; key?: string; members: number }
	| { kind: 'array'; value: unknown[] };

const count = (value: number) => value.toLocaleString('en-US');

function tooMany(kind: 'object' | 'array', most: number): JsonLimitError {
	const entries = kind === 'object' ? 'members' : 'items';
	return new JsonLimitError(`it has an ${kind} of more than ${count(most)} ${entries}`);
}

/** A short text parsed directly, its nesting and its objects' sizes checked after the fact, cheaply. */
function parseDirectly(
	text: string,
	{ maxDepth, maxMembers = Infinity, maxItems = Infinity }: JsonLimits,
): unknown {
	const value = JSON.parse(text) as unknown;
	const stack: Array<[unknown, number]> = [[value, 1]];
	while (stack.length > 0) {
		const [current, depth] = stack.pop() as [unknown, number];
		if (current === null || typeof current !== 'object') continue;
		if (depth > maxDepth) throw new JsonLimitError(`it nests deeper than ${maxDepth} levels`);
		const children = Object.values(current);
		if (Array.isArray(current) && children.length > maxItems) throw tooMany('array', maxItems);
		if (!Array.isArray(current) && children.length > maxMembers)
			throw tooMany('object', maxMembers);
		for (const child of children) stack.push([child, depth + 1]);
	}
	return value;
}

export async function parseJson(text: string, limits: JsonLimits): Promise<unknown> {
	if (text.length > limits.maxLength)
		throw new JsonLimitError(`it is longer than ${count(limits.maxLength)} characters`);
	return text.length <= DIRECT_PARSE_LENGTH
		? parseDirectly(text, limits)
		: await parseInSlices(text, limits);
}

async function parseInSlices(
	text: string,
	{ maxDepth, maxValues, maxMembers = Infinity, maxItems = Infinity }: JsonLimits,
): Promise<unknown> {
	const stack: Container[] = [];
	let index = 0;
	let values = 0;
	let root: unknown;
	let done = false;
	// The text was just read (or made): parsing starts in a turn of its own.
	await sleep(0);
	let sliceStart = performance.now();
	let checkedAt = 0;

	const fail = (what: string): never => {
		throw new SyntaxError(`${what} at position ${index}`);
	};
	const skipWhitespace = () => {
		WHITESPACE.lastIndex = index;
		WHITESPACE.test(text);
		if (
			WHITESPACE.lastIndex - index === MAX_WHITESPACE &&
			/[ \t\n\r]/.test(text.charAt(WHITESPACE.lastIndex))
		)
			throw new JsonLimitError(
				`it has more than ${count(MAX_WHITESPACE)} whitespace characters in a row`,
			);
		index = WHITESPACE.lastIndex;
	};
	const step = (char: string, what: string) => {
		if (text[index] !== char) fail(what);
		index++;
		skipWhitespace();
	};
	const pause = async () => {
		if (performance.now() - sliceStart < TURN_MS) return;
		await sleep(0);
		sliceStart = performance.now();
		checkedAt = index;
	};
	/** Where a string's next piece from `at` ends: at its closing quote, or past about STRING_PIECE characters and a whole escape. */
	const pieceEnd = (at: number): number => {
		const limit = Math.min(text.length, at + STRING_PIECE);
		let end = at;
		while (end < limit) {
			const code = text.charCodeAt(end);
			if (code === 34) return end;
			end += code !== 92 ? 1 : text.charCodeAt(end + 1) === 117 ? 6 : 2;
		}
		if (end >= text.length) fail('Unterminated string');
		return end;
	};
	// JSON.parse checks a piece's escapes and that it has no raw control characters, and makes a
	// string of its own: a slice of the text shares its characters and keeps the whole text alive
	// (a profile's few event names would keep their whole document in the profile cache).
	const decode = (from: number, to: number) => JSON.parse(`"${text.slice(from, to)}"`) as string;
	/**
	 * The rest of a long string, piece by piece with breaks for n8n in between: one pass over millions
	 * of escapes and JSON.parse of them is one long turn. A piece ends after a whole
	 * escape, so it parses on its own; halves of a surrogate pair in two pieces join up again.
	 */
	const readPieces = async (value: string, at: number): Promise<string> => {
		// Appended, not joined: V8 links the pieces and copies them only where the string is read,
		// so a string of megabytes costs no copy of it in one turn here.
		while (text.charCodeAt(at) !== 34) {
			index = at;
			await pause();
			const end = pieceEnd(at);
			value += decode(at, end);
			at = end;
		}
		index = at + 1;
		return value;
	};
	/** A string's value; one longer than a piece comes as a promise. */
	const readString = (): string | Promise<string> => {
		const start = index + 1;
		// Only a piece is searched at once: the end of a string of megabytes is found piece by piece.
		const head = text.slice(start, start + STRING_PIECE);
		const end = head.indexOf('"');
		if (end !== -1 && !head.slice(0, end).includes('\\')) {
			// JSON forbids raw control characters in strings.
			for (let at = start; at < start + end; at++)
				if (text.charCodeAt(at) < 0x20) fail('Control character in string');
			index = start + end + 1;
			return end < MIN_SHARED_LENGTH ? head.slice(0, end) : decode(start, start + end);
		}
		const pieceStop = pieceEnd(start);
		const first = decode(start, pieceStop);
		if (text.charCodeAt(pieceStop) !== 34) return readPieces(first, pieceStop);
		index = pieceStop + 1;
		return first;
	};
	const attach = (value: unknown) => {
		const parent = stack[stack.length - 1];
		if (parent === undefined) {
			root = value;
			done = true;
		} else if (parent.kind === 'array') {
			if (parent.value.length >= maxItems) throw tooMany('array', maxItems);
			parent.value.push(value);
		} else {
			const key = parent.key as string;
			if (key === '__proto__') setOwn(parent.value as IDataObject, key, value);
			else parent.value[key] = value;
			parent.key = undefined;
		}
	};
	const readValue = (): void | Promise<void> => {
		if (++values > maxValues)
			throw new JsonLimitError(`it holds more than ${count(maxValues)} values`);
		const char = text[index];
		if (char === '{' || char === '[') {
			if (stack.length >= maxDepth)
				throw new JsonLimitError(`it nests deeper than ${maxDepth} levels`);
			index++;
			stack.push(
				char === '{' ? { kind: 'object', value: {}, members: 0 } : { kind: 'array', value: [] },
			);
			return;
		}
		if (char === '"') {
			const value = readString();
			return typeof value === 'string' ? attach(value) : value.then(attach);
		}
		const literal = LITERALS.find(([word]) => text.startsWith(word, index));
		if (literal !== undefined) {
			index += literal[0].length;
			return attach(literal[1]);
		}
		NUMBER.lastIndex = index;
		const match = NUMBER.exec(text) ?? fail('Unexpected token');
		if (/\d/.test(text.charAt(NUMBER.lastIndex)) && match[0].length >= MAX_NUMBER_DIGITS)
			throw new JsonLimitError(`it has a number of more than ${count(MAX_NUMBER_DIGITS)} digits`);
		index = NUMBER.lastIndex;
		attach(Number(match[0]));
	};

	// Only a long string is read asynchronously: awaiting every value queues a microtask per value,
	// which in n8n (async hooks on) puts long stretches between two looks at the clock.
	while (!done) {
		skipWhitespace();
		const top = stack[stack.length - 1];
		if (top !== undefined && text[index] === (top.kind === 'object' ? '}' : ']')) {
			// A container closes: no key may be pending, and `{"a": 1,}` is not JSON.
			if (top.kind === 'object' && top.key !== undefined) fail('Missing value');
			index++;
			stack.pop();
			attach(top.value);
		} else {
			if (top?.kind === 'object' && top.key === undefined) {
				if (top.members > 0) step(',', 'Expected , or }');
				if (text[index] !== '"') fail('Expected a key');
				if (++top.members > maxMembers) throw tooMany('object', maxMembers);
				const key = readString();
				top.key = typeof key === 'string' ? key : await key;
				skipWhitespace();
				step(':', 'Expected :');
			} else if (top?.kind === 'array' && top.value.length > 0) step(',', 'Expected , or ]');
			const reading = readValue();
			if (reading !== undefined) await reading;
		}
		if (values % CHECK_EVERY_VALUES === 0 || index - checkedAt > CHECK_EVERY_CHARACTERS)
			await pause();
	}
	skipWhitespace();
	if (index < text.length) fail('Unexpected text after JSON');
	return root;
}
