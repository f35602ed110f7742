import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../../src';

// Modes are POSIX's: Windows keeps its own ACLs.
const posix = process.platform === 'win32' ? describe.skip : describe;

async function modes(root: string, dir = root, out = new Map<string, number>()): Promise<Map<string, number>> {
  for (const d of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, d.name);
    out.set(path.slice(root.length + 1), (await stat(path)).mode & 0o777);
    if (d.isDirectory()) await modes(root, path, out);
  }
  return out;
}

posix('an fs store is its owner\'s alone (keys, registry tokens, records)', () => {
  let base: string;
  let umask: number;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'syncom-modes-'));
    umask = process.umask(0o022);
  });
  afterEach(async () => {
    process.umask(umask);
    await rm(base, { recursive: true, force: true });
  });

  it('open() makes the store 0700 and every file in it 0600 under umask 022: the private keys, a registry file with its token, records and log', async () => {
    const path = join(base, 'store');
    const s = await open({ path, sync: { connect: () => { throw new Error('not dialed'); } } });
    await s.insert({ title: 'secret' }, { sealed: true });
    await s.insert({ title: 'plain' });
    await s.sync.addNode({ url: 'https://ops:pw@hub.example/syncom', token: 'TOKEN' });
    await s.close();
    expect((await stat(path)).mode & 0o777).toBe(0o700);
    const all = await modes(path);
    expect([...all.keys()].filter((p) => /^(keys|remote)\/./.test(p)).length).toBeGreaterThanOrEqual(3);
    for (const [p, mode] of all) expect([p, mode & 0o077]).toEqual([p, 0]);
  });

  it('a store made before keeps its root\'s mode but its folders are closed to others at open(), so keys/ and remote/ no longer show their files', async () => {
    const path = join(base, 'old');
    await (await open({ path })).close();
    await chmod(path, 0o755);
    for (const dir of ['keys', 'remote', 'records', 'log']) await chmod(join(path, dir), 0o755);
    await (await open({ path })).close();
    expect((await stat(path)).mode & 0o777).toBe(0o755);
    for (const dir of ['keys', 'remote', 'records', 'log']) expect([dir, (await stat(join(path, dir))).mode & 0o777]).toEqual([dir, 0o700]);
  });
});
