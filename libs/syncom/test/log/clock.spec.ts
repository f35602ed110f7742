import { internals } from '../../src/testing/internals';
import { createMemoryBackend } from '../../src/backend';
import { open } from '../../src/open';
import { applyPeerOps } from '../../src/storage';
import { freshBackend, indexJson, openOn, T0 } from './helpers';

const HOUR = 3_600_000;

describe('the log seeds the clock', () => {
  it('CLK-8: reopened with the wall clock set back, the next own op is stamped above the newest stamp in the log (sealed log)', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 + HOUR });
    await s.set('a', { title: '1' });
    await Promise.all([s.update('a', { title: '2' }), s.inc('a', 'n', 1)]);
    const newest = Math.max(...internals(s).log.read(0).map((e) => e.op.ts));
    expect(newest).toBeGreaterThanOrEqual(T0 + HOUR);
    await s.close();
    expect(indexJson(b).ts).toBe(newest);

    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    await s2.update('a', { title: '3' });
    const op = internals(s2).log.read(3)[0].op;
    expect(op.ts).toBeGreaterThan(newest);
    // And the write outranks what it follows.
    expect(await s2.get('a')).toEqual({ title: '3', n: 1 });
    await s2.close();
  });

  it('CLK-8: the same when the newest stamps sit in the unsealed tail (a crash before close)', async () => {
    const b = await freshBackend();
    let now = T0 + HOUR;
    const s = await openOn(b, { now: () => now, sync: { log: { rollAfter: 2 } } });
    await s.set('a', { title: '1' });
    await s.set('a', { title: '2' });
    now = T0 + 2 * HOUR;
    await s.set('a', { title: '3' });
    await internals(s).committer.idle();
    const newest = Math.max(...internals(s).log.read(0).map((e) => e.op.ts));
    expect(newest).toBe(T0 + 2 * HOUR);
    const s2 = await openOn(b.crash('none'), { now: () => T0, sync: { log: { rollAfter: 2 } } });
    await s2.set('a', { title: '4' });
    expect(internals(s2).log.read(3)[0].op.ts).toBeGreaterThan(newest);
    expect(await s2.get('a')).toEqual({ title: '4' });
    await s2.close();
  });

  it("CLK-8: a peer's stamp ahead, logged here, also seeds the clock on reopen", async () => {
    const peer = await open({ path: 'peer', backend: createMemoryBackend(), now: () => T0 + 5 * HOUR });
    await peer.set('p', { title: 'ahead' });
    const ops = internals(peer).log.read(0).map((e) => e.op);
    await peer.close();
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await applyPeerOps(s, ops, { via: { url: 'memory://peer', node: peer.id } });
    await s.close();
    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    await s2.update('p', { title: 'mine' });
    expect(internals(s2).log.read(1)[0].op.ts).toBeGreaterThan(T0 + 5 * HOUR);
    expect(await s2.get('p')).toEqual({ title: 'mine' });
    await s2.close();
  });
});
