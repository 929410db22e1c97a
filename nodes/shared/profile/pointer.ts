import type { IDataObject } from 'n8n-workflow';

import { headerValue, type Headers } from '../http-values';
import { keepInMemory } from '../memory';

/** JSON Pointers (RFC 6901) into what the service sends, read by own properties: `__proto__` is data. */

export function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A string or number as text; undefined for anything else, or an empty string. */
export function nonEmptyText(value: unknown): string | undefined {
	return (typeof value === 'string' && value !== '') || typeof value === 'number'
		? String(value)
		: undefined;
}

/** An object's own property; undefined for anything inherited. */
export function own(value: unknown, key: string): unknown {
	if (Array.isArray(value)) return /^(0|[1-9]\d{0,8})$/.test(key) ? value[Number(key)] : undefined;
	return isRecord(value) && Object.prototype.hasOwnProperty.call(value, key)
		? value[key]
		: undefined;
}

/**
 * A record's own members, one at a time, so that a reading stopped by its budget stops here too:
 * Object.entries of an object of thousands of members, as a JSON text makes it, is one long step.
 */
export function* ownEntries(value: IDataObject | undefined): Generator<[string, unknown]> {
	for (const key of Object.keys(value ?? {})) yield [key, value?.[key]];
}

// Requests are built and answers read at the same few places item after item: each is split once.
const MAX_KEPT_POINTERS = 256;
const MAX_KEPT_POINTER_LENGTH = 512;
const split = new Map<string, readonly string[]>();

/** `/a/b~1c` → `["a", "b/c"]`; `""` → `[]`. */
export function segmentsOf(pointer: string): string[] {
	const kept = split.get(pointer);
	if (kept !== undefined) return [...kept];
	const segments =
		pointer === ''
			? []
			: pointer
					.slice(1)
					.split('/')
					.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
	if (pointer.length <= MAX_KEPT_POINTER_LENGTH)
		keepInMemory(split, pointer, segments, MAX_KEPT_POINTERS);
	return [...segments];
}

export function pointerOf(segments: readonly string[]): string {
	return segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Where a resource may hold what the node writes at `to` in a request's body, longest first: below
 * the body, then below each member on the way (`/body/data/attributes/title`: `/data/attributes/title`,
 * `/attributes/title` as JSON:API's resource object, `/title`).
 */
export function resourcePlaces(to: string | null | undefined): string[] {
	const [, part, ...rest] = (to ?? '').split('/');
	return part === 'body' ? rest.map((_, start) => `/${rest.slice(start).join('/')}`) : [];
}

/** The value at a pointer into an object, or undefined. */
export function readAt(value: unknown, pointer: string): unknown {
	let current = value;
	for (const segment of segmentsOf(pointer)) current = own(current, segment);
	return current;
}

/** The value at a location in an answer: `/body/...` or `/headers/<name>`. */
export function readLocation(
	message: { body: unknown; headers?: Headers },
	location: string,
): unknown {
	const [part, ...rest] = segmentsOf(location);
	if (part === 'headers')
		return rest.length === 1 ? headerValue(message.headers ?? {}, rest[0]) : undefined;
	return part === 'body' ? readAt(message.body, pointerOf(rest)) : undefined;
}

/** Sets a property as an own data property, whatever its name (even `__proto__`). */
export function setOwn(target: IDataObject | unknown[], key: string, value: unknown): void {
	Object.defineProperty(target, key, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}
