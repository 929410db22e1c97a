import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

type TranscriptFormat = 'text' | 'vtt' | 'srt';

const TIMING_LINE = /^\s*(\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}\s*-->\s*(\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}.*$/;

function formatOf(binary: IBinaryData, text: string): TranscriptFormat | undefined {
	const extension = (binary.fileExtension ?? binary.fileName?.split('.').pop() ?? '').toLowerCase();
	const mimeType = (binary.mimeType ?? '').toLowerCase();
	if (extension === 'vtt' || mimeType === 'text/vtt' || text.startsWith('WEBVTT')) return 'vtt';
	if (extension === 'srt' || mimeType === 'application/x-subrip' || mimeType === 'text/srt') return 'srt';
	if (extension === 'txt' || mimeType.startsWith('text/')) return 'text';
	return undefined;
}

/**
 * Reduces WebVTT or SubRip subtitles to the spoken text: cue numbers, timings, headers, notes and
 * voice tags go, and a line repeated by rolling captions is kept once.
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
		if (TIMING_LINE.test(line)) continue;
		if (/^\d+$/.test(line)) continue;
		const text = line
			.replace(/<[^>]+>/g, '')
			.replace(/\{\\[^}]*\}/g, '')
			.trim();
		if (text !== '' && lines[lines.length - 1] !== text) lines.push(text);
	}
	return lines.join('\n');
}

/** Reads the transcript from a binary property as plain text, whatever the binary-data mode. */
export async function readTranscriptFromBinary(
	this: IExecuteFunctions,
	propertyName: string,
	itemIndex: number,
): Promise<string> {
	const binary = this.helpers.assertBinaryData(itemIndex, propertyName);
	const buffer = await this.helpers.getBinaryDataBuffer(itemIndex, propertyName);
	const text = buffer.toString('utf8').replace(/^\uFEFF/, '');
	const format = formatOf(binary, text);
	if (format === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The file in binary property "${propertyName}" of item ${itemIndex} is not a transcript`,
			{
				itemIndex,
				description: `Found ${binary.mimeType || 'an unknown type'}${binary.fileName ? ` (${binary.fileName})` : ''}. Use a .txt, .vtt or .srt file.`,
			},
		);
	}
	return format === 'text' ? text.trim() : subtitlesToText(text, format);
}
