import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open, type OpenOptions, type Storage } from '../../src';
import { IO_POINTS, type MemoryBackend } from '../../src/backend';
import { FAN } from '../../src/storage/records';
import type { Backend } from '../../src/backend/types';
import { entryDigest } from '../../src/reconcile/digest';
import { internals } from '../../src/testing/internals';
import type { VerifyReport } from '../../src/cli/verify';
import { cleanup, cli, tempDir } from '../cli/helpers';
import { distinctCrashes, keyedBackend } from '../crash/harness';
import { seeded } from '../sync/helpers';
import { unsummed } from '../../src/storage/record-sum';

/**
 * A tombstone or purge marker has no field left for the scope function to
 * place it by: its record file element names the scope it was in
 * (docs/guarantees.md, "A removed record's scope"), so the scope outlives
 * the ops retention drops. The element's extra member is no part of the
 * entry: nothing read back, digested or compared holds it.
 */

const DAY = 86_400_000;
const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');

/** A wall clock the test moves, and a storage's options on it: a segment a batch, one day of retention. */
function dayClock(): { ageTwoDays: () => void; options: Partial<OpenOptions> } {
  let t = Date.UTC(2026, 0, 1);
  return { ageTwoDays: () => void (t += 2 * DAY), options: { now: () => t, sync: { scope: typed, retention: { days: 1 }, log: { rollAfter: 1 } } } };
}

const openOn = (backend: Backend, options: Partial<OpenOptions>) => open({ path: 'scoped', backend, ...options });

/** Two days on, one write and a close: its seal drops every segment of the first day. The storage reopened after. */
async function ageOut(backend: Backend, clock: ReturnType<typeof dayClock>): Promise<Storage> {
  clock.ageTwoDays();
  const s = await openOn(backend, clock.options);
  await s.set('later', { $type: 'A' });
  await s.close();
  const again = await openOn(backend, clock.options);
  expect(again.replica.floor).toBeGreaterThan(0);
  return again;
}

/** Every element of every record file, by id, as JSON.parse reads them. */
async function elements(backend: Backend): Promise<Map<string, Record<string, unknown>[]>> {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const name of await backend.list('records')) {
    if (!/^\d+\.json$/.test(name)) continue;
    for (const x of JSON.parse(unsummed(await backend.read(`records/${name}`)) as string) as Record<string, unknown>[]) {
      out.set(x.id as string, [...(out.get(x.id as string) ?? []), x]);
    }
  }
  return out;
}

const recordFiles = async (backend: Backend) => (await backend.list('records')).filter((n) => /^\d+\.json$/.test(n)).length;

describe('storage: the scope of a removed record in its record file', () => {
  afterAll(cleanup);

  it('SCOPE-20 GUAR-7: a tombstone\'s and a purge marker\'s elements name their scope beside the entry; nothing read back holds it, and digests are unchanged', async () => {
    const backend = await seeded();
    const s = await openOn(backend, { sync: { scope: typed } });
    await s.set('gone', { $type: 'B', title: 'deleted' });
    await s.delete('gone');
    await s.set('erased', { $type: 'B', title: 'purged' });
    await s.purge('erased');
    await s.set('kept', { $type: 'B', title: 'live' });
    await s.set('nowhere', { title: 'in *' });
    await s.delete('nowhere');
    const ids = ['gone', 'erased', 'kept', 'nowhere'];
    const digests = ids.map((id) => entryDigest(s.replica.current(id) as never));
    await s.close();
    const files = await elements(backend);
    expect(files.get('gone')?.filter((x) => x.del).map((x) => x.scope)).toEqual(['B']);
    expect(files.get('erased')?.at(-1)).toMatchObject({ purged: expect.any(Array), scope: 'B' });
    // A live record is placed by its fields, and '*' is where a record no scope names is anyway.
    expect([...(files.get('kept') ?? []), ...(files.get('nowhere') ?? [])].filter((x) => 'scope' in x)).toEqual([]);
    for (const options of [{ sync: { scope: typed } }, {}]) {
      // With the scope function and without it (as a reader that knows nothing of the member): the same entries.
      const again = await openOn(backend, options);
      expect(ids.map((id) => entryDigest(again.replica.current(id) as never))).toEqual(digests);
      expect(ids.filter((id) => 'scope' in (internals(again).committer.committed.get(id) ?? {}))).toEqual([]);
      expect(ids.map((id) => again.replica.scopeOf(id))).toEqual(options.sync ? ['B', 'B', 'B', '*'] : ['*', '*', '*', '*']);
      await again.close();
    }
  });

  it('SCOPE-20 GUAR-7: syncom verify holds the record files of a scoped store to the log exactly, naming no fault, and export reads its tombstones', async () => {
    const path = await tempDir();
    const s = await open({ path, sync: { scope: typed } });
    await s.set('gone', { $type: 'B' });
    await s.delete('gone');
    await s.set('erased', { $type: 'B' });
    await s.purge('erased');
    await s.close();
    const texts = await Promise.all((await readdir(join(path, 'records'))).map((n) => readFile(join(path, 'records', n), 'utf8')));
    expect(texts.filter((t) => t.includes('"scope":"B"')).length).toBeGreaterThan(0);
    const run = await cli('verify', path, '--json');
    const report = JSON.parse(run.out) as VerifyReport;
    expect(report.findings.filter((x) => x.level === 'fault')).toEqual([]);
    expect([run.code, report.records.exact, report.records.compared]).toEqual([0, true, 2]);
    expect((await cli('export', path, '--all')).out.trim().split('\n').map((l) => JSON.parse(l) as { id: string; meta: object })).toEqual([
      { id: 'erased', data: null, meta: { ts: expect.any(Number), purged: true } },
      { id: 'gone', data: null, meta: { ts: expect.any(Number), deleted: true } },
    ]);
  });

  it('SCOPE-20 GUAR-7: record files that name no scope (an earlier version wrote them) are placed from the log, and that open writes the scopes down once: retention then drops nothing of them', async () => {
    const backend = await seeded();
    const clock = dayClock();
    const s = await openOn(backend, clock.options);
    await s.set('gone', { $type: 'B' });
    await s.delete('gone');
    await s.set('erased', { $type: 'B' });
    await s.purge('erased');
    await s.close();
    for (const name of (await backend.list('records')).filter((n) => n.endsWith('.json'))) {
      // As an earlier version wrote them: no scope, and no sum (store format 1).
      const list = JSON.parse(unsummed(await backend.read(`records/${name}`)) as string) as Record<string, unknown>[];
      await backend.write(`records/${name}`, JSON.stringify(list.map(({ scope: _, ...x }) => x)));
    }
    const files = await recordFiles(backend);
    const upgraded = await openOn(backend, clock.options);
    expect([upgraded.replica.scopeOf('gone'), upgraded.replica.scopeOf('erased')]).toEqual(['B', 'B']);
    await upgraded.close();
    expect(await recordFiles(backend)).toBe(files + 1);
    // Named in a file now: the next open writes nothing.
    await (await openOn(backend, clock.options)).close();
    expect(await recordFiles(backend)).toBe(files + 1);
    const aged = await ageOut(backend, clock);
    expect([aged.replica.scopeOf('gone'), aged.replica.scopeOf('erased')]).toEqual(['B', 'B']);
    await aged.close();
  });

  it('SCOPE-20 GUAR-7: a rebuild at open whose write merges the record files carries the scopes they name, so retention in that session drops nothing of them', async () => {
    const backend = await seeded();
    const clock = dayClock();
    const s = await openOn(backend, clock.options);
    await s.set('gone', { $type: 'B' });
    // The tombstone shares its file with x, written again after: that file is stale, and a merge writes its entries anew.
    await Promise.all([s.delete('gone'), s.set('x', { $type: 'A', n: 1 })]);
    await s.set('x', { $type: 'A', n: 2 });
    // One file a batch, each recorded before the count: FAN files of a size class would merge now, at run time.
    for (let i = 0; (await recordFiles(backend)) < FAN - 1; i++) {
      await s.set(`f${i}`, { $type: 'A' });
      await internals(s).committer.idle();
    }
    await s.close();
    expect(await recordFiles(backend)).toBe(FAN - 1);
    // The newest file's element damaged: the open rebuilds its record from the log, and that write is the FANth file.
    const newest = (await backend.list('records')).filter((n) => /^\d+\.json$/.test(n)).sort((a, b) => parseInt(a) - parseInt(b)).at(-1);
    await backend.write(`records/${newest}`, '[{"id":"damaged"}]');
    const rebuilt = await openOn(backend, clock.options);
    expect(await recordFiles(backend)).toBe(1);
    expect((await elements(backend)).get('gone')).toEqual([expect.objectContaining({ del: true, scope: 'B' })]);
    clock.ageTwoDays();
    await rebuilt.set('later', { $type: 'A' });
    await rebuilt.close();
    const again = await openOn(backend, clock.options);
    expect(again.replica.floor).toBeGreaterThan(0);
    expect(again.replica.scopeOf('gone')).toBe('B');
    await again.close();
  });

  it('SCOPE-20 GUAR-19: a sealed tombstone names its scope inside its box, and keeps it past retention', async () => {
    const backend = await seeded();
    const clock = dayClock();
    const s = await openOn(backend, clock.options);
    await s.set('secret', { $type: 'B', pin: '1234' }, { sealed: true });
    await s.delete('secret', { sealed: true });
    await s.close();
    const boxes = (await elements(backend)).get('secret') ?? [];
    expect(boxes.length).toBeGreaterThan(0);
    expect(boxes.every((x) => Object.keys(x).sort().join() === 'id,sealed')).toBe(true);
    const aged = await ageOut(backend, clock);
    expect(aged.replica.current('secret')?.del).toBe(true);
    expect(aged.replica.scopeOf('secret')).toBe('B');
    await aged.close();
  });

  it('SCOPE-20: a large record\'s tombstone, written as a part of it, names its scope too', async () => {
    const backend = await seeded();
    const clock = dayClock();
    const s = await openOn(backend, clock.options);
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i]));
    await s.set('wide', { $type: 'B', ...wide });
    await s.update('wide', { f0: 'changed' });
    await s.delete('wide');
    await s.close();
    expect((await elements(backend)).get('wide')?.at(-1)).toMatchObject({ part: true, del: true, scope: 'B' });
    const aged = await ageOut(backend, clock);
    expect(aged.replica.scopeOf('wide')).toBe('B');
    await aged.close();
  });

  it('SCOPE-20 GUAR-8: a crash at any write or fsync of a delete and a purge, any damage after: each tombstone and marker that survived is B\'s, at the next open and once retention dropped their ops', async () => {
    const clock = dayClock();
    const options: Partial<OpenOptions> = { ...clock.options, durable: true };
    const setUp = async (): Promise<{ b: MemoryBackend; s: Storage }> => {
      const b = await keyedBackend();
      const s = await openOn(b, options);
      await Promise.all([s.set('gone', { $type: 'B' }), s.set('erased', { $type: 'B' })]);
      await internals(s).committer.idle();
      return { b, s };
    };
    const removeBoth = async (s: Storage) => {
      await s.delete('gone').catch(() => undefined);
      await s.purge('erased').catch(() => undefined);
      await s.close().catch(() => undefined);
    };
    const first = await setUp();
    const from = first.b.opCount(IO_POINTS);
    await removeBoth(first.s);
    const points = first.b.opCount(IO_POINTS) - from;
    expect(points).toBeGreaterThan(10);
    let removed = 0;
    for (let k = 1; k <= points; k++) {
      const { b, s } = await setUp();
      b.crashAt(k, { ops: IO_POINTS });
      await removeBoth(s);
      for (const { disk } of distinctCrashes(b, k)) {
        for (const reopen of [() => openOn(disk, options), () => ageOut(disk, clock)]) {
          const again = await reopen();
          for (const id of ['gone', 'erased']) {
            const e = again.replica.current(id);
            if (e?.del || e?.purged) removed++;
            expect([k, id, e?.del || e?.purged ? again.replica.scopeOf(id) : 'B']).toEqual([k, id, 'B']);
          }
          await again.close();
        }
      }
    }
    // The sweep reached the states it is about: removed records, at the opens after most points.
    expect(removed).toBeGreaterThan(points);
  });
});
