import { isRecord, pointerOf } from '../shared/profile/pointer';
import type { DeliveryReading, JobProfile, JobReference, JobState } from '../shared/profile/types';

/**
 * Readings a trigger stored with its registration before the node read services into profiles
 * (paths as arrays of keys, `{in, path}` pointers): read as today's, so a workflow activated then
 * keeps checking and reading its deliveries without being activated again.
 */

type OldPointer = { in: 'body'; path: string[] } | { in: 'header'; name: string };
type OldReference = { kind: 'job' | 'id'; path: string[] } | { kind: 'location' };

const paths = (value: unknown): string[] =>
	Array.isArray(value) ? value.filter(Array.isArray).map((path: string[]) => pointerOf(path)) : [];
const locations = (value: unknown): string[] =>
	Array.isArray(value)
		? (value as OldPointer[]).map((pointer) =>
				pointer.in === 'header' ? `/headers/${pointer.name}` : pointerOf(['body', ...pointer.path]),
			)
		: [];
const references = (value: unknown, root: string): JobReference[] =>
	Array.isArray(value)
		? (value as OldReference[]).map((reference) =>
				reference.kind === 'location'
					? { address: '/headers/location' }
					: reference.kind === 'job'
						? { job: `${root}${pointerOf(reference.path)}` }
						: { id: `${root}${pointerOf(reference.path)}` },
			)
		: [];

export function storedDelivery(reading: unknown): DeliveryReading | undefined {
	if (!isRecord(reading) || !Array.isArray(reading.type)) return undefined;
	if (typeof reading.type[0] !== 'object') return reading as unknown as DeliveryReading;
	return {
		type: locations(reading.type),
		id: locations(reading.id),
		time: paths(reading.time).map((path) => `/body${path}`),
		data: paths(reading.data).map((path) => `/body${path}`),
		jobs: references(reading.jobs, ''),
		post: paths(reading.post),
	};
}

export function storedJobs(reading: unknown): JobProfile | undefined {
	if (!isRecord(reading)) return undefined;
	if (isRecord(reading.completion)) return reading as unknown as JobProfile;
	return {
		id: paths(reading.id),
		completion: {
			by: 'status',
			status: paths(reading.status),
			states: (isRecord(reading.states) ? reading.states : {}) as Record<string, JobState>,
		},
		result: paths(reading.result),
		error: paths(reading.error),
		errorMessage: paths(reading.errorMessage),
		errorCode: paths(reading.errorCode),
		kind: paths(reading.kind),
		media: Array.isArray(reading.media) ? reading.media.map(String) : [],
		from: 'stored with the registration',
	};
}
