/**
 * A service profile (docs/service.md): everything the node decided about a service, as plain JSON
 * data; nothing else decides how a request looks or how an answer is read. In a request, a `-`
 * segment stands for each entry of a list (`/body/tweets/-/text` sends `["a"]` as `[{"text": "a"}]`).
 */

// No text of a profile may be longer: Profile Overrides check each one, and the reader keeps to it.
export const MAX_PROFILE_TEXT = 256;

/** A JSON Pointer into an HTTP message, its first segment the part: `/body/…`, `/query/…`, `/headers/<lower-case name>`. */
export type Location = string;

/** A JSON Pointer into an object the node holds (a job, a registration): `/status`; `""` is the object. */
export type Pointer = string;

/** Where a decision came from: a JSON Pointer into the service's document (`#/paths/...`), or `built-in`. */
type Source = string;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

function op<V extends string, R extends string>(verb: V, resource: R, title: string) {
	return { verb, resource, title };
}

/** What the node asks of the service: what each operation does, to what, and its title in n8n. */
export const OPERATIONS = {
	getAccount: op('get', 'account', 'Account → Get'),
	listPages: op('list', 'page', 'Page → Get Many'),
	getPage: op('get', 'page', 'Page → Get'),
	createPost: op('create', 'post', 'Post → Create'),
	listPosts: op('list', 'post', 'Post → Get Many'),
	getPost: op('get', 'post', 'Post → Get'),
	updatePost: op('update', 'post', 'Post → Update'),
	deletePost: op('delete', 'post', 'Post → Delete'),
	generateBlog: op('generate', 'blog', 'Content Generation → Generate Blog Post'),
	generateLinkedin: op('generate', 'linkedin', 'Content Generation → Generate LinkedIn Post'),
	generateTwitter: op('generate', 'twitter', 'Content Generation → Generate Twitter Thread'),
	generateCarousel: op('generate', 'carousel', 'Content Generation → Generate Carousel'),
	generateVideo: op('generate', 'video', 'Content Generation → Generate Video'),
	publishLinkedin: op('publish', 'linkedin', 'Publication → Publish to LinkedIn'),
	publishTwitter: op('publish', 'twitter', 'Publication → Publish to Twitter'),
	getJob: op('wait', 'job', 'Job → Get and Wait for Completion'),
	createWebhook: op('create', 'webhook', 'Webhook → Create (and the trigger’s registration)'),
	listWebhooks: op('list', 'webhook', 'Webhook → Get Many'),
	getWebhook: op('get', 'webhook', 'Webhook → Get'),
	updateWebhook: op('update', 'webhook', 'Webhook → Update'),
	deleteWebhook: op('delete', 'webhook', 'Webhook → Delete'),
};
export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Where a parameter goes in a request and how it is written; `to: null`, with why, for no place. */
export interface Placement {
	to: Location | null;
	why?: string;
	/** The service's spelling of the node's values (`draft` → `DRAFT`); values not listed go as they are. */
	values?: Record<string, string>;
	/** A yes/no the service names by its opposite (`disabled` for `active`): sent negated. */
	negate?: boolean;
	/**
	 * Members sent beside the value, in the object that holds it, whenever the value is sent: a
	 * reference as an object, such as JSON:API's relationship `{"type": "pages", "id": …}` (for each
	 * entry of a list too).
	 */
	beside?: Record<string, string | number | boolean>;
	from: Source;
}

/**
 * How the next page of a list is asked for. `cursor`: a token from the answer goes into a query
 * parameter; `after`: the next page starts after the last item's id (Stripe); `page`: a page
 * number; `offset`: an item offset; `link`: the answer names the next page's address.
 */
export type Paging = {
	/** The page-size query parameter, and the largest size it takes. */
	size?: string;
	max?: number;
	from: Source;
} & (
	| { style: 'none' }
	| { style: 'cursor'; cursor: string; next: Location[] }
	| { style: 'after'; cursor: string; more?: Location }
	| { style: 'page'; page: string; first: number }
	| { style: 'offset'; offset: string }
	| { style: 'link'; next: Location[] }
);

/** How an answer (or a delivery's data) refers to a job: it holds it, names its id, or points at it. */
export type JobReference = { job: Location } | { id: Location } | { address: Location };

export interface AnswerReading {
	/** Where the resource is, each way the service may answer, first found wins. */
	resource?: Location[];
	/** For a list: where its items are, and the property that identifies an item. */
	items?: Location[];
	itemId?: Pointer;
	paging?: Paging;
	/** For an answer that starts a job. */
	jobs?: JobReference[];
	from: Source;
}

export interface OperationProfile {
	method: HttpMethod;
	/** Below the Base URL; `{id}` stands for the URL-encoded id of the resource. */
	path: string;
	from: Source;
	/** The media type a body is sent as: JSON, a `+json` type, or a form. */
	mediaType?: string;
	/** Where each parameter goes; one with no place fails its item, unless an optional extra. */
	fields: Record<string, Placement>;
	/** A header that makes a write idempotent, and (OASIS Repeatable Requests) when it was first sent. */
	idempotency?: { header: string; firstSent?: string; from: Source };
	/**
	 * An update that replaces the object (a PUT with required fields): it is read first, and these of
	 * its properties (writable ones, never a secret) are sent back with the changed ones.
	 */
	replaces?: { keep: string[] };
	/**
	 * Values sent as they are, by place: a member of the body (JSON:API's `/body/data/type`), a query
	 * parameter or a header (`/headers/x-api-version`). A document's required body member of one
	 * allowed value is one; Profile Overrides set any.
	 */
	constants?: Record<string, string | number | boolean>;
	/** Where the resource's id is sent in the body too, as JSON:API's update wants it (`/body/data/id`). */
	idAt?: Location;
	/** Where each constant and the id's place came from, by place: the document's member, or the overrides. */
	stated?: Record<Location, Source>;
	/**
	 * A conditional write (RFC 9110): the resource is read first, and the value at `from` in that
	 * answer (its ETag, `/headers/etag`) is sent in `header` (`if-match`), so that a change made
	 * meanwhile is refused (412) rather than overwritten. Only Profile Overrides set it.
	 */
	precondition?: { header: string; from: Location };
	answer: AnswerReading;
}

/** What a job's status means to the node. `scheduled`: accepted, will run later. */
export type JobState = 'pending' | 'scheduled' | 'succeeded' | 'failed';

/** How the node tells that a job finished. */
type Completion =
	/** A status whose values have states (the document's, then the built-in words); any other is pending. */
	| { by: 'status'; status: Pointer[]; states: Record<string, JobState> }
	/** A flag that turns true when the job is done; it failed where an error is then present (Google's long-running operations). */
	| { by: 'flag'; done: Pointer[] };

export interface JobProfile {
	id: Pointer[];
	completion: Completion;
	result: Pointer[];
	error: Pointer[];
	/** Where a job says why it failed beside an error object (Twilio's `error_message`, `error_code`). */
	errorMessage: Pointer[];
	errorCode: Pointer[];
	/** The kind of content, such as `generate.video`: its last word is the kind. */
	kind: Pointer[];
	/** Names of a result's properties (lower case, without separators) that hold media addresses. */
	media: string[];
	from: Source;
}

export interface ErrorProfile {
	message: Location[];
	code: Location[];
	/** A list of field errors, and the properties of each entry. */
	details: Location[];
	detailField: string[];
	detailMessage: string[];
	detailCode: string[];
	from: Source;
}

/** The events the node names itself, which a service may name otherwise. */
export const BUILT_IN_EVENTS = ['job.completed', 'job.failed', 'post.published'] as const;
export type BuiltInEvent = (typeof BUILT_IN_EVENTS)[number];

/**
 * How deliveries are signed: an HMAC of their parts (id, timestamp, raw body; or, as Twilio's, the
 * delivery's address and its form parameters), in a header.
 */
export interface SignatureScheme {
	/** Lower-case header names. */
	header: string;
	/** How the header holds its signatures. */
	format: 'plain' | 'prefixed' | 'stripe' | 'standard';
	/** For `prefixed`: the text before the digest, such as `sha256=` or `v0=`. */
	prefix?: string;
	algorithm: 'sha256' | 'sha512' | 'sha1';
	encoding: 'hex' | 'base64';
	/**
	 * What is signed, in order, joined by `separator`: literals, and the delivery's parts. `url` is
	 * the address the trigger registered; `form` its form parameters sorted by name, each name then
	 * its value (Twilio's).
	 */
	signed: Array<'id' | 'timestamp' | 'body' | 'url' | 'form' | { text: string }>;
	separator: string;
	timestampHeader?: string;
	idHeader?: string;
	/** How the secret becomes the HMAC key: as its text, or `whsec_` + base64 decoded. */
	secretEncoding: 'text' | 'whsec';
	/** The HMAC's key: the registration's signing secret (the default), or the credential's API key (Twilio's auth token). */
	key?: 'secret' | 'apiKey';
}

export interface DeliveryReading {
	type: Location[];
	/** The delivery's id, only where the document names where it is: a repeat is recognised by it. */
	id: Location[];
	time: Location[];
	data: Location[];
	/** Inside the data: the job it holds or names, or the post. */
	jobs: JobReference[];
	post: Pointer[];
}

/**
 * A service event that means one of the node's only where the delivery says so, as GitHub's
 * per-resource events do (`job` with `"action": "completed"` in the body). `when` holds, by place
 * in the delivery, the text the value there must be, or whether it must be present (`true`) or
 * absent or null (`false`).
 */
export interface ConditionalEvent {
	event: string;
	when: Record<Location, string | boolean>;
}

/** A service event that means one of the node's: its name, or its name and a condition. */
export type EventMeaning = string | ConditionalEvent;

export interface WebhookProfile {
	/** The events the service lists (undefined: it lists none, the chosen ones go as they are). */
	events?: string[];
	/** Whether `*` subscribes to every event. */
	wildcard: boolean;
	/** The service's events for each event the node names itself. */
	meanings: Record<BuiltInEvent, EventMeaning[]>;
	/** Where a registration as answered holds its address, events and switch; its longest address. */
	registration: {
		url: Pointer;
		events: Pointer;
		active?: Pointer;
		negated?: boolean;
		maxUrlLength?: number;
	};
	/** Who chooses the signing secret: the node, or the service, whose answer holds it `at` a place. */
	secret: { by: 'node' } | { by: 'service'; at: Pointer; pattern?: string } | { by: 'none' };
	delivery: DeliveryReading;
	signature: SignatureScheme;
	from: Source;
}

/** A part of the service's document the node could not follow, and why. */
export interface NotFollowed {
	part: string;
	why: string;
	/** For a part an operation's request requires and its profile does not send: the operation and the place. */
	operation?: OperationName;
	place?: Location;
	/** The part of the profile the built-in conventions stand in for (`/jobs/completion/status`): Profile Overrides that set it follow it. */
	of?: Pointer;
}

export interface Profile {
	/** Where it was read from: the document's address, or `built-in`. */
	source: string;
	operations: Record<OperationName, OperationProfile>;
	jobs: JobProfile;
	errors: ErrorProfile;
	webhooks: WebhookProfile;
	notFollowed: NotFollowed[];
	/** What the credential's Profile Overrides changed, as the JSON Pointers of the profile they set. */
	overridden?: string[];
}
