import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { parameterError } from './fields';

/**
 * n8n's date-time fields hold a wall-clock time meant in the workflow's time zone, which a service
 * would read in its own: the node reads it in that zone (or the Time Zone option's) and sends UTC.
 * A time with its offset, a Date or a Luxon DateTime is taken as the instant it is.
 */

export const timeZoneField: INodeProperties = {
	displayName: 'Time Zone',
	name: 'timeZone',
	type: 'string',
	default: '',
	placeholder: 'e.g. Europe/Berlin',
	description:
		'The time zone "Scheduled At" is meant in, as an IANA name; empty means the workflow\'s time zone (Workflow Settings)',
};

const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const WITH_OFFSET = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** How far a zone is ahead of UTC at an instant, in milliseconds. */
function offsetAt(timeZone: string, instant: number): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: 'numeric',
		day: 'numeric',
		hour: 'numeric',
		minute: 'numeric',
		second: 'numeric',
	}).formatToParts(new Date(instant));
	const { year, month, day, hour, minute, second } = Object.fromEntries(
		parts.map(({ type, value }) => [type, Number(value)]),
	);
	return Date.UTC(year, month - 1, day, hour, minute, second) - Math.floor(instant / 1000) * 1000;
}

/** The instant a wall-clock time names in a zone; around a clock change, the offset after it. */
function instantOf(wall: number, timeZone: string): number {
	return wall - offsetAt(timeZone, wall - offsetAt(timeZone, wall));
}

/** A Luxon DateTime, as an expression hands it over: anything with `toMillis()`. */
function millisOf(value: object): number | undefined {
	const toMillis = (value as { toMillis?: unknown }).toMillis;
	if (typeof toMillis === 'function') return Number(toMillis.call(value));
	return value instanceof Date ? value.getTime() : undefined;
}

/** Scheduled At of an item's fields as UTC ISO 8601, or undefined when it is empty. */
export function readScheduledAt(
	this: IExecuteFunctions,
	{ scheduledAt: value, timeZone }: IDataObject,
	itemIndex: number,
): string | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
		return undefined;
	const zone = String(timeZone ?? '').trim() || this.getTimezone();
	try {
		new Intl.DateTimeFormat('en-US', { timeZone: zone });
	} catch {
		throw parameterError(
			this,
			'Time Zone',
			itemIndex,
			`is not a time zone: "${zone.slice(0, 60)}"`,
			"Use an IANA time zone name such as Europe/Berlin or America/New_York, or leave it empty for the workflow's time zone.",
		);
	}
	let instant: number | undefined;
	if (typeof value === 'object') instant = millisOf(value);
	else {
		const text = String(value).trim();
		const wall = WALL_TIME.exec(text);
		if (wall !== null) {
			const [year, month, day, hour, minute, second] = wall
				.slice(1, 7)
				.map((part) => Number(part ?? 0));
			const millis = Number((wall[7] ?? '').padEnd(3, '0').slice(0, 3));
			instant = instantOf(Date.UTC(year, month - 1, day, hour, minute, second, millis), zone);
		} else if (WITH_OFFSET.test(text)) instant = Date.parse(text);
	}
	if (instant === undefined || !Number.isFinite(instant))
		throw parameterError(
			this,
			'Scheduled At',
			itemIndex,
			'is not a date and time',
			'Use a date and time such as 2026-12-01T10:00:00 (read in the time zone), one with its offset such as 2026-12-01T10:00:00+01:00, or an expression giving a date.',
		);
	return new Date(instant).toISOString();
}
