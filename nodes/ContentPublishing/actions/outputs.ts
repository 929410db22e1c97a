import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

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
