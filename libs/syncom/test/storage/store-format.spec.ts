import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from '../../src';
import { FORMAT_FILE, STORE_FORMAT } from '../../src/storage/store-format';
import { cleanup, cli, snapshot, tempDir } from '../cli/helpers';

/**
 * format.json names the format of a store's files, so that a version older
 * than the one that last wrote them refuses the store instead of misreading
 * it (docs/operations.md, "Upgrades and rollbacks").
 */
describe('the store format (format.json): a later version\'s store is refused, not misread', () => {
  afterAll(cleanup);

  /** A store with two records, closed; its directory. */
  async function store(): Promise<string> {
    const path = join(await tempDir(), 'store');
    const s = await open({ path });
    await s.set('a', { title: 'one' });
    await s.set('b', { title: 'two' });
    await s.close();
    return path;
  }

  it('a new store holds format.json naming this version\'s format', async () => {
    const path = await store();
    expect(JSON.parse(await readFile(join(path, FORMAT_FILE), 'utf8'))).toEqual({ format: STORE_FORMAT });
  });

  it('open() of a store whose format is newer fails with STORE_TOO_NEW, changes no file, and lets the path go', async () => {
    const path = await store();
    await writeFile(join(path, FORMAT_FILE), JSON.stringify({ format: STORE_FORMAT + 1 }));
    const before = await snapshot(path);
    await expect(open({ path })).rejects.toMatchObject({ code: 'STORE_TOO_NEW', file: FORMAT_FILE, format: STORE_FORMAT + 1, reads: STORE_FORMAT });
    expect(await snapshot(path)).toEqual(before);
    // Not locked: put back to this version's format (as a copy from before the upgrade would be), it opens whole.
    await writeFile(join(path, FORMAT_FILE), JSON.stringify({ format: STORE_FORMAT }));
    const s = await open({ path });
    expect((await s.list()).map((r) => r.id).sort()).toEqual(['a', 'b']);
    await s.close();
  });

  it('a store an earlier version wrote (no format.json) opens whole and gains the file; so does one whose file was torn', async () => {
    const path = await store();
    await rm(join(path, FORMAT_FILE));
    let s = await open({ path });
    expect((await s.get('a'))?.title).toBe('one');
    await s.close();
    expect(JSON.parse(await readFile(join(path, FORMAT_FILE), 'utf8'))).toEqual({ format: STORE_FORMAT });
    // A write of it cut short (OPFS can tear a file): the version that started it had written nothing after it.
    await writeFile(join(path, FORMAT_FILE), '{"form');
    s = await open({ path });
    expect((await s.get('b'))?.title).toBe('two');
    await s.close();
    expect(JSON.parse(await readFile(join(path, FORMAT_FILE), 'utf8'))).toEqual({ format: STORE_FORMAT });
  });

  it('the CLI refuses it too, before it judges the files by this version\'s layout: verify, info, export and log exit 1 with STORE_TOO_NEW, the store unchanged', async () => {
    const path = await store();
    await writeFile(join(path, FORMAT_FILE), JSON.stringify({ format: 7 }));
    // A later format may keep its index elsewhere: "damaged" would send the operator to repair a sound store.
    await rename(join(path, 'log/index.json'), join(path, 'log/index-v7.json'));
    const before = await snapshot(path);
    for (const command of ['verify', 'info', 'export', 'log']) {
      const r = await cli(command, path);
      expect(r.code).toBe(1);
      expect(r.err).toContain('STORE_TOO_NEW');
      expect(r.err).toContain('format 7');
    }
    expect(await snapshot(path)).toEqual(before);
  });
});
