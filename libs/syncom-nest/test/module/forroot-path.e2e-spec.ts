import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../helpers/start-app';

const dir = mkdtempSync(join(tmpdir(), 'syncom-nest-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SyncomModule.forRoot with a path that cannot be a store folder', () => {
  it('a file where the folder belongs, or a folder under a file, refuses the start with IO_ERROR naming the path (was a bare EEXIST / ENOTDIR Error, no code)', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder');
    await expect(startApp({ path: file })).rejects.toMatchObject({ name: 'SyncomError', code: 'IO_ERROR', message: expect.stringContaining(file) });
    await expect(startApp({ path: join(file, 'data') })).rejects.toMatchObject({ name: 'SyncomError', code: 'IO_ERROR', message: expect.stringContaining(file) });
  });
});
