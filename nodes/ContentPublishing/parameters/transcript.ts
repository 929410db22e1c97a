import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parameterError } from './fields';

/** The largest transcript the node sends: many hours of speech, far below what a request may carry. */
const MAX_TRANSCRIPT_BYTES = 5 * 1024 * 1024;

/** Tab, line feed, form feed and carriage return: the C0 controls a text file may hold. */
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0c, 0x0d]);

/** The buffer as text, or undefined when it is not UTF-8 or holds a C0 control byte no text has. */
function decodeText(buffer: Buffer): string | undefined {
	if (buffer.some((byte) => byte < 0x20 && !TEXT_CONTROLS.has(byte))) return undefined;
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(buffer);
	} catch {
		return undefined;
	}
}

const TIMING_LINE =
	/^\s*(\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}\s*-->\s*(\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}.*$/;

function formatOf(binary: IBinaryData, text: string): 'text' | 'vtt' | 'srt' | undefined {
	const extension = (binary.fileExtension ?? binary.fileName?.split('.').pop() ?? '').toLowerCase();
	const mimeType = (binary.mimeType ?? '').toLowerCase();
	if (extension === 'vtt' || mimeType === 'text/vtt' || text.startsWith('WEBVTT')) return 'vtt';
	if (extension === 'srt' || mimeType === 'application/x-subrip' || mimeType === 'text/srt')
		return 'srt';
	if (extension === 'txt' || mimeType.startsWith('text/')) return 'text';
	return undefined;
}

/**
 * Removes every `open … close` span, such as `<v Speaker>` or `{\\an8}`, in one pass: a regular
 * expression takes time growing with the square of a line full of unclosed `<`.
 */
function stripSpans(line: string, open: string, close: string, minInner: number): string {
	let kept = '';
	let position = 0;
	while (position < line.length) {
		const start = line.indexOf(open, position);
		if (start === -1) break;
		const end = line.indexOf(close, start + open.length + minInner);
		// Without a closing mark further on, no span can start later either.
		if (end === -1) break;
		kept += line.slice(position, start);
		position = end + close.length;
	}
	return kept + line.slice(position);
}

/**
 * Reduces WebVTT or SubRip subtitles to the spoken text: cue numbers, timings, headers, notes and
 * voice tags go, and a line repeated by rolling captions is kept once. Linear in the input.
 */
export function subtitlesToText(subtitles: string, format: 'vtt' | 'srt'): string {
	const lines: string[] = [];
	let skippingBlock = false;
	for (const rawLine of subtitles.replace(/\r\n?/g, '\n').split('\n')) {
		const line = rawLine.trim();
		if (line === '') {
			skippingBlock = false;
			continue;
		}
		if (skippingBlock) continue;
		if (format === 'vtt' && /^(WEBVTT|NOTE|STYLE|REGION)\b/.test(line)) {
			skippingBlock = true;
			continue;
		}
		if (TIMING_LINE.test(line) || /^\d+$/.test(line)) continue;
		const text = stripSpans(stripSpans(line, '<', '>', 1), '{\\', '}', 0).trim();
		if (text !== '' && lines[lines.length - 1] !== text) lines.push(text);
	}
	return lines.join('\n');
}

/** Reads the transcript from a binary property as plain text, whatever the binary-data mode. */
async function readTranscriptFromBinary(
	this: IExecuteFunctions,
	propertyName: string,
	itemIndex: number,
): Promise<string> {
	const binary = this.helpers.assertBinaryData(itemIndex, propertyName);
	const buffer = await this.helpers.getBinaryDataBuffer(itemIndex, propertyName);
	const file = `The file in binary property "${propertyName}" of item ${itemIndex}`;
	if (buffer.length > MAX_TRANSCRIPT_BYTES)
		throw new NodeOperationError(this.getNode(), `${file} is larger than a transcript can be`, {
			itemIndex,
			description: `It has ${buffer.length.toLocaleString('en-US')} bytes; a transcript may have up to ${MAX_TRANSCRIPT_BYTES.toLocaleString('en-US')}.`,
		});
	const found = `Found ${binary.mimeType || 'an unknown type'}${binary.fileName ? ` (${binary.fileName})` : ''}`;
	const text = decodeText(buffer)?.replace(/^\uFEFF/, '');
	if (text === undefined)
		throw new NodeOperationError(this.getNode(), `${file} is not text`, {
			itemIndex,
			description: `${found} whose content is not UTF-8 text: a transcript must be a .txt, .vtt or .srt text file.`,
		});
	const format = formatOf(binary, text);
	if (format === undefined)
		throw new NodeOperationError(this.getNode(), `${file} is not a transcript`, {
			itemIndex,
			description: `${found}. Use a .txt, .vtt or .srt file.`,
		});
	return format === 'text' ? text.trim() : subtitlesToText(text, format);
}

/** The item's transcript, typed or from a file, checked to be neither empty nor too long. */
export async function readTranscript(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const source = this.getNodeParameter('transcriptSource', itemIndex, 'text') as string;
	const transcript =
		source === 'binary'
			? await readTranscriptFromBinary.call(
					this,
					(this.getNodeParameter('binaryPropertyName', itemIndex) as string).trim(),
					itemIndex,
				)
			: String(this.getNodeParameter('transcript', itemIndex, '') ?? '').trim();
	if (transcript === '') throw parameterError(this, 'Transcript', itemIndex, 'is empty');
	if (Buffer.byteLength(transcript) > MAX_TRANSCRIPT_BYTES)
		throw parameterError(
			this,
			'Transcript',
			itemIndex,
			'is longer than a transcript can be',
			`A transcript may have up to ${MAX_TRANSCRIPT_BYTES.toLocaleString('en-US')} bytes.`,
		);
	return transcript;
}
