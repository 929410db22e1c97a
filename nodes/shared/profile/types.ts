import type { BUILT_IN_EVENTS, HTTP_METHODS, Infer, OPERATIONS, PROFILE } from './shape';

/** The names of a service profile's parts, derived from its shape (shape.ts, where each is explained). */

export {
	BUILT_IN_EVENTS,
	HTTP_METHODS,
	MAX_PROFILE_TEXT,
	OPERATION_NAMES,
	OPERATIONS,
} from './shape';

/** A JSON Pointer into an HTTP message, its first segment the part: `/body/…`, `/query/…`, `/headers/<lower-case name>`. */
export type Location = string;
/** A JSON Pointer into an object the node holds (a job, a registration): `/status`; `""` is the object. */
export type Pointer = string;

export type HttpMethod = (typeof HTTP_METHODS)[number];
export type OperationName = keyof typeof OPERATIONS;
export type BuiltInEvent = (typeof BUILT_IN_EVENTS)[number];

export type Profile = Infer<typeof PROFILE>;
export type OperationProfile = Profile['operations'][OperationName];
export type Placement = OperationProfile['fields'][string];
export type AnswerReading = OperationProfile['answer'];
export type Paging = NonNullable<AnswerReading['paging']>;
export type JobReference = NonNullable<AnswerReading['jobs']>[number];
export type JobProfile = Profile['jobs'];
export type JobState = Extract<JobProfile['completion'], { by: 'status' }>['states'][string];
export type ErrorProfile = Profile['errors'];
export type WebhookProfile = Profile['webhooks'];
export type EventMeaning = WebhookProfile['meanings'][BuiltInEvent][number];
export type ConditionalEvent = Exclude<EventMeaning, string>;
export type DeliveryReading = WebhookProfile['delivery'];
export type SignatureScheme = WebhookProfile['signature'];
export type NotFollowed = Profile['notFollowed'][number];
