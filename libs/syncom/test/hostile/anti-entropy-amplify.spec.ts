import type { Storage } from '../../src';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net } from '../sync/helpers';
import { wrapUnit } from '../sync/scenario-helpers';

/**
 * A host that answers every reconciliation "I hold none of it" and swallows
 * what is pushed made the dialer log a merge of every record at every
 * anti-entropy run: n signed ops for one O(1) answer, relayed to every peer.
 */

const URL = 'memory://h';

/** A dialer of an empty hub whose pushes are answered as taken and dropped (its vector never moves). */
async function swallowing(o: { records: number; pageSize?: number }) {
  const h = await hub();
  const unit = wrapUnit(h.unit, async (method, args, _context, next) => {
    if (method !== 'push') return next();
    return { applied: (args as { ops: unknown[] }).ops.length, skipped: 0, duplicates: 0, gaps: 0, vector: {} };
  });
  const net = new Net();
  net.units.set(URL, unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, pageSize: o.pageSize } });
  const ids: string[] = [];
  for (let i = 0; i < o.records; i++) ids.push(await d.insert({ i }));
  const booted = new Promise<void>((resolve) => { const off = d.sync.on('bootstrap', () => { off(); resolve(); }); });
  await d.sync.addNode({ url: URL, token: 't' });
  await booted;
  return { h, d, ids };
}

/** The merge ops of this node's own in its log. */
const merges = (s: Storage) => internals(s).log.read(0).filter((e) => e.op.type === 'merge' && e.op.origin === s.replica.id).length;

describe('hostile: a host that claims at every run to hold nothing', () => {
  it('RECON BOOT-9: anti-entropy logs one merge of each record\'s state for that host, not one per run; a record changed since gets one more (it had logged 1,000 merges a run for 1,000 records)', async () => {
    const { h, d, ids } = await swallowing({ records: 20 });
    const logged: number[] = [];
    for (let run = 0; run < 3; run++) {
      await d.sync.forceSync();
      logged.push(merges(d));
    }
    expect(logged).toEqual([20, 20, 20]);
    await d.update(ids[0], { i: 'changed' });
    await d.sync.forceSync();
    await d.sync.forceSync();
    expect(merges(d)).toBe(21);
    await closeAll(d, h.s);
  });

  it('RECON: one run logs at most 20 pushes\' worth of merges (pageSize 2: 40); the next runs log the rest, and then none', async () => {
    const { h, d } = await swallowing({ records: 50, pageSize: 2 });
    const logged: number[] = [];
    for (let run = 0; run < 3; run++) {
      await d.sync.forceSync();
      logged.push(merges(d));
    }
    expect(logged).toEqual([40, 50, 50]);
    await closeAll(d, h.s);
  });
});
