import { internals } from '../../src/testing/internals';
import { open } from '../../src';
import type { ExportLine } from '../../src/cli/export';
import { cli, tempDir } from './helpers';
import { usedFixture } from './fixtures';

const fx = usedFixture();


const lines = (out: string) => out.trimEnd().split('\n').map((l) => JSON.parse(l) as ExportLine);

describe('syncom export', () => {
  it('writes one { id, data, meta } line per live record, in id order; a sealed record closed', async () => {
    const r = await cli('export', fx.path);
    expect(r).toMatchObject({ code: 0, err: '' });
    const out = lines(r.out);
    expect(out.map((l) => l.id)).toEqual([fx.ids.note, fx.ids.sealed, fx.ids.fromHub, ...fx.ids.tail].sort());
    expect(out.find((l) => l.id === fx.ids.note)).toEqual({
      id: fx.ids.note, data: { body: 'first', tags: ['bug'], title: 'Final', views: 3 }, meta: { ts: expect.any(Number) },
    });
    expect(out.find((l) => l.id === fx.ids.sealed)).toEqual({ id: fx.ids.sealed, data: null, meta: { sealed: true } });
    expect(r.out).not.toContain('pin-secret-x');
  });

  it('round-trips: the lines written back into a new storage read as the original records', async () => {
    const original = await open({ path: await tempDir() });
    await original.insert({ title: 'a', n: 1, nested: { deep: [1, 'two', null] } });
    await original.insert({ title: 'b', flag: true });
    const id = await original.insert({ title: 'c' });
    await original.inc(id, 'views', 2);
    const path = internals(original).options.path;
    const expected = await original.list();
    await original.close();
    const copy = await open({ path: await tempDir() });
    for (const l of lines((await cli('export', path)).out)) await copy.set(l.id, l.data as Record<string, unknown>);
    expect((await copy.list()).map(({ id: i, data }) => ({ id: i, data }))).toEqual(expected.map(({ id: i, data }) => ({ id: i, data })));
    await copy.close();
  });

  it('adds tombstones and purge markers with --all, and sealed records decrypted with --sealed', async () => {
    const all = lines((await cli('export', fx.path, '--all')).out);
    expect(all.find((l) => l.id === fx.ids.deleted)).toEqual({ id: fx.ids.deleted, data: null, meta: { ts: expect.any(Number), deleted: true } });
    expect(all.find((l) => l.id === fx.ids.purged)).toEqual({ id: fx.ids.purged, data: null, meta: { ts: expect.any(Number), purged: true } });
    const sealed = lines((await cli('export', fx.path, '--sealed')).out);
    expect(sealed.find((l) => l.id === fx.ids.sealed)).toEqual({ id: fx.ids.sealed, data: { pin: 'pin-secret-x' }, meta: { ts: expect.any(Number), sealed: true } });
    expect(sealed.some((l) => l.id === fx.ids.deleted)).toBe(false);
  });
});
