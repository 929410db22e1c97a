import { BUILT_IN_PROFILE } from '../builtIn';
import { own, pointerOf } from '../pointer';
import type { JobProfile, Profile } from '../types';
import { isUri } from './answers';
import { DocumentReader, firstSentence, normalizeName, ownText, type Schema } from './document';
import { named, type DocumentOperation } from './operations';
import { statesOf } from './words';

const MEDIA_WORDS =
	/video|image|audio|media|thumbnail|picture|photo|file|asset|download|poster|clip|render/;

const ID_NAMES = ['id', 'job_id', 'uid', 'uuid', 'gid'];

/**
 * The job profile, from the schema Job → Get answers with: its id, result, error, kind and media,
 * and its completion: a status whose values have states (from their explanations or their own
 * words), or without one, a yes/no that says it is done (Google's long-running operations' `done`).
 * A job schema without an id or a completion the rules know is said in `notFollowed` (the built-in
 * places stand in, and an answer without them fails when read).
 */
export function readJobs(
	reader: DocumentReader,
	schema: Schema | undefined,
	getJob: DocumentOperation | undefined,
	notFollowed: Profile['notFollowed'],
): JobProfile {
	const fallback = BUILT_IN_PROFILE.jobs;
	const from = getJob?.from ?? 'built-in';
	const resource = reader.shape(schema);
	if (resource === undefined) return fallback;
	// A JSON:API resource object (`type`, `id`, `attributes`): the job's fields are its attributes,
	// its `type` the resource type ("jobs"), not the job's kind.
	const attributes = ['type', 'id'].every((name) => resource.properties.has(name))
		? reader.shape(resource.properties.get('attributes'))
		: undefined;
	const shape = attributes ?? resource;
	const inside = attributes === undefined ? [] : ['attributes'];
	const properties = [...shape.properties.entries()];
	const pick = (test: (name: string, schema: Schema) => boolean) =>
		properties.find(([name, property]) => {
			reader.spend();
			return test(name, property);
		})?.[0];
	const place = (...names: string[]) => pointerOf([...inside, ...names]);
	const at = (name: string | undefined) => (name === undefined ? undefined : [place(name)]);
	const withValues = properties.filter(([, property]) => reader.enumValues(property) !== undefined);
	const status =
		withValues.find(([name]) => named('status', 'state', 'phase', 'stage')(name)) ??
		withValues.find(([name, property]) =>
			/status|state|phase/.test(`${normalizeName(name)} ${firstSentence(property)}`),
		);
	const flag = pick(
		(name, property) =>
			reader.types(property).includes('boolean') &&
			(/^(is)?(done|completed?)$|^finished$/.test(normalizeName(name)) ||
				/^(if|whether)\b.*\b(done|complete|finished)/.test(firstSentence(property))),
	);
	const plainStatus = pick(named('status', 'state', 'phase'));
	let completion = fallback.completion;
	if (status !== undefined) {
		// A status the service reports beyond its list is read by the built-in words (`failed`).
		const builtIn = fallback.completion.by === 'status' ? fallback.completion.states : {};
		const states = statesOf(reader, status[1], reader.enumValues(status[1]) ?? []);
		for (const [word, state] of Object.entries(builtIn)) states[word] ??= state;
		completion = { by: 'status', status: [place(status[0])], states };
	} else if (flag !== undefined) completion = { by: 'flag', done: [place(flag)] };
	else if (plainStatus !== undefined && completion.by === 'status')
		completion = { ...completion, status: [place(plainStatus)] };

	const result =
		pick(named('result', 'results', 'output', 'outputs', 'response')) ??
		pick((_, property) => /\bresult/.test(firstSentence(property)));
	const error =
		pick(named('error', 'errors', 'failure')) ??
		pick(
			(name, property) =>
				reader.shape(property) !== undefined && /\b(fail|error)/.test(firstSentence(property)),
		);
	const kind =
		pick(named('type', 'kind', 'job_type', 'operation', 'task')) ??
		pick((_, property) =>
			/\b(kind|type) of (the )?(job|operation|task)/.test(firstSentence(property)),
		);
	// A job's kind may sit in its metadata (Google's long-running operations).
	const metadata = pick(named('metadata', 'meta'));
	const kindInMetadata =
		kind === undefined && metadata !== undefined
			? [...(reader.shape(shape.properties.get(metadata))?.properties.keys() ?? [])]
					.filter(named('type', 'kind', 'job_type'))
					.slice(0, 1)
					.map((name) => place(metadata, name))
			: [];
	const media = mediaNames(reader, result === undefined ? undefined : shape.properties.get(result));
	// The id by its name, by the name Job → Get's path gives it (`{jobId}`), or as the document
	// describes it. The job's is the path's last parameter: one before it names a parent (Twilio's
	// `/Accounts/{AccountSid}/Messages/{Sid}.json`, Airflow's `/dags/{dag_id}/dagRuns/{dag_run_id}`).
	const pathParameters = getJob?.pathParameters.slice(-1) ?? [];
	// JSON:API's `id` is the resource object's own, beside its attributes.
	const id =
		attributes !== undefined
			? [pointerOf(['id'])]
			: at(
					pick(named(...ID_NAMES)) ??
						pick(named(...pathParameters)) ??
						pick(
							(_, property) =>
								own(reader.deref(property), 'readOnly') === true &&
								/\b(identifier|unique id)\b/.test(firstSentence(property)),
						),
				);
	const places = [...shape.properties.keys()].slice(0, 10).join(', ');
	const otherNames = pathParameters.filter((name) => !named(...ID_NAMES)(name));
	if (id === undefined)
		notFollowed.push({
			part: "its jobs' id",
			of: '/jobs/id',
			why: `the job at ${from} has no property named ${ID_NAMES.join(', ')}${otherNames.length > 0 ? ` or ${otherNames.join(', ')}` : ''}, nor one it describes as the job's identifier (it has ${places}); the built-in /id stands in`,
		});
	if (status === undefined && flag === undefined && plainStatus === undefined)
		notFollowed.push({
			part: "its jobs' status",
			of: '/jobs/completion/status',
			why: `the job at ${from} has no status, state or phase with values, nor a yes/no that says it is done (it has ${places}); the built-in ${fallback.completion.by === 'status' ? fallback.completion.status.join(', ') : 'completion'} stands in`,
		});
	return {
		id: id ?? fallback.id,
		completion,
		result: at(result) ?? fallback.result,
		error: at(error) ?? fallback.error,
		// A job may say why it failed in fields of its own (Twilio's `error_code` and `error_message`).
		errorMessage:
			at(pick(named('error_message', 'failure_reason', 'failure_message', 'status_message'))) ??
			fallback.errorMessage,
		errorCode: at(pick(named('error_code', 'failure_code'))) ?? fallback.errorCode,
		kind: at(kind) ?? (kindInMetadata.length > 0 ? kindInMetadata : fallback.kind),
		media: media.length > 0 ? media : fallback.media,
		from: attributes === undefined ? from : `${from}: attributes`,
	};
}

/** The names of the properties of a job's result, at any depth, that hold media addresses. */
function mediaNames(reader: DocumentReader, schema: Schema | undefined): string[] {
	const names = new Set<string>();
	const visit = (value: Schema | undefined, depth: number) => {
		if (value === undefined || depth > 4) return;
		for (const variant of reader.variants(value)) {
			const item = reader.items(variant);
			if (item !== undefined) visit(item, depth + 1);
			for (const [name, property] of reader.shape(variant)?.properties ?? []) {
				reader.spend();
				const text = `${normalizeName(name)} ${firstSentence(property)} ${ownText(property, 'contentMediaType')}`;
				const isAddress = reader.types(property).includes('string') && isUri(reader, property);
				if (isAddress && MEDIA_WORDS.test(text)) names.add(normalizeName(name));
				else visit(property, depth + 1);
			}
		}
	};
	visit(schema, 0);
	return [...names];
}
