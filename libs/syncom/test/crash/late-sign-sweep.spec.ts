import { createMemoryBackend, open, type OpenOptions, type Storage } from '../../src';
import { FLAG_TO_SIGN } from '../../src/log/flags';
import { verifyOps } from '../../src/op/verify';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, Net, records, until } from '../sync/helpers';

/** This node's own merge and advance ops in its log, with their flags. */
function ownMerges(s: Storage) {
  return internals(s).log.read(0).filter((e) => e.op.origin === s.id && (e.op.type === 'merge' || e.op.type === 'advance'));
}

/**
 * A dialer bootstraps 8 records in pages of 4 (a seal every 2 batches) while
 * its merge ops are signed in the background, and crashes at the k-th
 * mutating op of its disk: appends, record files, seals of signed batches,
 * the registry. Reopened, it signs whatever the crash left unsigned, and
 * every record it holds is the host's.
 */
describe('crash recovery: a crash at every mutating op of a bootstrap signed in the background', () => {
  it('GUAR-7 LOG-2 SIG-22: for every k, the reopened node holds only the host\'s records, signs every merge op it logged (all verify) and seals none flagged', async () => {
    const net = new Net();
    const h = await hub({ pageSize: 4 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => h.s.insert({ i })));
    net.units.set('memory://h', h.unit);
    const hostRecords = new Map((await records(h.s)).map(([id, data]) => [id, JSON.stringify(data)]));
    const options: Partial<OpenOptions> = { sync: { log: { rollAfter: 2 }, antiEntropyInterval: 0 } };
    const first = createMemoryBackend();
    await (await open({ path: 'd', backend: first, ...options })).close();
    const seeded = first.snapshot();
    const failures: string[] = [];
    let total = Infinity;
    for (let k = 1; k <= total; k++) {
      const disk = createMemoryBackend({ from: seeded });
      const d = await open({ path: 'd', backend: disk, ...options, sync: { ...options.sync, connect: net.connect } });
      d.on('error', () => undefined);
      d.sync.on('error', () => undefined);
      const start = disk.opCount();
      disk.crashAt(k);
      let booted = false;
      d.sync.on('bootstrap', () => { booted = true; });
      await d.sync.addNode({ url: 'memory://h', token: 't' }).catch(() => undefined);
      await until(() => booted || disk.isCrashed(), [d]);
      await d.replica.signed();
      await d.close().catch(() => undefined);
      if (!disk.isCrashed()) total = Math.min(total, disk.opCount() - start);
      const after = disk.isCrashed() ? disk.crash('none') : createMemoryBackend({ from: disk.snapshot() });
      const again = await open({ path: 'd', backend: after, ...options });
      await again.replica.signed();
      const merges = ownMerges(again);
      const verdicts = await verifyOps(merges.map((e) => e.op));
      if (verdicts.some((v) => v !== 'ok')) failures.push(`crash at ${k}: ${verdicts.filter((v) => v !== 'ok').length} merge op(s) do not verify`);
      for (const [id, data] of await records(again)) if (hostRecords.get(id as string) !== JSON.stringify(data)) failures.push(`crash at ${k}: record ${id} differs from the host's`);
      await again.close();
      const third = await open({ path: 'd', backend: after, ...options });
      if (ownMerges(third).some((e) => e.flags & FLAG_TO_SIGN || e.op.sig === undefined)) failures.push(`crash at ${k}: an unsigned merge op was sealed or kept`);
      await third.close();
    }
    expect(total).toBeGreaterThan(5);
    expect(failures.slice(0, 3)).toEqual([]);
    await closeAll(h.s);
  }, 120_000);
});
