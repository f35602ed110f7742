import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Storage, SyncomError } from '../../src';
import { FLAG_SEALED } from '../../src/op';
import { allSealed, entriesOf, grepFiles, MARK } from './helpers';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'syncom-sealed-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

/** Every write call, sealed, each value and field name carrying the marker; one record deleted. */
async function writeAllSealed(s: Storage): Promise<{ a: string; b: string }> {
  const a = await s.insert({ title: `${MARK}-insert`, n: 1 }, { sealed: true });
  await s.set('b', { title: `${MARK}-set` }, { sealed: true });
  await s.saveData('c', { title: `${MARK}-saveData` }, { sealed: true });
  await s.update(a, { note: `${MARK}-update` }, { sealed: true });
  await s.swap(a, { n: `${MARK}-swap` }, { sealed: true });
  await s.inc(a, `${MARK}-counter`, 3, { sealed: true });
  await s.add(a, 'tags', [`${MARK}-tag1`, `${MARK}-tag2`], { sealed: true });
  await s.remove(a, 'tags', [`${MARK}-tag2`], { sealed: true });
  await s.delete('c', { sealed: true });
  return { a, b: 'b' };
}

describe('sealed records at rest', () => {
  it('GUAR-19: every write call takes { sealed: true }; no file under <path> holds a sealed value; reads decrypt', async () => {
    const s = await open({ path: dir });
    const { a, b } = await writeAllSealed(s);
    const plain = await s.insert({ title: 'PLAIN-control' });
    const expected = { title: `${MARK}-insert`, n: `${MARK}-swap`, note: `${MARK}-update`, [`${MARK}-counter`]: 3, tags: [`${MARK}-tag1`] };
    expect(await s.get(a)).toEqual(expected);
    expect(await s.has(b)).toBe(true);
    expect(await s.has('c')).toBe(false);
    expect((await s.record(a))?.data).toEqual(expected);
    expect((await s.record(a))?.meta.sealed).toBe(true);
    expect(Object.fromEntries((await s.list()).map((r) => [r.id, r.meta.sealed]))).toEqual({ [a]: true, [b]: true, [plain]: undefined });
    for (const id of [a, b, 'c']) expect(allSealed(s, id)).toBe(true);
    await s.close();
    expect(await grepFiles(dir, MARK)).toEqual([]);
    // The control: an unsealed value is in clear, so the grep does find what is there.
    expect((await grepFiles(dir, 'PLAIN-control')).length).toBeGreaterThan(0);
  });

  it('GUAR-19: after a reopen sealed records read back, stay sealed, and a write that does not ask is sealed too', async () => {
    let s = await open({ path: dir });
    const { a } = await writeAllSealed(s);
    await s.close();
    s = await open({ path: dir });
    expect(s.isSealed(a) && s.isSealed('b') && s.isSealed('c')).toBe(true);
    expect(await s.get(a)).toMatchObject({ title: `${MARK}-insert`, tags: [`${MARK}-tag1`] });
    await s.update(a, { later: `${MARK}-later` });
    await s.update('b', { later: `${MARK}-later` }, { sealed: false });
    await s.set('c', { revived: `${MARK}-revived` });
    expect(entriesOf(s, a).at(-1)!.flags & FLAG_SEALED).toBe(FLAG_SEALED);
    for (const id of [a, 'b', 'c']) expect(allSealed(s, id)).toBe(true);
    await s.close();
    expect(await grepFiles(dir, MARK)).toEqual([]);
    s = await open({ path: dir });
    expect(await s.get('c')).toEqual({ revived: `${MARK}-revived` });
    expect(await s.get(a)).toMatchObject({ later: `${MARK}-later` });
    await s.close();
  });

  it('GUAR-19: a record that exists unsealed cannot become sealed (NOT_SEALABLE); a deleted one neither', async () => {
    const s = await open({ path: dir });
    const id = await s.insert({ x: 1 });
    await expect(s.update(id, { x: 2 }, { sealed: true })).rejects.toMatchObject({ code: 'NOT_SEALABLE' });
    await expect(s.set(id, { x: 2 }, { sealed: true })).rejects.toBeInstanceOf(SyncomError);
    await s.delete(id);
    await expect(s.set(id, { x: 3 }, { sealed: true })).rejects.toMatchObject({ code: 'NOT_SEALABLE' });
    expect(s.isSealed(id)).toBe(false);
    expect(entriesOf(s, id).every((e) => (e.flags & FLAG_SEALED) === 0)).toBe(true);
    await s.close();
  });

  it('GUAR-19 OPS-11: purging a sealed record scrubs it; its marker stays sealed and local across a reopen', async () => {
    let s = await open({ path: dir, sync: { log: { rollAfter: 2 } } });
    const id = await s.insert({ title: `${MARK}-purged` }, { sealed: true });
    await s.update(id, { more: `${MARK}-more` });
    await s.insert({ other: 1 });
    await s.purge(id);
    expect(entriesOf(s, id).map((e) => [e.op.type, e.op.data, e.flags & FLAG_SEALED])).toEqual([
      ['write', undefined, FLAG_SEALED], ['set', undefined, FLAG_SEALED], ['purge', undefined, FLAG_SEALED],
    ]);
    await s.close();
    expect(await grepFiles(dir, MARK)).toEqual([]);
    s = await open({ path: dir });
    expect(s.isSealed(id)).toBe(true);
    expect(await s.get(id)).toBeUndefined();
    await expect(s.update(id, { x: 1 })).rejects.toMatchObject({ code: 'PURGED' });
    await s.close();
  });
});
