import type {
	INode,
	INodeParameters,
	INodeProperties,
	INodePropertyOptions,
	NodeParameterValueType,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { useFakeService } from '../support/fixtures';
import { contentPublishingNode, loadPackage, NODE_TYPE } from '../support/n8n-engine';

// Every field the node refuses empty ("… of item 0 is empty") must be one n8n's editor reports as
// required before a run (its node issues: the warning on the canvas, "Parameter … is required"),
// so an empty one is caught in the editor rather than by a run. The fields are found by running
// each operation, in each choice of the fields that show others, with the defaults the editor
// fills in, and filling each field the node refuses until it sends its request.

const harness = useFakeService();
const { description } = loadPackage().nodeTypes.get(NODE_TYPE)!;
const { properties } = description;

// Fields whose values decide which other fields show.
const SWITCHES = ['status', 'source', 'transcriptSource'];

// The fields the node refuses empty that n8n's editor cannot mark, and why.
const UNMARKABLE: Record<string, string> = {
	prompt: 'needed only without a Source Text or Source Post under Additional Fields',
	parts:
		'a JSON field: n8n reports empty required fields of text, option, date and picker types only',
};

const ID_PREFIXES: Record<string, string> = { postId: 'post', pageId: 'page', webhookId: 'wh' };

function optionValues(property: INodeProperties | undefined): string[] {
	return ((property?.options ?? []) as INodePropertyOptions[]).map((option) =>
		String(option.value),
	);
}

const operations = optionValues(
	properties.find((property) => property.name === 'resource'),
).flatMap((resource) =>
	optionValues(
		properties.find(
			(property) =>
				property.name === 'operation' &&
				property.displayOptions?.show?.resource?.includes(resource),
		),
	).map((operation) => [resource, operation]),
);

/** The parameters as the editor holds them: every shown field with its default filled in. */
function editorParameters(parameters: INodeParameters): INodeParameters {
	const node = contentPublishingNode(parameters);
	return NodeHelpers.getNodeParameters(properties, parameters, true, false, node, description)!;
}

function shown(parameters: INodeParameters): INodeProperties[] {
	const node = contentPublishingNode(parameters);
	return properties.filter((property) =>
		NodeHelpers.displayParameter(parameters, property, node, description),
	);
}

/** A value the node accepts as not empty, for a field of this type. */
function filled(property: INodeProperties): NodeParameterValueType {
	switch (property.type) {
		case 'resourceLocator':
			// The service's ids start with their kind: post_…, page_…, wh_….
			return { __rl: true, mode: 'id', value: `${ID_PREFIXES[property.name]}_not_found` };
		case 'json':
			return '["not empty"]';
		case 'dateTime':
			return '2030-01-01T10:00:00';
		case 'multiOptions':
			return ['job.completed'];
		default:
			return 'https://example.com/not-empty';
	}
}

/** Each choice of the switches an operation shows: one parameter set per value of each switch. */
function choices(resource: string, operation: string): INodeParameters[] {
	const base = { resource, operation, waitForCompletion: false };
	const sets: INodeParameters[] = [base];
	for (const property of shown(editorParameters(base))) {
		if (!SWITCHES.includes(property.name)) continue;
		for (const value of optionValues(property)) sets.push({ ...base, [property.name]: value });
	}
	return sets;
}

interface Refusal {
	operation: string;
	field: string;
	reportedByEditor: boolean;
}

/**
 * The fields an operation needs, found as a user would: n8n first (it refuses to run a workflow
 * whose node has required fields empty, "The workflow has issues"), then the node's own
 * refusals; each field is filled in turn until the node sends its request (at most 10 rounds).
 */
async function refusals(parameters: INodeParameters): Promise<Refusal[]> {
	const operation = `${String(parameters.resource)} → ${String(parameters.operation)}`;
	const found: Refusal[] = [];
	let current = { ...parameters };
	for (let round = 0; round < 10; round++) {
		const full = editorParameters(current);
		const node: INode = { ...contentPublishingNode(full), parameters: full };
		const issues = Object.keys(
			NodeHelpers.getNodeParametersIssues(properties, node, description)?.parameters ?? {},
		);
		if (issues.length > 0) {
			for (const field of issues) {
				found.push({ operation, field, reportedByEditor: true });
				current = { ...current, [field]: filled(properties.find((p) => p.name === field)!) };
			}
			continue;
		}
		const before = harness.service.requests.length;
		const result = await harness.run(full);
		if (harness.service.requests.length > before) return found;
		const empty = /^"(.+)" of item 0 is empty$/.exec(result.error?.message ?? '');
		if (!empty) return found;
		const field = shown(full).find((property) => property.displayName === empty[1]);
		if (!field) throw new Error(`No shown field is called "${empty[1]}"`);
		found.push({ operation, field: field.name, reportedByEditor: false });
		current = { ...current, [field.name]: filled(field) };
	}
	throw new Error(`${JSON.stringify(parameters)} was still refused after 10 rounds`);
}

describe('fields the node requires', () => {
	it.each(operations)(
		'%s → %s: every field refused empty is reported by the editor as required',
		async (resource, operation) => {
			const found: Refusal[] = [];
			for (const parameters of choices(resource, operation))
				found.push(...(await refusals(parameters)));
			expect(
				found.filter(
					(refusal) => !refusal.reportedByEditor && UNMARKABLE[refusal.field] === undefined,
				),
			).toEqual([]);
			// A field the node stopped refusing, or one n8n now reports, must leave the exceptions.
			for (const refusal of found.filter((entry) => UNMARKABLE[entry.field] !== undefined))
				expect(refusal.reportedByEditor).toBe(false);
		},
	);

	it('finds the fields: Content on Post → Create, Parts of a thread, the Prompt', async () => {
		// n8n's own refusal of an empty required field, before the node runs.
		await expect(
			harness.run(editorParameters({ resource: 'post', operation: 'create' })),
		).rejects.toThrow('The workflow has issues');
		expect(await refusals({ resource: 'post', operation: 'create' })).toEqual([
			{ operation: 'post → create', field: 'content', reportedByEditor: true },
		]);
		expect(
			await refusals({ resource: 'publication', operation: 'publishTwitter', source: 'thread' }),
		).toEqual([
			{ operation: 'publication → publishTwitter', field: 'parts', reportedByEditor: false },
		]);
		expect(
			(
				await refusals({
					resource: 'content',
					operation: 'generateVideo',
					waitForCompletion: false,
				})
			).map((refusal) => refusal.field),
		).toEqual(['prompt']);
	});
});
