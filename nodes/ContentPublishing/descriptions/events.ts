import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ALL_EVENTS, eventName } from '../../shared/executor/events';
import type { EventMeaning } from '../../shared/profile/types';

/** The events of a service whose OpenAPI document does not list its own. */
const BUILT_IN_EVENT_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Job Completed',
		value: 'job.completed',
		description: 'A generation or publishing job finished successfully',
	},
	{ name: 'Job Failed', value: 'job.failed', description: 'A generation or publishing job failed' },
	{ name: 'Post Published', value: 'post.published', description: 'A post was published' },
];

/** `JOB_READY` and `job.ready` both read as "Job Ready". */
function label(event: string): string {
	return event
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean)
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
		.join(' ');
}

/**
 * A canvas subtitle naming the chosen events the way the events list does ("Job Completed" for
 * `job.completed`). The editor evaluates subtitles as expressions in the browser, so `label` is
 * restated here in n8n's expression language; a test holds the two to the same words.
 */
export function eventsSubtitle(parameter: string): string {
	const word = 'w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()';
	const name = `e === "${ALL_EVENTS}" ? "All Events" : String(e).split(/[^A-Za-z0-9]+/).filter(w => w).map(w => ${word}).join(" ")`;
	return `={{ [].concat($parameter["${parameter}"] || []).map(e => ${name}).join(", ") }}`;
}

/**
 * The options of an events field: all events, then the service's own, or the built-in ones. Where
 * the service names its events otherwise, the node's own events that mean some of them stay on
 * offer too ("Job Completed (JOB_READY)"), so a trigger's default, saved as `job.completed`, is a
 * value of the list on every service.
 */
export function eventOptions(
	events: string[] | undefined,
	meanings: Record<string, EventMeaning[]> = {},
): INodePropertyOptions[] {
	const listed =
		events === undefined
			? BUILT_IN_EVENT_OPTIONS
			: events
					.filter((event) => event !== ALL_EVENTS)
					.map(
						(event) =>
							BUILT_IN_EVENT_OPTIONS.find((known) => known.value === event) ?? {
								name: label(event) || event,
								value: event,
							},
					);
	const meant = BUILT_IN_EVENT_OPTIONS.filter(
		(known) =>
			!listed.some((option) => option.value === known.value) &&
			(meanings[String(known.value)] ?? []).length > 0,
	).map((known) => ({
		...known,
		name: `${known.name} (${[...new Set(meanings[String(known.value)].map(eventName))].join(', ')})`,
	}));
	return [
		{ name: 'All Events', value: ALL_EVENTS, description: 'Every event the service sends' },
		...listed,
		...meant,
	];
}

/** An events field whose options come from the service's document (`getEvents`). */
export function eventsField(overrides: Partial<INodeProperties>): INodeProperties {
	return {
		displayName: 'Event Names or IDs',
		default: [],
		name: 'events',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getEvents' },
		description:
			'Events to deliver, as the service names them. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		...overrides,
	};
}
