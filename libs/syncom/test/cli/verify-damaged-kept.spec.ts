import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { open } from '../../src';
import type { VerifyReport } from '../../src/cli/verify';
import { cleanup, cli, tempDir } from './helpers';

afterAll(cleanup);

// A damaged log entry is written back as read by every rewrite of its file (docs/guarantees.md): `syncom verify`
// goes on reporting it where it is, a fault, and finds no empty slot in its place.
describe('syncom verify on a store whose damaged entry a purge rewrote around', () => {
  it('GUAR-20: the damaged entry is still a fault at its event id after the rewrite, and no empty slot is warned of', async () => {
    const path = await tempDir();
    const s = await open({ path, sync: { log: { rollAfter: 2 } } });
    await s.set('a', { title: 'a' });
    await s.set('b', { title: 'b' });
    await s.close();
    const seg = join(path, 'log/seg-1.json');
    const file = JSON.parse(await readFile(seg, 'utf8')) as { ops: unknown[][] };
    file.ops[0][0] = 7;
    await mkdir(dirname(seg), { recursive: true });
    await writeFile(seg, JSON.stringify(file));
    const again = await open({ path, sync: { log: { rollAfter: 2 } } });
    await again.purge('b');
    await again.close();
    const report = JSON.parse((await cli('verify', path, '--json')).out) as VerifyReport;
    const messages = report.findings.map((f) => `${f.level} ${f.where} ${f.message}`);
    expect(messages.some((m) => /^fault \S+\.1 a malformed entry/.test(m))).toBe(true);
    expect(messages.join('\n')).not.toContain('empty slot');
  });

  it('LOG-2: the newest line of an open file that ends with its newline but does not parse is a fault (damage), not a torn append', async () => {
    const path = await tempDir();
    const s = await open({ path, sync: { log: { rollAfter: 64, lines: true } } });
    await s.set('a', { title: 'a' });
    await s.set('b', { title: 'b' });
    // Closing seals the batches: the store is copied as a crash leaves it, before the close.
    const copy = await tempDir();
    await cp(path, copy, { recursive: true });
    await s.close();
    const name = join(copy, 'log/open/1.json');
    const lines = (await readFile(name, 'utf8')).split('\n');
    expect(lines).toHaveLength(3);
    lines[1] = lines[1].replace('"ops":[', '"ops":{');
    await writeFile(name, lines.join('\n'));
    const r = await cli('verify', copy, '--json');
    const report = JSON.parse(r.out) as VerifyReport;
    expect(report.findings.filter((f) => f.where === 'log/open/1.json').map((f) => f.level)).toContain('fault');
    expect(r.code).toBe(1);
  });
});
