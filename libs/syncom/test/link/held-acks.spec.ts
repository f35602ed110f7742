import { type AckClock, HeldAcks, pageAcksOf } from '../../src/socket.io/held-acks';

/** A feed's page acks with `n` pages come; each ack callback records its page's number when called. */
function pages(n: number) {
  const held = new HeldAcks();
  const acked: number[] = [];
  for (let i = 0; i < n; i++) held.arrived();
  const take = (i: number, offer?: { window: number; ackTimeout: number }) => held.taken(() => void acked.push(i), offer);
  return { held, acked, take };
}

describe('socket.io link: the page acks a feed holds back (cumulative acks)', () => {
  afterEach(() => jest.useRealTimers());

  it('PROTO-6 without the host\'s offer every page is acked once taken', () => {
    const { acked, take } = pages(5);
    for (let i = 0; i < 5; i++) take(i);
    expect(acked).toEqual([0, 1, 2, 3, 4]);
  });

  it('PROTO-6 with the offer only the latest page taken is acked: when nothing more came, or half the window is taken', () => {
    const offer = { window: 16, ackTimeout: 30_000 };
    const few = pages(5);
    for (let i = 0; i < 5; i++) few.take(i, offer);
    expect(few.acked).toEqual([4]);
    const many = pages(20);
    for (let i = 0; i < 20; i++) many.take(i, offer);
    expect(many.acked).toEqual([7, 15, 19]);
    // A window of one (or two) gets every page acked.
    const narrow = pages(3);
    for (let i = 0; i < 3; i++) narrow.take(i, { window: 1, ackTimeout: 30_000 });
    expect(narrow.acked).toEqual([0, 1, 2]);
  });

  it('PROTO-6 PROTO-12 an ack is not held back past a tenth of the host\'s ackTimeout (a second at most) from the last ack', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const offer = { window: 16, ackTimeout: 2_000 };
    const { acked, take } = pages(6);
    take(0, offer);
    jest.advanceTimersByTime(150);
    take(1, offer);
    jest.advanceTimersByTime(60);
    take(2, offer);
    // 210 ms since the first page came: past 200, so page 2's ack went, and the clock restarts there.
    take(3, offer);
    jest.advanceTimersByTime(199);
    take(4, offer);
    take(5, offer);
    expect(acked).toEqual([2, 5]);
  });

  it('reads only a well-formed offer from a hello answer', () => {
    expect(pageAcksOf({ ok: true, value: {}, pageAcks: { window: 16, ackTimeout: 30_000 } })).toEqual({ window: 16, ackTimeout: 30_000 });
    for (const pageAcks of [undefined, null, 16, { window: 0, ackTimeout: 1 }, { window: 1.5, ackTimeout: 1 }, { window: 4, ackTimeout: 0 }, { window: 4, ackTimeout: 'x' }, { window: '4', ackTimeout: 1 }]) {
      expect(pageAcksOf({ ok: true, value: {}, pageAcks })).toBeUndefined();
    }
    expect(pageAcksOf(undefined)).toBeUndefined();
  });
});

/** A clock the test moves by hand, with its one-shot timers. */
function manualClock() {
  let t = 1_000_000;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let ids = 0;
  const clock: AckClock = {
    now: () => t,
    setTimeout: (fn, ms) => (timers.set(++ids, { at: t + ms, fn }), ids),
    clearTimeout: (id) => void timers.delete(id as number),
  };
  const advance = (ms: number) => {
    t += ms;
    for (const [id, x] of [...timers]) if (x.at <= t && timers.delete(id)) x.fn();
  };
  return { clock, advance, pending: () => timers.size };
}

/** A feed's held acks on a manual clock: `page(i, more)` is page i coming and being taken at once. */
function live(offer = { window: 16, ackTimeout: 2_000 }) {
  const c = manualClock();
  const held = new HeldAcks(c.clock);
  const acked: number[] = [];
  const page = (i: number, more: boolean) => {
    held.arrived();
    held.taken(() => void acked.push(i), offer, more);
  };
  return { ...c, held, acked, page };
}

describe('socket.io link: acks held on the host\'s `more`', () => {
  it('PROTO-6 the ack of a page marked `more` waits for the next page; a page without it is acked at once', () => {
    const { acked, page, pending } = live();
    page(0, true);
    page(1, true);
    expect(acked).toEqual([]);
    expect(pending()).toBe(1);
    page(2, false);
    expect(acked).toEqual([2]);
    expect(pending()).toBe(0);
    // At the head of a log (no `more`) every page is acked as it is taken.
    page(3, false);
    page(4, false);
    expect(acked).toEqual([2, 3, 4]);
  });

  it('PROTO-6 HOST-4 held on `more`, an ack still goes once half the window is taken: the dialer never fills the window', () => {
    const { acked, page } = live({ window: 8, ackTimeout: 30_000 });
    for (let i = 0; i < 10; i++) page(i, true);
    expect(acked).toEqual([3, 7]);
  });

  it('PROTO-12 hostile: a host that says `more` and sends nothing holds the ack only until the timer, a tenth of its ackTimeout', () => {
    const { acked, page, advance, pending } = live({ window: 16, ackTimeout: 2_000 });
    page(0, true);
    advance(150);
    page(1, true);
    expect(acked).toEqual([]);
    advance(49);
    expect(acked).toEqual([]);
    // 200 ms since page 0 came: the timer acks the latest page taken, and nothing is left armed.
    advance(1);
    expect(acked).toEqual([1]);
    expect(pending()).toBe(0);
    // The clock starts again with the next page; a second at most, whatever the ackTimeout.
    const long = live({ window: 16, ackTimeout: 600_000 });
    long.page(0, true);
    long.advance(999);
    expect(long.acked).toEqual([]);
    long.advance(1);
    expect(long.acked).toEqual([0]);
  });

  it('PROTO-6 a page marked `more` taken after one without it (both come at once) is acked: the unmarked page\'s ack is never held', () => {
    const c = manualClock();
    const held = new HeldAcks(c.clock);
    const offer = { window: 16, ackTimeout: 30_000 };
    const acked: number[] = [];
    held.arrived();
    held.arrived();
    held.taken(() => void acked.push(0), offer, false);
    expect(acked).toEqual([]);
    held.taken(() => void acked.push(1), offer, true);
    expect(acked).toEqual([1]);
    expect(c.pending()).toBe(0);
  });

  it('PROTO-6 a host without the offer has every page acked, `more` or not; an older dialer ignoring `more` acks as before', () => {
    const c = manualClock();
    const held = new HeldAcks(c.clock);
    const acked: number[] = [];
    for (let i = 0; i < 3; i++) {
      held.arrived();
      held.taken(() => void acked.push(i), undefined, true);
    }
    expect(acked).toEqual([0, 1, 2]);
    expect(c.pending()).toBe(0);
  });
});
