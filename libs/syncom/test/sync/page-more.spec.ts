import type { Storage } from '../../src';
import { internals } from '../../src/testing/internals';
import type { HostUnit } from '../../src/link';
import { closeAll, hub, node } from './helpers';
import { greet } from './scenario-helpers';

/**
 * A changes page's `more`: the feed says of each page whether it sends the
 * next one without waiting for this page's ack (more frames of its read, or
 * a page's worth of log left beyond it, with the window at most half full),
 * so a link may hold the ack. At the head of the log it never says so: the
 * feed waits for that ack before it sends what came meanwhile.
 */

interface Sub {
  more: boolean[];
  ops: number;
  /** Acks wait for it while set. */
  gate?: Promise<void>;
  until(pages: number): Promise<void>;
}

/** Greets as a fresh peer and opens a changes feed from `lastEventId`, recording each page's `more`. */
async function subscribe(unit: HostUnit, peer: Storage, lastEventId: string, gate?: Promise<void>): Promise<Sub> {
  const context = await greet(unit, peer, ['*'], { token: 't' }, {});
  let wake = () => undefined as void;
  const sub: Sub = {
    gate,
    more: [],
    ops: 0,
    until: async (pages) => {
      while (sub.more.length < pages) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
  unit.subscribe('changes', {}, context, {
    lastEventId,
    onData: async (value, _eventId, more) => {
      sub.more.push(more === true);
      sub.ops += (value as { ops: unknown[] }).ops.length;
      wake();
      await sub.gate;
    },
  });
  return sub;
}

const eventId = (s: Storage, pos: number) => internals(s).log.eventId(pos);

describe('changes pages say whether the next one follows without their ack (more)', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  async function setup(unit = {}) {
    const h = await hub(unit);
    const peer = await node();
    stores = [h.s, peer];
    return { h, peer };
  }

  it('PROTO-6: a feed reading a long log marks every page but the last of the run; a live page at the head is not marked', async () => {
    const { h, peer } = await setup({ pageSize: 2 });
    for (let n = 0; n < 10; n++) await h.s.insert({ n });
    const sub = await subscribe(h.unit, peer, eventId(h.s, 0));
    await sub.until(5);
    // Pages end at 2, 4, 6, 8, 10: after the fourth less than a page is left, and the feed waits for its ack.
    expect(sub.more).toEqual([true, true, true, true, false]);
    await h.s.insert({ n: 10 });
    await sub.until(6);
    expect(sub.more[5]).toBe(false);
    expect(sub.ops).toBe(11);
  });

  it('PROTO-6: the frames of one read are marked but the last of the log', async () => {
    // Each op weighs more than pageBytes: it goes alone, and a read of four ops is four frames.
    const { h, peer } = await setup({ pageSize: 4, pageBytes: 1, maxInFlightFrames: 64 });
    for (let n = 0; n < 8; n++) await h.s.insert({ n });
    const sub = await subscribe(h.unit, peer, eventId(h.s, 0));
    await sub.until(8);
    expect(sub.more).toEqual([true, true, true, true, true, true, true, false]);
  });

  it('PROTO-6 HOST-4: past half the send window no page is marked, so acks held on the mark never fill it alone', async () => {
    const { h, peer } = await setup({ pageSize: 1, maxInFlightFrames: 4 });
    for (let n = 0; n < 10; n++) await h.s.insert({ n });
    let release!: () => void;
    const sub = await subscribe(h.unit, peer, eventId(h.s, 0), new Promise<void>((resolve) => (release = resolve)));
    // The subscriber holds its pages: the window of 4 fills, the pages past its half unmarked.
    await sub.until(4);
    expect(sub.more).toEqual([true, true, false, false]);
    release();
    sub.gate = undefined;
    await sub.until(10);
    expect(sub.more[9]).toBe(false);
    expect(sub.ops).toBe(10);
  });
});
