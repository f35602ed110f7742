import type { Storage } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * Hostile catalogue, a changes feed of one scope resumed from a cursor the
 * peer picks. A feed steps over other scopes' ops without a page, so a
 * token of scope 'a' that subscribes from an old position (any position
 * from the floor to the head is a valid lastEventId) makes the host read
 * every log entry from there, and sends it nothing. Closed and opened again
 * from another position each time (the shared reads are keyed by position),
 * each ~100-byte subscription costs a walk of the whole log. Counted as the
 * log entries the host read out for the feeds, never by the clock.
 */

const team = (_id: string, d: Record<string, unknown>) => (typeof d.team === 'string' ? d.team : '*');
const SUBSCRIPTIONS = 4;

describe('hostile: a scoped changes feed resumed from old positions does not walk other scopes\' ops', () => {
  const open: Storage[] = [];
  afterAll(async () => closeAll(...open.splice(0)));

  /** Log entries read out for SUBSCRIPTIONS feeds of scope a, each from another early position, each to the head. */
  async function entriesRead(others: number): Promise<number> {
    const h = await hub({}, { durable: false, sync: { scope: team } });
    open.push(h.s);
    await h.s.set('mine', { team: 'a' });
    for (let i = 0; i < others; i += 1000) {
      await Promise.all(Array.from({ length: Math.min(1000, others - i) }, (_, k) => h.s.set(`b${i + k}`, { team: 'b', n: i + k })));
    }
    await internals(h.s).committer.idle();
    const p = await node({ sync: { scope: team } });
    open.push(p);
    const ctx = await greet(h.unit, p, ['a']);
    const replica = h.s.replica;
    const head = internals(h.s).log.head;
    let read = 0;
    const readOut = replica.readOut.bind(replica);
    replica.readOut = (after: number, limit?: number) => {
      const got = readOut(after, limit);
      read += got.length;
      return got;
    };
    let pages = 0;
    for (let k = 0; k < SUBSCRIPTIONS; k++) {
      const sub = h.unit.subscribe('changes', { scopes: ['a'] }, ctx, {
        lastEventId: `${internals(h.s).log.epoch}.${k + 1}`,
        onData: () => void pages++,
        onError: (e: unknown) => { throw e; },
      } as never);
      // The feed walks to the head in slices.
      for (let i = 0; i < 10_000 && !(h.unit.hosted()[0]?.cursor === replica.eventId(head)); i++) await new Promise((r) => setImmediate(r));
      sub.unsubscribe();
    }
    expect(pages).toBe(0);
    return read;
  }

  it('SCOPE-24 PROTO-6 GUAR-3: four subscriptions of scope a read as many log entries with 20,000 ops of scope b as with 2,000', async () => {
    const small = await entriesRead(2_000);
    const large = await entriesRead(20_000);
    expect(large).toBeLessThan(small * 1.5 + 2_000);
  }, 120_000);
});
