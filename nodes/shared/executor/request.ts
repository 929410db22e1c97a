import type { IDataObject } from 'n8n-workflow';

import { isDotSegment } from '../origin';
import { isRecord, own, segmentsOf, setOwn } from '../profile/pointer';
import type { OperationProfile, Placement } from '../profile/types';

/**
 * What a request carries, by the profile: each of the node's parameters goes where the operation's
 * placement says (`/body/input/text`, `/query/page_id`, `/body/tweets/-/text`), in the service's
 * spelling of its values. Nothing here reads the service's document: the profile decided.
 */

/** A parameter the service has no place for, found before anything is sent. */
export class ProfileFieldError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
	}
}

export interface PlacedFields {
	body?: IDataObject;
	query: IDataObject;
	headers: Record<string, string>;
}

/** A value in the service's terms: its spelling of the node's values, a yes/no negated. */
function serviceValue(placement: Placement, value: unknown): unknown {
	if (placement.negate === true && typeof value === 'boolean') return !value;
	const { values } = placement;
	if (values === undefined) return value;
	const spell = (entry: unknown) =>
		(typeof entry === 'string' ? own(values, entry) : undefined) ?? entry;
	return Array.isArray(value) ? value.map(spell) : spell(value);
}

/** Puts a value at a path of segments below `target`; `-` puts each entry of a list in turn. */
function put(target: IDataObject | unknown[], segments: string[], value: unknown): void {
	const [segment, ...rest] = segments;
	if (segment === '-') {
		const list = target as unknown[];
		(Array.isArray(value) ? value : [value]).forEach((entry, index) => {
			if (rest.length === 0) list[index] = entry;
			else put(isRecord(list[index]) ? list[index] : (list[index] = {}), rest, entry);
		});
		return;
	}
	if (rest.length === 0) return setOwn(target, segment, value);
	const existing = own(target, segment);
	const child =
		rest[0] === '-'
			? Array.isArray(existing)
				? existing
				: []
			: isRecord(existing)
				? existing
				: {};
	setOwn(target, segment, child);
	put(child, rest, value);
}

/** A value and the members sent beside it, as the object that holds them (one for each entry of a list). */
function withBeside(placement: Placement, segments: string[], value: unknown): [string[], unknown] {
	const { beside } = placement;
	if (beside === undefined || segments.length < 2) return [segments, value];
	const parent = segments.slice(0, -1);
	const wrap = (entry: unknown) => {
		const object: IDataObject = {};
		for (const [name, member] of Object.entries(beside)) setOwn(object, name, member);
		setOwn(object, segments[segments.length - 1], entry);
		return object;
	};
	return [
		parent,
		parent[parent.length - 1] === '-' && Array.isArray(value) ? value.map(wrap) : wrap(value),
	];
}

/**
 * The body and query of a request from the node's parameters; one the operation has no place for
 * fails here, before anything is sent, unless it is `optional` (an extra the node adds itself).
 */
export function placeFields(
	operation: OperationProfile,
	fields: IDataObject,
	optional: IDataObject = {},
	id?: string,
): PlacedFields {
	const placed: PlacedFields = { query: {}, headers: {} };
	if (operation.idAt !== undefined && id !== undefined) {
		const [part, ...segments] = segmentsOf(operation.idAt);
		put(part === 'query' ? placed.query : (placed.body ??= {}), segments, id);
	}
	for (const [name, value] of Object.entries({ ...fields, ...optional })) {
		if (value === undefined) continue;
		const placement = own(operation.fields, name) as Placement | undefined;
		if (placement === undefined || placement.to === null) {
			if (Object.prototype.hasOwnProperty.call(optional, name)) continue;
			throw new ProfileFieldError(
				`The service takes no "${name}" in ${operation.method} ${operation.path}`,
				`${placement?.why ?? 'Its profile has no place for it.'} Leave that field empty, send the service's own field with "Extra Body Fields (JSON)", or give "${name}" a place in the credential's Profile Overrides (Service → Describe shows the profile).`,
			);
		}
		const [part, ...segments] = segmentsOf(placement.to);
		if (part === 'query') put(placed.query, segments, serviceValue(placement, value));
		else
			put((placed.body ??= {}), ...withBeside(placement, segments, serviceValue(placement, value)));
	}
	// Constants go last: a parameter cannot change what the profile says is always sent.
	for (const [place, value] of Object.entries(operation.constants ?? {})) {
		const [part, ...segments] = segmentsOf(place);
		if (part === 'headers') placed.headers[segments[0]] = String(value);
		else put(part === 'query' ? placed.query : (placed.body ??= {}), segments, value);
	}
	return placed;
}

/** The path of an operation for an id, encoded so that it can never address another route. */
export function pathFor(operation: OperationProfile, id?: string): string {
	if (!operation.path.includes('{id}')) return operation.path;
	if (id === undefined || isUnsafeId(id))
		throw new Error(
			`${operation.method} ${operation.path} needs an id that names one resource, not "${id ?? ''}"`,
		);
	return operation.path.replace('{id}', encodeURIComponent(id));
}

/**
 * Whether an id could not name a single resource: empty, or `.`/`..` (also percent-encoded, or
 * between slashes as in `../webhooks`), which a URL or a proxy resolves to the path above it, so
 * `DELETE /v1/posts/..` would reach `DELETE /v1/`.
 */
export function isUnsafeId(id: string): boolean {
	return id.trim() === '' || isDotSegment(id);
}
