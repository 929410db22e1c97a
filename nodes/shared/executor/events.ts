import type { Headers } from '../http-values';
import { readLocation } from '../profile/pointer';
import {
	BUILT_IN_EVENTS,
	type BuiltInEvent,
	type ConditionalEvent,
	type EventMeaning,
	type WebhookProfile,
} from '../profile/types';
import { ProfileFieldError } from './request';

/** `*` subscribes to every event, also where the service has no wildcard of its own. */
export const ALL_EVENTS = '*';

function isBuiltIn(event: string): event is BuiltInEvent {
	return (BUILT_IN_EVENTS as readonly string[]).includes(event);
}

/**
 * The events to register, as the service names them: `*` is every event it lists (where it has no
 * wildcard), a built-in event (`job.completed`) the service's events that mean it; any other event
 * it does not list fails before anything is sent. Linear, however many events the service lists.
 */
export function eventsToSend(webhooks: WebhookProfile, chosen: string[]): string[] {
	const offered = webhooks.events;
	if (offered === undefined) return chosen;
	if (chosen.includes(ALL_EVENTS))
		return webhooks.wildcard ? [ALL_EVENTS] : offered.filter((event) => event !== ALL_EVENTS);
	const listed = new Set(offered);
	const events = new Set<string>();
	const unknown: string[] = [];
	for (const event of chosen) {
		if (listed.has(event)) events.add(event);
		else if (isBuiltIn(event) && webhooks.meanings[event].length > 0) {
			for (const meant of webhooks.meanings[event]) events.add(eventName(meant));
		} else unknown.push(event);
	}
	if (unknown.length > 0)
		throw new ProfileFieldError(
			`The service offers no event ${unknown.map((event) => `"${event}"`).join(', ')}`,
			`The service lists: ${offered.slice(0, 50).join(', ')}${offered.length > 50 ? '…' : ''}. Choose from those under "Events", or say which of its events mean "${unknown[0]}" in the credential's Profile Overrides (webhooks.meanings).`,
		);
	return [...events];
}

/** Whether two lists hold the same events, in any order. */
export function sameEvents(a: unknown, b: string[]): boolean {
	if (!Array.isArray(a) || a.length !== b.length) return false;
	const wanted = new Set(b);
	return a.every((event) => typeof event === 'string' && wanted.has(event));
}

/** The service's name of the event a meaning stands for. */
export function eventName(meaning: EventMeaning): string {
	return typeof meaning === 'string' ? meaning : meaning.event;
}

/**
 * The conditions a delivery of a registered event must meet to be one the node was set to: those
 * of the chosen events' conditional meanings, for service events not also chosen without one.
 */
export function deliveryConditions(webhooks: WebhookProfile, chosen: string[]): ConditionalEvent[] {
	if (chosen.includes(ALL_EVENTS)) return [];
	const meanings = chosen.flatMap((event) =>
		isBuiltIn(event) && webhooks.meanings[event].length > 0 ? webhooks.meanings[event] : [event],
	);
	const unconditional = new Set(meanings.filter((meant) => typeof meant === 'string'));
	return meanings.filter(
		(meant): meant is ConditionalEvent =>
			typeof meant !== 'string' && !unconditional.has(meant.event),
	);
}

/** Whether a delivery meets a condition: each place holds the text, or is present or absent as said. */
function meetsCondition(
	when: ConditionalEvent['when'],
	message: { body: unknown; headers: Headers },
): boolean {
	return Object.entries(when).every(([place, wanted]) => {
		const found = readLocation(message, place);
		const present = found !== undefined && found !== null && found !== '';
		return typeof wanted === 'boolean'
			? present === wanted
			: ['string', 'number', 'boolean'].includes(typeof found) && String(found) === wanted;
	});
}

/** Whether a delivery of this service event is one the subscription was made for. */
export function isSelected(
	subscribed: { events: string[]; conditions?: ConditionalEvent[] },
	type: string,
	message: { body: unknown; headers: Headers },
): boolean {
	if (subscribed.events.includes(ALL_EVENTS)) return true;
	if (!subscribed.events.includes(type)) return false;
	const conditions = (subscribed.conditions ?? []).filter(({ event }) => event === type);
	return conditions.length === 0 || conditions.some(({ when }) => meetsCondition(when, message));
}
