import { createMemoryLink, open } from '../../src';
import { runCli } from '../../src/cli/main';
import { hub } from '../sync/helpers';
import { cleanup, collector, tempDir } from './helpers';

afterAll(cleanup);

async function pull(path: string, unit: Parameters<typeof createMemoryLink>[0], ...extra: string[]) {
  const stdout = collector();
  const stderr = collector(true);
  const code = await runCli(['pull', path, '--hub', 'memory://hub', ...extra], { stdout, stderr }, { connect: () => createMemoryLink(unit) });
  return { code, out: stdout.text, err: stderr.text };
}

describe('syncom pull', () => {
  it('BOOT-1: a first pull bootstraps a new directory with a progress bar; a second one catches up', async () => {
    const { s: h, unit } = await hub({ access: 'public', pageSize: 7, authorize: () => true });
    for (let i = 0; i < 30; i++) await h.insert({ i });
    const path = await tempDir();
    const first = await pull(path, unit);
    expect(first.code).toBe(0);
    expect(first.out).toBe(`bootstrapped 30 entries (tombstones and purge markers included) from memory://hub; 30 live records in ${path}\n`);
    expect(first.err).toMatch(/bootstrap \[#+\] 100% 30\/30/);

    await h.insert({ i: 30 });
    const second = await pull(path, unit);
    expect(second).toMatchObject({ code: 0, out: `caught up from memory://hub; 31 live records in ${path}\n` });
    const s = await open({ path });
    expect(await s.list()).toHaveLength(31);
    await s.close();
    await h.close();
  });

  it('pull without --hub is a usage error; a refused token exits 1', async () => {
    const path = await tempDir();
    const stderr = collector();
    expect(await runCli(['pull', path], { stdout: collector(), stderr })).toBe(2);
    expect(stderr.text).toMatch(/pull needs --hub <url>/);
    const { s: h, unit } = await hub({ access: 'public', authorize: (_c, hello) => hello.token === 'right' });
    const refused = await pull(path, unit, '--token', 'wrong');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/refused this node: UNAUTHORIZED/);
    await h.close();
  });

  it('--scopes greets with those scopes, as a token bound to them must (one claiming every scope is refused 401), and pulls their records alone; a bad list is a usage error', async () => {
    const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
    const { s: h, unit } = await hub({ access: 'public', authorize: (_c, hello) => hello.scopes.length === 1 && hello.scopes[0] === 'Doc' }, { sync: { scope: typed } });
    await h.insert({ $type: 'Doc', n: 1 });
    await h.insert({ $type: 'Note', n: 2 });
    const path = await tempDir();
    expect((await pull(path, unit)).err).toMatch(/refused this node: UNAUTHORIZED/);
    const scoped = await pull(path, unit, '--scopes', 'Doc');
    expect(scoped.code).toBe(0);
    const s = await open({ path });
    expect((await s.list()).map((r) => r.data.$type)).toEqual(['Doc']);
    await s.close();
    const stderr = collector();
    expect(await runCli(['pull', path, '--hub', 'memory://hub', '--scopes', 'a<b'], { stdout: collector(), stderr })).toBe(2);
    expect(stderr.text).toMatch(/--scopes takes scope names/);
    await h.close();
  });
});
