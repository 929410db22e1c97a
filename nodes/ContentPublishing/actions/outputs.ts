import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { itemIdOf, jobProblem, readJob } from '../../shared/executor/answers';
import { isRecord } from '../../shared/profile/pointer';
import {
	OPERATION_NAMES,
	OPERATIONS,
	type OperationName,
	type Profile,
} from '../../shared/profile/types';

/**
 * n8n re-runs a node under Retry On Fail whenever its first output item has a `json.error` key,
 * even `"error": null` as job answers carry, which would repeat every write. A success item keeps
 * no top-level `error`: an empty one is dropped, any other moves to `serviceError`.
 */
export function withoutErrorKey(json: IDataObject): IDataObject {
	if (!Object.prototype.hasOwnProperty.call(json, 'error')) return json;
	const { error, ...rest } = json;
	return error === null || error === undefined ? rest : { ...rest, serviceError: error };
}

/** An item's error as On Error → Continue outputs it: the message, the HTTP code and the description. */
export function errorJson(error: Error): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	if ((error as NodeApiError).description) json.description = (error as NodeApiError).description;
	return json;
}

/** Simplify: where an output is. A job, or a resource an operation answered with (or listed). */
export type Simplified = { job: true } | { endpoint: OperationName };

/** A resource's id, where its answer or else its list's items have it (`/id` by default). */
function resourceId(
	profile: Profile,
	endpoint: OperationName,
	resource: IDataObject,
): string | undefined {
	const { answer } = profile.operations[endpoint];
	const list = OPERATION_NAMES.find(
		(name) =>
			OPERATIONS[name].verb === 'list' &&
			OPERATIONS[name].resource === OPERATIONS[endpoint].resource,
	);
	const reading =
		answer.itemId === undefined && list !== undefined ? profile.operations[list].answer : answer;
	return itemIdOf(reading, resource);
}

/** A JSON:API relationship's data as its id, or its ids. */
function relatedIds(relationships: unknown): IDataObject {
	const ids: IDataObject = {};
	for (const [name, relationship] of Object.entries(isRecord(relationships) ? relationships : {})) {
		const data = isRecord(relationship) ? relationship.data : undefined;
		if (isRecord(data)) ids[name] = data.id;
		else if (Array.isArray(data))
			ids[name] = data.map((entry) => (isRecord(entry) ? entry.id : entry));
	}
	return ids;
}

/**
 * A resource with its id first (where the profile says it is) and a JSON:API object's `attributes`
 * and related ids beside it, without its links.
 */
function simpleResource(resource: IDataObject, id: string | undefined): IDataObject {
	const { attributes, relationships, ...rest } = resource;
	const simple: IDataObject = isRecord(attributes)
		? { id: null, ...rest, ...relatedIds(relationships), ...attributes }
		: { id: null, ...resource };
	if (isRecord(attributes)) delete simple.links;
	simple.id = id ?? null;
	return simple;
}

/**
 * One shape on every service (docs/operations.md, Simplify): a resource is its id and its fields;
 * a job is its id, its state in the node's words (`status`), the service's word (`serviceStatus`),
 * its result and, when it failed, `serviceError`. An operation that starts a job but
 * was answered with the content itself is a job that succeeded, the content its result.
 */
export function simplify(profile: Profile, data: IDataObject, of: Simplified): IDataObject {
	if ('endpoint' in of && profile.operations[of.endpoint].answer.jobs === undefined)
		return simpleResource(data, resourceId(profile, of.endpoint, data));
	const problem = jobProblem(profile.jobs, data);
	// A job named only by its id (a 202's Location, not waited for) is one that has not finished.
	const isJob =
		'job' in of ||
		of.endpoint === 'getJob' ||
		problem === undefined ||
		(!problem.startsWith('no id') && Object.keys(data).length === 1);
	if (!isJob)
		return {
			id: null,
			status: 'succeeded',
			serviceStatus: null,
			result: data,
		};
	const view = readJob(profile.jobs, data);
	return {
		id: view.id || null,
		status: view.state,
		serviceStatus: view.unread === undefined ? view.status : null,
		result: view.result as IDataObject | null,
		...(view.error === undefined ? {} : { serviceError: view.error as IDataObject }),
	};
}
