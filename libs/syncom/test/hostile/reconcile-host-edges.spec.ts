import type { Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import type { Message, Range } from '../../src/reconcile';
import { FrozenItems } from '../../src/reconcile/item-set';
import { labelSet } from '../../src/reconcile/record-sets';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * Hostile catalogue, what a dialer's reconcile messages make the host walk,
 * at the edges: a range over the whole key space (by fingerprint, and by a
 * full list of tags) and a frame of tiny ranges, one item each. The host's
 * responder reads each range over its own items, so what it reads must grow
 * with the message, not with the store: the same messages cost a host of
 * 20,000 records what they cost one of 2,000. Counted as the reads of the
 * host's sets (positions found, items, tags, sums), never by the clock.
 */

const NEVER = 'AAAAAAAAAAAAAAAAAAAAAA';
const TINY = 1_900;
const READS = ['indexAt', 'item', 'tag', 'sum'] as const;

async function hostOf(records: number): Promise<{ s: Storage; unit: HostUnit }> {
  const h = await hub({}, { durable: false, sync: { signatures: false } });
  for (let i = 0; i < records; i += 1000) {
    await Promise.all(Array.from({ length: Math.min(1000, records - i) }, (_, k) => h.s.set(`r${i + k}`, { n: i + k })));
  }
  await internals(h.s).committer.idle();
  return h;
}

/** Reads of reconciliation sets while `fn` runs. */
async function reads(fn: () => Promise<unknown>): Promise<number> {
  const spies = READS.map((m) => jest.spyOn(FrozenItems.prototype, m));
  try {
    await fn();
    return spies.reduce((n, s) => n + s.mock.calls.length, 0);
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

describe('hostile dialer: what its reconcile messages make the host walk', () => {
  const open: Storage[] = [];
  afterAll(async () => closeAll(...open.splice(0)));

  async function costs(records: number) {
    const h = await hostOf(records);
    open.push(h.s);
    const p = await node();
    open.push(p);
    const ctx = await greet(h.unit, p, ['*']);
    const set = labelSet(h.s.replica, '*', ['*']);
    // One fingerprint range a host item each, its own fingerprint never matching: each is answered with its item.
    const tiny: Range[] = [];
    for (let k = 1; k <= TINY; k++) tiny.push([[set.item(k).ts, set.item(k).id], 1, NEVER]);
    tiny.push([null, 0]);
    const tags = Array.from({ length: 1024 }, (_, k) => `${k}`.padStart(22, 'A'));
    const messages: Record<string, Message> = {
      everything: { v: 1, ranges: [[null, 1, NEVER]] },
      listed: { v: 1, ranges: [[null, 2, tags]] },
      tiny: { v: 1, ranges: tiny },
    };
    const out: Record<string, number> = {};
    for (const [name, msg] of Object.entries(messages)) {
      // Twice: the first reconcile of a set may build it; the second is what a peer can ask again and again.
      await h.unit.call('reconcile', { scope: '*', msg }, ctx);
      out[name] = await reads(() => h.unit.call('reconcile', { scope: '*', msg }, ctx));
    }
    return out;
  }

  it('RECON: a range over everything, a full list of tags and 1,900 one-item ranges read about as much of a host of 20,000 records as of one of 2,000', async () => {
    const small = await costs(2_000);
    const large = await costs(20_000);
    for (const k of Object.keys(small)) expect(large[k]).toBeLessThanOrEqual(small[k] * 1.5 + 100);
    // The frame of one-item ranges costs a few reads an item asked, not the store.
    expect(large.tiny).toBeLessThan(TINY * 20);
  }, 120_000);
});
