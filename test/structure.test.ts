import { measure, summary } from '../scripts/structure';

/**
 * The layers: an operation's plan goes to the executor, which turns it into requests by the
 * profile and sends them through the transport. The transport imports neither the profile nor the
 * executor, the profile not the executor, and only the executor and the entry points (which n8n
 * loads) import the transport.
 */
describe('the package structure', () => {
	const found = measure();

	it('has no import cycle, no transport or profile file importing a layer above, and no other file reaching past the executor', () => {
		process.stdout.write(`${summary(found)}\n`);
		expect(found.cycles.map((cycle) => cycle.join(' -> '))).toEqual([]);
		expect(found.upward).toEqual([]);
		expect(found.outsiders).toEqual([]);
	});
});
