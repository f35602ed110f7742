import { createMemoryLink, type MemoryLink, open, type Storage } from '../../src';
import { type CrashDamage, IO_POINTS, type MemoryBackend } from '../../src/backend';
import { internals } from '../../src/testing/internals';
import { stateOf } from '../../src/testing';
import { closeAll, hub, seeded } from '../sync/helpers';
import { reusedSeqs } from '../sync/scenario-helpers';

/**
 * A dialer whose disk dies at its k-th I/O point while it bootstraps from a
 * hub (pages joined, the vector adopted, merge and advance ops signed, the
 * registry and its cursor saved), then reopens on what the crash left and
 * syncs again. Its own writes from before, acknowledged, must reach the hub;
 * it must end holding the hub's records and vector; no seq of any stream may
 * name two ops in its log.
 */

const URL = 'memory://h';
/** What a crash may leave: a power cut loses what was not synced, which only durable: true promises to keep (docs/guarantees.md, Durability). */
const DAMAGES: Record<'durable' | 'plain', CrashDamage[]> = { durable: ['none', 'lost', 'torn'], plain: ['none'] };

/** Let the event loop turn until `check` holds (a dead disk announces nothing); false if it never did. */
async function turns(check: () => boolean | Promise<boolean>, max = 20_000): Promise<boolean> {
  for (let i = 0; i < max; i++) {
    if (await check()) return true;
    await new Promise((r) => setImmediate(r));
  }
  return false;
}

/** A hub holding every kind of entry: registers, a counter, a set with a removal, a tombstone, a purge marker. */
async function stockedHub() {
  const h = await hub({ pageSize: 2 });
  for (let i = 0; i < 5; i++) await h.s.set(`r${i}`, { title: `t${i}` });
  await h.s.inc('r0', 'n', 3);
  await h.s.add('r1', 'tags', ['a', 'b']);
  await h.s.remove('r1', 'tags', ['a']);
  await h.s.update('r2', { body: 'x' });
  await h.s.delete('r3');
  await h.s.purge('r4');
  return h;
}

interface Run { h: Awaited<ReturnType<typeof stockedHub>>; disk: MemoryBackend; d: Storage; own: string[]; links: MemoryLink[] }

/** A dialer on `disk` with two acknowledged writes of its own, then registered with the hub (its bootstrap starts). */
async function start(disk: MemoryBackend, crashAt?: number, durable = true): Promise<Run> {
  const h = await stockedHub();
  const links: MemoryLink[] = [];
  const connect = () => {
    const link = createMemoryLink(h.unit);
    links.push(link);
    return link;
  };
  const d = await open({ path: 'd', backend: disk, durable, sync: { connect, antiEntropyInterval: 0 } });
  d.on('error', () => undefined);
  d.sync.on('error', () => undefined);
  const own = [await d.insert({ mine: 1 }), await d.insert({ mine: 2 })];
  await internals(d).committer.idle();
  // A plan far off in a clean run: the backend counts operations from the first plan on.
  disk.crashAt(crashAt ?? 1e9, { ops: IO_POINTS });
  await d.sync.addNode({ url: URL, token: 't' }).catch(() => undefined);
  return { h, disk, d, own, links };
}

const synced = (a: Storage, b: Storage) => async () => (await stateOf(a)) === (await stateOf(b));

/** I/O points of a bootstrap that runs clean, from addNode() on until the dialer equals the hub. */
async function cleanPoints(durable: boolean): Promise<number> {
  const disk = await seeded();
  const r = await start(disk, undefined, durable);
  const boots: unknown[] = [];
  r.d.sync.on('bootstrap', (e) => boots.push(e));
  if (!(await turns(synced(r.d, r.h.s)))) throw new Error('a clean bootstrap never converged');
  await internals(r.d).committer.idle();
  const n = disk.opCount(IO_POINTS);
  if (boots.length !== 1) throw new Error(`a clean run bootstrapped ${boots.length} times`);
  await closeAll(r.d, r.h.s);
  return n;
}


describe('crash recovery: a crash at every I/O point of a bootstrap', () => {
  for (const durable of [true, false]) {
    it(`BOOT-1 BOOT-4 GUAR-1 GUAR-6 GUAR-7 LOG-18 (durable ${durable}): a dialer crashed at its k-th I/O point of a bootstrap (every k, damages ${DAMAGES[durable ? 'durable' : 'plain'].join(', ')}) reopens, syncs again and holds the hub's records and vector; its acknowledged writes reach the hub; no seq names two ops`, async () => {
      const points = await cleanPoints(durable);
      expect(points).toBeGreaterThan(10);
      const problems: string[] = [];
      for (let k = 1; k <= points; k++) {
        for (const damage of DAMAGES[durable ? 'durable' : 'plain']) {
          const disk = await seeded();
          const r = await start(disk, k, durable);
          // Until the disk dies, or the bootstrap is through (a k past its I/O points dies later, in a seal or at close).
          const through = synced(r.d, r.h.s);
          await turns(async () => disk.isCrashed() || (await internals(r.d).committer.idle().then(through, () => false)));
          const crashed = disk.isCrashed();
          // The machine goes dark: nothing more leaves it, and what was on its way lands before it boots again.
          for (const l of r.links) l.cut();
          for (const l of r.links) await l.settle();
          await r.d.close().catch(() => undefined);
          const after = disk.crash(damage, k);
          let d2: Storage | undefined;
          try {
            d2 = await open({ path: 'd', backend: after, durable, sync: { connect: () => createMemoryLink(r.h.unit), antiEntropyInterval: 0 } });
            d2.on('error', () => undefined);
            d2.sync.on('error', () => undefined);
            if (d2.sync.listNodes().length === 0) await d2.sync.addNode({ url: URL, token: 't' });
            const label = `k=${k} ${damage}${crashed ? '' : ' (no crash)'}`;
            if (!(await turns(synced(d2, r.h.s)))) problems.push(`${label}: the dialer never came to equal the hub:\n  ${(await stateOf(d2)).slice(0, 600)}\n  ${(await stateOf(r.h.s)).slice(0, 600)}`);
            for (const id of r.own) if (!(await r.h.s.has(id))) problems.push(`${label}: the hub lacks the dialer's acknowledged write ${id}`);
            problems.push(...reusedSeqs(d2).map((x) => `${label}: seq reused ${x}`));
          } catch (e) {
            problems.push(`k=${k} ${damage}: ${(e as Error).message}`);
          } finally {
            await closeAll(...(d2 ? [d2] : []), r.h.s);
          }
        }
      }
      expect(problems.slice(0, 10)).toEqual([]);
    }, 120_000);
  }
});
