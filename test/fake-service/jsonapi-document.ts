import {
	buildOpenApiDocument,
	closedObject,
	integerBetween,
	MAX_PAGE_SIZE,
	queryParameter,
	text,
	uri,
	type JsonSchema,
	type OpenApiDocument,
	schemaRef,
} from './openapi';
import { perResourceDocument } from './per-resource';
import type { ContractDocument } from './request-validator';

/**
 * The jsonapi profile's document: the primary's, translated by a program rather than written again,
 * into JSON:API 1.1 as Lemon Squeezy's API follows it (https://docs.lemonsqueezy.com/api, "Getting
 * started" and "Pagination"/"Errors"; https://jsonapi.org/format/1.1/), with events per resource as
 * GitHub's (per-resource.ts):
 *
 * - Requests and answers are `application/vnd.api+json` (Lemon Squeezy's "Requests" asks for it in
 *   both `Accept` and `Content-Type`); another body type is refused with 415 (JSON:API 1.1, "Server
 *   Responsibilities").
 * - A resource is `{data: {type, id, attributes, relationships, links: {self}}}` (Lemon Squeezy's
 *   every object, e.g. "The store object"); `type` and `id` are no attributes (JSON:API "Fields"),
 *   so a job's kind is the attribute `kind`.
 * - A write sends `{data: {type, attributes, relationships}}`, an update also `data.id`, equal to the
 *   path's (Lemon Squeezy's "Update a webhook"; JSON:API 409 otherwise); `type` is required and has
 *   one value here. A page is referenced as `relationships.page.data {type: "pages", id}` (as Lemon
 *   Squeezy's "Create a checkout" references its store and variant).
 * - Lists take `page[number]` and `page[size]` (1-100, default 10) and answer `meta.page` with
 *   `currentPage, from, lastPage, perPage, to, total` and `links` `first`, `last` and `next` while
 *   there is one (Lemon Squeezy's "Pagination"); filters are `filter[<field>]` ("Filtering").
 * - Errors are `{jsonapi: {version}, errors: [{status, title, detail, source?}]}` (Lemon Squeezy's
 *   "Errors"), `status` a text.
 * - Deliveries name the event in `X-Event-Name` and sign the raw body with `X-Signature`, the hex
 *   HMAC-SHA256 keyed with the webhook's secret (Lemon Squeezy's "Signing requests"); the events are
 *   per resource, `job`, `post` or `*`, with the `action` in the body, as GitHub's.
 */

export const JSONAPI_MEDIA_TYPE = 'application/vnd.api+json';
export const JSONAPI_DEFAULT_PAGE_SIZE = 10;
export const JSONAPI_DELIVERY_HEADERS = { event: 'X-Event-Name', signature: 'X-Signature' };

/** The resource type of each schema the primary answers with. */
const RESOURCE_TYPES: Record<string, string> = {
	Account: 'accounts',
	Page: 'pages',
	Post: 'posts',
	Job: 'jobs',
	Webhook: 'webhooks',
	WebhookWithSecret: 'webhooks',
};
/** Attributes named otherwise than the primary's fields: `type` belongs to JSON:API. */
export const ATTRIBUTE_NAMES: Record<string, string> = { type: 'kind' };

const REQUEST_TYPES: Record<string, string> = {
	CreatePostRequest: 'posts',
	UpdatePostRequest: 'posts',
	CreateWebhookRequest: 'webhooks',
	UpdateWebhookRequest: 'webhooks',
};
const LIST_ITEMS: Record<string, string> = {
	PageList: 'Page',
	PostList: 'Post',
	WebhookList: 'Webhook',
};
/** The primary's query parameter → Lemon Squeezy's. */
export const QUERY_NAMES: Record<string, string> = {
	limit: 'page[size]',
	cursor: 'page[number]',
	status: 'filter[status]',
	page_id: 'filter[page_id]',
	q: 'filter[name]',
};

const oneType = (type: string): JsonSchema => ({ type: 'string', enum: [type] });
const linkage = (type: string) => closedObject({ type: oneType(type), id: text }, ['type', 'id']);
const pageRelationship = (data: JsonSchema) =>
	closedObject({ page: closedObject({ data }, ['data']) }, ['page']);

type Schema = JsonSchema & { properties: Record<string, JsonSchema>; required?: string[] };

/** `schema` without `names` among its properties and required ones, the rest renamed. */
function without(schema: Schema, names: string[]): Schema {
	const properties = Object.fromEntries(
		Object.entries(schema.properties)
			.filter(([name]) => !names.includes(name))
			.map(([name, value]) => [ATTRIBUTE_NAMES[name] ?? name, value]),
	);
	const required = schema.required
		?.filter((name) => !names.includes(name))
		.map((name) => ATTRIBUTE_NAMES[name] ?? name);
	return { ...schema, properties, ...(required ? { required } : {}) };
}

/** A resource object: the primary's object as attributes, its id and type beside them. */
function resourceObject(name: string, schema: Schema): JsonSchema {
	return closedObject(
		{
			type: oneType(RESOURCE_TYPES[name]),
			id: text,
			attributes: without(schema, ['id']),
			...(name === 'Post'
				? { relationships: pageRelationship({ oneOf: [linkage('pages'), { type: 'null' }] }) }
				: {}),
			links: closedObject({ self: uri }, ['self']),
		},
		['type', 'id', 'attributes', 'links'],
	);
}

/** A request document: the primary's body as attributes, its page as a relationship. */
function requestDocument(name: string, schema: Schema): JsonSchema {
	const update = name.startsWith('Update');
	const referencesPage = 'page_id' in schema.properties;
	return closedObject(
		{
			data: closedObject(
				{
					type: oneType(REQUEST_TYPES[name] ?? 'jobs'),
					...(update ? { id: text } : {}),
					attributes: without(schema, ['page_id']),
					...(referencesPage ? { relationships: pageRelationship(linkage('pages')) } : {}),
				},
				update ? ['type', 'id'] : ['type', 'attributes'],
			),
		},
		['data'],
	);
}

const pageMeta = closedObject(
	{
		page: closedObject(
			Object.fromEntries(
				['currentPage', 'from', 'lastPage', 'perPage', 'to', 'total'].map((name) => [
					name,
					{ type: ['integer', 'null'] },
				]),
			),
			['currentPage', 'from', 'lastPage', 'perPage', 'to', 'total'],
		),
	},
	['page'],
);

const errorsDocument = closedObject(
	{
		jsonapi: closedObject({ version: text }),
		errors: {
			type: 'array',
			minItems: 1,
			items: closedObject(
				{
					status: { type: 'string', pattern: '^[1-5][0-9]{2}$' },
					code: text,
					title: text,
					detail: text,
					source: closedObject({ pointer: text, parameter: text, header: text }),
				},
				['status', 'title', 'detail'],
			),
		},
	},
	['errors'],
);

type Content = Record<string, { schema: JsonSchema }>;
const refName = (schema: JsonSchema | undefined) =>
	typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;

/** An answer's content in JSON:API: the document around the primary's schema. */
function answerContent(content: Content): Content {
	const { schema } = content['application/json'];
	const name = refName(schema) ?? '';
	const resource = schemaRef(LIST_ITEMS[name] ?? name);
	const wrapped =
		name === 'Error'
			? schema
			: name in LIST_ITEMS
				? closedObject(
						{
							data: { type: 'array', items: resource },
							meta: pageMeta,
							links: closedObject({ first: uri, last: uri, next: uri, prev: uri }, [
								'first',
								'last',
							]),
						},
						['data', 'meta', 'links'],
					)
				: name in RESOURCE_TYPES
					? closedObject({ data: resource }, ['data'])
					: schema;
	return { [JSONAPI_MEDIA_TYPE]: { schema: wrapped } };
}

const documentError = (description: string) => ({
	description,
	content: { [JSONAPI_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Error' } } },
});

export function buildJsonApiDocument(serverUrl?: string): ContractDocument {
	const document = buildOpenApiDocument(serverUrl) as OpenApiDocument & ContractDocument;
	perResourceDocument(document);
	const components = document.components as Record<string, Record<string, JsonSchema>>;
	const { schemas, parameters, responses } = components;
	for (const name of ['JobCompletedEvent', 'JobFailedEvent', 'PostPublishedEvent'])
		delete schemas[name];
	for (const [name, schema] of Object.entries(schemas)) {
		if (name in RESOURCE_TYPES) schemas[name] = resourceObject(name, schema as Schema);
		else if (name.endsWith('Request')) schemas[name] = requestDocument(name, schema as Schema);
	}
	schemas.Error = errorsDocument;
	for (const parameter of Object.values(parameters))
		if (parameter.in === 'query') parameter.name = QUERY_NAMES[String(parameter.name)];
	parameters.Limit = queryParameter(
		QUERY_NAMES.limit,
		`Items per page, default ${JSONAPI_DEFAULT_PAGE_SIZE}.`,
		{ ...integerBetween(1, MAX_PAGE_SIZE), default: JSONAPI_DEFAULT_PAGE_SIZE },
	);
	parameters.Cursor = queryParameter(QUERY_NAMES.cursor, 'The page to answer, from 1.', {
		type: 'integer',
		minimum: 1,
		default: 1,
	});
	for (const response of Object.values(responses))
		response.content = answerContent(response.content as Content);
	responses.Conflict = documentError(
		'`data.type` is not the type of this collection, or `data.id` not the id of the path.',
	);
	responses.UnsupportedMediaType = documentError(`The body is not \`${JSONAPI_MEDIA_TYPE}\`.`);
	for (const pathItem of Object.values(document.paths))
		for (const operation of Object.values(pathItem)) {
			if (operation.operationId === 'getOpenApiDocument') continue;
			for (const response of Object.values(operation.responses) as JsonSchema[])
				if (response.content) response.content = answerContent(response.content as Content);
			const body = operation.requestBody as { content: Content } | undefined;
			if (body === undefined) continue;
			body.content = { [JSONAPI_MEDIA_TYPE]: body.content['application/json'] };
			operation.responses['409'] = { $ref: '#/components/responses/Conflict' };
			operation.responses['415'] = { $ref: '#/components/responses/UnsupportedMediaType' };
		}
	for (const delivery of Object.values(document.webhooks ?? {})) {
		const post = delivery.post!;
		post.parameters = [
			{ ...(post.parameters![0] as JsonSchema), name: JSONAPI_DELIVERY_HEADERS.event },
			{
				name: JSONAPI_DELIVERY_HEADERS.signature,
				in: 'header',
				required: true,
				description:
					"The lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's secret.",
				schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
			},
		];
	}
	// Lemon Squeezy's signature is said by the deliveries' X-Signature header alone.
	const rest: Partial<OpenApiDocument> = { ...document };
	delete rest['x-webhook-signature'];
	return {
		...rest,
		info: {
			title: 'Content Publishing API (fake, JSON:API 1.1 as Lemon Squeezy)',
			version: document.info.version,
			description: `JSON:API 1.1: requests and answers are \`${JSONAPI_MEDIA_TYPE}\`.`,
		},
	} as ContractDocument;
}
