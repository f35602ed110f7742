import { createMemoryBackend, type MemoryBackend, open } from '../../src';
import { internals } from '../../src/testing/internals';
import { logOps, node, ship } from './helpers';

/**
 * What a write marks as it is queued, before its append, is undone when the
 * append fails. A purge queued behind a purge marks the record purged in the
 * queue's view: the second call took the "purge again" path (scrub the purged
 * id) and, the first purge's append failing, scrubbed a live record's ops from
 * the log and answered ok; a peer fed that log read nothing. A sealed write
 * marks its id sealed: its append failing, the id stayed sealed, so the
 * peers' ops of it were skipped for good and later plain writes sealed.
 */
const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string }) => e?.code);

describe('a write refused by a failed append leaves no mark', () => {
  it('OPS-9 GUAR-22 GUAR-6: a purge queued behind a purge whose append fails purges the record itself, or fails; a live record\'s ops are never scrubbed', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'p', backend });
    await s.set('r', { secret: 'x' });
    await s.update('r', { b: 2 });
    backend.failAt(1, { ops: ['write'] });
    const [first, second] = await Promise.all([outcome(s.purge('r')), outcome(s.purge('r'))]);
    expect(first).toBe('IO_ERROR');
    // The second made a purge of its own: the record is purged, as the call said.
    expect(second).toBe('ok');
    expect(await s.get('r')).toBeUndefined();
    expect(logOps(s).filter((o) => o.id === 'r').map((o) => o.type).pop()).toBe('purge');
    const peer = await open({ path: 'b', backend: createMemoryBackend() });
    await ship(s, peer);
    expect(await peer.get('r')).toBeUndefined();
    await Promise.all([s.close(), peer.close()]);
    const again = await open({ path: 'p', backend });
    expect(await again.get('r')).toBeUndefined();
    await again.close();
  });

  it('GUAR-19 GUAR-6: a sealed write whose append fails leaves its id unsealed: a peer\'s write of it lands, and a later plain write is not sealed', async () => {
    const a = await node();
    const b = await node();
    (internals(a.s).backend as unknown as MemoryBackend).failAt(1, { ops: ['write'] });
    expect(await outcome(a.s.set('settings', { pin: '1' }, { sealed: true }))).toBe('IO_ERROR');
    expect(a.s.isSealed('settings')).toBe(false);
    await b.s.set('settings', { theme: 'dark' });
    await ship(b.s, a.s);
    expect(await a.s.get('settings')).toEqual({ theme: 'dark' });
    (internals(a.s).backend as unknown as MemoryBackend).failAt(1, { ops: ['write'] });
    expect(await outcome(a.s.set('k', { pin: '1' }, { sealed: true }))).toBe('IO_ERROR');
    await a.s.set('k', { plain: 1 });
    expect(a.s.isSealed('k')).toBe(false);
    expect(logOps(a.s).filter((o) => o.id === 'k').map((o) => o.data)).toEqual([{ plain: 1 }]);
    await Promise.all([a.s.close(), b.s.close()]);
  });
});
