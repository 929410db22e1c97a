import { MASKED_SECRET } from './envelope-document';
import type { JsonSchema, OpenApiPathItem } from './openapi';
import {
	atLeastOneOf,
	BLOG_LENGTHS,
	closedObject as closed,
	dateTime,
	deliveryObject,
	described,
	everyProperty,
	GENERATION_OPTIONS,
	headerParameter as header,
	integerBetween as between,
	JOB_TYPES,
	errorResponse,
	nonEmptyText as nonEmpty,
	oneOfValues,
	openApi30Document,
	operationObject,
	orNull,
	PAGE_PLATFORMS,
	parameterRef,
	POST_STATUSES,
	RESULT_FIELDS,
	RETRY_AFTER_HEADER,
	queryParameter as query,
	schemaRef as ref,
	text,
	uri,
	WEBHOOK_MAX_ATTEMPTS,
	responseRef,
	capitalized,
} from './openapi';
import type { ContractDocument } from './request-validator';

/**
 * The OpenAPI 3.0.3 document of the nested profile (nested.ts): the same service, every open point
 * decided after a real, published API, each stated the way that API's own document or reference
 * states it:
 *
 * - Replicate predictions (`POST /v1/predictions {version, input}`): a generation's content inputs
 *   sit in an `input` object, its options beside it.
 * - GitHub repository webhooks (`POST /repos/{owner}/{repo}/hooks`): registration settings in
 *   `config {url, content_type, secret}`, the secret answered as `********`; the event names
 *   explained only in the prose of `events`; deliveries signed `X-Hub-Signature-256` over the raw
 *   body, no timestamp, with `X-GitHub-Event`, `X-GitHub-Delivery` and `X-GitHub-Hook-ID`.
 * - Box object references (`POST /folders {name, parent: {id}}`, mini objects `{type, id}`).
 * - Stripe: an update is a POST to the resource's own path (`PostCustomersCustomer`, "Update a
 *   customer"), operation ids made of method and path, `""` to unset a field.
 * - Google long-running operations (AIP-151, `google.longrunning.Operation`): a job is an Operation
 *   with `done`, `metadata`, and `response` or `error`; generations and publications answer it (200).
 * - Slack Web API cursor paging: `limit` and `cursor`, answers `{ok, <items>, response_metadata:
 *   {next_cursor}}`, `next_cursor` empty at the end.
 * - Google AIP-193 errors: `{error: {code, message, status, details}}` with `ErrorInfo` and
 *   `BadRequest.fieldViolations`.
 * - X API v2 tweets as objects (`POST /2/tweets {text}`): a thread is `tweets: [{text}]`.
 */

// GitHub subscribes by event name; these are the only ones, explained in prose (see EVENTS_PROSE).
export const NESTED_EVENTS = {
	'job.completed': 'generation.succeeded',
	'job.failed': 'generation.failed',
	'post.published': 'post.published',
} as const;
// GitHub's `action` in the body, beside the event name in X-GitHub-Event.
export const ACTIONS = {
	'job.completed': 'succeeded',
	'job.failed': 'failed',
	'post.published': 'published',
} as const;
export const DELIVERY_HEADERS = {
	hook: 'X-GitHub-Hook-ID',
	event: 'X-GitHub-Event',
	delivery: 'X-GitHub-Delivery',
	signature: 'X-Hub-Signature-256',
	agent: 'User-Agent',
} as const;
// GitHub's User-Agent is `GitHub-Hookshot/<short commit>`; this service names itself the same way.
export const USER_AGENT_PREFIX = 'Content-Publishing-Hookshot/';
// Slack recommends no more than 200 results at a time.
const NESTED_MAX_LIMIT = 200;
export const NESTED_DEFAULT_LIMIT = 100;
// The type URLs of google.protobuf.Any, as Google's JSON carries them in `@type`.
const TYPE_URL = 'type.googleapis.com/';
export const METADATA_TYPE = `${TYPE_URL}contentpublishing.v1.OperationMetadata`;
export const ERROR_INFO_TYPE = `${TYPE_URL}google.rpc.ErrorInfo`;
export const BAD_REQUEST_TYPE = `${TYPE_URL}google.rpc.BadRequest`;
export const ERROR_DOMAIN = 'content-publishing.example';
// AIP-151: the response of method Xxx is XxxResponse (generate.blog → GenerateBlogResponse).
export const responseType = (jobType: string) =>
	`${TYPE_URL}contentpublishing.v1.${jobType.split('.').map(capitalized).join('')}Response`;
// google.rpc.Code, by the HTTP status of an API error (AIP-193's mapping; 405 has none, UNIMPLEMENTED is nearest).
export const STATUS_OF_HTTP: Record<number, string> = {
	400: 'INVALID_ARGUMENT',
	401: 'UNAUTHENTICATED',
	403: 'PERMISSION_DENIED',
	404: 'NOT_FOUND',
	405: 'UNIMPLEMENTED',
	429: 'RESOURCE_EXHAUSTED',
	500: 'INTERNAL',
	503: 'UNAVAILABLE',
	504: 'DEADLINE_EXCEEDED',
};
// google.rpc.Code numbers of a failed job's error: 5 NOT_FOUND, 13 INTERNAL, 2 UNKNOWN for anything else.
export const RPC_CODES: Record<string, number> = { post_not_found: 5, generation_failed: 13 };
export const UNKNOWN_RPC_CODE = 2;

const EVENT_NAMES: string[] = Object.values(NESTED_EVENTS);
const EVENTS_PROSE =
	'Determines what events the hook is triggered for. `generation.succeeded` is sent when a generation or publishing job (a blog post, LinkedIn post, Twitter thread, carousel or video, or a publication to LinkedIn or Twitter) finishes successfully, and its delivery carries the finished Operation with its `response`; `generation.failed` is sent when such a job fails, and the Operation then carries its `error` instead; `post.published` is sent once a post is live on its network, whether a publishing job or an update of the post published it, and its delivery carries the Post.';

// Stripe: a parameter that can be unset also takes the empty string.
const emptyString: JsonSchema = { type: 'string', enum: [''] };
const orEmpty = (schema: JsonSchema, description: string): JsonSchema => ({
	anyOf: [schema, emptyString],
	description,
});

// Box: a request names an object by `{id}` (its `type` may come along); an answer has its mini object.
const reference = (kind: string, description: string): JsonSchema =>
	closed(
		{
			type: described(oneOfValues([kind]), `\`${kind}\``),
			id: described(nonEmpty, `The ID of the ${kind}.`),
		},
		['id'],
		{ description },
	);
const mini = (kind: string): JsonSchema => ({
	...everyProperty({
		type: described(oneOfValues([kind]), `\`${kind}\``),
		id: described(text, `The unique identifier that represents a ${kind}.`),
	}),
	description: `A mini representation of a ${kind}, used when nested under another resource.`,
});

const postWriteFields: Record<string, JsonSchema> = {
	content: described(nonEmpty, 'The text of the post.'),
	title: described(text, 'The title of the post.'),
	page: reference('page', 'The page to create the post within.'),
	status: described(
		{ ...oneOfValues(POST_STATUSES), default: 'draft' },
		'`draft`, `scheduled` (then `scheduled_at` is required, 400 otherwise) or `published`.',
	),
	scheduled_at: described(dateTime, 'When a `scheduled` post goes out.'),
	tags: described({ type: 'array', items: text }, 'Tags shown with the post.'),
	media_urls: described({ type: 'array', items: uri }, 'Images or videos attached to the post.'),
};

// Replicate's description of `input`, for this service.
const INPUT_DESCRIPTION =
	"The generation's input as a JSON object: what to write from, and in which tone and language. The options of the output (its length, thread length, slide count, duration) are beside it.";
const inputFields: Record<string, JsonSchema> = {
	prompt: described(nonEmpty, 'What to write about.'),
	source_text: described(nonEmpty, 'Text to adapt.'),
	source_post: reference('post', 'An existing post to adapt.'),
	tone: described(text, 'Tone of voice, such as `friendly`.'),
	language: described(text, 'Language to write in, as a BCP 47 tag such as `en`.'),
};
const forPage = reference('page', 'The page the content is for.');
const fromSources = (options: Record<string, JsonSchema> = {}): JsonSchema =>
	closed(
		{
			input: closed(inputFields, [], {
				...atLeastOneOf(['prompt', 'source_text', 'source_post']),
				description: `${INPUT_DESCRIPTION} At least one of \`prompt\`, \`source_text\` and \`source_post\`.`,
			}),
			...options,
			page: forPage,
		},
		['input'],
	);

const publishFields: Record<string, JsonSchema> = {
	post: reference('post', 'An existing post to publish.'),
	text: described(nonEmpty, 'Text to publish as a new post.'),
	page: reference('page', 'The page to publish on.'),
	scheduled_at: described(
		dateTime,
		'Recorded on the post; the post is published when the operation is done.',
	),
};

const webhookConfig = (required: string[], description: string): JsonSchema =>
	closed(
		{
			url: described(
				uri,
				'The URL to which the payloads will be delivered. (This service only ever delivers to loopback hosts.)',
			),
			content_type: described(
				{ ...oneOfValues(['json']), default: 'json' },
				'The media type used to serialize the payloads. The only supported value is `json`, which is also the default.',
			),
			// GitHub's webhook-config-secret, word for word.
			secret: described(
				text,
				'If provided, the `secret` will be used as the `key` to generate the HMAC hex digest value for delivery signature headers.',
			),
		},
		required,
		{ description },
	);
const webhookWriteFields: Record<string, JsonSchema> = {
	active: described(
		{ type: 'boolean', default: true },
		'Determines if notifications are sent when the webhook is triggered. Set to `true` to send notifications.',
	),
	events: described(
		{ type: 'array', minItems: 1, uniqueItems: true, items: oneOfValues(EVENT_NAMES) },
		EVENTS_PROSE,
	),
	description: described(text, 'A description of the webhook, shown in lists.'),
	config: webhookConfig(['url'], 'Key/value pairs to provide settings for this webhook.'),
};

/** The response of each kind of job: its fields, and those it may leave out. */
const RESPONSES: Array<[string, Record<string, JsonSchema>, string[]?]> = [
	['generate.blog', { title: text, content: described(text, 'Markdown.'), summary: text }],
	['generate.linkedin', { content: text }],
	[
		'generate.twitter',
		{
			tweets: {
				type: 'array',
				minItems: 1,
				maxItems: 25,
				items: everyProperty({ text: { type: 'string', maxLength: 280 } }),
				description:
					'The thread, one object per tweet, as `tweets` of Publish to Twitter takes it.',
			},
		},
	],
	['generate.carousel', RESULT_FIELDS.carousel],
	['generate.video', RESULT_FIELDS.video],
	...(['linkedin', 'twitter'] as const).map(
		(platform): [string, Record<string, JsonSchema>, string[]] => [
			`publish.${platform}`,
			{
				platform: oneOfValues([platform]),
				post: ref('Post--Mini'),
				url: described(
					uri,
					'The address of the published post (of its first tweet, for a thread).',
				),
				published_at: dateTime,
				...(platform === 'twitter'
					? {
							thread_urls: described(
								{ type: 'array', items: uri },
								'Only for a thread: the address of each of its tweets, in order.',
							),
						}
					: {}),
			},
			['thread_urls'],
		],
	),
];
const responseName = (jobType: string) => responseType(jobType).split('.').at(-1) as string;

const status = (codeDescription: string, code: JsonSchema): JsonSchema =>
	closed(
		{
			code: described(code, codeDescription),
			message: described(text, 'A developer-facing error message, which should be in English.'),
			status: described(
				oneOfValues([...new Set([...Object.values(STATUS_OF_HTTP), 'UNKNOWN'])]),
				'The google.rpc.Code name of the error.',
			),
			details: described(
				{ type: 'array', items: { oneOf: [ref('ErrorInfo'), ref('BadRequest')] } },
				'A list of messages that carry the error details. There is a common set of message types for APIs to use.',
			),
		},
		['code', 'message', 'status', 'details'],
	);
const operationStatus: JsonSchema = closed(
	{
		code: described(
			between(1, 16),
			'The status code, which should be an enum value of google.rpc.Code: 5 (NOT_FOUND) when the post to publish was deleted first, 13 (INTERNAL) when the model could not produce content, 2 (UNKNOWN) otherwise.',
		),
		message: described(text, 'A developer-facing error message, which should be in English.'),
		details: described(
			{ type: 'array', items: ref('ErrorInfo') },
			'A list of messages that carry the error details; here an `ErrorInfo` whose `reason` names the cause.',
		),
	},
	['code', 'message', 'details'],
	{
		description:
			'The `Status` type defines a logical error model that is suitable for different programming environments, including REST APIs and RPC APIs.',
	},
);

const schemas: Record<string, JsonSchema> = {
	// AIP-193: the HTTP mapping of google.rpc.Status.
	Error: closed(
		{
			error: status('The HTTP status code of the answer.', {
				type: 'integer',
				minimum: 400,
				maximum: 599,
			}),
		},
		['error'],
	),
	ErrorInfo: closed(
		{
			'@type': oneOfValues([ERROR_INFO_TYPE]),
			reason: described(
				{ type: 'string', pattern: '^[A-Z][A-Z0-9_]+[A-Z0-9]$' },
				'The reason of the error. This is a constant value that identifies the proximate cause of the error.',
			),
			domain: described(
				oneOfValues([ERROR_DOMAIN]),
				'The logical grouping to which the "reason" belongs.',
			),
		},
		['@type', 'reason', 'domain'],
		{ description: 'Describes the cause of the error with structured details.' },
	),
	BadRequest: closed(
		{
			'@type': oneOfValues([BAD_REQUEST_TYPE]),
			fieldViolations: described(
				{
					type: 'array',
					minItems: 1,
					items: everyProperty({
						field: described(
							text,
							'A path that leads to a field in the request body (`input.text`, `tweets[0].text`, `page.id`) or the name of a query parameter (`limit`); empty when the request as a whole is at fault.',
						),
						description: described(text, 'A description of why the request element is bad.'),
					}),
				},
				'Describes all violations in a client request.',
			),
		},
		['@type', 'fieldViolations'],
		{
			description:
				'Describes violations in a client request. This error type focuses on the syntactic aspects of the request.',
		},
	),
	Account: everyProperty({
		id: text,
		email: { type: 'string', format: 'email' },
		name: text,
		plan: text,
		created_at: dateTime,
	}),
	'Page--Mini': mini('page'),
	'Post--Mini': mini('post'),
	Page: everyProperty({
		type: described(oneOfValues(['page']), '`page`'),
		id: described(text, 'The unique identifier that represents a page.'),
		name: text,
		platform: oneOfValues(PAGE_PLATFORMS),
		url: uri,
		created_at: dateTime,
	}),
	Post: everyProperty({
		type: described(oneOfValues(['post']), '`post`'),
		id: described(text, 'The unique identifier that represents a post.'),
		// 3.0 ignores siblings of $ref, so the nullable page is the mini object written out.
		page: { ...mini('page'), nullable: true, description: 'The page the post belongs to, if any.' },
		title: orNull(text),
		content: text,
		status: oneOfValues(POST_STATUSES),
		tags: { type: 'array', items: text },
		media_urls: { type: 'array', items: uri },
		scheduled_at: orNull(dateTime),
		published_at: orNull(dateTime),
		created_at: dateTime,
		updated_at: dateTime,
	}),
	PostCreate: closed(postWriteFields, ['content']),
	PostUpdate: closed(
		{
			...postWriteFields,
			title: orEmpty(postWriteFields.title, 'The title of the post; an empty string removes it.'),
			page: orEmpty(
				reference('page', 'The page to move the post to.'),
				'The page of the post; an empty string takes the post off its page.',
			),
			scheduled_at: orEmpty(
				dateTime,
				'When a `scheduled` post goes out; an empty string removes it.',
			),
		},
		[],
	),
	BlogRequest: closed(
		{
			input: closed(
				{
					text: described(nonEmpty, 'The transcript to write the blog post from.'),
					tone: inputFields.tone,
					language: inputFields.language,
				},
				['text'],
				{ description: INPUT_DESCRIPTION },
			),
			title: described(text, 'A title to use instead of a generated one.'),
			length: described(oneOfValues(BLOG_LENGTHS), 'The length of the blog post.'),
			page: forPage,
		},
		['input'],
	),
	LinkedinRequest: fromSources(),
	TwitterRequest: fromSources({
		thread_length: described(
			GENERATION_OPTIONS.threadLength,
			'The number of tweets in the thread.',
		),
	}),
	CarouselRequest: fromSources({
		slide_count: described(GENERATION_OPTIONS.slideCount, 'The number of slides.'),
	}),
	VideoRequest: fromSources({
		duration_seconds: described(
			GENERATION_OPTIONS.durationSeconds,
			'The length of the video, in seconds.',
		),
		aspect_ratio: described(GENERATION_OPTIONS.aspectRatio, 'The aspect ratio of the video.'),
	}),
	PublishLinkedinRequest: closed(publishFields, [], {
		...atLeastOneOf(['post', 'text']),
		description: 'Publishes an existing `post`, or `text` as a new post.',
	}),
	PublishTwitterRequest: closed(
		{
			...publishFields,
			tweets: described(
				{
					type: 'array',
					minItems: 1,
					maxItems: 25,
					items: closed(
						{ text: described({ ...nonEmpty, maxLength: 280 }, 'The text of the tweet.') },
						['text'],
					),
				},
				'A thread: one object per tweet, in order, each published as a reply to the one before. The new post holds the texts, a blank line between them.',
			),
		},
		[],
		{
			...atLeastOneOf(['post', 'text', 'tweets']),
			description:
				'Publishes an existing `post`, `text` as a new post, or a thread of `tweets`: exactly one of the three (400 otherwise).',
		},
	),
	OperationMetadata: closed(
		{
			'@type': oneOfValues([METADATA_TYPE]),
			type: described(oneOfValues(JOB_TYPES), 'What the operation does.'),
			progress: described(between(0, 100), 'Percent done.'),
			create_time: described(dateTime, 'The time the operation was created.'),
			update_time: described(dateTime, 'The time the operation last changed.'),
			end_time: described(dateTime, 'The time the operation finished; only when `done`.'),
		},
		['@type', 'type', 'progress', 'create_time', 'update_time'],
	),
	...Object.fromEntries(
		RESPONSES.map(([jobType, fields, optional = []]) => [
			responseName(jobType),
			closed({ '@type': oneOfValues([responseType(jobType)]), ...fields }, [
				'@type',
				...Object.keys(fields).filter((name) => !optional.includes(name)),
			]),
		]),
	),
	Status: operationStatus,
	// google.longrunning.Operation; Google calls its identifier `name` ("operations/…"), but the spec
	// polls jobs at GET /v1/jobs/:id, so the identifier is the `id` that goes there.
	Operation: closed(
		{
			id: described(
				text,
				'The server-assigned identifier; `GET /v1/jobs/{job}` answers the operation again.',
			),
			metadata: ref('OperationMetadata'),
			done: described(
				{ type: 'boolean' },
				'If the value is `false`, it means the operation is still in progress. If `true`, the operation is completed, and either `error` or `response` is available.',
			),
			error: ref('Status'),
			response: {
				description:
					'The normal, successful response of the operation: a `<Method>Response` (GenerateBlogResponse, PublishLinkedinResponse, …) named by its `@type`. Only when `done` and successful.',
				oneOf: RESPONSES.map(([jobType]) => ref(responseName(jobType))),
			},
		},
		['id', 'done', 'metadata'],
		{
			description:
				'This resource represents a long-running operation that is the result of a network API call. `error` is there only when it is done and failed, `response` only when it is done and succeeded.',
		},
	),
	WebhookCreate: closed(webhookWriteFields, ['events', 'config']),
	WebhookUpdate: closed(
		{
			...webhookWriteFields,
			description: described(text, 'A description of the webhook; an empty string removes it.'),
			config: webhookConfig(
				[],
				'Settings to change; those not given stay. An empty `secret` removes the secret, and deliveries are then unsigned.',
			),
		},
		[],
	),
	Webhook: everyProperty({
		id: described(text, 'Unique identifier of the webhook.'),
		active: described(
			{ type: 'boolean' },
			'Determines whether the hook is actually triggered for the events it subscribes to.',
		),
		events: described(
			{ type: 'array', items: oneOfValues(EVENT_NAMES) },
			'Determines what events the hook is triggered for.',
		),
		description: orNull(text),
		config: closed(
			{
				url: uri,
				content_type: oneOfValues(['json']),
				secret: described(
					oneOfValues([MASKED_SECRET]),
					'Masked: there when the webhook has a secret, which is never returned.',
				),
			},
			['url', 'content_type'],
		),
		created_at: dateTime,
		updated_at: dateTime,
	}),
	// GitHub: the event name is only in X-GitHub-Event; the body has the `action` and the object.
	GenerationSucceededPayload: everyProperty({
		action: oneOfValues([ACTIONS['job.completed']]),
		operation: ref('Operation'),
	}),
	GenerationFailedPayload: everyProperty({
		action: oneOfValues([ACTIONS['job.failed']]),
		operation: ref('Operation'),
	}),
	PostPublishedPayload: everyProperty({
		action: oneOfValues([ACTIONS['post.published']]),
		post: ref('Post'),
	}),
};

// Slack Web API: `{ok: true, <items>: [...], response_metadata: {next_cursor}}`.
const list = (plural: string, item: string): JsonSchema =>
	everyProperty({
		ok: { type: 'boolean', enum: [true] },
		[plural]: { type: 'array', items: ref(item) },
		response_metadata: everyProperty({
			next_cursor: described(
				text,
				'Pass as `cursor` to get the next portion of the results; an empty string when there are no further results.',
			),
		}),
	});

const parameters: Record<string, JsonSchema> = {
	// Slack's own wording.
	limit: query(
		'limit',
		`The maximum number of items to return. Fewer than the requested number of items may be returned, even if the end of the list hasn't been reached. Must be an integer no larger than ${NESTED_MAX_LIMIT}.`,
		{ ...between(1, NESTED_MAX_LIMIT), default: NESTED_DEFAULT_LIMIT },
	),
	cursor: query(
		'cursor',
		'Paginate through collections of data by setting the `cursor` parameter to a `next_cursor` attribute returned by a previous request\'s `response_metadata`. Default value fetches the first "page" of the collection.',
		text,
	),
};

const responses: Record<string, JsonSchema> = {
	'400': errorResponse(
		'`INVALID_ARGUMENT`: the body is not JSON, the request breaks this document, or it names a page or post that does not exist; a `BadRequest` in `details` lists the fields.',
	),
	'401': errorResponse('`UNAUTHENTICATED`: missing or wrong API key.', {
		'WWW-Authenticate': { schema: oneOfValues(['Bearer']) },
	}),
	'404': errorResponse('`NOT_FOUND`: no such resource.'),
	'405': errorResponse('`UNIMPLEMENTED`: this path does not take this method.', {
		Allow: { description: 'The methods this path takes.', schema: text },
	}),
	'429': errorResponse('`RESOURCE_EXHAUSTED`: too many requests.', RETRY_AFTER_HEADER),
	'5XX': errorResponse(
		'`INTERNAL`, `UNAVAILABLE` (503) or `DEADLINE_EXCEEDED` (504): an unexpected failure; safe to retry.',
	),
};

// Stripe's path parameters: named after the resource, `{post}`, `{webhook}`.
const pathParameter = (name: string): JsonSchema => ({
	in: 'path',
	name,
	required: true,
	schema: { maxLength: 5000, type: 'string' },
	style: 'simple',
});

interface Spec {
	summary: string;
	description?: string;
	success: [status: string, description: string, schema?: JsonSchema];
	parameters?: JsonSchema[];
	body?: string;
	anonymous?: boolean;
}

function operation(operationId: string, spec: Spec) {
	const byId = spec.parameters?.some((parameter) => parameter.in === 'path');
	const errors = [
		'400',
		...(spec.anonymous ? [] : ['401']),
		...(byId ? ['404'] : []),
		'405',
		'429',
		'5XX',
	];
	return operationObject({
		operationId,
		errors: Object.fromEntries(errors.map((status) => [status, responseRef(status)])),
		...spec,
	});
}

const page = pathParameter('page');
const paging = [parameterRef('limit'), parameterRef('cursor')];
// AIP-151: a long-running method answers the Operation itself.
const longRunning = (operationId: string, summary: string, body: string) =>
	operation(operationId, {
		summary,
		description:
			'Starts a long-running operation and returns it. Poll `GET /v1/jobs/{job}` with its `id` until `done` is true.',
		success: ['200', 'The operation, not done yet.', ref('Operation')],
		body,
	});
function delivery(summary: string, payload: string): Record<string, OpenApiPathItem> {
	// GitHub's descriptions of its delivery headers.
	return {
		'{$request.body#/config/url}': deliveryObject({
			summary,
			description: `Sent as a POST with \`Content-Type: application/json\`; any 2xx acknowledges it, anything else is retried (${WEBHOOK_MAX_ATTEMPTS} attempts in all, with the same headers).`,
			parameters: [
				header(DELIVERY_HEADERS.hook, 'The unique identifier of the webhook.', text),
				header(
					DELIVERY_HEADERS.event,
					'The name of the event that triggered the delivery.',
					oneOfValues(EVENT_NAMES),
				),
				header(
					DELIVERY_HEADERS.delivery,
					'A globally unique identifier (GUID) to identify the delivery. If you request a redelivery, the header will be the same as in the original delivery.',
					{ type: 'string', format: 'uuid' },
				),
				header(
					DELIVERY_HEADERS.signature,
					'This header is sent if the webhook is configured with a `secret`. This is the HMAC hex digest of the request body, and is generated using the SHA-256 hash function and the `secret` as the HMAC key. It is `sha256=` and the hex digest, computed over the raw body as sent, with no timestamp.',
					{ type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
					false,
				),
				header(
					DELIVERY_HEADERS.agent,
					`This header will always have the prefix \`${USER_AGENT_PREFIX}\`.`,
					{ type: 'string', pattern: `^${USER_AGENT_PREFIX.replace('/', '\\/')}` },
				),
			],
			payload,
		}),
	};
}

/** A resource's own path: retrieve, update (Stripe: a POST, "Update a customer"), delete. */
function resource(name: string, update: string): OpenApiPathItem {
	const Name = capitalized(name);
	const parameters = [pathParameter(name)];
	return {
		get: operation(`Get${Name}s${Name}`, {
			summary: `Retrieve a ${name}`,
			success: ['200', `The ${name}.`, ref(Name)],
			parameters,
		}),
		post: operation(`Post${Name}s${Name}`, {
			summary: `Update a ${name}`,
			description: `<p>Updates the specified ${name} by setting the values of the parameters passed. Any parameters not provided will be left unchanged.</p>`,
			success: ['200', `The updated ${name}.`, ref(Name)],
			parameters,
			body: update,
		}),
		delete: operation(`Delete${Name}s${Name}`, {
			summary: `Delete a ${name}`,
			success: ['204', 'Deleted.'],
			parameters,
		}),
	};
}

const paths: Record<string, OpenApiPathItem> = {
	'/openapi.json': {
		get: operation('GetOpenapiJson', {
			summary: 'Retrieve this document',
			success: ['200', 'This document.', { type: 'object' }],
			anonymous: true,
		}),
	},
	'/me': {
		get: operation('GetMe', {
			summary: 'Retrieve the account',
			success: ['200', 'The account the API key belongs to.', ref('Account')],
		}),
	},
	'/pages': {
		get: operation('GetPages', {
			summary: 'List all pages',
			success: ['200', 'A portion of the pages, oldest first.', list('pages', 'Page')],
			parameters: paging,
		}),
	},
	'/pages/{page}': {
		get: operation('GetPagesPage', {
			summary: 'Retrieve a page',
			success: ['200', 'The page.', ref('Page')],
			parameters: [page],
		}),
	},
	'/posts': {
		get: operation('GetPosts', {
			summary: 'List all posts',
			success: ['200', 'A portion of the posts, oldest first.', list('posts', 'Post')],
			parameters: [
				...paging,
				query('page', 'Only the posts of the page with this ID.', text),
				query('status', 'Only the posts with this status.', oneOfValues(POST_STATUSES)),
			],
		}),
		post: operation('PostPosts', {
			summary: 'Create a post',
			success: ['201', 'The new post.', ref('Post')],
			body: 'PostCreate',
		}),
	},
	'/posts/{post}': resource('post', 'PostUpdate'),
	'/generate/blog': {
		post: longRunning('PostGenerateBlog', 'Generate a blog post', 'BlogRequest'),
	},
	'/generate/linkedin': {
		post: longRunning('PostGenerateLinkedin', 'Generate a LinkedIn post', 'LinkedinRequest'),
	},
	'/generate/twitter': {
		post: longRunning('PostGenerateTwitter', 'Generate a Twitter thread', 'TwitterRequest'),
	},
	'/generate/carousel': {
		post: longRunning('PostGenerateCarousel', 'Generate a carousel', 'CarouselRequest'),
	},
	'/generate/video': { post: longRunning('PostGenerateVideo', 'Generate a video', 'VideoRequest') },
	'/publish/linkedin': {
		post: longRunning('PostPublishLinkedin', 'Publish to LinkedIn', 'PublishLinkedinRequest'),
	},
	'/publish/twitter': {
		post: longRunning('PostPublishTwitter', 'Publish to Twitter', 'PublishTwitterRequest'),
	},
	'/jobs/{job}': {
		get: operation('GetJobsJob', {
			summary: 'Retrieve a job',
			description: 'The latest state of a long-running operation.',
			success: ['200', 'The operation.', ref('Operation')],
			parameters: [pathParameter('job')],
		}),
	},
	'/webhooks': {
		get: operation('GetWebhooks', {
			summary: 'List all webhooks',
			success: ['200', 'A portion of the webhooks, oldest first.', list('webhooks', 'Webhook')],
			parameters: paging,
		}),
		post: {
			...operation('PostWebhooks', {
				summary: 'Create a webhook',
				success: ['201', 'The new webhook; its secret is never returned.', ref('Webhook')],
				body: 'WebhookCreate',
			}),
			// OAS 3.0 has no top-level `webhooks`: deliveries are callbacks of the registration.
			callbacks: {
				[NESTED_EVENTS['job.completed']]: delivery('A job succeeded', 'GenerationSucceededPayload'),
				[NESTED_EVENTS['job.failed']]: delivery('A job failed', 'GenerationFailedPayload'),
				[NESTED_EVENTS['post.published']]: delivery('A post was published', 'PostPublishedPayload'),
			},
		},
	},
	'/webhooks/{webhook}': resource('webhook', 'WebhookUpdate'),
};

export function buildNestedDocument(serverUrl?: string): ContractDocument {
	return openApi30Document(
		{
			title: 'Content Publishing API (fake, nested conventions)',
			version: '4.0.0',
			description:
				'Generations take their content in `input`; objects are named by `{id}` references; updates are POSTs to the resource; jobs are long-running operations (`done`, `response`, `error`); lists page with `limit` and `cursor`; errors are `{error: {code, message, status, details}}`. Deliveries are described as callbacks of PostWebhooks.',
		},
		serverUrl,
		paths,
		{ parameters, responses, schemas },
	);
}
