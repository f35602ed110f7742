import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'syncom';

const root = join(__dirname, '..', '..', '..');

describe('example-api shutdown (a child process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncom-sigterm-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('LIFE-24 GUAR-6: a SIGTERM while writes are in flight loses none that resolved', async () => {
    const path = join(dir, 'node');
    const child = spawn(process.execPath, ['-r', join(root, 'scripts/register-src.js'), join(root, 'apps/example-api/src/main.ts')], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SYNCOM_PATH: path, SYNCOM_HUB: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/\S+?),/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
        if (m) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`exited before listening: ${out}`)));
    });
    const resolved: string[] = [];
    let fifty!: () => void;
    const reachedFifty = new Promise<void>((r) => (fifty = r));
    const post = (i: number) => fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `n${i}` }) })
      .then(async (r) => { if (r.status === 201 && resolved.push(((await r.json()) as { id: string }).id) === 50) fifty(); })
      .catch(() => undefined);
    const wave = Array.from({ length: 300 }, (_, i) => post(i));
    await reachedFifty;
    child.kill('SIGTERM');
    await Promise.all(wave);
    expect(await exited).not.toBe(1);

    const s = await open({ path });
    try {
      for (const id of resolved) expect(await s.has(id)).toBe(true);
    } finally {
      await s.close();
    }
    expect(resolved.length).toBeGreaterThanOrEqual(50);
  }, 60_000);
});
