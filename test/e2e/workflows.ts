/** Pieces of the workflows and waits the end-to-end tests share. */
import type { IDataObject } from 'n8n-workflow';

/** A workflow node with an id derived from its name. */
export function node(name: string, type: string, parameters: IDataObject, position: [number, number], extra: IDataObject = {}) {
	return { id: name.toLowerCase().replace(/\W+/g, '-'), name, type, typeVersion: 1, position, parameters, ...extra };
}

/** Connections that run the named nodes one after another. */
export function chain(...names: string[]) {
	const connections: IDataObject = {};
	names.slice(0, -1).forEach((name, index) => {
		connections[name] = { main: [[{ node: names[index + 1], type: 'main', index: 0 }]] };
	});
	return connections;
}

/** Waits until the probe answers; a timeout explains itself with what `explain` returns (n8n's output). */
export async function until<T>(probe: () => T | undefined | false, what: string, explain: () => string, timeoutMs = 60_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const value = probe();
		if (value) return value;
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	throw new Error(`Timed out waiting for ${what}\n${explain()}`);
}
