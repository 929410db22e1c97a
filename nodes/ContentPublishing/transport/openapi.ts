import type { IDataObject } from 'n8n-workflow';

/** A JSON Schema or OpenAPI object, read as plain data. */
export type Schema = IDataObject;

export interface OpenApiDocument {
	openapi: string;
	paths: Record<string, IDataObject>;
	webhooks?: Record<string, IDataObject>;
	components?: IDataObject;
}

export interface ObjectShape {
	properties: Record<string, Schema>;
	required: string[];
	/** Whether properties other than the listed ones are refused (`additionalProperties: false`). */
	closed: boolean;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function isOpenApiDocument(value: unknown): value is OpenApiDocument {
	return isRecord(value) && typeof value.openapi === 'string' && value.openapi.startsWith('3') && isRecord(value.paths);
}

/** Follows local `$ref`s (`#/components/...`); a reference that leads nowhere reads as no schema. */
export function deref(document: OpenApiDocument, value: unknown): Schema | undefined {
	let current = value;
	for (let hops = 0; isRecord(current) && typeof current.$ref === 'string'; hops++) {
		if (hops === 20 || !current.$ref.startsWith('#/')) return undefined;
		let target: unknown = document;
		for (const part of current.$ref.slice(2).split('/')) {
			const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
			target = isRecord(target) ? target[key] : undefined;
		}
		current = target;
	}
	return isRecord(current) ? current : undefined;
}

/** The object a schema describes, with `allOf` parts merged; undefined when it is not an object. */
export function objectShape(document: OpenApiDocument, value: unknown, depth = 0): ObjectShape | undefined {
	const schema = deref(document, value);
	if (schema === undefined || depth > 10) return undefined;
	const shape: ObjectShape = { properties: {}, required: [], closed: schema.additionalProperties === false };
	let isObject = isRecord(schema.properties) || typesOf(schema).includes('object');
	for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
		const partShape = objectShape(document, part, depth + 1);
		if (partShape === undefined) continue;
		isObject = true;
		Object.assign(shape.properties, partShape.properties);
		shape.required.push(...partShape.required);
		shape.closed ||= partShape.closed;
	}
	if (!isObject) return undefined;
	for (const [name, property] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) {
		shape.properties[name] = deref(document, property) ?? {};
	}
	if (Array.isArray(schema.required)) shape.required.push(...schema.required.map(String));
	return shape;
}

export function typesOf(schema: Schema | undefined): string[] {
	if (schema === undefined) return [];
	if (Array.isArray(schema.type)) return schema.type.map(String);
	return typeof schema.type === 'string' ? [schema.type] : [];
}

/** A schema's allowed string values: its enum or const, also inside `oneOf`/`anyOf` (nullable forms). */
export function enumValues(document: OpenApiDocument, value: unknown): string[] | undefined {
	const schema = deref(document, value);
	if (schema === undefined) return undefined;
	if (Array.isArray(schema.enum)) return schema.enum.filter((entry) => typeof entry === 'string') as string[];
	if (typeof schema.const === 'string') return [schema.const];
	for (const key of ['oneOf', 'anyOf']) {
		const variants = Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [];
		const values = variants.flatMap((variant) => enumValues(document, variant) ?? []);
		if (values.length > 0) return values;
	}
	return undefined;
}

/** The operation's parameters, path-level ones included, by where they go. */
export function parametersOf(
	document: OpenApiDocument,
	pathItem: IDataObject,
	operation: IDataObject,
	location: 'query' | 'header',
): Record<string, Schema> {
	const found: Record<string, Schema> = {};
	const all = [
		...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
		...(Array.isArray(operation.parameters) ? operation.parameters : []),
	];
	for (const entry of all) {
		const parameter = deref(document, entry);
		if (parameter?.in === location && typeof parameter.name === 'string') {
			found[parameter.name] = { ...(deref(document, parameter.schema) ?? {}), description: parameter.description ?? '' };
		}
	}
	return found;
}

/** The JSON schema and media type of a response or request body. */
export function jsonContent(document: OpenApiDocument, value: unknown): { mediaType: string; schema?: Schema } | undefined {
	const holder = deref(document, value);
	const content = isRecord(holder?.content) ? holder.content : undefined;
	if (content === undefined) return undefined;
	const mediaType = Object.keys(content).find((type) => /^application\/([\w.-]+\+)?json\b/i.test(type));
	if (mediaType === undefined) return undefined;
	const media = content[mediaType] as IDataObject;
	return { mediaType, schema: isRecord(media) ? deref(document, media.schema) : undefined };
}

/** The success answer of an operation: its status and JSON content, if it has any. */
export function successResponse(
	document: OpenApiDocument,
	operation: IDataObject,
): { status: string; mediaType?: string; schema?: Schema } | undefined {
	const responses = isRecord(operation.responses) ? operation.responses : {};
	const status = Object.keys(responses)
		.filter((code) => /^2(\d\d|XX)$/i.test(code))
		.sort()[0];
	if (status === undefined) return undefined;
	const content = jsonContent(document, responses[status]);
	return { status, mediaType: content?.mediaType, schema: content?.schema };
}

/** Lower case without separators: `page_id`, `pageId` and `Page-ID` read alike. */
export function normalizeName(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The first sentence of a description, lower case. */
export function firstSentence(schema: Schema | undefined): string {
	const text = typeof schema?.description === 'string' ? schema.description : '';
	return text.split(/(?<=[.!?])\s/)[0].toLowerCase();
}
