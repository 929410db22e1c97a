import { JsonLimitError, parseJson } from '../../nodes/shared/json';

// The sliced parser reads texts over 64 KiB and strings in pieces of 256 Ki characters; JSON.parse,
// which no one here wrote, is the oracle for what each text means.
const PIECE = 256 * 1024;
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
