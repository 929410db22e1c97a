import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The JSON examples of docs/service.md's "Correcting it", in order. */
export function overrideExamples(): string[] {
	const text = readFileSync(path.join(__dirname, '..', '..', 'docs', 'service.md'), 'utf8');
	const section = text.slice(
		text.indexOf('## Correcting it'),
		text.indexOf('## How a document is read'),
	);
	return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map(([, json]) => json);
}
