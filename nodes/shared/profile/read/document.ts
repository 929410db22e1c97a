import type { IDataObject } from 'n8n-workflow';

import { isRecord, own } from '../pointer';

/** A JSON Schema or OpenAPI object, read as plain data. */
export type Schema = IDataObject;

export interface OpenApiDocument {
	openapi: string;
	paths: IDataObject;
	components?: IDataObject;
}

export interface ObjectShape {
	properties: Map<string, Schema>;
	required: Set<string>;
	/** Whether properties other than the listed ones are refused (`additionalProperties: false`). */
	closed: boolean;
}

// Descriptions are read for a few words; a megabyte of text must not reach a regular expression.
const MAX_TEXT = 2000;
const MAX_REF_HOPS = 32;
const MAX_DEPTH = 24;
// No real `$ref` nears this; a longer one would be split and looked up before a step is counted.
const MAX_REF = 4_096;
// No real `allOf`/`oneOf`/`anyOf` nears this many schemas; each is read again wherever its schema is.
const MAX_PARTS = 200;

/** Why a part of the document is not followed (past the budget, or read as something unsafe): its message says. */
export class SchemaBudgetError extends Error {}

export function ownRecord(value: unknown, key: string): IDataObject | undefined {
	const found = own(value, key);
	return isRecord(found) ? found : undefined;
}

export function ownArray(value: unknown, key: string): unknown[] {
	const found = own(value, key);
	return Array.isArray(found) ? found : [];
}

export function ownText(value: unknown, key: string): string {
	const found = own(value, key);
	return typeof found === 'string' ? found.slice(0, MAX_TEXT) : '';
}

export function isOpenApiDocument(value: unknown): value is OpenApiDocument {
	const version = own(value, 'openapi');
	return typeof version === 'string' && /^3\.[01]\./.test(version) && isRecord(own(value, 'paths'));
}

// No real name (of a property, parameter, header, media type or event) or enum value nears this.
const MAX_NAME = 256;

/**
 * A name or value of the document that the profile may keep, for every request, delivery and
 * Describe to carry: one longer than any real one is not followed.
 */
export function nameOf(name: string): string {
	if (name.length > MAX_NAME)
		throw new SchemaBudgetError(`it has a name or value longer than ${MAX_NAME} characters`);
	return name;
}

const TOO_MANY_PARTS = `one of its schemas composes more than ${MAX_PARTS} others`;

/** Lower case without separators: `page_id`, `pageId` and `Page-ID` read alike. */
export function normalizeName(name: string): string {
	return name
		.slice(0, MAX_NAME)
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '');
}

/** The first sentence of a description, lower case, read no further than a few words' length. */
export function firstSentence(schema: unknown): string {
	const text = ownText(schema, 'description').slice(0, 300);
	const end = text.search(/[.!?]\s/);
	return (end === -1 ? text : text.slice(0, end + 1)).toLowerCase();
}

/**
 * Reading an OpenAPI document, which the node must not trust: own properties only (`__proto__` is
 * data), every `$ref` chain and composition expanded once (memoized, cycles cut), all within a
 * budget of steps, so that no document, however built, holds n8n's event loop.
 */
export class DocumentReader {
	private readonly shapes = new Map<object, ObjectShape | null>();
	private readonly expanding = new Set<object>();
	private readonly refs = new Map<string, Schema | null>();
	private readonly alternatives = new Map<object, Schema[]>();
	private readonly listed = new Map<object, string[] | null>();
	// Schemas a part of which was cut (too deep a composition, or one containing itself).
	private readonly cut = new Set<object>();
	private spent = 0;
	private stepEnd = Infinity;
	private stepSize = Infinity;

	constructor(
		readonly document: OpenApiDocument,
		/** Steps this reader may take over its whole life. */
		private readonly budget: number,
	) {}

	/** Counts work; past the budget, or past the current step's share of it, the reading stops with SchemaBudgetError. */
	spend(steps = 1): void {
		this.spent += steps;
		const over =
			this.spent > this.budget
				? `${this.budget.toLocaleString('en-US')} steps to read`
				: this.spent > this.stepEnd
					? `${this.stepSize.toLocaleString('en-US')} steps to read at once`
					: undefined;
		if (over !== undefined) throw new SchemaBudgetError(`its schemas take more than ${over}`);
	}

	/** Starts one step of the reading, which runs without a break for n8n: it may take only this many steps. */
	beginStep(steps: number): void {
		this.stepSize = steps;
		this.stepEnd = this.spent + steps;
	}

	/** Follows local `$ref`s (`#/components/...`); a reference that leads nowhere reads as no schema. */
	deref(value: unknown): Schema | undefined {
		let current = value;
		for (let hops = 0; typeof own(current, '$ref') === 'string'; hops++) {
			const ref = own(current, '$ref') as string;
			if (hops === MAX_REF_HOPS || !ref.startsWith('#/')) return undefined;
			if (ref.length > MAX_REF)
				throw new SchemaBudgetError(
					`it has a $ref longer than ${MAX_REF.toLocaleString('en-US')} characters`,
				);
			let target = this.refs.get(ref);
			if (target === undefined) {
				let found: unknown = this.document;
				for (const part of ref.slice(2).split('/')) {
					this.spend();
					found = own(found, part.replace(/~1/g, '/').replace(/~0/g, '~'));
				}
				target = isRecord(found) ? found : null;
				this.refs.set(ref, target);
			}
			current = target;
		}
		return isRecord(current) ? current : undefined;
	}

	types(value: unknown): string[] {
		const schema = this.deref(value);
		const type = own(schema, 'type');
		const types = Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
		if (own(schema, 'nullable') === true) types.push('null');
		return types;
	}

	/** The alternatives a schema allows (`oneOf`/`anyOf`, nested ones flattened), or the schema itself. */
	variants(value: unknown): Schema[] {
		const schema = this.deref(value);
		if (schema === undefined) return [];
		const known = this.alternatives.get(schema);
		if (known !== undefined) return known;
		const choices = [...ownArray(schema, 'oneOf'), ...ownArray(schema, 'anyOf')];
		if (choices.length === 0 || this.isCut(schema)) return [schema];
		if (choices.length > MAX_PARTS) throw new SchemaBudgetError(TOO_MANY_PARTS);
		this.expanding.add(schema);
		try {
			// Each alternative once, however often nested choices name it.
			const found = new Set<Schema>();
			for (const choice of choices)
				for (const variant of this.variants(choice)) {
					this.spend();
					found.add(variant);
				}
			if (found.size > MAX_PARTS) throw new SchemaBudgetError(TOO_MANY_PARTS);
			const variants = [...found];
			this.alternatives.set(schema, variants);
			return variants;
		} finally {
			this.expanding.delete(schema);
		}
	}

	/**
	 * The object a schema describes: its properties with those of every `allOf` part, and those its
	 * `oneOf`/`anyOf` alternatives may have; undefined when it describes no object.
	 */
	shape(value: unknown): ObjectShape | undefined {
		const schema = this.deref(value);
		if (schema === undefined) return undefined;
		const known = this.shapes.get(schema);
		if (known !== undefined) return known ?? undefined;
		// A schema that contains itself reads as what is known of it so far: nothing more.
		if (this.isCut(schema)) return undefined;
		this.expanding.add(schema);
		try {
			const shape = this.expand(schema);
			this.shapes.set(schema, shape ?? null);
			return shape;
		} finally {
			this.expanding.delete(schema);
		}
	}

	/** Whether a schema's shape may lack properties, a part of it cut by the bounds of expansion. */
	isPartial(value: unknown): boolean {
		const schema = this.deref(value);
		return schema !== undefined && this.cut.has(schema);
	}

	private isCut(schema: Schema): boolean {
		return this.expanding.has(schema) || this.expanding.size > MAX_DEPTH;
	}

	private expand(schema: Schema): ObjectShape | undefined {
		this.spend();
		const shape: ObjectShape = {
			properties: new Map(),
			required: new Set(),
			closed: own(schema, 'additionalProperties') === false,
		};
		const ownProperties = ownRecord(schema, 'properties');
		let isObject = ownProperties !== undefined || this.types(schema).includes('object');
		// Every `allOf` part's properties, and those of a `oneOf`/`anyOf` alternative not yet known.
		const allOf = ownArray(schema, 'allOf');
		const parts = [...allOf, ...ownArray(schema, 'oneOf'), ...ownArray(schema, 'anyOf')];
		if (parts.length > MAX_PARTS) throw new SchemaBudgetError(TOO_MANY_PARTS);
		for (const [index, part] of parts.entries()) {
			const partSchema = this.deref(part);
			const cut =
				partSchema !== undefined && !this.shapes.has(partSchema) && this.isCut(partSchema);
			const partShape = this.shape(partSchema);
			// A part cut here, or within, may have had properties: this shape may lack them.
			if (cut || (partSchema !== undefined && this.cut.has(partSchema))) this.cut.add(schema);
			if (partShape === undefined) continue;
			const all = index < allOf.length;
			isObject = true;
			this.spend(partShape.properties.size + partShape.required.size);
			for (const [name, property] of partShape.properties)
				if (all || !shape.properties.has(name)) shape.properties.set(name, property);
			if (all) {
				for (const name of partShape.required) shape.required.add(name);
				shape.closed ||= partShape.closed;
			}
		}
		if (!isObject) return undefined;
		// Counted before they are copied: a part beyond the budget stops without copying thousands.
		const names = Object.keys(ownProperties ?? {});
		this.spend(names.length);
		for (const name of names)
			shape.properties.set(nameOf(name), this.deref(own(ownProperties, name)) ?? {});
		for (const name of ownArray(schema, 'required'))
			if (typeof name === 'string') shape.required.add(name);
		return shape;
	}

	at(value: Schema | undefined, path: readonly string[]): Schema | undefined {
		let found = value;
		for (const key of path) found = this.shape(found)?.properties.get(key);
		return found;
	}

	/** The schema of an array's items, looking through a nullable wrapper. */
	items(value: unknown): Schema | undefined {
		return this.deref(own(this.arrayVariant(value), 'items'));
	}

	isArray(value: unknown): boolean {
		return this.arrayVariant(value) !== undefined;
	}

	private arrayVariant(value: unknown): Schema | undefined {
		return this.variants(value).find(
			(variant) => this.types(variant).includes('array') || own(variant, 'items') !== undefined,
		);
	}

	/**
	 * A schema's allowed string values: its enum or const, also inside `oneOf`/`anyOf`; read once per
	 * schema and counted, as an enum may be shared by many properties.
	 */
	enumValues(value: unknown): string[] | undefined {
		const schema = this.deref(value);
		if (schema === undefined) return undefined;
		const known = this.listed.get(schema);
		if (known !== undefined) return known ?? undefined;
		const values = new Set<string>();
		for (const variant of this.variants(schema)) {
			const listed = ownArray(variant, 'enum');
			this.spend(listed.length);
			for (const entry of [...listed, own(variant, 'const')])
				if (typeof entry === 'string') values.add(nameOf(entry));
		}
		const found = values.size > 0 ? [...values] : undefined;
		this.listed.set(schema, found ?? null);
		return found;
	}
}
