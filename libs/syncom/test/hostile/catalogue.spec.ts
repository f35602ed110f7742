import { internals } from '../../src/testing/internals';
import { newSigningKey } from '../../src/testing/signing-key';
import type { KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createMemoryLink, open, type OpenOptions, packOps, signOp, type Op, type Storage } from '../../src';
import type { HostUnit, MemoryLink } from '../../src/link';
import { DEFAULT_MAX_SKEW, generateSealingKeys, packOp } from '../../src/op';
import { forgedBySmallOrder, NON_CANONICAL, SMALL_ORDER, withNonCanonicalS } from './weak-keys';
import { joinPage } from '../../src/sync/dial/bootstrap';

/**
 * Issue 5 point 6: the hostile-input catalogue, engine side. One hub on the
 * fs backend in a temp dir, signatures 'require', scoped by `$type`, hosting
 * public units over the in-process memory link; an honest writer dialing it.
 * Each case sends hostile input, asserts the refusal code and the counts of
 * the push answer, then that the hub still serves (an honest write
 * replicates) and that what it held before is intact (records and the log
 * prefix unchanged). The last case reopens the hub from disk.
 */

const TOKEN = 't';
const now = () => Date.now();

/** A node identity speaking the protocol by hand: a real Ed25519 key, ops signed with signOp. */
class Peer {
  private readonly signing = newSigningKey();
  readonly key: KeyObject = this.signing.key;
  readonly id = this.signing.node;
  seq = 0;
  op(body: Partial<Op> & Pick<Op, 'type' | 'id'>, seq = ++this.seq): Op {
    return signOp({ origin: this.id, seq, ts: now(), ...body } as Op, this.key);
  }
  hello(extra: Record<string, unknown> = {}) {
    return { node: this.id, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: TOKEN, ...extra };
  }
}

function deep(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Every file under a directory, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath ?? (d as unknown as { path: string }).path, d.name)))
    .sort();
}

describe('hostile-input catalogue: the engine over the memory link', () => {
  let root: string;
  let hub: Storage;
  let writer: Storage;
  let unit: HostUnit;
  let limitedUnit: HostUnit;
  const links: MemoryLink[] = [];
  const storageErrors: { code: string; count?: number }[] = [];
  const refused: { node: string; reason: string; count: number }[] = [];
  let honest = 0;

  async function openIn(dir: string, options: Partial<OpenOptions>): Promise<Storage> {
    return open({ ...options, path: join(root, dir) });
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'syncom-hostile-'));
    const seal = await generateSealingKeys();
    for (const dir of ['hub', 'writer', 'verifying']) {
      mkdirSync(join(root, dir, 'keys'), { recursive: true });
      writeFileSync(join(root, dir, 'keys/seal-public.pem'), seal.publicPem);
      writeFileSync(join(root, dir, 'keys/seal-private.pem'), seal.privatePem);
    }
    hub = await openIn('hub', { sync: { signatures: 'require', scope: (_id, d) => String(d.$type ?? '*') } });
    hub.on('error', (e) => storageErrors.push(e as unknown as { code: string; count?: number }));
    hub.sync.on('refused', (r) => refused.push(r));
    const authorize = (_c: object, h: { token?: string }) => h.token === TOKEN;
    unit = hub.sync.unit({ access: 'public', authorize });
    limitedUnit = hub.sync.unit({ access: 'public', authorize, limits: { bytesPerPush: 1 << 20 } });
    writer = await openIn('writer', { sync: { connect: () => { const l = createMemoryLink(unit); links.push(l); return l; } } });
    await writer.sync.addNode({ url: 'memory://hub', token: TOKEN });
    for (let i = 0; i < 3; i++) await writer.insert({ before: i });
    await replicated();
  });

  afterAll(async () => {
    for (const l of links) l.close();
    await writer?.close();
    await hub?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Resolves once the hub holds every record the writer holds (event driven: change and sync events). */
  function replicated(): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = async () => {
        for (const r of await writer.list()) if (!(await hub.has(r.id))) return;
        done();
        resolve();
      };
      const offs = [hub.on('change', () => void check()), writer.sync.on('sync', () => void check())];
      const timer = setTimeout(() => { done(); reject(new Error('the honest write did not replicate')); }, 15_000);
      const done = () => { clearTimeout(timer); offs.forEach((o) => o()); };
      void check();
    });
  }

  /** What the hub held before a case: its records and its log. */
  async function held() {
    return { records: await hub.list(), log: internals(hub).log.read(0).map((e) => JSON.stringify(packOp(e.op))) };
  }

  /** The hub still serves (an honest write replicates) and lost nothing of what it held. */
  async function servesAndKept(before: Awaited<ReturnType<typeof held>>): Promise<void> {
    const id = await writer.insert({ honest: ++honest });
    await replicated();
    expect(await hub.get(id)).toEqual({ honest });
    for (const r of before.records) expect([r.id, await hub.get(r.id)]).toEqual([r.id, r.data]);
    expect(internals(hub).log.read(0).slice(0, before.log.length).map((e) => JSON.stringify(packOp(e.op)))).toEqual(before.log);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }

  /** A fresh connection of a hostile peer, greeted (unless told not to). */
  async function connect(peer: Peer, hello: Record<string, unknown> | null = {}, on: HostUnit = unit) {
    const link = createMemoryLink(on);
    links.push(link);
    if (hello) await link.call('hello', peer.hello(hello));
    return { link, push: (ops: Op[]) => link.call('push', { ops: packOps(ops) }) as Promise<Record<string, number>> };
  }

  beforeEach(() => {
    storageErrors.length = 0;
    refused.length = 0;
  });

  it('GUAR-3 SIG-14: __proto__, constructor and prototype as top-level fields or as a counter key are malformed; nested, they are data; no prototype is polluted', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p);
    const hostile = ['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"prototype":{"polluted":1}}']
      .map((text, i) => p.op({ type: 'write', id: `proto-${i}`, data: JSON.parse(text) as Record<string, unknown> }, 1));
    const inc = p.op({ type: 'inc', id: 'proto-inc', key: '__proto__', value: 1 }, 1);
    await expect(push([...hostile, inc])).resolves.toMatchObject({ applied: 0, malformed: 4 });
    // The three writes fail the unpacking of the page, the inc the peer checks: each is counted and reported (OP_MALFORMED).
    expect(storageErrors).toEqual([expect.objectContaining({ code: 'OP_MALFORMED', count: 3 }), expect.objectContaining({ code: 'OP_MALFORMED', count: 1 })]);
    // Nested inside a value, the same keys are plain data (JSON.parse made them own keys), and ids of those names are records.
    const nested = JSON.parse('{"v":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}}') as Record<string, unknown>;
    const ok = [
      p.op({ type: 'write', id: 'nested-proto', data: nested }, 1),
      p.op({ type: 'write', id: '__proto__', data: { toString: 'x' } }, 2),
      p.op({ type: 'write', id: 'constructor', data: { valueOf: 1 } }, 3),
      p.op({ type: 'inc', id: 'constructor', key: 'toString', value: 2 }, 4),
    ];
    await expect(push(ok)).resolves.toMatchObject({ applied: 4, malformed: 0 });
    expect(JSON.stringify(await hub.get('nested-proto'))).toBe(JSON.stringify(nested));
    expect(await hub.get('__proto__')).toEqual({ toString: 'x' });
    expect(await hub.get('constructor')).toEqual({ toString: 2, valueOf: 1 });
    // The local API refuses the top-level names.
    await expect(hub.set('p', JSON.parse('{"__proto__":{"polluted":1}}') as Record<string, unknown>)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(hub.update('constructor', { constructor: 1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await servesAndKept(before);
  });

  it('GUAR-3: ids that are paths never reach the file system; case and Unicode variants are distinct records; 513 characters is malformed', async () => {
    const before = await held();
    const files = filesUnder(root);
    const p = new Peer();
    const { push } = await connect(p);
    // Ids name no file: records go to records/<n>.json and the log to log/open/<n>.json (backend paths are checked too).
    const ids = ['..', '../..', '../../escape', '/etc/passwd', 'records/../../x', 'a\u0000b', 'C:\\x', 'log/index.json', 'x'.repeat(512),
      'Note', 'note', 'NOTE', '\u00e9', 'e\u0301', '\uff21', 'A', '\u0130', 'i\u0307'];
    const ops = ids.map((id, i) => p.op({ type: 'write', id, data: { i } }, i + 1));
    await expect(push(ops)).resolves.toMatchObject({ applied: ids.length, malformed: 0 });
    for (const [i, id] of ids.entries()) expect([id, await hub.get(id)]).toEqual([id, { i }]);
    const long = p.op({ type: 'write', id: 'y'.repeat(513), data: {} }, ids.length + 1);
    await expect(push([long])).resolves.toMatchObject({ applied: 0, malformed: 1 });
    await expect(hub.set('y'.repeat(513), {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await hub.set('../../local-escape', { local: true });
    await internals(hub).committer.idle();
    await internals(writer).committer.idle();
    // No file outside the storages, none named after an id: only new log batches and record files.
    for (const target of ['escape', 'x', 'local-escape', '../escape', '../local-escape', 'hub/escape', 'hub/x']) expect([target, existsSync(join(root, target))]).toEqual([target, false]);
    // '.tmp-' names are atomic writes in flight (renamed over their target).
    const added = filesUnder(root).filter((f) => !files.includes(f) && !f.includes('.tmp-'));
    expect(added.length).toBeGreaterThan(0);
    for (const f of added) expect(f).toMatch(/^(hub|writer)\/(log\/open\/\d+\.json|log\/seg-\d+\.json|log\/index\.json|records\/\d+\.json)$/);
    await servesAndKept(before);
  });

  it('GUAR-3: JSON nested 100,000 deep: refused by the API (INVALID_ARGUMENT), malformed as an op parsed from raw text, 413 BYTES_PER_PUSH where bytes are counted; nothing overflows the stack', async () => {
    const before = await held();
    await expect(hub.set('deep', { v: deep(100_000) as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(hub.add(before.records[0].id, 'tags', [deep(100_000)])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const p = new Peer();
    // The page as a transport hands it on: JSON.parse of the frame's text (iterative in V8, so it builds the value).
    const nest = '['.repeat(100_000) + ']'.repeat(100_000);
    const fake = (n: number) => 'A'.repeat(n);
    const raw = `{"ops":[["${p.id}",1,${now()},"write","deep",null,null,null,null,{"f":${nest}},null,null,null,null,null,"${fake(86)}","${fake(43)}","${fake(22)}"],` +
      `["${p.id}",1,${now()},"add","deep",null,null,null,null,null,null,"tags",[${nest}],null,null,"${fake(86)}","${fake(43)}","${fake(22)}"]]}`;
    const context = {};
    await unit.call('hello', p.hello(), context);
    await expect(unit.call('push', JSON.parse(raw), context)).resolves.toMatchObject({ applied: 0, malformed: 2 });
    expect(storageErrors).toContainEqual(expect.objectContaining({ code: 'OP_MALFORMED', count: 2 }));
    const limited = {};
    await limitedUnit.call('hello', p.hello(), limited);
    await expect(limitedUnit.call('push', JSON.parse(raw), limited)).rejects.toMatchObject({ code: 'BYTES_PER_PUSH', status: 413 });
    // A hello whose vector or scopes nest deep is a 400, not a crash.
    await expect(unit.call('hello', { ...p.hello(), vector: JSON.parse(`{"k":${nest}}`) }, {})).rejects.toMatchObject({ code: 'BAD_HELLO', status: 400 });
    await expect(unit.call('hello', { ...p.hello(), scopes: JSON.parse(nest) }, {})).rejects.toMatchObject({ code: 'BAD_HELLO', status: 400 });
    expect(await hub.has('deep')).toBe(false);
    await servesAndKept(before);
  });

  it('HOST-11 SIG-30: a 10 MB value is 413 BYTES_PER_PUSH under bytesPerPush 1 MiB, and taken whole where the host set no byte limit (limits are opt-in)', async () => {
    const before = await held();
    const p = new Peer();
    const big = p.op({ type: 'write', id: 'big', data: { blob: 'x'.repeat(10 * 1024 * 1024) } });
    await expect((await connect(p, {}, limitedUnit)).push([big])).rejects.toMatchObject({ code: 'BYTES_PER_PUSH', status: 413 });
    expect(await hub.has('big')).toBe(false);
    await expect((await connect(p)).push([big])).resolves.toMatchObject({ applied: 1 });
    expect(((await hub.get('big')) as { blob: string }).blob).toHaveLength(10 * 1024 * 1024);
    await servesAndKept(before);
  });

  it('GUAR-4 GUAR-5 CLK-6: a stamp beyond maxSkew is malformed with SKEW, neither logged nor observed into the clock; the same stream goes on after it', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p);
    const future = now() + DEFAULT_MAX_SKEW + 3_600_000;
    const skewed = signOp({ origin: p.id, seq: 1, ts: future, type: 'write', id: 'future', data: { f: 1 } }, p.key);
    await expect(push([skewed])).resolves.toMatchObject({ applied: 0, malformed: 1 });
    expect(storageErrors).toContainEqual(expect.objectContaining({ code: 'SKEW', count: 1 }));
    expect(internals(hub).clock.last).toBeLessThan(now() + 60_000);
    await hub.set('clock-probe', { at: 1 });
    expect(internals(hub).log.read(0).at(-1)?.op.ts).toBeLessThan(now() + 60_000);
    // Within maxSkew a stamp is a concurrent write, and the clock does follow it (CLK-6).
    const ahead = now() + 3_600_000;
    await expect(push([signOp({ origin: p.id, seq: 1, ts: ahead, type: 'write', id: 'ahead', data: { f: 2 } }, p.key)])).resolves.toMatchObject({ applied: 1 });
    expect(internals(hub).clock.last).toBeGreaterThanOrEqual(ahead);
    expect(await hub.has('future')).toBe(false);
    await servesAndKept(before);
  });

  it('GUAR-5 CLK-6 BOOT-4: a stamp beyond maxSkew inside an entry (a merge op\'s data, a counter\'s slot, a snapshot page) is refused as SKEW / PAGE_FAILED, and the clock does not follow it', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p);
    const future = now() + DEFAULT_MAX_SKEW + 3_600_000;
    const entry = (id: string) => ({ id, latest: [now(), p.id], fields: { a: { k: 'r', s: [future, p.id], val: 1 } } });
    // The op's own ts is honest; the register inside its entry is a day and an hour ahead.
    await expect(push([p.op({ type: 'merge', id: 'smuggled', data: entry('smuggled') as never })])).resolves.toMatchObject({ applied: 0, malformed: 1 });
    expect(storageErrors).toContainEqual(expect.objectContaining({ code: 'SKEW', count: 1 }));
    expect(await hub.has('smuggled')).toBe(false);
    // A counter's slot is stamped too: one keyed by the hub's own origin, far ahead, would have the hub's incs of it
    // taken as counted already until then; a negative slot ts is no stamp.
    const counted = await hub.insert({ title: 'counted' });
    await hub.inc(counted, 'views', 5);
    const slotted = (ts: number) => ({ id: counted, latest: [now(), p.id], fields: { views: { k: 'c', by: { [hub.id]: [1000, ts] } } } });
    await expect(push([p.op({ type: 'merge', id: counted, data: slotted(Number.MAX_SAFE_INTEGER) as never })])).resolves.toMatchObject({ applied: 0, malformed: 1 });
    await expect(push([p.op({ type: 'merge', id: counted, data: slotted(-1) as never })])).resolves.toMatchObject({ applied: 0, malformed: 1 });
    await hub.inc(counted, 'views', 1);
    expect(await hub.get(counted)).toEqual({ title: 'counted', views: 6 });
    const pages = [entry('paged-1'), entry('paged-2')];
    pages[0].fields.a.s = [now(), p.id];
    expect(() => joinPage(hub.replica, pages, p.id, { url: 'memory://hostile', node: p.id })).toThrow(expect.objectContaining({ code: 'PAGE_FAILED' }));
    // Checked before anything is submitted: the honest first entry of the refused page is not joined either.
    expect(await hub.has('paged-1')).toBe(false);
    // (An earlier case moved the clock an hour ahead, within maxSkew; the refused stamps are a day beyond that.)
    expect(internals(hub).clock.last).toBeLessThan(future - DEFAULT_MAX_SKEW);
    await servesAndKept(before);
  });

  it('SIG-14 SIG-18 SIG-19 SIG-21 SIG-24: a forged op is refused as forged, a stripped one as unsigned under require; neither is logged, and the intact op fills the gap after', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p);
    const op = p.op({ type: 'write', id: 'signed', data: { v: 'original' } });
    const forged = { ...op, data: { v: 'changed' } };
    const { sig: _s, ...stripped } = op;
    const { sig: _s2, digest: _d, nonce: _n, ...bare } = op;
    const otherKey = { ...op, sig: signOp(op, new Peer().key).sig };
    await expect(push([forged])).resolves.toMatchObject({ applied: 0, forged: 1 });
    await expect(push([otherKey])).resolves.toMatchObject({ applied: 0, forged: 1 });
    await expect(push([stripped])).resolves.toMatchObject({ applied: 0, unsigned: 1 });
    await expect(push([bare])).resolves.toMatchObject({ applied: 0, unsigned: 1 });
    expect(refused).toEqual([
      { node: p.id, reason: 'forged', count: 1 }, { node: p.id, reason: 'forged', count: 1 },
      { node: p.id, reason: 'unsigned', count: 1 }, { node: p.id, reason: 'unsigned', count: 1 },
    ]);
    expect(internals(hub).log.read(0).some((e) => e.op.id === 'signed')).toBe(false);
    expect(internals(hub).log.vector[p.id]).toBeUndefined();
    await expect(push([op])).resolves.toMatchObject({ applied: 1 });
    expect(await hub.get('signed')).toEqual({ v: 'original' });
    await servesAndKept(before);
  });

  it('SIG-14 SIG-20 SIG-21: small-order and non-canonical Ed25519 keys: a hello from one is 403 UNSIGNED, ops signed "R = identity, S = 0" under one are forged, and so is a signature with S >= L', async () => {
    const before = await held();
    const p = new Peer();
    for (const id of [...SMALL_ORDER, ...NON_CANONICAL]) {
      await expect(unit.call('hello', { ...p.hello(), node: id }, {})).rejects.toMatchObject({ code: 'UNSIGNED', status: 403 });
    }
    const { push } = await connect(p);
    // Forgeries node:crypto itself verifies (see forgedBySmallOrder), pushed on a session of a real key (hello proves no key, SIG-26).
    const forged = [...SMALL_ORDER, ...NON_CANONICAL].map((id) => forgedBySmallOrder(id, { id: `weak-${id}` }));
    await expect(push(forged)).resolves.toMatchObject({ applied: 0, forged: forged.length });
    const op = p.op({ type: 'write', id: 'big-s', data: { s: 1 } });
    await expect(push([withNonCanonicalS(op)])).resolves.toMatchObject({ applied: 0, forged: 1 });
    await expect(push([op])).resolves.toMatchObject({ applied: 1 });
    for (const id of [...SMALL_ORDER, ...NON_CANONICAL]) expect(internals(hub).log.vector[id]).toBeUndefined();
    await servesAndKept(before);
  });

  it('GUAR-2 GUAR-6: one origin signing two different ops with one seq: the first taken stands, the second is a duplicate, within a page or across pages', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p);
    const a = p.op({ type: 'write', id: 'equivocal', data: { says: 'a' } }, 1);
    const b = p.op({ type: 'write', id: 'equivocal', data: { says: 'b' } }, 1);
    await expect(push([a])).resolves.toMatchObject({ applied: 1 });
    await expect(push([b])).resolves.toMatchObject({ applied: 0, duplicates: 1 });
    const c = p.op({ type: 'write', id: 'equivocal-2', data: { says: 'c' } }, 2);
    const d = p.op({ type: 'write', id: 'equivocal-2', data: { says: 'd' } }, 2);
    await expect(push([c, d])).resolves.toMatchObject({ applied: 1, duplicates: 1 });
    expect(await hub.get('equivocal')).toEqual({ says: 'a' });
    expect(await hub.get('equivocal-2')).toEqual({ says: 'c' });
    const logged = internals(hub).log.read(0).filter((e) => e.op.origin === p.id);
    expect(logged.map((e) => [e.op.seq, e.op.data])).toEqual([[1, { says: 'a' }], [2, { says: 'c' }]]);
    await servesAndKept(before);
  });

  it('GUAR-2: replayed ops, the peer\'s own and an honest node\'s taken from the hub\'s log, are duplicates: nothing logged twice', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p);
    const ops = [p.op({ type: 'write', id: 'replayed', data: { n: 1 } }), p.op({ type: 'inc', id: 'replayed', key: 'views', value: 1 })];
    await expect(push(ops)).resolves.toMatchObject({ applied: 2 });
    const length = internals(hub).log.read(0).length;
    await expect(push(ops)).resolves.toMatchObject({ applied: 0, duplicates: 2 });
    const honestOps = internals(hub).log.read(0).filter((e) => e.op.origin === writer.id).map((e) => e.op);
    await expect(push(honestOps)).resolves.toMatchObject({ applied: 0, duplicates: honestOps.length });
    expect(internals(hub).log.read(0)).toHaveLength(length);
    expect(await hub.get('replayed')).toEqual({ n: 1, views: 1 });
    await servesAndKept(before);
  });

  it('SCOPE-12 SCOPE-14 SCOPE-15 SCOPE-17: ops outside the peer\'s scopes are counted outOfScope, announced as refused (scope), never logged', async () => {
    const before = await held();
    const p = new Peer();
    const { push } = await connect(p, { scopes: ['Doc'] });
    const declared = p.op({ type: 'write', id: 'secret-1', scope: 'Secret', data: { $type: 'Secret' } }, 1);
    const disguised = p.op({ type: 'write', id: 'secret-2', data: { $type: 'Secret' } }, 1);
    await hub.set('secret-0', { $type: 'Secret', pin: 1 });
    const globalOnSecret = p.op({ type: 'set', id: 'secret-0', data: { pin: 2 } }, 1);
    await expect(push([declared])).resolves.toMatchObject({ applied: 0, outOfScope: 1 });
    await expect(push([disguised])).resolves.toMatchObject({ applied: 0, outOfScope: 1 });
    await expect(push([globalOnSecret])).resolves.toMatchObject({ applied: 0, outOfScope: 1 });
    expect(refused).toEqual([1, 2, 3].map(() => ({ node: p.id, reason: 'scope', count: 1 })));
    expect(await hub.has('secret-1')).toBe(false);
    expect(await hub.has('secret-2')).toBe(false);
    expect(await hub.get('secret-0')).toEqual({ $type: 'Secret', pin: 1 });
    // The peer's own scope and '*' still land (the refusals were gaps in its Secret and '*' streams: a fresh seq of Doc).
    await expect(push([p.op({ type: 'write', id: 'doc-1', scope: 'Doc', data: { $type: 'Doc' } }, 1)])).resolves.toMatchObject({ applied: 1 });
    await servesAndKept(before);
  });

  it('HOST-3 HOST-21 SIG-20: a wrong or missing token is 401 UNAUTHORIZED, a push without a hello 428, a node id that is no key 403 UNSIGNED under require', async () => {
    const before = await held();
    const p = new Peer();
    await expect(unit.call('hello', p.hello({ token: 'wrong' }), {})).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    const { token: _t, ...tokenless } = p.hello();
    await expect(unit.call('hello', tokenless, {})).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    const refusedCtx = {};
    await expect(unit.call('hello', p.hello({ token: 'wrong' }), refusedCtx)).rejects.toMatchObject({ status: 401 });
    await expect(unit.call('push', { ops: packOps([p.op({ type: 'write', id: 'no-session', data: {} })]) }, refusedCtx)).rejects.toMatchObject({ code: 'HELLO_REQUIRED', status: 428 });
    const noKeys = ['not-a-key', 'A'.repeat(43), 'A'.repeat(42) + 'B', p.id.slice(0, 42), `${p.id}=`, '\u0000'.repeat(43)];
    for (const node of noKeys) await expect(unit.call('hello', { ...p.hello(), node }, {})).rejects.toMatchObject({ code: 'UNSIGNED', status: 403 });
    for (const node of ['', 'n'.repeat(129), 42, null]) await expect(unit.call('hello', { ...p.hello(), node }, {})).rejects.toMatchObject({ code: 'BAD_HELLO', status: 400 });
    expect(await hub.has('no-session')).toBe(false);
    await servesAndKept(before);
  });

  it('SIG-13 GUAR-3: under verify an unsigned op is taken, but origins named like prototype members (__proto__, constructor, toString) are malformed: never applied, logged or in the vector', async () => {
    const verifying = await openIn('verifying', {});
    try {
      const u = verifying.sync.unit({ access: 'public' });
      const link = createMemoryLink(u);
      links.push(link);
      await link.call('hello', new Peer().hello());
      const op = (origin: string): Op => ({ origin, seq: 1, ts: now(), type: 'write', id: `by-${origin}`, data: { x: 1 } });
      const odd = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
      await expect(link.call('push', { ops: packOps(odd.map(op)) })).resolves.toMatchObject({ applied: 0, gaps: 0, malformed: odd.length });
      await expect(link.call('push', { ops: packOps([op('plain-origin')]) })).resolves.toMatchObject({ applied: 1 });
      for (const origin of odd) expect(await verifying.has(`by-${origin}`)).toBe(false);
      expect(internals(verifying).log.read(0).map((e) => e.op.origin)).toEqual(['plain-origin']);
      expect(Object.keys(internals(verifying).log.vector)).toEqual(['plain-origin']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    } finally {
      await verifying.close();
    }
  });

  it('nothing lost: the hub reopened from its directory holds every record it served, odd ids included', async () => {
    const live = await hub.list();
    expect(live.length).toBeGreaterThan(30);
    for (const l of links) l.close();
    await writer.close();
    await hub.close();
    const again = await openIn('hub', { sync: { signatures: 'require', scope: (_id, d) => String(d.$type ?? '*') } });
    try {
      expect(await again.list()).toEqual(live);
      expect(await again.get('a\u0000b')).toEqual(live.find((r) => r.id === 'a\u0000b')?.data);
    } finally {
      await again.close();
    }
  });
});
