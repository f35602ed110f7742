import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { open } from '../../src';
import type { InfoReport } from '../../src/cli/info-report';
import { cli, snapshot, tempDir } from './helpers';
import { usedFixture } from './fixtures';

const fx = usedFixture();


describe('syncom info', () => {
  it('shows a fresh storage: its id and epoch, an empty log, no records, no nodes', async () => {
    const path = await tempDir();
    const s = await open({ path });
    const id = s.id;
    await s.close();
    const r = await cli('info', path);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toContain(`node      ${id}`);
    expect(r.out).toContain('floor     0, head 0');
    expect(r.out).toContain('records   0 live, 0 deleted, 0 purged');
    expect(r.out).toContain('nodes     0 registered');
    const json = JSON.parse((await cli('info', path, '--json')).out) as InfoReport;
    expect(json).toMatchObject({ id, floor: 0, head: 0, ops: 0, segments: [], openBatches: [], nodes: [], problems: [] });
    expect(json.epoch).toMatch(/^[A-Za-z0-9]+$/);
  });

  it('shows a used storage: segments and open batches, records by state, the registered node with its cursor and lag', async () => {
    const r = await cli('info', fx.path, '--json');
    expect(r.code).toBe(0);
    const info = JSON.parse(r.out) as InfoReport;
    expect(info.id).toBe(fx.ids.node);
    expect(info.segments.length).toBeGreaterThan(1);
    expect(info.openBatches.length).toBeGreaterThan(0);
    expect(info.head).toBe(info.openBatches[info.openBatches.length - 1].to);
    expect(info.eventId).toBe(`${info.epoch}.${info.head}`);
    // note, fromHub, sealed and the two tail writes are live; one tombstone; one purge marker.
    expect(info.records).toEqual({ live: 5, deleted: 1, purged: 1, sealed: 1 });
    expect(info.sealedSeq).toBe(1);
    expect(info.nodes).toHaveLength(1);
    const n = info.nodes[0];
    expect(n).toMatchObject({ url: 'memory://hub', enabled: true, scopes: ['*'], hasToken: true });
    expect(n.cursor).toMatch(new RegExp(`^${n.remote.epoch}\\.\\d+$`));
    expect(n.remote.id).toBe(fx.ids.hubNode);
    // Everything written after the hub last acknowledged: at least the purge and the two tail writes.
    expect(n.lag).toBe(info.vector[fx.ids.node] - (n.acked[fx.ids.node] ?? 0));
    expect(n.lag).toBeGreaterThanOrEqual(4);
  });

  it('prints the same as text, without the node token', async () => {
    const r = await cli('info', fx.path);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/segments {2}\d+ sealed \(1\.\.\d+\), \d+ open batch(es)? \(\d+\.\.\d+\)/);
    expect(r.out).toContain('records   5 live (1 sealed), 1 deleted, 1 purged');
    expect(r.out).toContain('  memory://hub');
    expect(r.out).toMatch(/cursor {4}\S+\.\d+, last sync \d{4}-/);
    expect(r.out).toMatch(/lag {7}\d+ own ops not acknowledged/);
    expect(r.out).toContain('token set');
    expect(r.out).not.toContain('secret-token');
  });

  it('changes nothing in the storage, though the engine opens and closes it (open batches stay open)', async () => {
    const before = await snapshot(fx.path);
    for (const command of ['info', 'verify', 'export', 'log']) expect((await cli(command, fx.path)).code).toBe(0);
    expect(await snapshot(fx.path)).toEqual(before);
  });

  it('refuses a path that is not a storage with exit 2 and says why', async () => {
    const empty = await tempDir();
    const r = await cli('info', empty);
    expect(r).toMatchObject({ code: 2, out: '' });
    expect(r.err).toBe(`syncom: ${empty} is not a syncom storage: it has no log/index.json and no keys/\n`);
    expect(await cli('info', join(empty, 'missing'))).toMatchObject({ code: 2, err: `syncom: ${join(empty, 'missing')}: no such directory\n` });
    await writeFile(join(empty, 'file.txt'), 'x');
    expect((await cli('verify', join(empty, 'file.txt'))).err).toContain('is a file, not a storage directory');
    expect((await cli('export', join(fx.path, 'log'))).err).toContain(`(did you mean ${fx.path}?)`);
  });

  it('reports a storage whose index.json is lost as damaged (exit 1), without starting a new epoch', async () => {
    const path = await tempDir();
    await mkdir(join(path, 'keys'));
    await writeFile(join(path, 'keys', 'sign-public.pem'), 'x');
    const r = await cli('info', path);
    expect(r.code).toBe(1);
    expect(r.err).toContain('log/index.json is missing or unreadable');
    expect(await snapshot(path)).toEqual({ 'keys/sign-public.pem': expect.any(String) });
  });
});
