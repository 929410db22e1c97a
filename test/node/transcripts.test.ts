/**
 * Hostile transcript files: a line built to make a regular expression take quadratic time, a
 * binary file under a text name, text with NUL bytes, and files too large to be a transcript.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';

import { subtitlesToText } from '../../nodes/ContentPublishing/parameters/transcript';
import { useFakeService } from '../support/fixtures';
import { binaryFile, useBinaryDataMode } from '../support/n8n-engine';

const harness = useFakeService();

beforeAll(async () => await useBinaryDataMode('default'));

const fromFile = {
	resource: 'content',
	operation: 'generateBlog',
	transcriptSource: 'binary',
	binaryPropertyName: 'data',
	waitForCompletion: false,
};

async function runWithFile(content: string | Buffer, fileName: string, mimeType: string) {
	const binary = await binaryFile(content, fileName, mimeType);
	return await harness.run(fromFile, { input: [{ json: {}, binary: { data: binary } }] });
}

describe('subtitle lines built against regular expressions', () => {
	const workers: Worker[] = [];
	afterAll(async () => await Promise.all(workers.map(async (worker) => await worker.terminate())));

	/** Runs the built package's subtitle reduction in a worker, so a runaway one cannot hold this test. */
	async function reduceInWorker(subtitles: string): Promise<string> {
		const module = path.resolve(
			__dirname,
			'..',
			'..',
			'dist',
			'nodes',
			'ContentPublishing',
			'parameters',
			'transcript.js',
		);
		const worker = new Worker(
			`const { parentPort, workerData } = require('node:worker_threads');
			parentPort.postMessage(require(${JSON.stringify(module)}).subtitlesToText(workerData, 'vtt'));`,
			{ eval: true, workerData: subtitles },
		);
		workers.push(worker);
		return await new Promise((resolve, reject) => {
			worker.once('message', resolve);
			worker.once('error', reject);
		});
	}

	// The former expressions took 7 to 14 s on such a 200 kB line here (8.3 s on 80 kB in n8n),
	// growing with the square of its length, and blocked n8n's event loop all that time; one pass
	// takes milliseconds, far inside this test's 5-second limit.
	it.each([
		['unclosed "<"', '<'.repeat(200_000)],
		['unclosed "{\\"', '{\\'.repeat(100_000)],
	])(
		'reduces a 200 kB line of %s in one pass',
		async (_what, line) => {
			await expect(reduceInWorker(`WEBVTT\n\n00:00.000 --> 00:01.000\n${line}\n`)).resolves.toBe(
				line,
			);
		},
		5000,
	);

	it('still removes voice tags and styling, keeping what is between them', () => {
		expect(
			subtitlesToText(
				'1\n00:00:01,000 --> 00:00:02,000\n<v Anna>Hello</v> {\\an8}there <i>friend</i>\n',
				'srt',
			),
		).toBe('Hello there friend');
	});
});

describe('files that are not transcripts', () => {
	it('refuses a PNG named .txt before sending anything', async () => {
		const png = Buffer.from([
			0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
			0x52,
		]);
		const result = await runWithFile(png, 'transcript.txt', 'text/plain');
		expect(result.error?.message).toBe('The file in binary property "data" of item 0 is not text');
		expect(harness.service.requests).toHaveLength(0);
	});

	it('refuses UTF-16 text, whose NUL bytes are valid UTF-8, before sending anything', async () => {
		const result = await runWithFile(
			Buffer.from('Hello there', 'utf16le'),
			'transcript.txt',
			'text/plain',
		);
		expect(result.error?.message).toBe('The file in binary property "data" of item 0 is not text');
		expect(harness.service.requests).toHaveLength(0);
	});

	it('takes tabs, form feeds and Windows line ends as text', async () => {
		const text = 'Hello\tthere\r\nmy\ffriend';
		const result = await runWithFile(text, 'transcript.txt', 'text/plain');
		expect(result.error).toBeUndefined();
		expect(harness.sent('generateBlog')[0].body).toEqual({ transcript: text });
	});

	it('refuses a file over 5 MB before sending anything', async () => {
		const result = await runWithFile('word '.repeat(1_100_000), 'long.txt', 'text/plain');
		expect(result.error?.message).toBe(
			'The file in binary property "data" of item 0 is larger than a transcript can be',
		);
		expect(harness.service.requests).toHaveLength(0);
	});

	it('refuses typed or mapped text over 5 MB before sending anything', async () => {
		const result = await harness.run({
			resource: 'content',
			operation: 'generateBlog',
			transcript: 'word '.repeat(1_100_000),
			waitForCompletion: false,
		});
		expect(result.error?.message).toBe('"Transcript" of item 0 is longer than a transcript can be');
		expect(harness.service.requests).toHaveLength(0);
	});
});
