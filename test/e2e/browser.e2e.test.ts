/**
 * What a newcomer sees after `npm start`, checked in Debian's Chromium: log in, open the first
 * example, execute it, see every node succeed, and find the node's resources and operations; find
 * the node in the nodes panel by what it does, read its true description and brand-cased actions,
 * preview an operation's fields before a run, play a generated video and see its carousel's slides in
 * n8n's binary preview, fire the trigger example's event as its note says, and see the credential's
 * dialog accept empty Profile Overrides and fail its test on invalid ones, naming the JSON path.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, selectors, type BrowserContext, type Page } from 'playwright-core';

import { N8nRestClient } from '../../scripts/n8n-instance';
import {
	CREDENTIAL,
	fakeServiceStateFile,
	OWNER_EMAIL,
	start,
	type Started,
} from '../../scripts/start';
import { startFakeService } from '../fake-service';
import { portToReuse } from '../support/ports';
import { CHROMIUM, ensureDebianPackages } from './debian';
import { settled, until } from './workflows';

jest.setTimeout(180_000);

const SCREENSHOTS = path.resolve(__dirname, '..', '..', 'test-output');

let started: Started;
let browser: BrowserContext;
let page: Page;
let stateFolder: string;
let browserProfile: string;

beforeAll(async () => {
	// CI machines start without a browser; Debian's package is the one that runs offline here.
	ensureDebianPackages();
	selectors.setTestIdAttribute('data-test-id');
	stateFolder = mkdtempSync(path.join(tmpdir(), 'cp-start-'));
	started = await start({
		stateFolder,
		n8nPort: await portToReuse(),
		fakePort: await portToReuse(),
		realService: undefined,
	});
	// A fresh profile each run; Playwright passes it as --user-data-dir.
	browserProfile = mkdtempSync(path.join(tmpdir(), 'cp-chromium-'));
	browser = await chromium.launchPersistentContext(browserProfile, {
		executablePath: CHROMIUM,
		headless: true,
		viewport: { width: 1440, height: 900 },
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
	// Every wait for the page has this bound unless it names its own: on a busy 2-core machine the
	// editor can take longer than Playwright's 30 s default to draw.
	browser.setDefaultTimeout(60_000);
	page = browser.pages()[0] ?? (await browser.newPage());
	mkdirSync(SCREENSHOTS, { recursive: true });
}, 900_000);

afterAll(async () => {
	await browser?.close();
	await started?.stop();
	for (const folder of [stateFolder, browserProfile])
		if (folder) rmSync(folder, { recursive: true, force: true });
});

/** What the checks read of a <video> and an <img> in the page (this project compiles without the DOM's types). */
interface VideoElement {
	muted: boolean;
	currentTime: number;
	duration: number;
	videoWidth: number;
	videoHeight: number;
	error: { message: string } | null;
	play(): Promise<void>;
	getVideoPlaybackQuality(): { totalVideoFrames: number };
}

interface ImageElement {
	naturalWidth: number;
	naturalHeight: number;
	decode(): Promise<void>;
}

async function shot(name: string): Promise<void> {
	await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}

let ownerSession: { of: Started; rest: N8nRestClient } | undefined;

/**
 * n8n's REST API as the owner, logged in once per start of n8n: n8n limits how often one address
 * may log in (its login route has `rateLimit: true`; it answered 429 to this file's logins).
 */
async function ownerRest(): Promise<N8nRestClient> {
	if (ownerSession?.of !== started) {
		const rest = new N8nRestClient(started.n8n.url);
		await rest.login(OWNER_EMAIL, started.state.ownerPassword);
		ownerSession = { of: started, rest };
	}
	return ownerSession.rest;
}

const canvasNode = (name: string) => page.getByTestId('canvas-node').filter({ hasText: name });

/** n8n's recent output, to explain a wait that timed out. */
const n8nLog = () => started.n8n.log().slice(-4000);

/**
 * The workflows a test made, removed after it whether it passed or failed, so that the next test
 * finds n8n as this one did (a workflow left by a failed test was once counted by a later one).
 */
const madeByTest = new Set<string>();

afterEach(async () => {
	if (madeByTest.size === 0) return;
	const rest = await ownerRest();
	for (const id of madeByTest) {
		await rest.call('POST', `/workflows/${id}/archive`);
		await rest.call('DELETE', `/workflows/${id}`);
	}
	madeByTest.clear();
});

/** Creates a workflow through n8n's REST API, to be removed after the test. */
async function createWorkflow(workflow: Record<string, unknown>): Promise<string> {
	const id = String((await (await ownerRest()).call('POST', '/workflows', workflow)).id);
	madeByTest.add(id);
	return id;
}

/** Publishes (activates) a workflow for the length of `run`, whatever `run` does. */
async function whilePublished(id: string, run: () => Promise<void>): Promise<void> {
	const rest = await ownerRest();
	const { versionId } = await rest.call('GET', `/workflows/${id}`);
	await rest.call('POST', `/workflows/${id}/activate`, { versionId });
	try {
		await run();
	} finally {
		await (await ownerRest()).call('POST', `/workflows/${id}/deactivate`, {});
	}
}

/**
 * Signs in as the owner, unless the browser holds a session already: the first test signs in, and a
 * run of later tests alone (`-t`) signs in before its first.
 */
async function signIn(): Promise<void> {
	const cookies = await browser.cookies(started.n8n.url);
	if (cookies.some((cookie) => cookie.name === 'n8n-auth')) return;
	await page.goto(`${started.n8n.url}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(OWNER_EMAIL);
	await page.getByTestId('password').locator('input').fill(started.state.ownerPassword);
	await shot('1-signin');
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
}

it("logs in, runs the first example green and shows the node's resources and operations", async () => {
	await signIn();

	await page.goto(`${started.n8n.url}/workflow/cpExTranscript`);
	await page.getByTestId('execute-workflow-button').first().waitFor();
	await shot('2-example');
	await page.getByTestId('execute-workflow-button').first().click();
	await page.getByTestId('canvas-node-status-success').nth(3).waitFor({ timeout: 60_000 });
	await shot('3-executed');
	expect(await page.getByTestId('canvas-node-status-success').count()).toBe(4);
	expect(started.fake!.requestsTo('publishLinkedin')).toHaveLength(1);

	await page.getByTestId('canvas-node').filter({ hasText: 'Generate blog post' }).dblclick();
	await expectDropdownOptions('resource', [
		'Account',
		'Content Generation',
		'Job',
		'Page',
		'Post',
		'Publication',
		'Service',
		'Webhook',
		// Added by n8n to every node whose credential can authenticate the HTTP Request node.
		'Custom API Call',
	]);
	await expectDropdownOptions('operation', [
		'Generate Blog Post',
		'Generate Carousel',
		'Generate LinkedIn Post',
		'Generate Twitter Thread',
		'Generate Video',
		'Custom API Call',
	]);
	await shot('4-node');
});

/** Saves a workflow of a manual trigger and then the given nodes, one after another; Content Publishing nodes get the local credential. */
async function saveChain(
	name: string,
	steps: Array<{ name: string; parameters: Record<string, unknown>; type?: string }>,
) {
	const credentials = { contentPublishingApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } };
	const nodes = [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
		...steps,
	].map((step, index) => ({
		id: `n${index}`,
		name: step.name,
		type: step.type ?? 'n8n-nodes-content-publishing.contentPublishing',
		typeVersion: 1,
		position: [index * 220, 0],
		parameters: step.parameters,
		...(step.type === undefined && { credentials }),
	}));
	const connections = Object.fromEntries(
		nodes
			.slice(1)
			.map((node, index) => [
				nodes[index].name,
				{ main: [[{ node: node.name, type: 'main', index: 0 }]] },
			]),
	);
	const id = await createWorkflow({
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections,
	});
	await page.goto(`${started.n8n.url}/workflow/${id}`);
	return id;
}

/** Opens a parameter's dropdown in the node panel and checks its option names, once it has drawn them. */
async function expectDropdownOptions(parameter: string, expected: string[]): Promise<void> {
	await page.getByTestId(`parameter-input-${parameter}`).click();
	const options = page.locator('.el-select-dropdown__item:visible');
	await settled(
		async () => (await options.allInnerTexts()).map((text) => text.split('\n')[0].trim()),
		(names) => expect(names).toEqual(expected),
	);
	await shot(`dropdown-${parameter}`);
	await page.keyboard.press('Escape');
	// The list fades out; the next dropdown must not be read while this one is still on screen.
	await options.first().waitFor({ state: 'hidden' });
}

describe('the first minutes in the editor', () => {
	/** The names in the nodes panel's current list, each with its description where it shows one. */
	async function panelItems(): Promise<string[]> {
		const items = page.getByTestId('item-iterator-item');
		await items.first().waitFor();
		return (await items.allInnerTexts()).map((text) => text.split('\n')[0].trim());
	}

	it('finds the node by what it does, describes it truly and lists its actions', async () => {
		await page.goto(`${started.n8n.url}/workflow/cpExThread`);
		await page.getByTestId('node-creator-plus-button').click();
		const search = page.getByTestId('node-creator-search-bar');
		const ourNode = page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: 'Content Publishing' })
			.first();
		for (const alias of ['carousel', 'social media', 'transcript', 'linkedin']) {
			// Back to the panel's categories, which list no node, so that what is found next was
			// found by this alias and not left from the one before.
			await search.fill('');
			await ourNode.waitFor({ state: 'detached' });
			await search.fill(alias);
			await ourNode.waitFor();
			expect({ alias, found: await panelItems() }).toEqual({
				alias,
				found: expect.arrayContaining(['Content Publishing']),
			});
		}
		await shot('5-panel-search');

		await ourNode.click();
		// n8n shows the trigger's description for the node and trigger together (see the trigger's source).
		const details = page.getByText(/^Generate blog posts, social posts, carousels and videos/);
		await details.waitFor();
		expect(await page.getByText(/^Starts the workflow/).count()).toBe(0);
		// The actions view slides in over the search's results, which stay in the page a moment (n8n's
		// own LinkedIn node among them). n8n marks node entries, never actions, with these test ids
		// (its NodeItem.vue), so once none is left only the actions are listed.
		const nodeEntries = page
			.getByTestId('node-creator-node-item')
			.or(page.getByTestId('node-creator-action-item'));
		await nodeEntries.first().waitFor({ state: 'detached' });
		// n8n's scanner lets a brand into an action only in lower case (see test/node/description.test.ts).
		const actions = await settled(panelItems, (items) =>
			expect(items).toEqual(
				expect.arrayContaining([
					'Generate a linkedin post',
					'Generate a twitter thread',
					'Publish to linkedin',
					'Publish to twitter',
				]),
			),
		);
		expect(actions.filter((action) => /linkedin/i.test(action))).toHaveLength(2);
		await shot('6-panel-actions');
		await page.keyboard.press('Escape');
	});

	it("previews an operation's output fields before it has run, without publishing anything", async () => {
		const published = started.fake!.requestsTo('publishLinkedin').length;
		await saveChain('Preview before a run', [
			{
				name: 'Publish to LinkedIn',
				parameters: {
					resource: 'publication',
					operation: 'publishLinkedin',
					source: 'text',
					text: 'Not sent',
				},
			},
			{ name: 'Next step', type: 'n8n-nodes-base.noOp', parameters: {} },
		]);
		await page.getByTestId('canvas-node').filter({ hasText: 'Next step' }).dblclick();
		await page.getByTestId('schema-preview-warning').waitFor();
		await settled(
			async () =>
				(await page.getByTestId('run-data-schema-item').allInnerTexts()).map((text) =>
					text.split('\n')[0].trim(),
				),
			(fields) =>
				expect(fields).toEqual(
					expect.arrayContaining([
						'id',
						'status',
						'result',
						'platform',
						'post_id',
						'url',
						'published_at',
					]),
				),
		);
		await shot('7-output-preview');
		await page.keyboard.press('Escape');
		expect(started.fake!.requestsTo('publishLinkedin')).toHaveLength(published);
	});

	it("plays a generated video and shows carousel slides in the output's binary preview", async () => {
		const media = { resource: 'content', prompt: 'Our launch', downloadMedia: true };
		await saveChain('Media preview', [
			{
				name: 'Generate video',
				parameters: {
					...media,
					operation: 'generateVideo',
					additionalFields: { durationSeconds: 5 },
				},
			},
			{
				name: 'Generate carousel',
				parameters: {
					...media,
					operation: 'generateCarousel',
					additionalFields: { slideCount: 3 },
				},
			},
		]);
		await page.getByTestId('execute-workflow-button').first().click();
		await page.getByTestId('canvas-node-status-success').nth(2).waitFor({ timeout: 60_000 });
		const output = page.getByTestId('output-panel');

		await page.getByTestId('canvas-node').filter({ hasText: 'Generate video' }).dblclick();
		await output.getByTestId('ndv-view-binary-data').click();
		const played = await output.locator('video').evaluate(async (video: VideoElement) => {
			video.muted = true; // a page may play sound only after a click; muted, it may play at once
			await video.play();
			for (
				const deadline = Date.now() + 15_000;
				video.currentTime < 1.5 && !video.error && Date.now() < deadline;

			) {
				await new Promise((resolve) => setTimeout(resolve, 50));
			}
			return {
				duration: video.duration,
				size: [video.videoWidth, video.videoHeight],
				advanced: video.currentTime >= 1.5,
				decodedFrames: video.getVideoPlaybackQuality().totalVideoFrames >= 15, // 10 a second
				error: video.error?.message ?? null,
			};
		});
		expect(played).toEqual({
			duration: 5,
			size: [320, 180],
			advanced: true,
			decodedFrames: true,
			error: null,
		});
		await shot('10-video-preview');
		await page.keyboard.press('Escape');

		await page.getByTestId('canvas-node').filter({ hasText: 'Generate carousel' }).dblclick();
		await output.getByTestId('ndv-view-binary-data').nth(1).click();
		const slide = output.locator('img[src*="binary-data"]');
		const slideSize = await slide.evaluate(async (image: ImageElement) => {
			await image.decode();
			return [image.naturalWidth, image.naturalHeight];
		});
		expect(slideSize).toEqual([640, 640]);
		await shot('11-slide-preview');
		await page.keyboard.press('Escape');
	});

	it("shows the AI agent example's tool fields as the model's to fill, with no parameter issues once the chat has input", async () => {
		// A copy of the example with a chat message pinned, so that the editor resolves the fields' expressions.
		const example = JSON.parse(
			readFileSync(path.resolve(__dirname, '..', '..', 'examples', '4-ai-agent-tool.json'), 'utf8'),
		) as Record<string, unknown>;
		const rest = await ownerRest();
		const id = await createWorkflow({
			name: 'AI agent example, with a chat message',
			nodes: example.nodes,
			connections: example.connections,
			settings: example.settings,
		});
		const saved = await rest.call('GET', `/workflows/${id}`);
		const chat = [
			{
				json: {
					sessionId: 'browser-test',
					action: 'sendMessage',
					chatInput: 'Draft a post about our launch',
				},
			},
		];
		await rest.call('PATCH', `/workflows/${id}`, {
			...saved,
			pinData: { 'When chat message received': chat },
		});
		await page.goto(`${started.n8n.url}/workflow/${id}`);
		await canvasNode('Publish to LinkedIn').waitFor();
		await shot('12-agent-example');

		for (const [index, [tool, fields]] of (
			[
				['Create draft post', 2],
				['Publish to LinkedIn', 1],
			] as const
		).entries()) {
			// In the panel each field the model fills says so instead of failing to resolve; the panel
			// draws the fields one by one, and resolves their expressions after drawing them.
			await canvasNode(tool).dblclick();
			const panel = page.getByTestId('ndv');
			await settled(
				async () => ({
					tool,
					byModel: await panel.getByText('Defined automatically by the model').count(),
					failing: await panel.locator('.cm-invalid-resolvable').count(),
					issues: await panel.getByTestId('parameter-issues').count(),
				}),
				(seen) => expect(seen).toEqual({ tool, byModel: fields, failing: 0, issues: 0 }),
			);
			await shot(`13-agent-tool-${index + 1}`);
			await page.keyboard.press('Escape');
			await panel.waitFor({ state: 'hidden' });
			// No warning sign on the canvas, once the editor has checked the node with its panel open.
			await settled(
				async () => ({ tool, issues: await canvasNode(tool).getByTestId('node-issues').count() }),
				(seen) => expect(seen).toEqual({ tool, issues: 0 }),
			);
		}
	});

	it('says in the trigger example how to fire an event, and doing so in another tab runs it', async () => {
		await page.goto(`${started.n8n.url}/workflow/cpExVideoReady`);
		// The sticky note names the workflow to run; its heading and instructions are on the canvas.
		await page.getByRole('heading', { name: 'When a video is ready, publish it' }).waitFor();
		await page
			.getByText('Example: fire a test event (generate a video)')
			.filter({ visible: true })
			.first()
			.waitFor();
		await shot('8-trigger-example');
		const fake = started.fake!;
		const listening = () =>
			[...fake.webhooks.values()].some((webhook) => webhook.url.includes('/webhook-test/'));
		await page.getByTestId('execute-workflow-button').first().click();
		await until(listening, "n8n's test webhook on the fake service", n8nLog);

		const other = await browser.newPage();
		try {
			await other.goto(`${started.n8n.url}/workflow/cpExFireEvent`);
			await other.getByRole('heading', { name: 'Fire a test event' }).waitFor();
			await other.getByTestId('execute-workflow-button').first().click();
			await other.getByTestId('canvas-node-status-success').nth(1).waitFor({ timeout: 60_000 });
		} finally {
			await other.close();
		}
		// The video finishes on the fake service, which calls the listening workflow: all three nodes run.
		await page.getByTestId('canvas-node-status-success').nth(2).waitFor({ timeout: 60_000 });
		await shot('9-trigger-fired');
		expect(fake.requestsTo('publishLinkedin').length).toBeGreaterThan(0);
		await until(() => !listening(), "the test webhook's removal", n8nLog);
	});
});

describe("the credential's dialog, with its Profile Overrides", () => {
	const dialog = () => page.getByTestId('editCredential-modal');
	const overridesField = () => dialog().getByTestId('profileOverrides');
	const overrides = () => overridesField().locator('textarea');
	const testedSuccessfully = () =>
		dialog().getByTestId('credentials-config-container-test-success');
	const failed = () => dialog().getByText(/^Couldn.t connect with these settings/);

	/** Waits until the dialog shows the outcome of the credential's test, which n8n runs on opening and saving. */
	async function untilTested(outcome: 'successfully' | 'failed'): Promise<void> {
		await settled(
			async () => ({
				testedSuccessfully: await testedSuccessfully().isVisible(),
				failed: await failed().isVisible(),
			}),
			(seen) =>
				expect(seen).toEqual({
					testedSuccessfully: outcome === 'successfully',
					failed: outcome === 'failed',
				}),
			60_000,
		);
	}

	/**
	 * Each way n8n marks an issue on a field of the credential's dialog: the red border (its
	 * `has-issues` class, also for a required field left empty), an issue icon, the error mark of its
	 * JSON editor (which marks an empty value as invalid JSON), and the required field's text.
	 */
	async function issuesOn(field: string) {
		const shown = dialog().getByTestId(field);
		return {
			field,
			redBorder: await shown.locator('.has-issues').count(),
			issueIcons: await shown.getByTestId('parameter-issues').count(),
			jsonErrorMarks: await shown
				.locator('.cm-lint-marker-error, .cm-lintRange-error, .cm-lintPoint-error')
				.count(),
			requiredText: await shown.getByText('This field is required').count(),
		};
	}
	const noIssues = { redBorder: 0, issueIcons: 0, jsonErrorMarks: 0, requiredText: 0 };

	/** Opens the credential `npm start` made; n8n tests it as its dialog opens. */
	async function openCredential(): Promise<void> {
		await signIn();
		await page.goto(`${started.n8n.url}/home/credentials/${CREDENTIAL.id}`);
		await overridesField().waitFor();
	}

	/** Puts the text in the field and saves, which tests the credential, until n8n has done both. */
	async function saveOverrides(text: string): Promise<void> {
		await overrides().fill(text);
		const save = dialog().getByTestId('credential-save-button');
		await save.click();
		// "Saved" once n8n has saved the credential and tested it.
		await save.filter({ hasText: /^Saved$/ }).waitFor();
	}

	/** The credential as n8n keeps it (its key redacted), to put back after a test: later tests use it. */
	const storedCredential = async () =>
		await (await ownerRest()).call('GET', `/credentials/${CREDENTIAL.id}?includeData=true`);

	async function closeDialog(): Promise<void> {
		await dialog().getByRole('button', { name: 'Close this dialog' }).click();
		await dialog().waitFor({ state: 'hidden' });
	}

	it('shows no issue on the empty field, and the test of the credential succeeds', async () => {
		const { data } = await storedCredential();
		expect((data as { profileOverrides?: string }).profileOverrides ?? '').toBe('');
		const tests = () => started.fake!.requestsTo('getAccount').length;
		const before = tests();
		await openCredential();
		await untilTested('successfully');
		expect(tests()).toBeGreaterThan(before);
		// Entered and left, as a user does: n8n marks a required field's issues after that.
		await overridesField().getByTestId('parameter-input-profileOverrides').click();
		await page.keyboard.press('Tab');
		// Tested again with Retry, as a user would. The field is read once that test is back, well after
		// n8n drew it: its JSON editor marked an empty value a moment after drawing it.
		const opened = tests();
		await testedSuccessfully().getByRole('button', { name: 'Retry', exact: true }).click();
		await until(() => tests() > opened, 'the test run by Retry', n8nLog);
		// "Retrying" until n8n has the answer.
		await testedSuccessfully().getByRole('button', { name: 'Retry', exact: true }).waitFor();
		await shot('16-credential-empty-overrides');
		expect(await issuesOn('profileOverrides')).toEqual({ field: 'profileOverrides', ...noIssues });
		await closeDialog();
	});

	it.each([
		[
			'a method that is none',
			'{"operations": {"updatePost": {"method": "FETCH"}}}',
			/^Profile Overrides: \/operations\/updatePost\/method: must be one of GET, POST, PUT, PATCH, DELETE$/,
		],
		['text that is not JSON', '{"jobs": ', /^Profile Overrides: \/: must be JSON: /],
		[
			'the API key as a name',
			'{"<key>": true}',
			/^Profile Overrides: \/\*\*\*: is not a part of the profile that can be set; /,
		],
	])(
		'fails the test of %s with a message naming its JSON path and no secret, sending nothing',
		async (what, text, message) => {
			const { apiKey } = started.fake!;
			const before = await storedCredential();
			try {
				await openCredential();
				await untilTested('successfully');
				const tests = started.fake!.requestsTo('getAccount').length;

				await saveOverrides(text.replace('<key>', apiKey));
				await untilTested('failed');
				await dialog().getByText('More details').click();
				const shown = dialog().getByText(/^Profile Overrides: \//);
				const [detail] = await settled(
					async () => (await shown.allInnerTexts()).map((line) => line.trim()),
					(lines) => expect(lines).toHaveLength(1),
				);
				// As a yes or no, so that a failure here does not print the key either.
				expect({ keyShown: (await dialog().innerText()).includes(apiKey) }).toEqual({
					keyShown: false,
				});
				expect(detail).toMatch(message);
				console.log(`n8n showed: ${detail}`);
				await shot(`17-credential-overrides-${what.replace(/\W+/g, '-')}`);
				// Checked before anything is sent: the service was not asked.
				expect(started.fake!.requestsTo('getAccount')).toHaveLength(tests);

				// Emptied again and saved, the credential passes its test, with no issue on the field.
				await saveOverrides('');
				await untilTested('successfully');
				expect(await issuesOn('profileOverrides')).toEqual({
					field: 'profileOverrides',
					...noIssues,
				});
				expect(started.fake!.requestsTo('getAccount')).toHaveLength(tests + 1);
				await closeDialog();
			} finally {
				await (
					await ownerRest()
				).call('PATCH', `/credentials/${CREDENTIAL.id}`, {
					name: before.name,
					type: before.type,
					data: before.data,
				});
			}
		},
	);
});

it('runs the video example when the fake service finishes a video', async () => {
	const fake = started.fake!;
	await whilePublished('cpExVideoReady', async () => {
		const published = fake.requestsTo('publishLinkedin').length;
		const video = fake.startJob('generate.video', { prompt: 'Launch video' });
		await nextLinkedinPublication(published);
		const postId = (fake.requestsTo('publishLinkedin').at(-1)!.body as { post_id: string }).post_id;
		expect(fake.posts.get(postId)?.content).toBe(
			`Our new video is out: ${fake.url}/media/${video.id}.mp4`,
		);
	});
	await until(() => fake.webhooks.size === 0, "the trigger's webhook removal", n8nLog);
});

/** Waits until the fake service has had one more publication to LinkedIn than before. */
async function nextLinkedinPublication(before: number): Promise<void> {
	await until(
		() => started.fake!.requestsTo('publishLinkedin').length > before,
		'a publication to LinkedIn',
		n8nLog,
	);
}

describe('a second npm start', () => {
	it('keeps what the user did: an edited example, a published trigger with its webhook on the service, a page picked before', async () => {
		const edited = 'Edited before the restart. It must still be here after it.';
		let rest = await ownerRest();
		// The user edits example 1's transcript and saves...
		const example = await rest.call('GET', '/workflows/cpExTranscript');
		const nodes = (
			example.nodes as Array<{ name: string; parameters: Record<string, unknown> }>
		).map((node) =>
			node.name === 'Generate blog post'
				? { ...node, parameters: { ...node.parameters, transcript: edited } }
				: node,
		);
		await rest.call('PATCH', '/workflows/cpExTranscript', { ...example, nodes });
		// ...publishes the trigger example...
		await whilePublished('cpExVideoReady', async () => {
			expect(started.fake!.webhooks.size).toBe(1);
			const [registered] = [...started.fake!.webhooks.values()];
			expect(registered).toEqual(
				expect.objectContaining({ url: expect.stringContaining('/webhook/') }),
			);
			// ...and picks a page from the list in a workflow of their own.
			const picked = [...started.fake!.pages.values()][2];
			const workflow = await saveChain('A page picked before the restart', [
				{
					name: 'Get the page',
					parameters: {
						resource: 'page',
						operation: 'get',
						pageId: { __rl: true, mode: 'list', value: picked.id, cachedResultName: picked.name },
					},
				},
			]);

			// Ctrl+C, then npm start again.
			await started.stop();
			const restartedAt = Date.now();
			started = await start({
				stateFolder,
				n8nPort: started.n8n.port,
				fakePort: Number(new URL(started.fake!.url).port),
				realService: undefined,
			});
			console.log(`The second start took ${((Date.now() - restartedAt) / 1000).toFixed(1)} s`);
			expect(readFileSync(fakeServiceStateFile(stateFolder), 'utf8')).toContain(picked.id);

			rest = await ownerRest();
			const kept = await rest.call('GET', '/workflows/cpExTranscript');
			const blog = (
				kept.nodes as Array<{ name: string; parameters: { transcript?: string } }>
			).find((node) => node.name === 'Generate blog post');
			expect(blog?.parameters.transcript).toBe(edited);
			expect((await rest.call('GET', '/workflows/cpExVideoReady')).active).toBe(true);
			// The same registration, with the same secret, on the restarted service: n8n checked it
			// and kept it (n8n is ready only once it has activated what is published).
			expect([...started.fake!.webhooks.values()]).toEqual([registered]);
			const fake = started.fake!;
			const published = fake.requestsTo('publishLinkedin').length;
			const video = fake.startJob('generate.video', { prompt: 'After the restart' });
			await nextLinkedinPublication(published);
			const postId = (fake.requestsTo('publishLinkedin').at(-1)!.body as { post_id: string })
				.post_id;
			expect(fake.posts.get(postId)?.content).toBe(
				`Our new video is out: ${fake.url}/media/${video.id}.mp4`,
			);

			await page.goto(`${started.n8n.url}/workflow/cpExVideoReady`);
			await page.getByRole('heading', { name: 'When a video is ready, publish it' }).waitFor();
			await shot('14-trigger-still-published');
			await page.goto(`${started.n8n.url}/workflow/${workflow}`);
			await page.getByTestId('execute-workflow-button').first().click();
			await page.getByTestId('canvas-node-status-success').nth(1).waitFor({ timeout: 60_000 });
			await canvasNode('Get the page').dblclick();
			await page.getByTestId('output-panel').getByText(picked.name).first().waitFor();
			await shot('15-page-picked-before-restart');
			await page.keyboard.press('Escape');
		});
	});

	it('reuses the folder without duplicates, and can point the credential at another service, named after it', async () => {
		const other = await startFakeService({ apiKey: 'another-service-key-0123' });
		try {
			const ports = { n8nPort: started.n8n.port, fakePort: await portToReuse() };
			await started.stop();
			started = await start({
				stateFolder,
				...ports,
				realService: { baseUrl: other.url, apiKey: other.apiKey },
			});
			expect(started.fake).toBeUndefined();

			const rest = await ownerRest();
			const workflows = (await rest.call('GET', '/workflows')) as unknown as Array<{
				id: string;
				name: string;
			}>;
			const credentials = (await rest.call('GET', '/credentials')) as unknown as Array<{
				id: string;
				name: string;
			}>;
			// Each example once, and no copy of one under another id.
			const examples = [
				'cpExAgent',
				'cpExFireEvent',
				'cpExThread',
				'cpExTranscript',
				'cpExVideoReady',
			];
			expect(
				workflows
					.filter(({ id, name }) => examples.includes(id) || name.startsWith('Example:'))
					.map(({ id }) => id)
					.sort(),
			).toEqual(examples.sort());
			expect(credentials.map((credential) => credential.id)).toEqual([CREDENTIAL.id]);

			// The stored credential now points at the other service, and says so in its name.
			const stored = (await rest.call('GET', `/credentials/${CREDENTIAL.id}?includeData=true`)) as {
				name: string;
				data: { baseUrl: string };
			};
			expect(stored.data.baseUrl).toBe(other.url);
			expect(stored.name).toBe(`Content Publishing (${new URL(other.url).host})`);
			expect(started.credentialName).toBe(stored.name);
		} finally {
			await other.close();
		}
	});

	it('says which port is taken instead of failing with a stack trace', async () => {
		await expect(
			start({
				stateFolder,
				n8nPort: started.n8n.port,
				fakePort: await portToReuse(),
				realService: undefined,
			}),
		).rejects.toThrow(
			`Port ${started.n8n.port} on 127.0.0.1 is already in use, so n8n cannot start there.`,
		);
	});
});
