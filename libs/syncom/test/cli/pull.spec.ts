import { cp, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMemoryLink, open, SyncomError } from '../../src';
import type { SyncLink } from '../../src/link/contract';
import type { HostUnit } from '../../src/link';
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
    expect(refused.err).toMatch(/refused this node: UNAUTHORIZED: check --token \(a token bound to scopes pulls with --scopes naming them\)/);
    await h.close();
  });

  it('--scopes greets with those scopes, as a token bound to them must (one claiming every scope is refused 401), and pulls their records alone; a bad list is a usage error', async () => {
    const typed = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
    const { s: h, unit } = await hub({ access: 'public', authorize: (_c, hello) => hello.scopes.length === 1 && hello.scopes[0] === 'Doc' }, { sync: { scope: typed } });
    await h.insert({ $type: 'Doc', n: 1 });
    await h.insert({ $type: 'Note', n: 2 });
    const path = await tempDir();
    // What to do is in the line: the operator had met a bare UNAUTHORIZED for a right token without --scopes.
    expect((await pull(path, unit)).err).toMatch(/refused this node: UNAUTHORIZED: check --token \(a token bound to scopes pulls with --scopes/);
    expect((await pull(path, unit, '--scopes', 'Note')).err).toMatch(/refused this node: UNAUTHORIZED: check --token and --scopes \(the scopes this token may claim\)/);
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

  it('a hub the dialer stops dialing for good ends pull at once, naming why: one that shares no wire version (INCOMPATIBLE), one that is this node (SELF_DIAL)', async () => {
    const { s: h, unit } = await hub({ access: 'public', authorize: () => true, wireVersions: [99] });
    const path = await tempDir();
    // --timeout 10: these end at once; waiting it out ends with the timeout's message instead.
    const old = await pull(path, unit, '--timeout', '10');
    expect(old).toMatchObject({ code: 1, out: '', err: 'syncom: INCOMPATIBLE: memory://hub shares no wire version with this syncom (it speaks 99)\n' });
    await h.close();

    // A hub serving a copy of this very store (its keys, so its node id): pull had waited two minutes and said "not caught up".
    const copy = join(await tempDir(), 'copy');
    await cp(path, copy, { recursive: true });
    const twin = await open({ path: copy });
    const self = await pull(path, twin.sync.unit({ access: 'public', authorize: () => true }), '--timeout', '10');
    expect(self.code).toBe(1);
    expect(self.err).toMatch(/^syncom: SELF_DIAL: memory:\/\/hub is this node \(its own id\); not dialing it\n$/);
    await twin.close();
  });

  it('a hub that answers junk or fails every call: the timeout names what the dialer last met, not just "not caught up"', async () => {
    const path = await tempDir();
    const junk = (answer: () => Promise<unknown>): SyncLink => ({ call: answer, subscribe: () => ({ unsubscribe: () => undefined }), on: () => undefined, off: () => undefined, close: () => undefined });
    const run = async (link: SyncLink) => {
      const stderr = collector();
      const code = await runCli(['pull', path, '--hub', 'memory://hub', '--timeout', '1'], { stdout: collector(), stderr }, { connect: () => link });
      return { code, err: stderr.text };
    };
    expect(await run(junk(async () => '<html>not a hub</html>'))).toEqual({ code: 1, err: 'syncom: not caught up with memory://hub within 1 s; its last error: BAD_HELLO 400: hello: node is no id\n' });
    expect(await run(junk(() => Promise.reject(new SyncomError('AUTHORIZE_FAILED', 'authorize could not judge this hello: greet again later', { status: 503 }))))).toEqual({ code: 1, err: 'syncom: not caught up with memory://hub within 1 s; its last error: AUTHORIZE_FAILED 503: authorize could not judge this hello: greet again later\n' });
  });

  it('a hub whose refusal quotes the token: the timeout names its words with the token as <token>', async () => {
    const path = await tempDir();
    const token = 'tok-SECRET-31c0';
    const refusing: SyncLink = {
      call: () => Promise.reject(new SyncomError('AUTHORIZE_FAILED', `the store holding ${token} is down`, { status: 503 })),
      subscribe: () => ({ unsubscribe: () => undefined }), on: () => undefined, off: () => undefined, close: () => undefined,
    };
    const stderr = collector();
    const code = await runCli(['pull', path, '--hub', 'memory://hub', '--token', token, '--timeout', '1'], { stdout: collector(), stderr }, { connect: () => refusing });
    expect({ code, err: stderr.text }).toEqual({ code: 1, err: 'syncom: not caught up with memory://hub within 1 s; its last error: AUTHORIZE_FAILED 503: the store holding <token> is down\n' });
  });

  it('a --timeout past the longest timer (2^31-1 ms, about 24.8 days) waits for the hub, as synced() does, instead of ending at once', async () => {
    const { s: h, unit } = await hub({ access: 'public', authorize: () => true });
    for (let i = 0; i < 3; i++) await h.insert({ i });
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      // Node turns a delay past 2^31-1 ms into 1 ms: 3,000,000 s ended pull before its hello, "not caught up within 3000000 s".
      const run = await pull(await tempDir(), unit, '--timeout', '3000000');
      expect(run).toMatchObject({ code: 0, out: expect.stringMatching(/^bootstrapped 3 entries/) });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    } finally {
      process.off('warning', onWarning);
      await h.close();
    }
  });

  it('a --hub that is no url (a bracket left open, a port past 65535) is a usage error at once, its user info left out: it had waited out --timeout with no reason given', async () => {
    const path = await tempDir();
    let dialed = 0;
    for (const hub of ['http://me:pw-S3CRET@[::1/syncom', 'http://127.0.0.1:99999/syncom', 'no url']) {
      const stderr = collector();
      const code = await runCli(['pull', path, '--hub', hub, '--timeout', '1'], { stdout: collector(), stderr }, { connect: () => { dialed++; return createMemoryLink(undefined as never); } });
      expect({ code, err: stderr.text }).toEqual({ code: 2, err: expect.stringMatching(/^syncom: --hub takes a url \(http:\/\/127\.0\.0\.1:8000\/syncom\), not "/) });
      expect(stderr.text).not.toContain('S3CRET');
    }
    expect(dialed).toBe(0);
  });

  it('BOOT-1: a pull into a store that pulled everything before, nothing new since, exits 0 at once (it waited out its timeout and exited 1)', async () => {
    const { s: h, unit } = await hub({ access: 'public', authorize: () => true });
    for (let i = 0; i < 5; i++) await h.insert({ i });
    const path = await tempDir();
    expect((await pull(path, unit)).code).toBe(0);
    expect(await pull(path, unit, '--timeout', '600')).toMatchObject({ code: 0, out: `caught up from memory://hub; 5 live records in ${path}\n` });
    await h.close();
  });

  it('BOOT-1 BOOT-3: a snapshot that ends before its total (a hub that broke, or lied) is completed by a reconciliation before pull says caught up', async () => {
    const { s: h, unit } = await hub({ access: 'public', pageSize: 7, authorize: () => true });
    for (let i = 0; i < 30; i++) await h.insert({ i });
    // The first page says 30 records and that it is the last.
    const cut: HostUnit = {
      access: unit.access,
      call: async (m, a, c) => {
        const answer = await unit.call(m, a, c);
        return m === 'snapshot' ? { ...(answer as object), next: null } : answer;
      },
      subscribe: (m, a, c, o) => unit.subscribe(m, a, c, o),
      stream: (id, c) => unit.stream(id, c),
      disconnect: (c) => unit.disconnect(c),
    };
    const path = await tempDir();
    const got = await pull(path, cut);
    expect(got.code).toBe(0);
    expect(got.out).toMatch(/; 30 live records in /);
    await h.close();
  });

  it('BOOT-1: a directory holding anything but a store, or a store that never pulled from this hub, is refused (usage, exit 2) and left as it was', async () => {
    const { s: h, unit } = await hub({ access: 'public', authorize: () => true });
    await h.insert({ n: 1 });
    const notes = await tempDir();
    await writeFile(join(notes, 'thesis.txt'), 'mine');
    const refused = await pull(notes, unit);
    expect(refused).toMatchObject({ code: 2, err: expect.stringContaining('is not empty and holds no store: pull into a new or empty directory') });
    expect(await readdir(notes)).toEqual(['thesis.txt']);
    const other = await tempDir();
    const o = await open({ path: other });
    await o.insert({ mine: true });
    await o.close();
    expect(await pull(other, unit)).toMatchObject({ code: 2, err: expect.stringContaining('holds a store that never pulled from memory://hub') });
    const again = await open({ path: other });
    expect((await again.list()).map((r) => r.data)).toEqual([{ mine: true }]);
    expect(again.sync.listNodes()).toEqual([]);
    await again.close();
    await h.close();
  });
});
