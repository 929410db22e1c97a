import type { IDataObject } from 'n8n-workflow';

import type { EndpointName } from './catalog';
import { ContractFieldError, mapFields } from './fields';
import type { BuiltInEvent, Contract, WebhookContract } from './types';

/**
 * The contract: the only code that knows the service's shapes. The rest of the package asks it
 * what to send (`requestBody`, `requestQuery`, `eventsToSend`) and how to read what comes back
 * (answers.ts), and never names a service field, status word or envelope itself.
 */

export * from './answers';
export {
	DOCUMENT_PATH,
	ENDPOINTS,
	FIELDS,
	isUnsafeId,
	type EndpointName,
	type FieldName,
} from './catalog';
export { ContractFieldError, findField, splitList } from './fields';
export { builtInContract, resolveContract } from './resolve';
export {
	isOpenApiDocument,
	isRecord,
	own,
	ownAt,
	type ObjectShape,
	type OpenApiDocument,
} from './schema';
export { signingKey, TOLERANCE_SECONDS, verifyDelivery } from './signatures';
export * from './types';

// Steps one request's fields may take to map onto the document's schemas.
const MAPPING_BUDGET = 20_000;

/**
 * The body of a request, in the service's fields; `optional` fields the service has no place for
 * are left out instead of failing.
 */
export function requestBody(
	contract: Contract,
	name: EndpointName,
	fields: IDataObject,
	optional: IDataObject = {},
): IDataObject {
	const endpoint = contract.endpoints[name];
	contract.reader.allow(MAPPING_BUDGET);
	return mapFields(
		contract.reader,
		endpoint.request,
		fields,
		`${endpoint.method} ${endpoint.path}`,
		optional,
	);
}

/** The query of a request, in the service's parameters; paging parameters are the node's own. */
export function requestQuery(
	contract: Contract,
	name: EndpointName,
	fields: IDataObject,
): IDataObject {
	const endpoint = contract.endpoints[name];
	if (Object.keys(fields).length === 0) return fields;
	const paging = new Set(
		Object.entries(endpoint.paging)
			.filter(([key, value]) => key !== 'style' && typeof value === 'string')
			.map(([, value]) => value as string),
	);
	const properties = new Map([...endpoint.query].filter(([parameter]) => !paging.has(parameter)));
	contract.reader.allow(MAPPING_BUDGET);
	return mapFields(
		contract.reader,
		{ properties, closed: endpoint.query.size > 0 },
		fields,
		`the query of ${endpoint.method} ${endpoint.path}`,
	);
}

const BUILT_IN_EVENTS = new Set<string>(['job.completed', 'job.failed', 'post.published']);

/**
 * The events to register, as the service names them: `*` is every event it lists when it has no
 * wildcard of its own; an event the node names itself (`job.completed`) is the service's events
 * that mean it; any other event the service does not list fails before anything is sent.
 */
export function eventsToSend(webhooks: WebhookContract, chosen: string[]): string[] {
	const offered = webhooks.events;
	if (offered === undefined) return chosen;
	if (chosen.includes('*'))
		return webhooks.wildcard ? ['*'] : offered.filter((event) => event !== '*');
	const events = new Set<string>();
	const unknown: string[] = [];
	for (const event of chosen) {
		if (offered.includes(event)) events.add(event);
		else if (BUILT_IN_EVENTS.has(event) && webhooks.meanings[event as BuiltInEvent].length > 0) {
			for (const meant of webhooks.meanings[event as BuiltInEvent]) events.add(meant);
		} else unknown.push(event);
	}
	if (unknown.length > 0) {
		throw new ContractFieldError(
			`The service offers no event ${unknown.map((event) => `"${event}"`).join(', ')}`,
			`Its OpenAPI document lists: ${offered.join(', ')}. Choose from those under "Events".`,
		);
	}
	return [...events];
}

/** Whether a delivered event is one of the chosen ones, by the service's names for them. */
export function isChosenEvent(webhooks: WebhookContract, chosen: string[], type: string): boolean {
	if (chosen.includes('*') || chosen.includes(type)) return true;
	return chosen.some(
		(event) =>
			BUILT_IN_EVENTS.has(event) && webhooks.meanings[event as BuiltInEvent].includes(type),
	);
}
