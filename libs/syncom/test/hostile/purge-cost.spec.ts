import type { Op, Storage } from '../../src';
import { createMemoryBackend, open, packOps } from '../../src';
import { closeAll, hub, node } from '../sync/helpers';
import { craft, greet, push } from '../sync/scenario-helpers';
import { SCRUB_FILE } from '../../src/log/scrub-journal';

/**
 * What a purge costs the host in a large store (docs/security.md, A token
 * holder). A purge must rewrite every file holding its record (GUAR-20), and
 * record files were merged with no size cap, sixteen at a time: in a store of
 * 200,000 records one file held nearly all of them, so a purge of one old
 * record rewrote 4.6 MB (28 ms of CPU), growing with the store; log
 * segments were 64 batches, whatever their size (about 20 MB with pushes of
 * 1,000 ops). And each purge of a push rewrote its files on its own: a
 * push of 500 purges spread over a store of 200,000 records rewrote 148 MB
 * (2.2 s of CPU), a file as often as it held one of them. Counted in bytes
 * and writes handed to the backend, never by the clock.
 */
const RECORDS = 60_000;

/**
 * Record n's secret, looked for in every file after its purge. Its '#' is in
 * no base64url text: with "S-0-S", the signatures and digests of a segment
 * that never held record 0 matched by chance once (a 5-character string
 * among some 600,000 random characters a segment).
 */
const secretOf = (n: number) => `S#${n}#S`;

/**
 * The writer and its RECORDS signed writes, in pushes of 1,000, each with its
 * secret: signed once for the file (the large store is built once, and the
 * purges of both large-store tests are this writer's).
 */
let signed: Promise<{ writer: Storage; pages: string[] }> | undefined;
function signedPages() {
  return (signed ??= (async () => {
    const writer = await node();
    const pages: string[] = [];
    for (let i = 0; i < RECORDS; i += 1000) {
      const page = Array.from({ length: 1000 }, (_, k) => craft(writer, { type: 'write', id: `r${i + k}`, data: { title: `note ${i + k}`, secret: secretOf(i + k) } }, '*', i + k + 1));
      pages.push(JSON.stringify(packOps(page)));
    }
    return { writer, pages };
  })());
}

/** The hub's options: segments bounded as the hub bounds them (apps/hub, HUB_SEGMENT_OPS); record files are capped by the engine itself. */
const BIG = { path: 'big', durable: false, sync: { log: { segmentOps: 2048 } } };

/** The files of the first large store as its pushes left them (before any purge), for a second hub to open. */
let built: Map<string, string> | undefined;

/**
 * A hub holding RECORDS records written in pushes of 1,000, each with its
 * secret, and the writer greeted on it. The first is built by the pushes;
 * a later one opens a copy of its files as they stood then, the same store
 * without building it twice.
 */
async function bigStore() {
  const { writer, pages } = await signedPages();
  const backend = createMemoryBackend(built && { files: Object.fromEntries(built) });
  const h = await hub({}, { backend, ...BIG });
  const ctx = await greet(h.unit, writer, ['*']);
  if (!built) {
    // Each page read from its text, as a link delivers it.
    for (const page of pages) expect(await h.unit.call('push', { ops: JSON.parse(page) }, ctx)).toMatchObject({ applied: 1000 });
    await h.s.replica.idle();
    built = new Map(backend.files());
  }
  expect(await h.s.get(`r${RECORDS - 1}`)).toMatchObject({ secret: secretOf(RECORDS - 1) });
  let seq = RECORDS;
  const op = (body: Pick<Op, 'type' | 'id'> & Partial<Op>) => craft(writer, body, '*', ++seq);
  return { backend, h, ctx, op };
}

/**
 * The paths of the files holding each of these secrets, in one pass over the
 * store (a search of every file per secret read the whole store 300 times).
 * A secret is found wherever it starts, overlapping ones too, as a search of
 * its own would find it.
 */
function filesHolding(backend: { files(): Map<string, string> }, secrets: readonly string[]): Map<string, string[]> {
  const wanted = new Set(secrets);
  const found = new Map<string, string[]>(secrets.map((s) => [s, []]));
  for (const [path, text] of backend.files()) {
    for (const m of text.matchAll(/(?=(S#\d+#S))/g)) {
      if (wanted.has(m[1]) && !found.get(m[1])?.includes(path)) found.get(m[1])?.push(path);
    }
  }
  return found;
}

describe('hostile: purges in a large store', () => {
  afterAll(async () => {
    if (signed) await closeAll((await signed).writer);
  });

  it(`GUAR-20 GUAR-3 OPS-11: purges of old records in a store of ${RECORDS.toLocaleString('en')} each rewrite a bounded size, not the store, and erase the record`, async () => {
    const { backend, h, ctx, op } = await bigStore();
    const write = jest.spyOn(backend, 'write');
    const overwrite = jest.spyOn(backend, 'overwrite');
    const sizes: number[] = [];
    for (let i = 0; i < 20; i++) {
      write.mockClear();
      overwrite.mockClear();
      expect(await push(h.unit, ctx, [op({ type: 'purge', id: `r${i * 2003}` })])).toMatchObject({ applied: 1 });
      await h.s.replica.idle();
      sizes.push([...write.mock.calls, ...overwrite.mock.calls].reduce((n, [, t]) => n + String(t).length, 0));
    }
    // A record file is merged up to 1 MB (or 1,024 entries), a segment up to 2,048 ops (about 0.4 MB here).
    expect(Math.max(...sizes)).toBeLessThan(3_000_000);
    const holding = filesHolding(backend, Array.from({ length: 20 }, (_, i) => secretOf(i * 2003)));
    for (let i = 0; i < 20; i++) expect(holding.get(secretOf(i * 2003))).toEqual([]);
    await closeAll(h.s);
  }, 120_000);

  it(`GUAR-20 OPS-11: a push of 300 purges spread over a store of ${RECORDS.toLocaleString('en')} rewrites each file holding them once, and erases every one`, async () => {
    const { backend, h, ctx, op } = await bigStore();
    const write = jest.spyOn(backend, 'write');
    const overwrite = jest.spyOn(backend, 'overwrite');
    // Every 200th record: about five in each record file of 1,024 entries, ten in each segment of 2,048 ops.
    const purged = Array.from({ length: 300 }, (_, i) => `r${i * 200}`);
    expect(await push(h.unit, ctx, purged.map((id) => op({ type: 'purge', id })))).toMatchObject({ applied: 300 });
    await h.s.replica.idle();
    const all = [...write.mock.calls, ...overwrite.mock.calls].map(([p]) => String(p));
    // Each log file's rewrite is journaled whole first (docs/guarantees.md): one journal write per log file rewritten.
    const paths = all.filter((p) => p !== SCRUB_FILE);
    expect(all.length - paths.length).toBe(overwrite.mock.calls.filter(([p]) => String(p).startsWith('log/')).length);
    // The log batch and the record file of the push itself, then each file holding a purged record once
    // (the push's own record file among them: it holds their purge markers).
    const twice = paths.filter((p, i) => paths.indexOf(p) !== i);
    expect(twice).toEqual([paths.find((p) => p.startsWith('records/'))]);
    expect(paths.filter((p) => p.startsWith('records/')).length).toBeLessThanOrEqual(80);
    const holding = filesHolding(backend, purged.map((id) => secretOf(Number(id.slice(1)))));
    for (const id of purged) expect(holding.get(secretOf(Number(id.slice(1))))).toEqual([]);
    expect(await h.s.get('r1')).toMatchObject({ secret: secretOf(1) });
    await closeAll(h.s);
  }, 120_000);

  it('GUAR-20 OPS-11: a purge of a small record written beside a part of a set of 100,000 elements rewrites the part, not the set; after a reopen the set is whole and the small record gone', async () => {
    const backend = createMemoryBackend();
    const h = await hub({}, { backend, path: 'beside', durable: false, sync: { signatures: false } });
    const writer = await node();
    const ctx = await greet(h.unit, writer, ['*']);
    let seq = 0;
    const op = (body: Pick<Op, 'type' | 'id'> & Partial<Op>) => craft(writer, body, '*', ++seq);
    expect(await push(h.unit, ctx, [op({ type: 'add', id: 'L', key: 'tags', value: Array.from({ length: 100_000 }, (_, i) => `e${i}`) })])).toMatchObject({ applied: 1 });
    await h.s.replica.idle();
    // Each push: one element more for the set (written as a part) and a small record beside it, in one record file.
    for (let i = 0; i < 20; i++) {
      expect(await push(h.unit, ctx, [op({ type: 'add', id: 'L', key: 'tags', value: [`x${i}`] }), op({ type: 'write', id: `s${i}`, data: { secret: secretOf(i) } })])).toMatchObject({ applied: 2 });
      await h.s.replica.idle();
    }
    const write = jest.spyOn(backend, 'write');
    const overwrite = jest.spyOn(backend, 'overwrite');
    const sizes: number[] = [];
    for (let i = 0; i < 10; i++) {
      write.mockClear();
      overwrite.mockClear();
      expect(await push(h.unit, ctx, [op({ type: 'purge', id: `s${i * 2}` })])).toMatchObject({ applied: 1 });
      await h.s.replica.idle();
      sizes.push([...write.mock.calls, ...overwrite.mock.calls].reduce((n, [, t]) => n + String(t).length, 0));
    }
    // The set alone is about 9.2 MB of text (each element with its add tag): before, each such purge wrote it whole.
    expect(Math.max(...sizes)).toBeLessThan(100_000);
    write.mockRestore();
    overwrite.mockRestore();
    await closeAll(h.s, writer);
    const again = await open({ path: 'beside', backend, durable: false, sync: { signatures: false } });
    expect(((await again.get('L'))?.tags as string[]).length).toBe(100_020);
    for (let i = 0; i < 10; i++) {
      expect(await again.get(`s${i * 2}`)).toBeUndefined();
      expect(await again.get(`s${i * 2 + 1}`)).toMatchObject({ secret: secretOf(i * 2 + 1) });
      expect([...backend.files()].filter(([, t]) => t.includes(secretOf(i * 2))).map(([p]) => p)).toEqual([]);
    }
    await again.close();
  }, 120_000);
});
