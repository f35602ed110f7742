import { unpackOps, type Storage } from '../../src';
import { internals } from '../../src/testing/internals';
import type { HostUnit } from '../../src/link';
import { closeAll, hub, node } from './helpers';
import { greet } from './scenario-helpers';

/**
 * The fan-out encoded once: feeds of the same scopes at the same position
 * read the log once and send the same page objects, which a transport
 * encodes once (keyed by the object). Acks, the send window, scopes and
 * resume by event id keep their meaning.
 */

type Page = { ops: unknown[][]; prev: string };

/** What one subscriber took: the page objects and event ids, in order; `gate` holds its acks while set. */
interface Sub {
  pages: Page[];
  ids: string[];
  gate?: Promise<void>;
  stop(): void;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
const dataOf = (p: Page) => unpackOps(p.ops).ops.map((o) => (o.data as { n?: number } | undefined)?.n);
/** The hub's head as an event id: a feed from there is live. */
const head = (s: Storage) => internals(s).log.eventId();

/** Greets as a fresh peer and opens a changes feed; its acks wait for `sub.gate` while one is set. */
async function subscribe(unit: HostUnit, peer: Storage, o: { scopes?: string[]; lastEventId?: string; context?: object } = {}): Promise<Sub> {
  const context = await greet(unit, peer, o.scopes ?? ['*'], { token: 't' }, o.context ?? {});
  const sub: Sub = { pages: [], ids: [], stop: () => undefined };
  const s = unit.subscribe('changes', { scopes: o.scopes }, context, {
    lastEventId: o.lastEventId,
    onData: async (value, eventId) => {
      sub.pages.push(value as Page);
      sub.ids.push(eventId as string);
      await sub.gate;
    },
  });
  sub.stop = () => s.unsubscribe();
  return sub;
}

/** Every op's `n` a subscriber took, in order. */
const taken = (sub: Sub) => sub.pages.flatMap(dataOf);

/**
 * The hub writes records `from..to-1`, data `{ n }`, each write's pages sent before the next write lands
 * (a flush after each): feeds then read at the same moments. Writes that land faster than a feed's turn
 * may be read as one page by one feed and as two by another, which share nothing.
 */
async function writeAll(h: Storage, from: number, to: number, data: (n: number) => Record<string, unknown> = (n) => ({ n })): Promise<void> {
  for (let n = from; n < to; n++) {
    await h.insert(data(n));
    await flush();
  }
}

describe('the fan-out encoded once', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  async function setup(unit = {}, options = {}) {
    const h = await hub(unit, options);
    const peers = await Promise.all([node(), node(), node(), node()]);
    stores = [h.s, ...peers];
    return { h, peers };
  }

  it('PROTO-6: subscribers at the same head are sent the same page objects, counted once in the unit budget while any holds them', async () => {
    const { h, peers } = await setup();
    const subs = await Promise.all(peers.slice(0, 3).map((p) => subscribe(h.unit, p, { lastEventId: head(h.s) })));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    for (const s of subs) s.gate = held;
    await writeAll(h.s, 0, 5);
    await flush();
    const [a, b, c] = subs;
    expect(a.pages.length).toBeGreaterThan(0);
    expect(b.pages.length).toBe(a.pages.length);
    a.pages.forEach((p, i) => {
      expect(b.pages[i]).toBe(p);
      expect(c.pages[i]).toBe(p);
    });
    // The page's bytes are held once, however many connections have it out: the unit's budget counts them once.
    const one = a.pages.reduce((n, p) => n + Buffer.byteLength(JSON.stringify(p.ops)), 0);
    expect((h.unit as unknown as { usage(): { inFlightBytes: number } }).usage().inFlightBytes).toBe(one);
    release();
    for (const s of subs) s.gate = undefined;
    await flush();
    expect((h.unit as unknown as { usage(): { inFlightBytes: number } }).usage().inFlightBytes).toBe(0);
    expect(taken(a)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('the fan-out encoded once: falling behind, scopes, resume', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  async function setup(unit = {}, options = {}) {
    const h = await hub(unit, options);
    const peers = await Promise.all([node(), node(), node()]);
    stores = [h.s, ...peers];
    return { h, peers };
  }

  it('PROTO-6 LOG-7: a subscriber whose window is full falls behind, catches up on its own cursor with every op once in order, and shares again at the head', async () => {
    const { h, peers } = await setup({ maxInFlightFrames: 2, pageSize: 3 });
    const [fast, slow] = await Promise.all(peers.slice(0, 2).map((p) => subscribe(h.unit, p, { lastEventId: head(h.s) })));
    let release!: () => void;
    slow.gate = new Promise<void>((resolve) => (release = resolve));
    await writeAll(h.s, 0, 20);
    await flush();
    expect(taken(fast)).toEqual([...Array(20).keys()]);
    // Its window of 2 is full: it read no further.
    expect(slow.pages).toHaveLength(2);
    slow.gate = undefined;
    release();
    await flush();
    await flush();
    expect(taken(slow)).toEqual([...Array(20).keys()]);
    // Caught up, it is at the head with the fast one again: the next page is the same object.
    const [f0, s0] = [fast.pages.length, slow.pages.length];
    await writeAll(h.s, 20, 21);
    await flush();
    expect(fast.pages[f0]).toBe(slow.pages[s0]);
    expect(taken(slow).slice(-1)).toEqual([20]);
  });

  it('SCOPE-24: a scope-restricted subscriber shares no page with an unrestricted one, and takes only its scope', async () => {
    const scope = (_id: string, d: Record<string, unknown>) => (d.kind as string) ?? '*';
    const { h, peers } = await setup({}, { sync: { scope } });
    const all = await subscribe(h.unit, peers[0], { lastEventId: head(h.s) });
    const docs = await subscribe(h.unit, peers[1], { scopes: ['Doc'], lastEventId: head(h.s) });
    const twin = await subscribe(h.unit, peers[2], { scopes: ['Doc'], lastEventId: head(h.s) });
    await writeAll(h.s, 0, 6, (n) => ({ n, kind: n % 2 ? 'Doc' : 'Note' }));
    await flush();
    expect(taken(all)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(taken(docs)).toEqual([1, 3, 5]);
    for (const p of docs.pages) expect(all.pages).not.toContain(p);
    // Two subscribers of the same scopes share.
    docs.pages.forEach((p, i) => expect(twin.pages[i]).toBe(p));
  });

  it('LOG-7 PROTO-12: a subscriber resumes by the event id of a shared page, gets what followed once, and shares again', async () => {
    const { h, peers } = await setup();
    const [live, leaver] = await Promise.all(peers.slice(0, 2).map((p) => subscribe(h.unit, p, { lastEventId: head(h.s) })));
    await writeAll(h.s, 0, 3);
    await flush();
    expect(leaver.pages).toHaveLength(3);
    expect(leaver.pages[2]).toBe(live.pages[2]);
    const resumeAt = leaver.ids[1];
    leaver.stop();
    await writeAll(h.s, 3, 5);
    await flush();
    const back = await subscribe(h.unit, peers[1], { lastEventId: resumeAt });
    await flush();
    expect(taken(back)).toEqual([2, 3, 4]);
    const l0 = live.pages.length;
    await writeAll(h.s, 5, 6);
    await flush();
    expect(back.pages[back.pages.length - 1]).toBe(live.pages[l0]);
    expect(taken(back)).toEqual([2, 3, 4, 5]);
  });
});
