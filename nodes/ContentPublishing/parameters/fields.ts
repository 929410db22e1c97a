import type { IDataObject, IExecuteFunctions, INodeParameterResourceLocator } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isUnsafeId } from '../../shared/executor/request';
import { BUILT_IN_PROFILE } from '../../shared/profile/builtIn';
import { isRecord } from '../../shared/profile/pointer';
import type { OperationName } from '../../shared/profile/types';
import { DEFAULT_TIMEOUT_MS } from '../../shared/executor/send';
import type { ExtraFields } from '../actions/types';
import { pageIdField, sourcePostField } from '../descriptions/locators';

export function parameterError(
	context: IExecuteFunctions,
	displayName: string,
	itemIndex: number,
	problem: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`"${displayName}" of item ${itemIndex} ${problem}`,
		{ itemIndex, description },
	);
}

function isEmptyValue(value: unknown): boolean {
	return (
		value === undefined ||
		value === null ||
		(typeof value === 'string' && value.trim() === '') ||
		(Array.isArray(value) && value.length === 0)
	);
}

/**
 * The id a resource locator names, or a text parameter holds: extractValue applies a locator mode's
 * own rule, such as the ID pattern of a URL.
 */
function locatorId(this: IExecuteFunctions, parameterName: string, itemIndex: number): string {
	const value = this.getNodeParameter(parameterName, itemIndex, undefined, { extractValue: true });
	const id =
		value !== null && typeof value === 'object' && '__rl' in value
			? (value as INodeParameterResourceLocator).value
			: value;
	return String(id ?? '').trim();
}

// Parameters that are lists, also where they are typed as text (`a, b`).
const LIST_PARAMETERS = new Set(['tags', 'mediaUrls', 'events', 'thread']);

/**
 * The parameters an operation sends (its fields in the built-in profile), from the values of the
 * same names: empty optional values left out, lists typed as text split into their entries.
 */
export function pickFields(values: IDataObject, operation: OperationName): IDataObject {
	const picked: IDataObject = {};
	for (const field of Object.keys(BUILT_IN_PROFILE.operations[operation].fields)) {
		const value =
			LIST_PARAMETERS.has(field) && typeof values[field] === 'string'
				? values[field]
						.split(/[,\n]/)
						.map((entry) => entry.trim())
						.filter(Boolean)
				: values[field];
		if (!isEmptyValue(value)) picked[field] = value;
	}
	return picked;
}

/** A JSON parameter's value: what its expression gave, or its text parsed; naming the parameter and the item when it is no JSON. */
function parseJsonValue(
	this: IExecuteFunctions,
	value: unknown,
	displayName: string,
	itemIndex: number,
): unknown {
	if (typeof value !== 'string') return value;
	try {
		return JSON.parse(value);
	} catch (error) {
		throw parameterError(
			this,
			displayName,
			itemIndex,
			'is not valid JSON',
			(error as Error).message,
		);
	}
}

/** Reads a list of texts, none empty, typed as a JSON array or given by an expression; sent as given. */
export function requireTextList(
	this: IExecuteFunctions,
	parameterName: string,
	displayName: string,
	itemIndex: number,
): string[] {
	const value = this.getNodeParameter(parameterName, itemIndex, '');
	const parsed = isEmptyValue(value)
		? []
		: parseJsonValue.call(this, value, displayName, itemIndex);
	if (Array.isArray(parsed) && parsed.length === 0)
		throw parameterError(this, displayName, itemIndex, 'is empty');
	if (!Array.isArray(parsed) || parsed.some((entry) => typeof entry !== 'string'))
		throw parameterError(
			this,
			displayName,
			itemIndex,
			'must be a list of texts, like ["First part", "Second part"]',
			'Type a JSON array of texts, or give one with an expression, such as {{ $json.result.tweets }} after Generate Twitter Thread.',
		);
	const empty = parsed.findIndex((entry: string) => entry.trim() === '');
	if (empty !== -1)
		throw parameterError(this, displayName, itemIndex, `has an empty part: number ${empty + 1}`);
	return parsed as string[];
}

export function readExtraFields(
	this: IExecuteFunctions,
	collection: IDataObject,
	itemIndex: number,
): ExtraFields {
	const object = (value: unknown, displayName: string): IDataObject => {
		if (isEmptyValue(value)) return {};
		const parsed = parseJsonValue.call(this, value, displayName, itemIndex);
		if (isRecord(parsed)) return parsed;
		throw parameterError(
			this,
			displayName,
			itemIndex,
			'must be a JSON object, like {"field": "value"}',
		);
	};
	return {
		body: object(collection.extraBody, 'Extra Body Fields (JSON)'),
		qs: object(collection.extraQuery, 'Extra Query Parameters (JSON)'),
	};
}

function checkId(
	this: IExecuteFunctions,
	id: string,
	displayName: string,
	itemIndex: number,
): string {
	if (id === '') throw parameterError(this, displayName, itemIndex, 'is empty');
	if (isUnsafeId(id))
		throw parameterError(
			this,
			displayName,
			itemIndex,
			`is not an ID: "${id}"`,
			'"." and ".." (also percent-encoded) would address another path of the API than one resource.',
		);
	return id;
}

/** Reads a collection parameter with each of its resource locators turned into the id it names. */
export function readCollection(
	this: IExecuteFunctions,
	parameterName: string,
	itemIndex: number,
): IDataObject {
	const collection = { ...(this.getNodeParameter(parameterName, itemIndex, {}) as IDataObject) };
	// The resource locators a collection may hold, for the names errors give them.
	for (const { name, displayName } of [pageIdField, sourcePostField]) {
		if (collection[name] === undefined) continue;
		const id = locatorId.call(this, `${parameterName}.${name}`, itemIndex);
		collection[name] = id === '' ? id : checkId.call(this, id, displayName, itemIndex);
	}
	return collection;
}

/** An id picked in a resource locator, or typed or mapped into a text parameter. */
export function requireId(
	this: IExecuteFunctions,
	parameterName: string,
	displayName: string,
	itemIndex: number,
): string {
	return checkId.call(this, locatorId.call(this, parameterName, itemIndex), displayName, itemIndex);
}

export function requireString(
	this: IExecuteFunctions,
	parameterName: string,
	displayName: string,
	itemIndex: number,
): string {
	// Only checked, not trimmed: text such as a post's content is sent exactly as given.
	const value = String(this.getNodeParameter(parameterName, itemIndex, '') ?? '');
	if (value.trim() === '') throw parameterError(this, displayName, itemIndex, 'is empty');
	return value;
}

/** The request timeout of an item, in milliseconds, from Request Options. */
export function readRequestTimeout(this: IExecuteFunctions, itemIndex: number): number {
	const options = this.getNodeParameter('requestOptions', itemIndex, {}) as { timeout?: unknown };
	const { timeout = DEFAULT_TIMEOUT_MS / 1000 } = options;
	const seconds = Number(timeout);
	if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600)
		throw parameterError(
			this,
			'Timeout (Seconds)',
			itemIndex,
			'must be a number of seconds from 1 to 3600',
		);
	return seconds * 1000;
}

/** Whether a parameter's value as saved holds an expression anywhere: only then can it differ by item. */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (value === null || typeof value !== 'object') return false;
	return Object.values(value).some(holdsExpression);
}

/**
 * A parameter's value per item, read once for the execution where it holds no expression (every
 * item's is then the same); an item whose value is refused still gets an error naming it.
 */
export function perItem<T>(
	context: IExecuteFunctions,
	parameter: string,
	read: (itemIndex: number) => T,
): (itemIndex: number) => T {
	if (holdsExpression(context.getNode().parameters[parameter])) return read;
	let same: { value: T } | undefined;
	try {
		same = { value: read(0) };
	} catch {
		// Refused: each item reads it again, so that its error names the item.
	}
	return (itemIndex) => (same === undefined ? read(itemIndex) : same.value);
}

export function requireChanges(
	this: IExecuteFunctions,
	body: IDataObject,
	extra: ExtraFields,
	itemIndex: number,
): void {
	if (Object.keys(body).length === 0 && Object.keys(extra.body).length === 0)
		throw new NodeOperationError(this.getNode(), `Nothing to update in item ${itemIndex}`, {
			itemIndex,
			description: 'Add at least one field under "Update Fields".',
		});
}
