import { internals } from '../../src/testing/internals';
import { createMemoryBackend, createMemoryLink, open, type Storage, type SyncomError } from '../../src';
import type { MemoryBackend } from '../../src/backend';
import { closeAll, restoredNode, until } from './helpers';

/**
 * A REWOUND (a directory restored from an older copy, LOG-22) moves this
 * node's own streams past what its host holds, with no op of them in the log
 * (LOG-23). The move is kept in log/index.json at once: a restart before the
 * next own write (a crash, or a close) must not bring the streams back to
 * what the restored log shows, or the next write offline signs a seq the
 * host already holds another op of.
 */


/** Open on `backend`, started or not; its sync errors collected. */
async function openWith(backend: MemoryBackend, connect: () => ReturnType<typeof createMemoryLink>, autoStart: boolean): Promise<{ s: Storage; errors: SyncomError[] }> {
  const s = await open({ path: 'd', backend, sync: { connect, autoStart, antiEntropyInterval: 0 } });
  const errors: SyncomError[] = [];
  s.sync.on('error', (e) => errors.push(e));
  return { s, errors };
}

describe('a REWOUND survives a restart', () => {
  it('LOG-22 LOG-23: closed right after the REWOUND, the node reopened offline signs its next op past what the host holds, never seq 2 again', async () => {
    const { h, connect, restored } = await restoredNode();
    const r = await openWith(restored, connect, false);
    await r.s.sync.start();
    await until(() => r.errors.some((e) => e.code === 'REWOUND'), [r.s]);
    const id = r.s.id;
    expect(internals(r.s).log.vector[id]).toBe(2);
    await r.s.close();
    const again = await openWith(restored, connect, false);
    expect(internals(again.s).log.vector[id]).toBe(2);
    await again.s.insert({ n: 3 });
    const log = internals(again.s).log;
    expect(log.at(log.head)?.op).toMatchObject({ origin: id, seq: 3 });
    await closeAll(again.s, h.s);
  });

  it('LOG-22 LOG-23: a crash right after the REWOUND (no close) keeps the move too', async () => {
    const { h, connect, restored } = await restoredNode();
    const r = await openWith(restored, connect, false);
    await r.s.sync.start();
    await until(() => r.errors.some((e) => e.code === 'REWOUND'), [r.s]);
    const disk = createMemoryBackend({ from: restored.crash('none').snapshot() });
    await r.s.close();
    const again = await openWith(disk, connect, false);
    expect(internals(again.s).log.vector[again.s.id]).toBe(2);
    await closeAll(again.s, h.s);
  });

  it('LOG-22: the next open after a REWOUND does not report REWOUND again: the host holds nothing of its streams it does not know of', async () => {
    const { h, connect, restored, lost } = await restoredNode();
    const r = await openWith(restored, connect, false);
    await r.s.sync.start();
    await until(() => r.errors.some((e) => e.code === 'REWOUND'), [r.s]);
    await until(async () => (await r.s.get(lost)) !== undefined, [r.s]);
    expect(await r.s.get(lost)).toEqual({ n: 2 });
    await r.s.close();
    const again = await openWith(restored, connect, true);
    const fresh = await again.s.insert({ n: 3 });
    await until(async () => h.s.has(fresh), [h.s, again.s]);
    expect(await h.s.get(fresh)).toEqual({ n: 3 });
    const log = internals(again.s).log;
    expect(log.at(log.head)?.op.seq).toBe(3);
    expect(again.errors.map((e) => e.code)).toEqual([]);
    await closeAll(again.s, h.s);
  });
});
