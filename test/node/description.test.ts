import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { eventOptions } from '../../nodes/ContentPublishing/descriptions/events';
import {
	contentPublishingNode,
	loadPackage,
	NODE_TYPE,
	oneNodeWorkflow,
	TRIGGER_TYPE,
	triggerNode,
	triggerWorkflow,
} from '../support/n8n-engine';

const nodeType = loadPackage().nodeTypes.get(NODE_TYPE)!;
const { properties } = nodeType.description;

// The resource and operation values saved workflows store: they must never change.
const OPERATIONS: Record<string, string[]> = {
	account: ['get'],
	page: ['get', 'getMany'],
	post: ['create', 'get', 'getMany', 'update', 'delete'],
	content: [
		'generateBlog',
		'generateLinkedin',
		'generateTwitter',
		'generateCarousel',
		'generateVideo',
	],
	publication: ['publishLinkedin', 'publishTwitter'],
	job: ['get', 'wait'],
	service: ['describe'],
	webhook: ['create', 'get', 'getMany', 'update', 'delete'],
};

function optionValues(property: INodeProperties | undefined): string[] {
	return ((property?.options ?? []) as INodePropertyOptions[]).map((option) =>
		String(option.value),
	);
}

function propertiesOf(resource: string, operation: string): INodeProperties[] {
	return properties.filter(
		(property) =>
			property.displayOptions?.show?.resource?.includes(resource) &&
			property.displayOptions?.show?.operation?.includes(operation),
	);
}

describe('node description (the saved-workflow API)', () => {
	it('offers exactly the agreed resources and operations', () => {
		const resource = properties.find((property) => property.name === 'resource');
		expect(optionValues(resource).sort()).toEqual(Object.keys(OPERATIONS).sort());
		for (const [name, operations] of Object.entries(OPERATIONS)) {
			const operation = properties.find(
				(property) =>
					property.name === 'operation' && property.displayOptions?.show?.resource?.includes(name),
			);
			expect(optionValues(operation).sort()).toEqual([...operations].sort());
		}
	});

	it('can be used as an AI agent tool', () => {
		expect(nodeType.description.usableAsTool).toBe(true);
	});

	it.each([
		['page', 'get', 'pageId'],
		['post', 'get', 'postId'],
		['post', 'update', 'postId'],
		['post', 'delete', 'postId'],
		['publication', 'publishLinkedin', 'postId'],
		['webhook', 'get', 'webhookId'],
		['webhook', 'update', 'webhookId'],
		['webhook', 'delete', 'webhookId'],
	])(
		'%s → %s names its resource with the locator %s (list, ID and URL modes)',
		(resource, operation, name) => {
			const locator = propertiesOf(resource, operation).find((property) => property.name === name);
			expect(locator?.type).toBe('resourceLocator');
			expect(locator?.modes?.map((mode) => mode.name)).toEqual(['list', 'id', 'url']);
		},
	);

	it('asks for every page and post with a picker (list search, ID, URL), in Additional Fields and Filters too', () => {
		const all = (list: INodeProperties[]): INodeProperties[] =>
			list.flatMap((property) => [
				property,
				...all(
					((property.options ?? []) as INodeProperties[]).filter((option) => 'type' in option),
				),
			]);
		const idFields = all(properties).filter((property) =>
			/^(pageId|postId|sourcePostId)$/.test(property.name),
		);
		expect(idFields.length).toBeGreaterThanOrEqual(12);
		for (const field of idFields) {
			expect({
				name: field.name,
				type: field.type,
				modes: field.modes?.map((mode) => mode.name),
			}).toEqual({
				name: field.name,
				type: 'resourceLocator',
				modes: ['list', 'id', 'url'],
			});
			const list = field.modes?.find((mode) => mode.name === 'list');
			expect(list?.typeOptions?.searchListMethod).toBe(
				field.name === 'pageId' ? 'searchPages' : 'searchPosts',
			);
		}
	});

	it('has a Wait for Completion switch, on by default, on every operation that can start a job', () => {
		for (const operation of [...OPERATIONS.content, ...OPERATIONS.publication]) {
			const resource = OPERATIONS.content.includes(operation) ? 'content' : 'publication';
			const wait = propertiesOf(resource, operation).find(
				(property) => property.name === 'waitForCompletion',
			);
			expect({ operation, type: wait?.type, default: wait?.default }).toEqual({
				operation,
				type: 'boolean',
				default: true,
			});
		}
	});

	it('keeps jobId a string and transcript the transcript text', () => {
		expect(propertiesOf('job', 'wait').find((property) => property.name === 'jobId')?.type).toBe(
			'string',
		);
		expect(
			propertiesOf('content', 'generateBlog').find((property) => property.name === 'transcript')
				?.type,
		).toBe('string');
	});

	it('has an escape hatch for unlisted body fields on every operation that sends a body', () => {
		for (const [resource, operation] of [
			['post', 'create'],
			['post', 'update'],
			['webhook', 'create'],
			['webhook', 'update'],
			...OPERATIONS.content.map((name) => ['content', name]),
			...OPERATIONS.publication.map((name) => ['publication', name]),
		]) {
			// The body's collection: not the wait's options, nor Download Media's options.
			const collection = propertiesOf(resource, operation).find(
				(property) =>
					property.type === 'collection' && !['options', 'mediaOptions'].includes(property.name),
			);
			const names = (collection?.options as INodeProperties[] | undefined)?.map(
				(option) => option.name,
			);
			expect({ resource, operation, hasExtraBody: names?.includes('extraBody') }).toEqual({
				resource,
				operation,
				hasExtraBody: true,
			});
		}
	});
});

describe('how the editor shows the nodes', () => {
	const operationOptions = properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) => property.options as INodePropertyOptions[]);

	/** The options of the Resource list, or of one resource's Operation list. */
	function optionsOf(name: 'resource' | 'operation', resource: string): INodePropertyOptions[] {
		const property = properties.find(
			(candidate) =>
				candidate.name === name &&
				(name === 'resource' || candidate.displayOptions?.show?.resource?.includes(resource)),
		);
		return (property?.options ?? []) as INodePropertyOptions[];
	}

	it("writes every action in sentence case as n8n's scanner reads it", () => {
		// n8n's rule (node-param-operation-option-action-miscased) drops punctuation and lowercases
		// every word but an all-capitals one: "LinkedIn" would have to read "linked in". So actions
		// write a brand as one lowercase word, and the operation names write it as the brand does.
		const actions = operationOptions.map((option) => String(option.action));
		expect(
			actions.filter((action) => !/^[A-Z][a-z0-9]*( ([a-z0-9]+|[A-Z0-9]+))*$/.test(action)),
		).toEqual([]);
	});

	it.each([
		['linkedin', ['Generate a linkedin post', 'Publish to linkedin']],
		['twitter', ['Generate a twitter thread', 'Publish to twitter']],
	])('finds the %s operations when the nodes panel searches the actions for it', (brand, found) => {
		// The panel searches a node's actions by their text (the editor's searchNodes, over each
		// action's displayName, which is its `action`); codex aliases only find the node itself.
		const actions = operationOptions.map((option) => String(option.action));
		expect(actions.filter((action) => action.toLowerCase().includes(brand))).toEqual(found);
	});

	it.each(
		Object.entries(OPERATIONS).flatMap(([resource, operations]) =>
			operations.map((operation) => [resource, operation]),
		),
	)(
		'shows %s → %s on the canvas by the names of the Resource and Operation lists',
		(resource, operation) => {
			const resourceName = optionsOf('resource', resource).find(
				(option) => option.value === resource,
			)?.name;
			const operationName = optionsOf('operation', resource).find(
				(option) => option.value === operation,
			)?.name;
			const node = contentPublishingNode({ resource, operation });
			const subtitle = oneNodeWorkflow(node).expression.getSimpleParameterValue(
				node,
				nodeType.description.subtitle!,
				'internal',
				{},
			);
			expect(subtitle).toBe(`${resourceName} → ${operationName}`);
		},
	);

	it("agrees with the README's operations table: resource, operation and the nodes panel's action", () => {
		const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
		const table = readme.slice(readme.indexOf('## Operations'));
		const rows = table
			.slice(0, table.indexOf('\n\n', table.indexOf('| Resource |')))
			.split('\n')
			.filter((line) => line.startsWith('| ') && !line.startsWith('| Resource |'))
			.map((line) =>
				line
					.split(' | ')
					.slice(0, 3)
					.map((cell) => cell.replace(/^\| /, '')),
			);
		const described = Object.entries(OPERATIONS).flatMap(([resource, operations]) => {
			const resourceName = optionsOf('resource', resource).find(
				(option) => option.value === resource,
			)?.name;
			return operations.map((operation) => {
				const option = optionsOf('operation', resource).find((entry) => entry.value === operation);
				return [resourceName, option?.name, option?.action];
			});
		});
		expect(rows.sort()).toEqual(described.sort());
	});

	it('names the brands in operation names and descriptions as the brands write them', () => {
		const byValue = (value: string) => operationOptions.find((option) => option.value === value)!;
		for (const [value, brand] of [
			['generateLinkedin', 'LinkedIn'],
			['publishLinkedin', 'LinkedIn'],
			['generateTwitter', 'Twitter'],
			['publishTwitter', 'Twitter'],
		]) {
			const { name, description } = byValue(value);
			expect({ value, name, description }).toEqual({
				value,
				name: expect.stringContaining(brand),
				description: expect.stringContaining(brand),
			});
		}
		const texts = operationOptions.flatMap((option) => [option.name, option.description ?? '']);
		const miswritten = texts.filter((text) =>
			(text.match(/linkedin|twitter/gi) ?? []).some(
				(brand) => brand !== 'LinkedIn' && brand !== 'Twitter',
			),
		);
		expect(miswritten).toEqual([]);
	});

	it("describes the app truly in the nodes panel, where n8n shows the trigger's text for both nodes", () => {
		const trigger = loadPackage().nodeTypes.get(TRIGGER_TYPE)!.description;
		// The editor merges `<name>Trigger` into `<name>` and keeps the trigger's description.
		expect(trigger.name.replace('Trigger', '')).toBe(nodeType.description.name);
		expect(trigger.description).toMatch(
			/^Generate blog posts, social posts, carousels and videos, publish to LinkedIn and Twitter, and start workflows when/,
		);
	});

	it('is found by what it does: codex aliases for both nodes', () => {
		for (const file of [
			'ContentPublishing/ContentPublishing.node.json',
			'ContentPublishingTrigger/ContentPublishingTrigger.node.json',
		]) {
			const codex = JSON.parse(
				readFileSync(path.join(__dirname, '..', '..', 'nodes', file), 'utf8'),
			) as { alias?: string[]; resources: { primaryDocumentation: Array<{ url: string }> } };
			// The editor's Docs link appends `?utm_source=…` to this address: after a `#fragment`
			// the query would be part of the fragment, and the page would not scroll to it.
			for (const { url } of codex.resources.primaryDocumentation)
				expect({ file, url }).toEqual({ file, url: expect.stringMatching(/^https:\/\/[^#?]+$/) });
			expect({ file, alias: codex.alias }).toEqual({
				file,
				alias: expect.arrayContaining([
					'Blog Post',
					'LinkedIn',
					'Transcript',
					'Video',
					'Carousel',
					'Social Media',
					'Twitter',
				]),
			});
		}
	});
});

describe('trigger description (the saved-workflow API)', () => {
	const trigger = loadPackage().nodeTypes.get(TRIGGER_TYPE)!;
	const events = trigger.description.properties.find((property) => property.name === 'events');

	it("offers the service's events, the agreed ones where it lists none, and defaults to job completion", () => {
		expect(events?.typeOptions?.loadOptionsMethod).toBe('getEvents');
		expect(
			eventOptions(undefined)
				.map((option) => option.value)
				.sort(),
		).toEqual(['*', 'job.completed', 'job.failed', 'post.published']);
		expect(
			eventOptions(['JOB_READY', 'POST_LIVE']).map((option) => [option.name, option.value]),
		).toEqual([
			['All Events', '*'],
			['Job Ready', 'JOB_READY'],
			['Post Live', 'POST_LIVE'],
		]);
		expect(events?.default).toEqual(['job.completed']);
	});

	it.each([
		[['job.completed'], 'Job Completed'],
		[['job.completed', 'post.published'], 'Job Completed, Post Published'],
		[['*'], 'All Events'],
		[['JOB_READY', 'post-live'], 'Job Ready, Post Live'],
	])('shows %j on the canvas as "%s", the names of the events list', (chosen, shown) => {
		const node = triggerNode({ events: chosen });
		const subtitle = triggerWorkflow(node).expression.getSimpleParameterValue(
			node,
			trigger.description.subtitle!,
			'internal',
			{},
		);
		expect(subtitle).toBe(shown);
		const listed = eventOptions(chosen.filter((event) => event !== '*')).filter((option) =>
			chosen.includes(String(option.value)),
		);
		expect(listed.map((option) => option.name).join(', ')).toBe(shown);
	});

	it('follows n8n trigger conventions', () => {
		expect(trigger.description.group).toEqual(['trigger']);
		expect(trigger.description.usableAsTool).toBeUndefined();
		expect(trigger.description.subtitle).toEqual(expect.stringContaining('events'));
		expect(trigger.description.inputs).toEqual([]);
		expect(trigger.description.webhooks).toEqual([
			expect.objectContaining({ name: 'default', httpMethod: 'POST' }),
		]);
	});
});

describe('Request Options', () => {
	it('are offered for every operation, with a 60-second timeout by default', () => {
		const requestOptions = properties.find((property) => property.name === 'requestOptions');
		expect(requestOptions?.displayOptions).toBeUndefined();
		const timeout = (requestOptions?.options as INodeProperties[]).find(
			(option) => option.name === 'timeout',
		);
		expect(timeout).toEqual(expect.objectContaining({ type: 'number', default: 60 }));
	});
});
