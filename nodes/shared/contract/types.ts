import type { IHttpRequestMethods } from 'n8n-workflow';

import type { EndpointName } from './catalog';
import type { DocumentReader, ObjectShape, OpenApiDocument, Schema } from './schema';

/**
 * What the node knows of a service, read from its OpenAPI document (or the built-in one). Parts a
 * trigger keeps with its registration (the delivery reading and the signature scheme) are plain
 * data; the rest lives in memory for as long as the contract is cached.
 */

/** A path of property names into a JSON body; `[]` is the body itself. */
export type Path = string[];

/** Where a value is found in an answer or a delivery: a body property or a header. */
export type Pointer = { in: 'body'; path: Path } | { in: 'header'; name: string; link?: boolean };

export type Paging =
	| { style: 'cursor'; size?: string; max: number; cursor: string; next: Pointer[] }
	| { style: 'after'; size?: string; max: number; cursor: string; more?: Path }
	| { style: 'page'; size?: string; max: number; page: string; first: number; total?: Path }
	| { style: 'offset'; size?: string; max: number; offset: string; total?: Path }
	| { style: 'link'; size?: string; max: number; next: Pointer[] }
	| { style: 'none'; max: number };

/** How an answer that starts a job refers to it. */
export type JobReference =
	| { kind: 'job'; path: Path }
	| { kind: 'id'; path: Path }
	| { kind: 'location' };

export interface AnswerReading {
	/** Where the resource sits in the answer, each way the document allows, most specific first. */
	resource: Path[];
	/** For a list: where its items are, each way the document allows. */
	items: Path[];
	/** For a list: the object each item is, and the property that identifies it. */
	item?: ObjectShape;
	itemId: string;
	/** For an answer that starts a job: how it refers to the job. */
	jobs: JobReference[];
}

export interface ResolvedEndpoint {
	name: EndpointName;
	method: IHttpRequestMethods;
	/** Path below the base URL; `{id}` stands for the resource id. */
	path: string;
	/** Whether the service's own document describes it (otherwise the built-in one does). */
	documented: boolean;
	/** The request body's object and the media type it is sent as. */
	request?: ObjectShape;
	mediaType: string;
	/** Query parameters the document names. */
	query: Map<string, Schema>;
	/** The header the document names for idempotency keys, such as `Idempotency-Key` or `Repeatability-Request-ID`. */
	idempotencyHeader?: string;
	/** OASIS Repeatable Requests: the header that says when a repeated request was first sent. */
	firstSentHeader?: string;
	answer: AnswerReading;
	paging: Paging;
	/** A list's text-search parameter, such as `q`. */
	search?: string;
	/** An update by a PUT that replaces the whole object: the current one is read (`reads`) and sent back changed. */
	replaces: boolean;
	reads?: EndpointName;
}

/** What a job's status means to the node. `scheduled`: accepted, will run later. */
export type JobState = 'pending' | 'scheduled' | 'succeeded' | 'failed';

export interface JobReading {
	id: Path[];
	status: Path[];
	/** The state of each status value, as the document explains it or its words say. */
	states: Record<string, JobState>;
	result: Path[];
	error: Path[];
	/** Where a job says why it failed beside an error object, if it does. */
	errorMessage: Path[];
	errorCode: Path[];
	/** The job's kind, such as `generate.video`. */
	kind: Path[];
	/** Normalized names of the result's properties that hold media addresses. */
	media: string[];
}

export interface ErrorReading {
	message: Path[];
	code: Path[];
	details: Path[];
	detailField: string[];
	detailMessage: string[];
	detailCode: string[];
}

/** The events the node names itself, which a service may name otherwise. */
export type BuiltInEvent = 'job.completed' | 'job.failed' | 'post.published';

export type SignatureEncoding = 'hex' | 'base64';

/**
 * How deliveries are signed: an HMAC of a text made of the delivery's id, timestamp and raw body,
 * in one or more signatures of a header.
 */
export interface SignatureScheme {
	/** Lower-case header names. */
	header: string;
	/** How the header holds its signatures. */
	format: 'plain' | 'prefixed' | 'stripe' | 'standard';
	/** For `prefixed`: the text before the digest, such as `sha256=` or `v0=`. */
	prefix?: string;
	algorithm: 'sha256' | 'sha512' | 'sha1';
	encoding: SignatureEncoding;
	/** What is signed, in order, joined by `separator`: literals, and the delivery's parts. */
	signed: Array<'id' | 'timestamp' | 'body' | { text: string }>;
	separator: string;
	timestampHeader?: string;
	idHeader?: string;
	/** How the secret becomes the HMAC key: as its text, or `whsec_` + base64 decoded. */
	secretEncoding: 'text' | 'whsec';
}

export interface DeliveryReading {
	type: Pointer[];
	id: Pointer[];
	time: Path[];
	data: Path[];
	/** Where the data holds a job, refers to one, or holds a post. */
	jobs: JobReference[];
	post: Path[];
}

export interface SecretPolicy {
	/** The registration's field the node's own secret goes in. */
	sent?: string;
	/** Where the service's own secret comes back, when its document says the service generates it. */
	answered?: { path: Path; pattern?: string };
}

export interface WebhookContract {
	/** The events the service offers, when its document lists them. */
	events?: string[];
	/** Whether `*` subscribes to every event. */
	wildcard: boolean;
	/** The service's events for each event the node names itself. */
	meanings: Record<BuiltInEvent, string[]>;
	/** The service's names of a registration's url, events and active fields. */
	fields: { url: string; events: string; active: string };
	secret: SecretPolicy;
	delivery: DeliveryReading;
	signature: SignatureScheme;
}

export interface Contract {
	/** The service's own document, when it could be read. */
	document?: OpenApiDocument;
	/** Reads the document (or the built-in one) on, for the fields and values of each request. */
	reader: DocumentReader;
	/** What the node could not follow, and why the built-in conventions stood in. */
	notice?: string;
	endpoints: Record<EndpointName, ResolvedEndpoint>;
	jobs: JobReading;
	errors: ErrorReading;
	webhooks: WebhookContract;
}
