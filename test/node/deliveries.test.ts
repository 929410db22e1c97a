import { markStarted, startedBefore } from '../../nodes/ContentPublishingTrigger/deliveries';

describe('remembered deliveries', () => {
	it('forget a delivery once it is older than the replay window', () => {
		const now = Date.now();
		expect(startedBefore('window:evt_1', now)).toBe(false);
		markStarted('window:evt_1', now);
		expect(startedBefore('window:evt_1', now + 599_000)).toBe(true);
		expect(startedBefore('window:evt_1', now + 601_000)).toBe(false);
	});

	it('keep at most 10,000, forgetting the oldest first', () => {
		const now = Date.now() + 10_000_000;
		for (let index = 0; index < 10_001; index++) {
			expect(startedBefore(`bound:evt_${index}`, now)).toBe(false);
			markStarted(`bound:evt_${index}`, now);
		}
		expect(startedBefore('bound:evt_10000', now)).toBe(true);
		expect(startedBefore('bound:evt_0', now)).toBe(false);
	});

	it('remember only what was marked: a delivery looked at but not started is not a repeat', () => {
		const now = Date.now() + 20_000_000;
		expect(startedBefore('unmarked:evt_1', now)).toBe(false);
		expect(startedBefore('unmarked:evt_1', now)).toBe(false);
	});
});
