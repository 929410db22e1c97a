/** The one bounded memory: a map that never holds more than its bound, forgetting its oldest entry. */
import { keepInMemory, MAX_REMEMBERED } from '../../nodes/shared/memory';
import { segmentsOf } from '../../nodes/shared/profile/pointer';

describe('keepInMemory', () => {
	it('holds at most its bound, forgetting the oldest entry first', () => {
		const memory = new Map<string, number>();
		for (let index = 0; index < 10; index++) keepInMemory(memory, `k${index}`, index, 4);
		expect([...memory.keys()]).toEqual(['k6', 'k7', 'k8', 'k9']);
		// A key it holds is set again without forgetting another.
		keepInMemory(memory, 'k7', 70, 4);
		expect([...memory.entries()]).toEqual([
			['k6', 6],
			['k7', 70],
			['k8', 8],
			['k9', 9],
		]);
	});

	it('holds MAX_REMEMBERED entries where it is given no bound', () => {
		const memory = new Map<number, number>();
		for (let index = 0; index < MAX_REMEMBERED + 5; index++) keepInMemory(memory, index, index);
		expect(memory.size).toBe(MAX_REMEMBERED);
		expect(memory.has(4)).toBe(false);
		expect(memory.has(5)).toBe(true);
	});
});

describe('segmentsOf', () => {
	it('splits a pointer the same way past its memory, and hands out copies', () => {
		const pointers = Array.from({ length: 1000 }, (_, index) => `/a~1${index}/b~0c/${index}`);
		for (const pointer of pointers) segmentsOf(pointer);
		for (const [index, pointer] of pointers.entries()) {
			const segments = segmentsOf(pointer);
			expect(segments).toEqual([`a/${index}`, 'b~c', String(index)]);
			segments.push('changed');
			expect(segmentsOf(pointer)).toHaveLength(3);
		}
		expect(segmentsOf('')).toEqual([]);
	});
});
