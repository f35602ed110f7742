import type { Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { createReconciler, type Message } from '../../src/reconcile';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * Hostile catalogue, the host's vector walked for a peer of one scope. A
 * hello, a reconcile start and a first snapshot page of a token bound to
 * scope 'a' are answered the streams of 'a' and the global ones, a few
 * entries: the host must not read every stream of every other scope to
 * find them. Before, each read the whole vector (servedVector over
 * Object.entries): a ~100-byte reconcile start cost the host O(streams of
 * the whole hub), again and again, at the rate the peer could send.
 * Counted by a Proxy over the vectors (property reads), not by the clock.
 */

const team = (_id: string, d: Record<string, unknown>) => (typeof d.team === 'string' ? d.team : '*');

/** Wrap a vector object in a counting Proxy; returns the counter. */
function counted(holder: Record<string, unknown>, field: string): { n: number } {
  const c = { n: 0 };
  const target = holder[field] as object;
  holder[field] = new Proxy(target, {
    get: (t, k, r) => { c.n++; return Reflect.get(t, k, r); },
    getOwnPropertyDescriptor: (t, k) => { c.n++; return Reflect.getOwnPropertyDescriptor(t, k); },
  });
  return c;
}

async function hostOf(scopes: number): Promise<{ s: Storage; unit: HostUnit }> {
  const h = await hub({}, { durable: false, sync: { scope: team, signatures: false } });
  await h.s.set('mine', { team: 'a', n: 0 });
  for (let i = 0; i < scopes; i += 1000) {
    await Promise.all(Array.from({ length: Math.min(1000, scopes - i) }, (_, k) => h.s.set(`r${i + k}`, { team: `t${i + k}` })));
  }
  await internals(h.s).committer.idle();
  return h;
}

describe('hostile: a peer of one scope does not make the host read every scope\'s streams', () => {
  const open: Storage[] = [];
  afterAll(async () => closeAll(...open.splice(0)));

  async function costs(scopes: number) {
    const h = await hostOf(scopes);
    open.push(h.s);
    const p = await node({ sync: { scope: team } });
    open.push(p);
    const parts = internals(h.s) as unknown as { committer: Record<string, unknown>; log: Record<string, unknown> };
    const ctx = await greet(h.unit, p, ['a']);
    expect(Object.keys(internals(h.s).log.vector).length).toBeGreaterThan(scopes);
    const cv = counted(parts.committer, 'cvec');
    const lv = counted(parts.log, 'vector');
    const msg: Message = createReconciler({ items: [] }).initiate();
    const round = async () => {
      const out = { hello: 0, reconcile: 0, snapshot: 0 };
      let before = cv.n + lv.n;
      await greet(h.unit, p, ['a'], { token: 't' }, ctx);
      out.hello = cv.n + lv.n - before;
      before = cv.n + lv.n;
      const r = (await h.unit.call('reconcile', { scope: 'a', msg, start: true }, ctx)) as { vector: Record<string, number> };
      out.reconcile = cv.n + lv.n - before;
      expect(Object.keys(r.vector).sort()).toEqual([`${h.s.id}@a`]);
      before = cv.n + lv.n;
      const page = (await h.unit.call('snapshot', { scopes: ['a'] }, ctx)) as { vector: Record<string, number>; count: number };
      out.snapshot = cv.n + lv.n - before;
      expect(page.count).toBe(1);
      expect(page.vector).toEqual({ [`${h.s.id}@a`]: 1 });
      return out;
    };
    // The first round may read the vectors once (a host keeps what it learnt of their keys); the next must not.
    await round();
    const out = await round();
    // A stream born after that is served: a new scope's, and a new global one.
    await h.s.set('late', { team: 'late' });
    await h.s.set('global', { n: 1 });
    await internals(h.s).committer.idle();
    const late = await greet(h.unit, p, ['late']);
    const snap = (await h.unit.call('snapshot', { scopes: ['late'] }, late)) as { vector: Record<string, number> };
    expect(Object.keys(snap.vector).sort()).toEqual([h.s.id, `${h.s.id}@late`].sort());
    const hello = (await h.unit.call('hello', { node: p.id, vector: {}, epoch: internals(p).log.epoch, schema: null, scopes: ['late'], token: 't' }, {})) as { vector: Record<string, number> };
    expect(Object.keys(hello.vector).sort()).toEqual([h.s.id, `${h.s.id}@late`].sort());
    return out;
  }

  it('SCOPE-20 PROTO-4 GUAR-3: hello, reconcile start and first snapshot page of scope a read as many vector entries with 16,000 other scopes as with 2,000', async () => {
    const small = await costs(2_000);
    const large = await costs(16_000);
    for (const k of ['hello', 'reconcile', 'snapshot'] as const) {
      expect(large[k]).toBeLessThan(small[k] * 1.5 + 100);
    }
  }, 120_000);
});
