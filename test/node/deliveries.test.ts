import {
	admission,
	deliveryKey,
	MAX_DELIVERIES_PER_TRIGGER,
	MAX_TRIGGERS,
	rememberStart,
	retentionMs,
} from '../../nodes/ContentPublishingTrigger/deliveries';

// A timestamp is accepted 300 s either side of n8n's clock, in whole seconds: a delivery that came
// with a timestamp 300 s ahead verifies again until 601 s later.
const WINDOW_MS = 601_000;
const start = { admit: 'start' };
const repeat = { admit: 'repeat' };

// Each test has its own moment, far from the others', so that what one remembers has long
// expired when the next looks.
let moment = Date.now();
function later(): number {
	moment += 100 * 24 * 3600_000;
	return moment;
}

/** Fills one trigger's memory, at `now`, with deliveries `<prefix>0`, `<prefix>1`, … */
function fill(trigger: string, prefix: string, now: number, keepMs = WINDOW_MS): void {
	for (let index = 0; index < MAX_DELIVERIES_PER_TRIGGER; index++)
		expect(rememberStart(trigger, `${prefix}${index}`, keepMs, now)).toEqual(start);
}

describe('remembered deliveries', () => {
	it('are kept as long as a replay could verify: the 10-minute window (and its last second) where the timestamp is signed, an hour where only the body is', () => {
		expect(retentionMs({ signed: ['timestamp', 'body'] })).toBe(WINDOW_MS);
		expect(retentionMs({ signed: ['id', 'timestamp', 'body'] })).toBe(WINDOW_MS);
		expect(retentionMs({ signed: ['body'] })).toBe(3600_000);

		const now = later();
		expect(admission('window', 'evt_1', now)).toEqual(start);
		expect(rememberStart('window', 'evt_1', WINDOW_MS, now)).toEqual(start);
		expect(admission('window', 'evt_1', now + WINDOW_MS - 1)).toEqual(repeat);
		expect(rememberStart('window', 'evt_1', WINDOW_MS, now + WINDOW_MS - 1)).toEqual(repeat);
		expect(admission('window', 'evt_1', now + WINDOW_MS)).toEqual(start);
	});

	it('are told apart by id where the service gives one, else by body', () => {
		const body = Buffer.from('{"type":"job.completed"}');
		expect(deliveryKey('evt_1', body)).toBe(deliveryKey('evt_1', Buffer.from('{}')));
		expect(deliveryKey(undefined, body)).toBe(deliveryKey(undefined, Buffer.from(body)));
		expect(deliveryKey(undefined, body)).not.toBe(deliveryKey(undefined, Buffer.from('{}')));
		// An id that looks like a body's key is still an id.
		expect(deliveryKey(deliveryKey(undefined, body), body)).not.toBe(deliveryKey(undefined, body));
	});

	it("belong to their trigger: another trigger's deliveries, any number, push none out", () => {
		const now = later();
		rememberStart('mine', 'evt_first', WINDOW_MS, now);
		fill('theirs', 'evt_', now);
		expect(admission('mine', 'evt_first', now + 1)).toEqual(repeat);
		// The same id at another trigger is another delivery.
		expect(admission('mine', 'evt_0', now + 1)).toEqual(start);
	});

	it('are never forgotten inside their window: a full trigger says when to send again, and takes deliveries again as its oldest expire', () => {
		const now = later();
		fill('full', 'evt_', now);
		fill('full later', 'evt_', now + 1000);
		expect(rememberStart('full later', 'evt_new', WINDOW_MS, now + 1000)).toEqual({
			admit: 'later',
			retryAfterSeconds: 601,
		});
		expect(admission('full', 'evt_new', now + 60_000)).toEqual({
			admit: 'later',
			retryAfterSeconds: 541,
		});
		// Every one of them is still refused.
		for (const index of [0, 1, MAX_DELIVERIES_PER_TRIGGER - 1])
			expect(admission('full', `evt_${index}`, now + WINDOW_MS - 1)).toEqual(repeat);
		// Once they are out of the window, a replay fails its signature anyway: room again.
		expect(rememberStart('full', 'evt_new', WINDOW_MS, now + WINDOW_MS)).toEqual(start);
		expect(admission('full', 'evt_0', now + WINDOW_MS)).toEqual(start);
	});

	it('are forgotten oldest first, each as its time is up, however many have gone before', () => {
		const now = later();
		for (let index = 0; index < 3000; index++)
			rememberStart('steady', `evt_${index}`, WINDOW_MS, now + index);
		const at = now + WINDOW_MS + 1500;
		expect(admission('steady', 'evt_1500', at)).toEqual(start);
		expect(admission('steady', 'evt_1501', at)).toEqual(repeat);
		expect(rememberStart('steady', 'evt_new', WINDOW_MS, at)).toEqual(start);
		expect(admission('steady', 'evt_2999', now + WINDOW_MS + 2998)).toEqual(repeat);
		expect(admission('steady', 'evt_2999', now + WINDOW_MS + 2999)).toEqual(start);
		expect(admission('steady', 'evt_new', at + WINDOW_MS - 1)).toEqual(repeat);
		expect(admission('steady', 'evt_new', at + WINDOW_MS)).toEqual(start);
	});

	it('keep entries longer, never shorter, when the clock is set back', () => {
		const now = later();
		rememberStart('clock', 'evt_before', WINDOW_MS, now);
		rememberStart('clock', 'evt_after', WINDOW_MS, now - 3600_000);
		expect(admission('clock', 'evt_after', now + WINDOW_MS - 1)).toEqual(repeat);
		expect(admission('clock', 'evt_before', now + WINDOW_MS - 1)).toEqual(repeat);
	});

	it('remember only what started: a delivery looked at but not started is not a repeat', () => {
		const now = later();
		expect(admission('unmarked', 'evt_1', now)).toEqual(start);
		expect(admission('unmarked', 'evt_1', now)).toEqual(start);
	});

	it(`are kept for at most ${MAX_TRIGGERS.toLocaleString('en')} triggers: one more waits until one of them has nothing left in its window`, () => {
		const now = later();
		for (let index = 0; index < MAX_TRIGGERS; index++)
			expect(rememberStart(`trigger ${index}`, 'evt_1', WINDOW_MS, now + index)).toEqual(start);
		expect(rememberStart('one more', 'evt_1', WINDOW_MS, now + MAX_TRIGGERS)).toEqual({
			admit: 'later',
			retryAfterSeconds: 600,
		});
		// The triggers already there go on.
		expect(rememberStart('trigger 0', 'evt_2', WINDOW_MS, now + MAX_TRIGGERS)).toEqual(start);
		expect(admission('trigger 1', 'evt_1', now + MAX_TRIGGERS)).toEqual(repeat);
		// Trigger 1's only delivery leaves the window: the new trigger takes its place.
		expect(rememberStart('one more', 'evt_1', WINDOW_MS, now + 1 + WINDOW_MS)).toEqual(start);
		expect(admission('trigger 2', 'evt_1', now + 1 + WINDOW_MS)).toEqual(repeat);
	});
});
