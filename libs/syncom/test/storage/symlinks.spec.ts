import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../../src';
import { Recycler } from '../../src/backend/fs-recycle';
import { runCli } from '../../src/cli/main';

/**
 * Symbolic links placed inside a store's folders (a restore that kept links,
 * a tree made with `cp -rs`, or a hand's): list() skipped them while reads
 * and writes by name followed them. An open batch file that is a link was
 * left out without a word (its ops dropped, its seq signed again), and the
 * next batch at its position was written through it, outside the store,
 * then zeroed there by the seal that recycled it.
 */

let root: string;
beforeEach(async () => { root = await mkdtemp(join(tmpdir(), 'syncom-symlinks-')); });
afterEach(async () => { await rm(root, { recursive: true, force: true }); });

/** A copy of a store taken while it held open batches (its lock left out), as a backup of a live store is. */
async function storeWithOpenBatches(): Promise<{ path: string; ids: string[] }> {
  const live = join(root, 'live');
  let s = await open({ path: live });
  const sealed = await s.insert({ t: 'sealed' });
  await s.close();
  s = await open({ path: live });
  const ids = [sealed, await s.insert({ t: 'open 1' }), await s.insert({ t: 'open 2' })];
  const path = join(root, 'store');
  await cp(live, path, { recursive: true, filter: (src) => !src.endsWith('LOCK') });
  await s.close();
  return { path, ids };
}

/** Move `name` of `dir` out of the store and leave a symbolic link to it in its place; returns the target. */
async function linkOut(dir: string, name: string): Promise<string> {
  await mkdir(join(root, 'outside'), { recursive: true });
  const target = join(root, 'outside', name);
  await rename(join(dir, name), target);
  await symlink(target, join(dir, name));
  return target;
}

describe('symbolic links inside a store folder', () => {
  it('open batch files that are links: open() refuses with IO_ERROR naming the first, and the files they point at are never written', async () => {
    const { path } = await storeWithOpenBatches();
    const names = (await readdir(join(path, 'log/open'))).sort();
    expect(names).toEqual(['2.json', '3.json']);
    const [first] = names;
    const target = await linkOut(join(path, 'log/open'), first);
    await linkOut(join(path, 'log/open'), names[1]);
    const before = await readFile(target, 'utf8');
    const result = await open({ path }).then(async (s) => {
      await s.insert({ t: 'new' });
      await s.close();
      return 'opened';
    }, (e: unknown) => e);
    expect(await readFile(target, 'utf8')).toBe(before);
    expect(result).toMatchObject({ code: 'IO_ERROR', path: join(path, 'log/open', first) });
  });

  it('a record file that is a link: open() refuses with IO_ERROR naming it (it was skipped), and verify says so with exit 1', async () => {
    const { path } = await storeWithOpenBatches();
    const [first] = (await readdir(join(path, 'records'))).sort();
    await linkOut(join(path, 'records'), first);
    await expect(open({ path })).rejects.toMatchObject({ code: 'IO_ERROR', path: join(path, 'records', first) });
    const out = { text: '', isTTY: false, write: (t: string) => { out.text += t; return true; } };
    const err = { text: '', isTTY: false, write: (t: string) => { err.text += t; return true; } };
    expect(await runCli(['verify', path], { stdout: out, stderr: err })).toBe(1);
    expect(out.text + err.text).toContain(`${first} is a symbolic link`);
  });

  it('the fs backend hands back a link without zeroing, changing the mode of, or writing into the file it points at', async () => {
    const dir = join(root, 'open');
    await mkdir(dir);
    const target = join(root, 'victim.txt');
    await writeFile(target, 'keep me');
    await chmod(target, 0o644);
    await symlink(target, join(dir, '5.json'));
    const recycler = new Recycler();
    expect(recycler.retire(join(dir, '5.json'))).toBe(false);
    expect(recycler.has(dir)).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('keep me');
    expect((await stat(target)).mode & 0o777).toBe(0o644);
    await recycler.close();
  });

  it('keys that are links (a mounted secret is one) are read through: open() and `syncom info` take them', async () => {
    const { path, ids } = await storeWithOpenBatches();
    for (const name of await readdir(join(path, 'keys'))) await linkOut(join(path, 'keys'), name);
    const s = await open({ path });
    expect(await s.get(ids[1])).toMatchObject({ t: 'open 1' });
    await s.close();
    const out = { text: '', isTTY: false, write: (t: string) => { out.text += t; return true; } };
    const err = { text: '', isTTY: false, write: (t: string) => { err.text += t; return true; } };
    expect(await runCli(['info', path], { stdout: out, stderr: err })).toBe(0);
    expect(err.text).toBe('');
  });
});
