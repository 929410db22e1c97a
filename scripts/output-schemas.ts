/**
 * The output schemas n8n's editor shows before a node has run (it asks for
 * `__schema__/v<version>/<resource>/<operation>.json` beside the node's file). They are made at
 * build time from the bundled fake service's OpenAPI document, so they describe the built-in
 * conventions; test/node/output-schemas.test.ts checks them against what each operation outputs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import {
	buildOpenApiDocument,
	type JsonSchema,
	type OpenApiDocument,
} from '../test/fake-service/openapi';

/** n8n pads the node's version to three parts in the schema path. */
export const SCHEMA_VERSION = 'v1.0.0';

type Output =
	| { endpoint: string }
	| { list: string }
	| { job: string | 'any' }
	| { deleted: true }
	| { describe: true };

/** What each operation outputs per item, in terms of the document's operations and schemas. */
export const OPERATION_OUTPUTS: Record<string, Record<string, Output>> = {
	account: { get: { endpoint: 'getAccount' } },
	page: { get: { endpoint: 'getPage' }, getMany: { list: 'listPages' } },
	post: {
		create: { endpoint: 'createPost' },
		get: { endpoint: 'getPost' },
		getMany: { list: 'listPosts' },
		update: { endpoint: 'updatePost' },
		delete: { deleted: true },
	},
	// With Wait for Completion on (the default), the finished job, its result in the kind's shape.
	content: {
		generateBlog: { job: 'BlogResult' },
		generateLinkedin: { job: 'LinkedinResult' },
		generateTwitter: { job: 'TwitterResult' },
		generateCarousel: { job: 'CarouselResult' },
		generateVideo: { job: 'VideoResult' },
	},
	publication: {
		publishLinkedin: { job: 'PublishResult' },
		publishTwitter: { job: 'PublishResult' },
	},
	job: { get: { job: 'any' }, wait: { job: 'any' } },
	service: { describe: { describe: true } },
	webhook: {
		create: { endpoint: 'createWebhook' },
		get: { endpoint: 'getWebhook' },
		getMany: { list: 'listWebhooks' },
		update: { endpoint: 'updateWebhook' },
		delete: { deleted: true },
	},
};

function isRecord(value: unknown): value is JsonSchema {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A schema with every `$ref` replaced by what it names: the editor reads no references. */
function inline(document: OpenApiDocument, schema: unknown): JsonSchema {
	if (Array.isArray(schema))
		return schema.map((entry) => inline(document, entry)) as unknown as JsonSchema;
	if (!isRecord(schema)) return schema as JsonSchema;
	if (typeof schema.$ref === 'string') {
		const name = schema.$ref.replace('#/components/schemas/', '');
		return inline(document, (document.components?.schemas as Record<string, JsonSchema>)[name]);
	}
	return Object.fromEntries(
		Object.entries(schema).map(([key, value]) => [key, inline(document, value)]),
	);
}

function component(document: OpenApiDocument, name: string): JsonSchema {
	return inline(document, { $ref: `#/components/schemas/${name}` });
}

function successSchema(document: OpenApiDocument, operationId: string): JsonSchema {
	for (const pathItem of Object.values(document.paths)) {
		for (const operation of Object.values(pathItem ?? {})) {
			if (operation?.operationId !== operationId) continue;
			const [, response] =
				Object.entries(operation.responses).find(([status]) => status.startsWith('2')) ?? [];
			const schema = (response as { content?: Record<string, { schema?: JsonSchema }> } | undefined)
				?.content?.['application/json']?.schema;
			if (schema) return inline(document, schema);
		}
	}
	throw new Error(`The document has no JSON answer for ${operationId}`);
}

/**
 * A finished job as the node outputs it: a null `error` is left out of success items, and Job →
 * Get outputs a failed job's error as `serviceError`.
 */
function jobSchema(document: OpenApiDocument, result: string): JsonSchema {
	const job = component(document, 'Job');
	const { error, ...properties } = job.properties as Record<string, JsonSchema>;
	const resultSchema =
		result === 'any'
			? {
					type: ['object', 'null'],
					description: "The job's result once it succeeded; its shape depends on the job type.",
				}
			: component(document, result);
	return {
		...job,
		required: (job.required as string[]).filter((name) => name !== 'error'),
		properties: {
			...properties,
			result: resultSchema,
			...(result === 'any' ? { serviceError: (error.oneOf as JsonSchema[])[0] } : {}),
		},
	};
}

/** Service → Describe: the profile in use, in words and as data. */
const DESCRIBE_SCHEMA: JsonSchema = {
	type: 'object',
	additionalProperties: false,
	required: ['source', 'summary', 'summaryByResource', 'notFollowed', 'profile'],
	properties: {
		source: {
			type: 'string',
			description: 'Where the profile was read from: the document, or built-in.',
		},
		summary: {
			type: 'array',
			items: { type: 'string' },
			description: 'A line per decision: what was not followed first, then each resource.',
		},
		summaryByResource: {
			type: 'object',
			additionalProperties: { type: 'array', items: { type: 'string' } },
			description: 'The same lines, grouped: Not followed, Service, Account, … Job, Webhook.',
		},
		notFollowed: {
			type: 'array',
			items: {
				type: 'object',
				required: ['part', 'why'],
				properties: { part: { type: 'string' }, why: { type: 'string' } },
			},
		},
		profile: {
			type: 'object',
			description: "The profile itself, whose parts the credential's Profile Overrides can set.",
		},
	},
};

export function outputSchema(document: OpenApiDocument, output: Output): JsonSchema {
	if ('describe' in output) return DESCRIBE_SCHEMA;
	if ('deleted' in output) {
		return {
			type: 'object',
			additionalProperties: false,
			required: ['id', 'deleted'],
			properties: { id: { type: 'string' }, deleted: { type: 'boolean', const: true } },
		};
	}
	if ('job' in output) return jobSchema(document, output.job);
	if ('list' in output)
		return (successSchema(document, output.list).properties as Record<string, JsonSchema>).data
			.items as JsonSchema;
	return successSchema(document, output.endpoint);
}

/** A job as Simplify outputs it, on every service (docs/operations.md, Outputs: Simplify). */
function simplifiedJobSchema(document: OpenApiDocument, result: string): JsonSchema {
	const { error } = component(document, 'Job').properties as Record<string, JsonSchema>;
	return {
		type: 'object',
		additionalProperties: false,
		required: ['id', 'status', 'serviceStatus', 'result'],
		properties: {
			id: {
				type: ['string', 'null'],
				description: "The job's id; null for a result answered at once.",
			},
			status: {
				enum: ['pending', 'scheduled', 'succeeded', 'failed'],
				description: "The job's state in the node's words.",
			},
			serviceStatus: {
				type: ['string', 'null'],
				description: "The service's word for it (`done` or `not done` for a completion flag).",
			},
			result:
				result === 'any'
					? {
							type: ['object', 'null'],
							description: "The job's result once it succeeded; its shape depends on the job type.",
						}
					: component(document, result),
			serviceError: (error.oneOf as JsonSchema[])[0],
		},
	};
}

/**
 * What an operation outputs with Simplify on. A resource on the built-in conventions is already
 * its id and its fields; a job becomes `{id, status, serviceStatus, result}`. Not shipped: n8n's
 * editor previews one schema per operation, the default output's.
 */
export function simplifiedSchema(document: OpenApiDocument, output: Output): JsonSchema {
	return 'job' in output
		? simplifiedJobSchema(document, output.job)
		: outputSchema(document, output);
}

/**
 * The trigger's item: the event, and the job with its result, the post, or the event's data. The
 * job is as the delivery carries it, `error` included.
 */
export function triggerSchema(document: OpenApiDocument): JsonSchema {
	const job = component(document, 'Job');
	const jobProperties = job.properties as Record<string, JsonSchema>;
	const jobError = (jobProperties.error.oneOf as JsonSchema[])[0];
	const anyResult = {
		type: ['object', 'null'],
		description: "The job's result once it succeeded; its shape depends on the job type.",
	};
	return {
		type: 'object',
		additionalProperties: false,
		required: ['event', 'eventId', 'createdAt'],
		properties: {
			event: { type: 'string', description: "The event's type, such as job.completed." },
			eventId: { type: 'string' },
			createdAt: { type: 'string', format: 'date-time' },
			job: {
				...job,
				properties: {
					...jobProperties,
					result: anyResult,
					error: { ...jobError, type: ['object', 'null'] },
				},
			},
			result: anyResult,
			post: component(document, 'Post'),
			data: {
				type: 'object',
				description: "The event's data, when it holds neither a job nor a post.",
			},
			headers: {
				type: 'object',
				description: "The delivery's HTTP headers (Options → Include Headers).",
			},
		},
	};
}

/**
 * Writes every operation's schema below the action node's folder, and the trigger's (which has no
 * resource or operation) below the trigger's.
 */
export function writeOutputSchemas(nodeFolder: string, triggerFolder: string): number {
	const document = buildOpenApiDocument();
	mkdirSync(path.join(triggerFolder, '__schema__'), { recursive: true });
	writeFileSync(
		path.join(triggerFolder, '__schema__', `${SCHEMA_VERSION}.json`),
		`${JSON.stringify(triggerSchema(document), null, 2)}\n`,
	);
	let written = 1;
	for (const [resource, operations] of Object.entries(OPERATION_OUTPUTS)) {
		for (const [operation, output] of Object.entries(operations)) {
			const folder = path.join(nodeFolder, '__schema__', SCHEMA_VERSION, resource);
			mkdirSync(folder, { recursive: true });
			writeFileSync(
				path.join(folder, `${operation}.json`),
				`${JSON.stringify(outputSchema(document, output), null, 2)}\n`,
			);
			written++;
		}
	}
	return written;
}
