import { mkdir, readdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from '../../src';
import { cleanup, cli, snapshot, tempDir } from './helpers';

/**
 * A registry file is named after its node's url (remote/<encoded url>.json),
 * user info and query included. The CLI names such a file by its url's label
 * (nodeFileLabel) when it cannot read it; a directory in its place (verify's
 * check of places) and a link in remote/ (the OS error's text) had printed
 * the name as it is, credentials and all.
 */

afterEach(cleanup);

const URL = 'https://ops:hunter2@hub.example/syncom?token=tok-9c1';

async function storeWithNode(): Promise<{ path: string; file: string }> {
  const path = join(await tempDir(), 'store');
  const s = await open({ path });
  await s.insert({ t: 'x' });
  await s.sync.addNode({ url: URL, token: 'peer-token' });
  await s.close();
  const [name] = await readdir(join(path, 'remote'));
  return { path, file: join(path, 'remote', name) };
}

/** Nothing printed holds a credential of the url, encoded or not. */
function expectNoSecret(text: string): void {
  for (const secret of ['hunter2', 'tok-9c1', 'peer-token']) expect(text).not.toContain(secret);
}

describe('a registry file the CLI cannot read is named without the credentials in its url', () => {
  it('a directory in its place: verify names it by its url label (exit 1)', async () => {
    const { path, file } = await storeWithNode();
    await rm(file);
    await mkdir(file);
    const before = await snapshot(path);
    const run = await cli('verify', path);
    expect(run.code).toBe(1);
    expect(run.out).toContain('FAULT   remote/<file of https://hub.example/syncom>: a directory where a file should be');
    expectNoSecret(run.out + run.err);
    expect(await snapshot(path)).toEqual(before);
  });

  it.each(['info', 'verify', 'export', 'log'])('a symbolic link in remote/: %s names it by its url label (exit 1)', async (command) => {
    const { path, file } = await storeWithNode();
    await rename(file, join(path, 'elsewhere.json'));
    await symlink('../elsewhere.json', file);
    const run = await cli(command, path);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain('<file of https://hub.example/syncom> is a symbolic link');
    expectNoSecret(run.out + run.err);
  });
});

describe('open() of a store whose registry file it cannot read names it without the credentials in its url', () => {
  it('REG-5: a symbolic link in remote/: open() fails IO_ERROR, its message and fields free of them', async () => {
    const { path, file } = await storeWithNode();
    await rename(file, join(path, 'elsewhere.json'));
    await symlink('../elsewhere.json', file);
    const e = await open({ path }).then(() => undefined, (x: unknown) => x as Error & { code?: string });
    expect(e?.code).toBe('IO_ERROR');
    expect(e?.message).toContain('<file of https://hub.example/syncom> is a symbolic link');
    expectNoSecret(JSON.stringify({ ...e, message: e?.message }));
  });

  it('REG-5: a registry file that is no JSON: its OP_UNREADABLE report (message, file, cause) is free of them', async () => {
    const { path, file } = await storeWithNode();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(file, '{ torn');
    const s = await open({ path });
    const seen: (Error & { file?: string; cause?: unknown })[] = [];
    s.on('error', (x) => void seen.push(x));
    s.sync.on('error', (x) => void seen.push(x));
    await new Promise((r) => setImmediate(r));
    const unreadable = seen.filter((x) => (x as { code?: string }).code === 'OP_UNREADABLE');
    expect(unreadable.length).toBeGreaterThan(0);
    for (const x of unreadable) expectNoSecret(`${x.message} ${String(x.file)} ${String((x.cause as Error)?.message)}`);
    await s.close();
  });
});
