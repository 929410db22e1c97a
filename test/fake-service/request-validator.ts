import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

import {
	buildOpenApiDocument,
	type JsonSchema,
	type OpenApiOperation,
	type OpenApiPathItem,
} from './openapi';

/** What the validator reads of a document: 3.1 (`webhooks`) or 3.0 (events as `callbacks` of an operation). */
export interface ContractDocument {
	paths: Record<string, OpenApiPathItem>;
	webhooks?: Record<string, OpenApiPathItem>;
}

export interface ContractProblem {
	/** `title`, `media_urls[0]`, `body`, `query.limit` or `header.content-type` */
	field: string;
	message: string;
	/** Where, as a JSON Pointer into the request (`/query/<name>` for a parameter), where the field name is ambiguous: `body` is also a field's name. */
	pointer?: string;
}

interface RequestToValidate {
	operationId: string;
	query: Record<string, string | string[]>;
	/** Parsed JSON body; undefined when the request had none. */
	body: unknown;
	contentType?: string;
}

interface ResponseToValidate {
	operationId: string;
	status: number;
	/** Parsed JSON body; undefined when the response had none. */
	body: unknown;
	contentType?: string;
	/** When given, the documented response headers are checked too. */
	headers?: Record<string, string>;
}

export interface ContractValidator {
	validateRequest(request: RequestToValidate): ContractProblem[];
	validateResponse(response: ResponseToValidate): ContractProblem[];
	validateWebhookEvent(eventType: string, body: unknown): ContractProblem[];
}

interface CompiledOperation {
	query: ValidateFunction;
	body?: ValidateFunction;
	mediaTypes: string[];
	responses: Record<
		string,
		{ validate?: ValidateFunction; mediaType?: string; headers: CompiledHeader[] }
	>;
}

interface CompiledHeader {
	name: string;
	required: boolean;
	validate: ValidateFunction;
}

type Location = 'body' | 'query';

export function formatProblem(problem: ContractProblem): string {
	return `${problem.field}: ${problem.message}`;
}

export function createContractValidator(
	document: ContractDocument = buildOpenApiDocument(),
): ContractValidator {
	// strictRequired would reject `then: { required: [...] }` for naming properties declared by the parent.
	const options = {
		allErrors: true,
		strict: true,
		strictRequired: false,
		allowUnionTypes: true,
		verbose: true,
	};
	const ajv = new Ajv2020(options);
	// Query values arrive as strings; a separate instance coerces them so `limit=5` counts as an integer.
	const queryAjv = new Ajv2020({ ...options, coerceTypes: true });
	for (const instance of [ajv, queryAjv]) {
		addFormats(instance);
		// Annotations of OpenAPI 3.0 documents (an explanation of each enum value, Okta's spelling).
		instance.addKeyword('x-enumDescriptions');
	}

	const compile = (schema: JsonSchema) => ajv.compile(inlineRefs(schema, document) as JsonSchema);
	const operations = new Map<string, CompiledOperation>();
	for (const pathItem of Object.values(document.paths)) {
		for (const operation of Object.values(pathItem) as OpenApiOperation[]) {
			if (operation.operationId) operations.set(operation.operationId, compileOperation(operation));
		}
	}
	// 3.0 has no `webhooks`: a document describes its deliveries as callbacks of the operation that subscribes.
	const callbacks = Object.values(document.paths).flatMap((pathItem) =>
		Object.values(pathItem).flatMap((operation: OpenApiOperation) =>
			Object.entries(operation.callbacks ?? {}),
		),
	);
	const events = [
		...Object.entries(document.webhooks ?? {}),
		...callbacks.map(([name, expressions]) => [name, Object.values(expressions)[0]] as const),
	];
	const webhookEvents = new Map(
		events.map(([eventType, pathItem]) => {
			const schema = pathItem.post?.requestBody?.content['application/json']?.schema;
			return [eventType, schema ? compile(schema) : undefined];
		}),
	);

	function compileOperation(operation: OpenApiOperation): CompiledOperation {
		const queryParameters = (operation.parameters ?? [])
			.map((parameter) => inlineRefs(parameter, document) as JsonSchema)
			.filter((parameter) => parameter.in === 'query');
		const requiredQuery = queryParameters
			.filter((parameter) => parameter.required)
			.map((parameter) => parameter.name);
		const querySchema = {
			type: 'object',
			additionalProperties: false,
			properties: Object.fromEntries(
				queryParameters.map((parameter) => [parameter.name, parameter.schema]),
			),
			...(requiredQuery.length > 0 ? { required: requiredQuery } : {}),
		};
		// Every media type an operation declares shares one schema here (JSON, merge-patch, problem+json).
		const [bodySchema] = Object.values(operation.requestBody?.content ?? {}).map(
			(media) => media.schema,
		);
		const responses: CompiledOperation['responses'] = {};
		for (const [status, response] of Object.entries(operation.responses)) {
			const resolved = inlineRefs(response, document) as {
				content?: Record<string, { schema: JsonSchema }>;
				headers?: Record<string, JsonSchema>;
			};
			const [mediaType] = Object.keys(resolved.content ?? {});
			const headers = Object.entries(resolved.headers ?? {}).map(([name, header]) => ({
				name: name.toLowerCase(),
				required: header.required === true,
				validate: queryAjv.compile(header.schema as JsonSchema),
			}));
			responses[status] = {
				validate: mediaType ? ajv.compile(resolved.content![mediaType].schema) : undefined,
				mediaType,
				headers,
			};
		}
		return {
			query: queryAjv.compile(querySchema),
			body: bodySchema ? compile(bodySchema) : undefined,
			mediaTypes: Object.keys(operation.requestBody?.content ?? {}),
			responses,
		};
	}

	function operationFor(operationId: string): CompiledOperation {
		const operation = operations.get(operationId);
		if (!operation) throw new Error(`The OpenAPI document has no operation "${operationId}"`);
		return operation;
	}

	return {
		validateRequest({ operationId, query, body, contentType }) {
			const operation = operationFor(operationId);
			const problems: ContractProblem[] = [];
			if (!operation.query({ ...query }))
				problems.push(...describeErrors(operation.query.errors, 'query'));
			if (!operation.body) {
				if (body !== undefined) {
					problems.push({
						field: 'body',
						message: 'must be empty: this operation takes no request body',
						pointer: '',
					});
				}
				return problems;
			}
			if (body === undefined) {
				problems.push({ field: 'body', message: 'is required', pointer: '' });
				return problems;
			}
			if (!operation.mediaTypes.includes(mediaType(contentType) ?? '')) {
				problems.push(wrongContentType(contentType, operation.mediaTypes.join(' or ')));
			}
			if (!operation.body(body)) problems.push(...describeErrors(operation.body.errors, 'body'));
			return problems;
		},

		validateResponse({ operationId, status, body, contentType, headers }) {
			const { responses } = operationFor(operationId);
			const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find(
				(key) => key in responses,
			);
			if (!statusKey)
				return [
					{ field: 'status', message: `${status} is not a documented response of ${operationId}` },
				];
			const {
				validate,
				mediaType: documentedType,
				headers: documentedHeaders,
			} = responses[statusKey];
			const sent = Object.fromEntries(
				Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
			);
			const problems =
				headers === undefined
					? []
					: documentedHeaders.flatMap(({ name, required, validate: check }): ContractProblem[] => {
							if (sent[name] === undefined)
								return required ? [{ field: `header.${name}`, message: 'is required' }] : [];
							return check(sent[name])
								? []
								: [
										{
											field: `header.${name}`,
											message: `${JSON.stringify(sent[name])} ${check.errors?.[0]?.message ?? 'is invalid'}`,
										},
									];
						});
			if (!validate)
				return body === undefined
					? problems
					: [...problems, { field: 'body', message: `must be empty for a ${status} response` }];
			if (mediaType(contentType) !== documentedType)
				return [...problems, wrongContentType(contentType, documentedType)];
			return validate(body) ? problems : [...problems, ...describeErrors(validate.errors, 'body')];
		},

		validateWebhookEvent(eventType, body) {
			const validate = webhookEvents.get(eventType);
			if (!validate)
				return [{ field: 'type', message: `"${eventType}" is not a documented event` }];
			return validate(body) ? [] : describeErrors(validate.errors, 'body');
		},
	};
}

function wrongContentType(
	contentType: string | undefined,
	expected = 'application/json',
): ContractProblem {
	return {
		field: 'header.content-type',
		message: `must be ${expected} (got "${contentType ?? ''}")`,
	};
}

function mediaType(contentType: string | undefined): string | undefined {
	return contentType?.split(';')[0].trim().toLowerCase();
}

const unescapePointerSegment = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function resolvePointer(document: ContractDocument, pointer: string): JsonSchema {
	if (!pointer.startsWith('#/'))
		throw new Error(`Only local $refs are supported, got "${pointer}"`);
	const target = pointer
		.slice(2)
		.split('/')
		.map(unescapePointerSegment)
		.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
	if (target === undefined) throw new Error(`Unresolvable $ref "${pointer}"`);
	return target as JsonSchema;
}

// The document has no recursive schemas, so inlining every $ref lets ajv compile each schema on its own.
function inlineRefs(node: unknown, document: ContractDocument): unknown {
	if (Array.isArray(node)) return node.map((item) => inlineRefs(item, document));
	if (node === null || typeof node !== 'object') return node;
	const { $ref, ...rest } = node as JsonSchema;
	if (typeof $ref === 'string')
		return inlineRefs({ ...resolvePointer(document, $ref), ...rest }, document);
	return Object.fromEntries(
		Object.entries(rest).map(([key, value]) => [key, inlineRefs(value, document)]),
	);
}

function describeErrors(
	errors: ErrorObject[] | null | undefined,
	location: Location,
): ContractProblem[] {
	const allErrors = errors ?? [];
	// A failed anyOf/oneOf also reports every failed branch; one summary per combinator reads better.
	const combinatorPaths = allErrors
		.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')
		.map((error) => `${error.schemaPath}/`);
	return allErrors
		.filter(
			(error) =>
				error.keyword !== 'if' &&
				!combinatorPaths.some((path) => error.schemaPath.startsWith(path)),
		)
		.map((error) => ({ ...describeError(error, location), pointer: pointerOf(error, location) }));
}

function pointerOf({ instancePath, keyword, params }: ErrorObject, location: Location): string {
	const property = (params as Record<string, unknown>)[
		keyword === 'required' ? 'missingProperty' : 'additionalProperty'
	];
	const named = keyword === 'required' || keyword === 'additionalProperties';
	const path = named
		? `${instancePath}/${String(property).replace(/~/g, '~0').replace(/\//g, '~1')}`
		: instancePath;
	return location === 'query' ? `/query${path}` : path;
}

function describeError(error: ErrorObject, location: Location): ContractProblem {
	const params = error.params as Record<string, unknown>;
	const at = (property?: string) => fieldName(error.instancePath, property, location);
	switch (error.keyword) {
		case 'required': {
			// A `then` schema's description states its rule, e.g. 'is required when status is "scheduled"'.
			const rule = error.schemaPath.includes('/then/')
				? (error.parentSchema as JsonSchema | undefined)?.description
				: undefined;
			return {
				field: at(String(params.missingProperty)),
				message: typeof rule === 'string' ? rule : 'is required',
			};
		}
		case 'additionalProperties':
			return {
				field: at(String(params.additionalProperty)),
				message:
					location === 'query' ? 'is not a parameter of this operation' : 'is not a known property',
			};
		case 'enum':
			return {
				field: at(),
				message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`,
			};
		case 'format':
			return { field: at(), message: `must be a valid ${String(params.format)}` };
		case 'minProperties': {
			const limit = Number(params.limit);
			return {
				field: at(),
				message: `must have at least ${limit} ${limit === 1 ? 'property' : 'properties'}`,
			};
		}
		case 'anyOf': {
			const branches = error.schema as JsonSchema[];
			const alternatives = branches.flatMap(
				(branch) => (branch.required as string[] | undefined) ?? [],
			);
			if (alternatives.length === 0) return { field: at(), message: error.message ?? 'is invalid' };
			return { field: at(), message: `must include at least one of: ${alternatives.join(', ')}` };
		}
		default:
			return { field: at(), message: error.message ?? `fails ${error.keyword}` };
	}
}

function fieldName(instancePath: string, property: string | undefined, location: Location): string {
	const segments = instancePath.split('/').slice(1).map(unescapePointerSegment);
	if (property !== undefined) segments.push(property);
	const path = segments.reduce((joined, segment) => {
		if (/^\d+$/.test(segment)) return `${joined}[${segment}]`;
		return joined === '' ? segment : `${joined}.${segment}`;
	}, '');
	if (location === 'query') return `query.${path}`;
	return path === '' ? 'body' : path;
}
