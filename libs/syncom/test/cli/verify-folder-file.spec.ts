import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from '../../src';
import { cleanup, cli, tempDir } from './helpers';

/**
 * A file where one of the store's folders should be (log/open, remote):
 * open() fails with IO_ERROR on it, while `syncom verify` read it as an empty
 * folder and answered OK (exit 0).
 */

afterEach(cleanup);

describe('verify: a file where a folder should be', () => {
  it.each(['log/open', 'remote'])('%s as a file is a fault (exit 1), as open() refuses it', async (folder) => {
    const path = join(await tempDir(), 'store');
    const s = await open({ path });
    await s.insert({ t: 'x' });
    await s.sync.addNode({ url: 'memory://hub' });
    await s.close();
    await rm(join(path, folder), { recursive: true });
    await writeFile(join(path, folder), 'x');
    await expect(open({ path })).rejects.toMatchObject({ code: 'IO_ERROR' });
    const run = await cli('verify', path);
    expect(run.code).toBe(1);
    expect(run.out).toContain(`${folder}: a file where a folder should be`);
  });
});
