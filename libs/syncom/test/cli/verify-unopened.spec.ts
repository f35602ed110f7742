import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { MemoryBackend } from '../../src/backend';
import type { VerifyReport } from '../../src/cli/verify';
import { freshBackend, openOn, T0 } from '../log/helpers';
import { web, withPlatform } from '../platform/with-platform';
import { cleanup, cli, tempDir } from './helpers';

afterAll(cleanup);

/** A memory backend's files written out to a directory the CLI reads. */
async function onDisk(b: MemoryBackend): Promise<string> {
  const dir = await tempDir();
  for (const [path, text] of b.files()) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

// A browser cannot open a sealed entry; the files it rewrites keep it as read (docs/guarantees.md), so the
// CLI, with the store's key, reads and checks it as it did before the browser touched the store.
describe('syncom on a store a browser rewrote around sealed entries', () => {
  it('GUAR-19: verify finds nothing wrong, and export --sealed has the sealed record', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('p', { pin: 1 }, { sealed: true });
    await s.set('q', { x: 1 });
    await s.close();
    await withPlatform(web, async () => {
      const w = await openOn(b, { now: () => T0 });
      for (let i = 0; i < 40; i++) await w.set(`w${i}`, { i });
      await w.purge('q');
      await w.close();
    });
    const dir = await onDisk(b);
    const r = await cli('verify', dir, '--json');
    const report = JSON.parse(r.out) as VerifyReport;
    expect(report.findings.filter((f) => f.level === 'fault')).toEqual([]);
    expect(report.findings.map((f) => f.message).join('\n')).not.toContain('empty slot');
    expect(r.code).toBe(0);
    const lines = (await cli('export', dir, '--sealed')).out.trim().split('\n').map((l) => JSON.parse(l) as { id: string; data: unknown });
    expect(lines.find((l) => l.id === 'p')?.data).toEqual({ pin: 1 });
  });
});
