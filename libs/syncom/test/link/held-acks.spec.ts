import { HeldAcks, pageAcksOf } from '../../src/socket.io/held-acks';

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
