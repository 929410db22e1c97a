import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

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
	/** Most members of one object: listing 600,000 paths' keys held n8n's event loop for a second. */
	maxMembers?: number;
}

export class JsonLimitError extends Error {}

// Below this length JSON.parse takes well under a millisecond: slicing would only cost.
const DIRECT_PARSE_LENGTH = 64 * 1024;
// How long one slice may run before it yields to other work.
const SLICE_MS = 4;
// The clock is read every so many values, or every so many characters: values of a megabyte each
// (descriptions, enum values) made 2,048 of them take 160 ms between two checks.
const CHECK_EVERY_VALUES = 2048;
const CHECK_EVERY_CHARACTERS = 256 * 1024;

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const LITERALS = [
	['true', true],
	['false', false],
	['null', null],
] as const;

type Container =
	| { kind: 'object'; value: Record<string, unknown>; key?: string; members: number }
	| { kind: 'array'; value: unknown[] };

function tooManyMembers(maxMembers: number): JsonLimitError {
	return new JsonLimitError(
		`it has an object of more than ${maxMembers.toLocaleString('en-US')} members`,
	);
}

/** Checks the nesting and the objects' sizes of a short text parsed directly, after the fact, cheaply. */
function checkShape(value: unknown, { maxDepth, maxMembers = Infinity }: JsonLimits): void {
	const stack: Array<[unknown, number]> = [[value, 1]];
	while (stack.length > 0) {
		const [current, depth] = stack.pop() as [unknown, number];
		if (current === null || typeof current !== 'object') continue;
		if (depth > maxDepth) throw new JsonLimitError(`it nests deeper than ${maxDepth} levels`);
		const children = Object.values(current);
		if (!Array.isArray(current) && children.length > maxMembers) throw tooManyMembers(maxMembers);
		for (const child of children) stack.push([child, depth + 1]);
	}
}

export async function parseJson(text: string, limits: JsonLimits): Promise<unknown> {
	if (text.length > limits.maxLength) {
		throw new JsonLimitError(
			`it is longer than ${limits.maxLength.toLocaleString('en-US')} characters`,
		);
	}
	if (text.length <= DIRECT_PARSE_LENGTH) {
		const value = JSON.parse(text) as unknown;
		checkShape(value, limits);
		return value;
	}
	return await parseInSlices(text, limits);
}

async function parseInSlices(
	text: string,
	{ maxDepth, maxValues, maxMembers = Infinity }: JsonLimits,
): Promise<unknown> {
	const stack: Container[] = [];
	let index = 0;
	let values = 0;
	let root: unknown;
	let done = false;
	// The text was just read (or made): parsing starts in a turn of its own.
	await sleep(0);
	let sliceStart = Date.now();
	let checkedAt = 0;

	const fail = (what: string): never => {
		throw new SyntaxError(`${what} at position ${index}`);
	};
	const skipWhitespace = () => {
		WHITESPACE.lastIndex = index;
		WHITESPACE.test(text);
		index = WHITESPACE.lastIndex;
	};
	/** Steps over `char` and the whitespace after it; anything else is a syntax error. */
	const step = (char: string, what: string) => {
		if (text[index] !== char) fail(what);
		index++;
		skipWhitespace();
	};
	const readString = (): string => {
		// The closing quote is the first one, unless a backslash comes before it: then one pass steps
		// over every escape (quote to quote, 5 million `\"` held the event loop for 70 ms).
		let end = text.indexOf('"', index + 1);
		if (end === -1) fail('Unterminated string');
		const escaped = text.slice(index + 1, end).includes('\\');
		if (escaped) {
			for (end = index + 1; end < text.length; end++) {
				const code = text.charCodeAt(end);
				if (code === 34) break;
				if (code === 92) end++;
			}
			if (end >= text.length) fail('Unterminated string');
		}
		const raw = text.slice(index, end + 1);
		index = end + 1;
		// A long string goes to JSON.parse too, which checks it in half the time of the loop (15 MB: 19 ms, not 35).
		if (!escaped && raw.length <= DIRECT_PARSE_LENGTH) {
			// JSON forbids raw control characters in strings; JSON.parse below would refuse them too.
			for (let at = 1; at < raw.length - 1; at++)
				if (raw.charCodeAt(at) < 0x20) fail('Control character in string');
			return raw.slice(1, -1);
		}
		return JSON.parse(raw) as string;
	};
	const attach = (value: unknown) => {
		const parent = stack[stack.length - 1];
		if (parent === undefined) {
			root = value;
			done = true;
		} else if (parent.kind === 'array') {
			parent.value.push(value);
		} else {
			const key = parent.key as string;
			if (key === '__proto__') setOwn(parent.value as IDataObject, key, value);
			else parent.value[key] = value;
			parent.key = undefined;
		}
	};
	const readValue = () => {
		if (++values > maxValues)
			throw new JsonLimitError(`it holds more than ${maxValues.toLocaleString('en-US')} values`);
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
		if (char === '"') return attach(readString());
		const literal = LITERALS.find(([word]) => text.startsWith(word, index));
		if (literal !== undefined) {
			index += literal[0].length;
			return attach(literal[1]);
		}
		NUMBER.lastIndex = index;
		const match = NUMBER.exec(text);
		if (match === null) fail('Unexpected token');
		index = NUMBER.lastIndex;
		attach(Number((match as RegExpExecArray)[0]));
	};

	while (!done) {
		skipWhitespace();
		const top = stack[stack.length - 1];
		if (top === undefined) {
			readValue();
		} else if (text[index] === (top.kind === 'object' ? '}' : ']')) {
			// A container closes: no key may be pending, and `{"a": 1,}` is not JSON.
			if (top.kind === 'object' && top.key !== undefined) fail('Missing value');
			index++;
			stack.pop();
			attach(top.value);
		} else if (top.kind === 'object' && top.key === undefined) {
			if (top.members > 0) step(',', 'Expected , or }');
			if (text[index] !== '"') fail('Expected a key');
			if (++top.members > maxMembers) throw tooManyMembers(maxMembers);
			top.key = readString();
			skipWhitespace();
			step(':', 'Expected :');
			readValue();
		} else {
			if (top.kind === 'array' && top.value.length > 0) step(',', 'Expected , or ]');
			readValue();
		}
		if (
			(values % CHECK_EVERY_VALUES === 0 || index - checkedAt > CHECK_EVERY_CHARACTERS) &&
			Date.now() - sliceStart >= SLICE_MS
		) {
			await sleep(0);
			sliceStart = Date.now();
			checkedAt = index;
		}
	}
	skipWhitespace();
	if (index < text.length) fail('Unexpected text after JSON');
	return root;
}
