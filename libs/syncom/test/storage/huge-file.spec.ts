import { spawnSync } from 'node:child_process';
import { mkdtemp, open as openFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createMemoryBackend, open, type SyncomError } from '../../src';
import { jsonValues } from '../../src/platform/read-bound';
import { platform } from '../../src/platform';

/**
 * A huge file in a store folder (a disk that returned garbage, a file placed
 * by hand): every file is read whole and JSON.parse'd with no bound, and a
 * record file of 64 MB of tiny elements (`{},` ...) costs a heap some twenty
 * times its size. The process died (V8's "heap out of memory", SIGABRT), which
 * no caller can catch. A file whose text, or its parse, would take more
 * heap than is left is refused with STORE_DAMAGED naming it, unparsed: a
 * record file is then one that cannot be read (its records rebuilt from the
 * log), any other fails open().
 */

let root: string;
beforeEach(async () => { root = await mkdtemp(join(tmpdir(), 'syncom-huge-')); });
afterEach(async () => { await rm(root, { recursive: true, force: true }); });

const SRC = resolve(__dirname, '../../src');

// Run in a child with a 512 MB heap, so the test costs what it shows.
it('a 64 MB record file of tiny elements: open() fails or reads past it with a code, and the process does not run out of heap', async () => {
  const path = join(root, 'store');
  const script = `
    const { open } = require(${JSON.stringify(SRC)});
    const { open: openFile } = require('node:fs/promises');
    (async () => {
      const s = await open({ path: ${JSON.stringify(path)} });
      await s.insert({ t: 'kept' });
      await s.close();
      const h = await openFile(${JSON.stringify(join(path, 'records/7.json'))}, 'w');
      const chunk = Buffer.from('{},'.repeat(1 << 20));
      await h.write('[');
      for (let i = 0; i < 21; i++) await h.write(chunk);
      await h.write('{}]');
      await h.close();
      try {
        const t = await open({ path: ${JSON.stringify(path)} });
        const kept = (await t.list()).length;
        await t.close();
        console.log('RESULT opened ' + kept + ' ' + t.startupErrors.map((e) => e.code + ':' + e.file + ':' + (e.cause && e.cause.code)).join(' '));
      } catch (e) {
        console.log('RESULT ' + (e && e.code));
      }
    })();`;
  const child = spawnSync(process.execPath, ['--max-old-space-size=512', '-r', resolve(__dirname, '../../../../scripts/register-src.js'), '-e', script], {
    cwd: resolve(__dirname, '../../../..'),
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(child.stderr).not.toContain('heap out of memory');
  expect(child.status).toBe(0);
  expect(child.stdout).toMatch(/RESULT (opened 1 OP_UNREADABLE:records\/7.json:STORE_DAMAGED|[A-Z_]+)/);
}, 150_000);

describe('a file whose parse would not fit in the heap left (the heap made small here)', () => {
  const ROOM = 32 * 2 ** 20;
  const dense = (bytes: number) => `[${'{},'.repeat(Math.ceil(bytes / 3))}{}]`;
  beforeEach(() => { jest.spyOn(platform(), 'heapRoom').mockReturnValue(ROOM); });
  afterEach(() => { jest.restoreAllMocks(); });

  async function closedStore() {
    const backend = createMemoryBackend();
    const s = await open({ path: 's', backend });
    await s.insert({ t: 'kept' });
    await s.close();
    return backend;
  }

  it('counts JSON values as JSON.parse builds them: separators inside strings, escaped quotes included, are not values', () => {
    expect(jsonValues('[{},{"a":[1,2]}]')).toBe(7);
    expect(jsonValues('["a,b{[", "x\\"  , "y\\\"z,"]')).toBe(3);
    expect(jsonValues('"unterminated, [')).toBe(1);
  });

  it('a 2 MB record file of tiny elements is not parsed: it cannot be read (STORE_DAMAGED its cause), its records rebuilt from the log', async () => {
    const backend = await closedStore();
    await backend.write('records/7.json', dense(2 * 2 ** 20));
    const parse = jest.spyOn(JSON, 'parse');
    const s = await open({ path: 's', backend });
    expect(parse.mock.calls.some(([text]) => String(text).length > 2 ** 20)).toBe(false);
    expect(s.startupErrors).toContainEqual(expect.objectContaining({ code: 'OP_UNREADABLE', file: 'records/7.json', cause: expect.objectContaining({ code: 'STORE_DAMAGED', file: 'records/7.json' }) }));
    expect((await s.list()).map((r) => r.data.t)).toEqual(['kept']);
    await s.close();
  });

  it('log/index.json or a segment that dense fails open() with STORE_DAMAGED naming it', async () => {
    for (const file of ['log/index.json', 'log/seg-1.json']) {
      const backend = await closedStore();
      await backend.write(file, dense(2 * 2 ** 20));
      await expect(open({ path: 's', backend })).rejects.toMatchObject({ code: 'STORE_DAMAGED', file });
    }
  });

  it('a large file of few values (a 4 MB string in a record) opens as before: the bound goes by what the parse builds', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 's', backend });
    await s.insert({ t: 'x'.repeat(4 * 2 ** 20) });
    await s.close();
    const again = await open({ path: 's', backend });
    expect(again.startupErrors as SyncomError[]).toEqual([]);
    expect((await again.list())[0].data.t as string).toHaveLength(4 * 2 ** 20);
    await again.close();
  });
});
