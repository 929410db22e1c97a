import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { describeProfile } from '../../../shared/profile/describe';
import type { Profile } from '../../../shared/profile/types';
import type { DescribePlan } from '../types';

export const description: INodeProperties[] = [];

export async function execute(): Promise<DescribePlan> {
	return { describe: true };
}

/**
 * The profile in use for the credential's service: in words, a line per decision, what the node
 * could not follow, and the profile itself, whose parts the credential's Profile Overrides can set.
 */
export function describeOutput(profile: Profile): IDataObject {
	return {
		source: profile.source,
		summary: describeProfile(profile),
		notFollowed: profile.notFollowed as unknown as IDataObject[],
		profile: profile as unknown as IDataObject,
	};
}
