import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { JsonLimitError, parseJson } from '../../nodes/shared/json';

// The sliced parser reads texts over 64 KiB and strings in pieces of 64 Ki characters; JSON.parse,
// which no one here wrote, is the oracle for what each text means.
const PIECE = 64 * 1024;
const LIMITS = { maxLength: 16 * 1024 * 1024, maxDepth: 64, maxValues: 1_000_000 };

const ESCAPES = ['\\"', '\\\\', '\\n', '\\u00e9', '\\uD83D\\uDE00', '\\/'];

describe('parseJson reads long strings in pieces as JSON.parse reads them', () => {
	it.each(ESCAPES)('an escape %s at every offset of a piece boundary', async (escape) => {
		for (let shift = 0; shift <= escape.length; shift++) {
			const text = `{"value": "${'a'.repeat(PIECE - shift)}${escape}${'b'.repeat(10)}", "n": 1}`;
			expect(await parseJson(text, LIMITS)).toEqual(JSON.parse(text));
		}
	});

	it('strings of escapes many pieces long, with and without escapes, as keys and values', async () => {
		const texts = [
			`{"quotes": "${'\\"'.repeat(PIECE * 2)}"}`,
			`["${'\\u00e9x'.repeat(PIECE / 2)}", "${'plain'.repeat(PIECE / 2)}"]`,
			`{"${'k\\n'.repeat(PIECE)}": {"${'k'.repeat(PIECE * 3)}": true}}`,
			`"${'\\uD83D\\uDE00'.repeat(PIECE / 3)}"`,
			`{"é": "${'é'.repeat(PIECE * 2)}\\n"}`,
		];
		for (const text of texts) expect(await parseJson(text, LIMITS)).toEqual(JSON.parse(text));
	});

	it.each([
		['an unterminated long string', `["${'a'.repeat(PIECE * 2)}`],
		['an unterminated long string of escapes', `["${'\\"'.repeat(PIECE)}`],
		['an escape cut off by the end', `["${'a'.repeat(PIECE * 2)}\\u00`],
		['a control character in a long string', `["${'a'.repeat(PIECE * 2)}\u0001"]`],
		['a control character in a long string of escapes', `["${'\\n'.repeat(PIECE)}\u001f"]`],
		['a bad escape in a long string', `["${'\\n'.repeat(PIECE)}\\x41"]`],
		['a quote inside a \\u escape', `["${'a'.repeat(PIECE * 2)}\\u12"]`],
	])('refuses %s, as JSON.parse does', async (_, text) => {
		expect(() => JSON.parse(text)).toThrow(SyntaxError);
		await expect(parseJson(text, LIMITS)).rejects.toThrow(SyntaxError);
	});
});

describe('parseJson reads numbers up to 1,000 digits long, without reading a longer one whole', () => {
	const padded = (value: string) => `{"pad": "${' '.repeat(PIECE)}", "n": ${value}}`;

	it.each([
		['1,000 digits', `1${'0'.repeat(999)}`],
		['a fraction and an exponent of 1,000 digits', `-0.${'5'.repeat(1000)}e-${'0'.repeat(999)}1`],
		['1e999', '1e999'],
	])('%s, as JSON.parse reads it', async (_, value) => {
		expect(await parseJson(padded(value), LIMITS)).toEqual(JSON.parse(padded(value)));
	});

	it.each([
		['1,001 digits', `1${'0'.repeat(1000)}`],
		['a fraction of 1,001 digits', `0.${'5'.repeat(1001)}`],
		['15 million digits', `1${'0'.repeat(15_000_000)}`],
	])('refuses %s as too large', async (_, value) => {
		await expect(parseJson(padded(value), LIMITS)).rejects.toThrow(
			new JsonLimitError('it has a number of more than 1,000 digits'),
		);
	});

	it('refuses a leading zero, as JSON.parse does', async () => {
		expect(() => JSON.parse(padded('012'))).toThrow(SyntaxError);
		await expect(parseJson(padded('012'), LIMITS)).rejects.toThrow(SyntaxError);
	});
});

describe('parseJson keeps no text alive through the values it returns', () => {
	// `--expose-gc` for this file: what is live is measured, not garbage of before.
	setFlagsFromString('--expose-gc');
	const collectGarbage = runInNewContext('gc') as () => void;

	/** The names read from a 20 MB text; nothing else of it stays reachable here. */
	async function namesFromLargeText(filler: string, names: string[]): Promise<string[]> {
		const text = `{"events": ${JSON.stringify(names)}, "x": "${filler.repeat(20 * 1024 * 1024)}"}`;
		const parsed = await parseJson(text, { ...LIMITS, maxLength: 32 * 1024 * 1024 });
		return (parsed as { events: string[] }).events;
	}

	it('names kept from five 20 MB texts hold their own characters, not the texts', async () => {
		const names = ['job.completed.with-a-long-name', 'a'.repeat(PIECE + 1)];
		const kept: string[] = [];
		collectGarbage();
		const before = process.memoryUsage().heapUsed;
		for (const filler of ['0', '1', '2', '3', '4'])
			kept.push(...(await namesFromLargeText(filler, names)));
		// V8 keeps the subject of the last regular expression run (for RegExp.$1): the last text.
		/x/.exec('x');
		collectGarbage();
		const grownMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
		// Each text is 20 MB: values that shared their text's characters would keep 100 MB.
		expect(grownMb).toBeLessThan(20);
		expect(kept).toEqual([...names, ...names, ...names, ...names, ...names]);
	}, 60_000);
});

describe('parseJson bounds a run of whitespace', () => {
	const MIB = 1024 * 1024;
	const padded = (run: number) =>
		`{"a": 1,${' \n'.repeat(run / 2)}"b": [${'x'.repeat(70_000).length}]}`;

	it('reads a megabyte of whitespace in a row', async () => {
		expect(await parseJson(padded(MIB), LIMITS)).toEqual({ a: 1, b: [70_000] });
	});

	it('refuses more, at the first character beyond, as too large rather than as not JSON', async () => {
		await expect(parseJson(padded(MIB + 2), LIMITS)).rejects.toThrow(
			new JsonLimitError('it has more than 1,048,576 whitespace characters in a row'),
		);
	});
});
