import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type SyncomError } from '../../src';
import { runCli } from '../../src/cli/main';
import { MAX_LOGGED_DEPTH } from '../../src/op/pack';

/**
 * A log entry whose payload nests thousands deep (a segment edited or rotted
 * with its JSON still valid: a segment is not re-hashed at load). JSON.parse
 * builds it; every reader after it (the digest, a join, a record file's
 * text) ran out of stack: open() rejected with a raw RangeError or opened with
 * get() throwing it, and `syncom verify` and `syncom log` ended on it.
 */

let root: string;
beforeEach(async () => { root = await mkdtemp(join(tmpdir(), 'syncom-deep-entry-')); });
afterEach(async () => { await rm(root, { recursive: true, force: true }); });

const DEPTH = 50_000;

/** A closed store of two records in log/seg-1.json, the first one's title nested DEPTH deep there, its record files gone. */
async function store(): Promise<{ path: string; deep: string; other: string }> {
  const path = join(root, 'store');
  const s = await open({ path });
  const deep = await s.insert({ title: 'deep' });
  const other = await s.insert({ title: 'other' });
  await s.close();
  const seg = join(path, 'log/seg-1.json');
  const text = await readFile(seg, 'utf8');
  expect(text).toContain('"deep"');
  await writeFile(seg, text.replace('"deep"', '['.repeat(DEPTH) + ']'.repeat(DEPTH)));
  for (const f of await readdir(join(path, 'records'))) await rm(join(path, 'records', f));
  return { path, deep, other };
}

function collector(): { text: string; isTTY: boolean; write: (t: string) => boolean } {
  const c = { text: '', isTTY: false, write: (t: string) => { c.text += t; return true; } };
  return c;
}

describe('a log entry nested past the call stack', () => {
  it('open() reports it OP_UNREADABLE naming the segment and reads the rest; get() of its record does not throw', async () => {
    const { path, deep, other } = await store();
    const s = await open({ path });
    const seen: SyncomError[] = [...s.startupErrors];
    s.on('error', (e) => seen.push(e));
    await new Promise((r) => setImmediate(r));
    expect(await s.get(other)).toEqual({ title: 'other' });
    await expect(s.get(deep)).resolves.toBeUndefined();
    expect(seen.map((e) => e.code)).not.toContain('UNPERSISTED');
    expect(seen).toContainEqual(expect.objectContaining({ code: 'OP_UNREADABLE', file: 'log/seg-1.json' }));
    await s.close();
  });

  it('syncom verify and syncom log report it and finish (exit 1), with no RangeError', async () => {
    const { path } = await store();
    for (const command of ['verify', 'log']) {
      const out = collector();
      const err = collector();
      const code = await runCli([command, path], { stdout: out, stderr: err });
      expect(err.text + out.text).not.toContain('RangeError');
      expect(code).toBe(1);
      if (command === 'verify') expect(out.text).toContain(`nests deeper than ${MAX_LOGGED_DEPTH} levels`);
    }
  });
});
