import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { internals } from '../../src/testing/internals';
import { open, type OpenOptions, type Storage, type SyncomError } from '../../src';
import { unsummed } from '../../src/storage/record-sum';

/**
 * Record files damaged after they were written, on node:fs: the records
 * come back from the log (which they are rebuilt from), and the damage is
 * reported, never taken silently as fewer or other records.
 */

const DAY = 86_400_000;
const dirs: string[] = [];

async function tempStore(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'syncom-records-damage-'));
  dirs.push(d);
  return d;
}
afterAll(() => Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))));

/** Open, and the errors open() reports (a turn later, once a listener could be attached). */
async function reopen(path: string, options: Partial<OpenOptions> = {}): Promise<{ s: Storage; errors: SyncomError[] }> {
  const s = await open({ path, ...options });
  const errors: SyncomError[] = [];
  s.on('error', (e) => void errors.push(e));
  await new Promise((r) => setImmediate(r));
  return { s, errors };
}

/** The record files (records/<n>.json) holding `id`, by name. */
async function filesHolding(path: string, id: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(join(path, 'records'))) {
    if ((await readFile(join(path, 'records', name), 'utf8')).includes(JSON.stringify(id))) out.push(`records/${name}`);
  }
  return out;
}

/** A closed store: three records written a batch each, and a sealed one; every op is in a sealed segment. */
async function closedStore(path: string) {
  const s = await open({ path });
  // A record file for each write (idle() writes the records that would wait for later batches'), so the damage below hits one record.
  const each = async <T>(write: Promise<T>): Promise<T> => { const out = await write; await internals(s).committer.idle(); return out; };
  const a = await each(s.insert({ title: 'a' }));
  const b = await each(s.insert({ title: 'b', n: 2 }));
  await each(s.add(b, 'tags', ['x', 'y']));
  const c = await each(s.insert({ title: 'c' }));
  const pin = await each(s.insert({ pin: '1234' }, { sealed: true }));
  await s.close();
  return { a, b, c, pin };
}

describe('record files damaged after they were written', () => {
  it('LIFE-19, LOG-2: a record file that cannot be read is reported OP_UNREADABLE, and its records are rebuilt from the log, sealed ones too (GUAR-19); the rebuild is written, so they outlive the file', async () => {
    const path = await tempStore();
    const { a, b, c, pin } = await closedStore(path);
    // Every file holding b or the sealed record: a torn one, and one emptied.
    const damaged = [...new Set([...(await filesHolding(path, b)), ...(await filesHolding(path, pin))])].sort();
    for (const [i, f] of damaged.entries()) await writeFile(join(path, f), i % 2 ? '' : '[{"id": garbage');
    const { s, errors } = await reopen(path);
    expect(errors.map((e) => [e.code, e.file]).sort()).toEqual(damaged.map((f) => ['OP_UNREADABLE', f]));
    for (const e of errors) expect(e.message).toMatch(/cannot be read: its records were rebuilt from the log$/);
    expect(await s.get(b)).toEqual({ title: 'b', n: 2, tags: ['x', 'y'] });
    expect(await s.get(pin)).toEqual({ pin: '1234' });
    expect([await s.get(a), await s.get(c)]).toEqual([{ title: 'a' }, { title: 'c' }]);
    await s.close();
    // The damaged files stay for whoever looks at them; without them, the records are read from the file the rebuild wrote.
    for (const f of damaged) await rm(join(path, f));
    const again = await reopen(path);
    expect(again.errors).toEqual([]);
    expect(await again.s.get(b)).toEqual({ title: 'b', n: 2, tags: ['x', 'y'] });
    expect(await again.s.get(pin)).toEqual({ pin: '1234' });
    await again.s.close();
  });

  it('LIFE-19, LOG-2: an entry that cannot be read costs nothing: OP_UNREADABLE with its count, and its record rebuilt from the log', async () => {
    const path = await tempStore();
    const s0 = await open({ path });
    await Promise.all([s0.set('one', { v: 1 }), s0.set('two', { v: 2 })]);
    await s0.close();
    const [file] = await filesHolding(path, 'two');
    const list = JSON.parse(unsummed(await readFile(join(path, file), 'utf8')) as string) as { id: string; fields: unknown }[];
    expect(list.map((e) => e.id).sort()).toEqual(['one', 'two']);
    (list.find((e) => e.id === 'two') as { fields: unknown }).fields = 'not fields';
    // Without its sum, as store format 1 wrote it: each entry is judged alone.
    await writeFile(join(path, file), JSON.stringify(list));
    const { s, errors } = await reopen(path);
    expect(errors).toEqual([expect.objectContaining({ code: 'OP_UNREADABLE', file, count: 1, message: expect.stringMatching(/rebuilt from the log/) })]);
    expect([await s.get('one'), await s.get('two')]).toEqual([{ v: 1 }, { v: 2 }]);
    await s.close();
  });

  it('LOG-2, GUAR-8: a record file deleted, or the newest one lost (the record back at an older state), is noticed against the sealed log and rebuilt from it', async () => {
    const path = await tempStore();
    const { a, b } = await closedStore(path);
    const s1 = await open({ path });
    await s1.update(a, { title: 'a2' });
    await s1.close();
    const aFiles = await filesHolding(path, a);
    const bFiles = await filesHolding(path, b);
    // The newest file of a goes (its older state stays in another), and every file of b.
    expect(aFiles.length).toBeGreaterThan(1);
    for (const f of new Set([aFiles[aFiles.length - 1], ...bFiles])) await rm(join(path, f));
    expect(await filesHolding(path, a)).not.toEqual([]);
    const { s, errors } = await reopen(path);
    expect(errors).toEqual([expect.objectContaining({ code: 'OP_UNREADABLE', file: 'records', message: expect.stringMatching(/missing from the record files, or older there.*rebuilt from the log$/) })]);
    expect(errors[0].count).toBeGreaterThanOrEqual(2);
    expect(await s.get(a)).toEqual({ title: 'a2' });
    expect(await s.get(b)).toEqual({ title: 'b', n: 2, tags: ['x', 'y'] });
    await s.close();
  });

  it('LOG-2: when the log no longer reaches back (retention raised its floor), the report says what only older ops wrote may be lost', async () => {
    const path = await tempStore();
    const clock = { t: Date.UTC(2025, 0, 1) };
    const options = { now: () => clock.t, sync: { retention: { days: 1 }, log: { rollAfter: 1 } } };
    const s0 = await open({ path, ...options });
    await s0.set('doc', { title: 'first', body: 'kept in the record file only' });
    clock.t += 2 * DAY;
    await s0.update('doc', { title: 'second' });
    await s0.set('other', { x: 1 });
    await internals(s0).committer.idle();
    await s0.close();
    const files = await filesHolding(path, 'doc');
    for (const f of files) await writeFile(join(path, f), 'torn');
    const { s, errors } = await reopen(path, options);
    expect(internals(s).log.floor).toBeGreaterThan(0);
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e.message).toMatch(new RegExp(`rebuilt from the log .*no longer holds positions 1..${internals(s).log.floor}: a record only older ops wrote may be lost`));
    // What the retained ops wrote is back; the body only the dropped write held is not.
    expect(await s.get('doc')).toEqual({ title: 'second' });
    await s.close();
  });

  it('LOG-8, GUAR-6: record files with no log beside them (a partial restore) are refused with STORE_DAMAGED naming log/index.json, and nothing is written', async () => {
    const path = await tempStore();
    await closedStore(path);
    await rm(join(path, 'log'), { recursive: true });
    const before = (await readdir(path, { recursive: true })).sort();
    await expect(open({ path })).rejects.toMatchObject({ code: 'STORE_DAMAGED', file: 'log/index.json', message: expect.stringMatching(/restore log\/.*or move records\/ away/) });
    expect((await readdir(path, { recursive: true })).sort()).toEqual(before);
    // A new store, and one whose records/ is empty, open as ever.
    const fresh = await tempStore();
    await (await open({ path: fresh })).close();
    await rm(join(fresh, 'log'), { recursive: true });
    await rm(join(fresh, 'keys'), { recursive: true });
    const { s, errors } = await reopen(fresh);
    expect(errors).toEqual([]);
    await s.close();
  });

  it('GUAR-7: a clean reopen rebuilds nothing: no error, and no record file written', async () => {
    const path = await tempStore();
    await closedStore(path);
    const names = async () => (await readdir(join(path, 'records'))).sort();
    const before = await names();
    const { s, errors } = await reopen(path);
    expect(errors).toEqual([]);
    await internals(s).committer.idle();
    expect(await names()).toEqual(before);
    await s.close();
  });
});
