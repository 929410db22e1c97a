import { isRepeatedDelivery } from '../../nodes/ContentPublishingTrigger/deliveries';

describe('remembered deliveries', () => {
	it('forget a delivery once it is older than the replay window', () => {
		const now = Date.now();
		expect(isRepeatedDelivery('window:evt_1', now)).toBe(false);
		expect(isRepeatedDelivery('window:evt_1', now + 599_000)).toBe(true);
		expect(isRepeatedDelivery('window:evt_1', now + 601_000)).toBe(false);
	});

	it('keep at most 10,000, forgetting the oldest first', () => {
		const now = Date.now() + 10_000_000;
		for (let index = 0; index < 10_001; index++) expect(isRepeatedDelivery(`bound:evt_${index}`, now)).toBe(false);
		expect(isRepeatedDelivery('bound:evt_10000', now)).toBe(true);
		expect(isRepeatedDelivery('bound:evt_0', now)).toBe(false);
	});
});
