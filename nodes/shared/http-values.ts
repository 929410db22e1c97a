/** What every layer reads of an HTTP message: its headers by name, and how much of its text is quoted. */

export type Headers = Record<string, string | string[] | undefined>;

/** The most of a service's text an error or output quotes. */
export const MAX_QUOTED_TEXT = 300;

/** A header's value by its name (n8n hands them over in lower case), repeated ones joined. */
export function headerValue(headers: Headers, name: string): string {
	const key = name.toLowerCase();
	const value = Object.prototype.hasOwnProperty.call(headers, key) ? headers[key] : undefined;
	return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
