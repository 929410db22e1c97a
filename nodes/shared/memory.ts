/** The one bounded memory of this process's maps: the most entries one holds, unless it says fewer. */
export const MAX_REMEMBERED = 10_000;

/** Sets `key` in a memory, forgetting the oldest entry where it already holds `most`. */
export function keepInMemory<K, T>(memory: Map<K, T>, key: K, value: T, most = MAX_REMEMBERED): T {
	if (!memory.has(key) && memory.size >= most) memory.delete(memory.keys().next().value as K);
	memory.set(key, value);
	return value;
}
