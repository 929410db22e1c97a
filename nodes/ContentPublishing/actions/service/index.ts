import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { describeGroups, shortened } from '../../../shared/profile/describe';
import { withRemovals } from '../../../shared/profile/overrides';
import type { Profile } from '../../../shared/profile/types';
import type { Operation } from '../types';

/**
 * The profile in use for the credential's service: in words, a line per decision (in one list, and
 * grouped by resource), what the node could not follow, and the profile itself, whose parts the
 * credential's Profile Overrides can set; long texts and lists shortened, whatever the document holds.
 */
export function describeOutput(read: Profile): IDataObject {
	const profile = shortened(read);
	const groups = describeGroups(profile);
	return {
		source: profile.source,
		summary: groups.flatMap(([, lines]) => lines),
		summaryByResource: Object.fromEntries(groups),
		notFollowed: profile.notFollowed as unknown as IDataObject[],
		profile: withRemovals(profile) as IDataObject,
	};
}

export const operations: Record<string, Operation> = {
	describe: { description: [], execute: async () => ({ describe: true }) },
};

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['service'] } },
	options: [
		{
			name: 'Describe',
			value: 'describe',
			description:
				"Show how the node reads the credential's service: each operation's method, path and fields, paging, jobs, events and signatures (easiest to read in the output's Table view)",
			action: 'Describe how the node reads the service',
		},
	],
	default: 'describe',
};
