import type { LogEntry } from '../../src/log/op-log';
import { FLAG_SEALED, packedBytes, packOps } from '../../src/op';
import { joinedFrom, type Op } from '../../src/op/types';
import type { Replica } from '../../src/storage/replica';
import { PAGE_BYTES } from '../../src/sync/host/page-text';
import { type Page, type Read, SharedReads } from '../../src/sync/host/shared-pages';
import { frameEnds } from '../../src/sync/protocol/frames';
import { inServed } from '../../src/sync/protocol/scopes';

/**
 * A writer's own pages cut from a shared read: a subscriber whose ops are in
 * the read gets exactly the pages it would get reading alone (its own ops and
 * those joined from it out, the same page bounds), and each page's JSON, made
 * from the shared ops' bytes, is exactly JSON.stringify of the page, in UTF-8.
 */

const NODES = ['n0', 'n1', 'n2', 'n3'];

/** A seeded generator (mulberry32): the same entries every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` entries from the four nodes, some joined from another, some sealed, in two scopes, with texts of mixed widths. */
function entries(n: number, seed: number): LogEntry[] {
  const r = random(seed);
  const seq = new Map<string, number>();
  return Array.from({ length: n }, (_, pos) => {
    const origin = NODES[Math.floor(r() * NODES.length)];
    seq.set(origin, (seq.get(origin) ?? 0) + 1);
    const op: Op = {
      origin, seq: seq.get(origin) ?? 1, ts: 1000 + pos, type: 'write', id: `r${pos}`,
      scope: r() < 0.2 ? 'b' : 'a', data: { n: pos, text: 'é€😀"\\'.repeat(Math.floor(r() * 40)) },
    };
    if (r() < 0.2) op.from = NODES[Math.floor(r() * NODES.length)];
    return { pos: pos + 1, op, flags: r() < 0.1 ? FLAG_SEALED : 0 };
  });
}

/** A log holding `all`: what SharedReads reads. */
const logOf = (all: LogEntry[]) => ({ head: all.length, readOut: (pos: number, n: number) => all.slice(pos, pos + n) }) as unknown as Replica;

/** The feed's filter (feed.ts): not sealed, not the subscriber's own nor joined from it, in its scopes. */
const keepFor = (node: string, scopes: string[]) => (e: LogEntry) =>
  !(e.flags & FLAG_SEALED) && e.op.origin !== node && joinedFrom(e.op) !== node && inServed(e.op.scope, scopes);

/** The pages a subscriber reading alone sends (the code before pages were spliced): packed ops within the page bounds. */
function reference(read: LogEntry[], keep: (e: LogEntry) => boolean, pageSize: number, pageBytes: number, prev: string): Page[] {
  const relevant = read.filter(keep);
  const ends = frameEnds(relevant.map((e) => packedBytes(e.op)), pageSize, pageBytes);
  return ends.map((end, k) => ({ ops: packOps(relevant.slice(k === 0 ? 0 : ends[k - 1], end).map((e) => e.op)), prev }));
}

const pagesOf = (read: Read, prev: string) => read.ends.map((_, k) => read.page(k, prev));
/** The page's JSON as its own bytes give it (what the gateway sends). */
const jsonOf = (page: Page) => Buffer.concat((page as unknown as Record<symbol, () => Uint8Array[]>)[PAGE_BYTES]()).toString('utf8');

describe('a writer\'s pages spliced from a shared read', () => {
  it.each([[1, 500, 4 * 1024 * 1024], [2, 7, 4 * 1024 * 1024], [3, 500, 900], [4, 3, 300]])(
    'PROTO-6 SCOPE-24 BOOT-10: seed %i, pageSize %i, pageBytes %i: every node gets the pages it would get alone, and their JSON is JSON.stringify\'s',
    (seed, pageSize, pageBytes) => {
      const all = entries(60, seed);
      const shared = new SharedReads();
      for (const scopes of [['*'], ['a']]) {
        for (const node of [...NODES, 'reader']) {
          const keep = keepFor(node, scopes);
          const read = shared.read({ log: logOf(all), pos: 0, scopes, pageSize, pageBytes }, node, keep);
          const want = reference(all.slice(0, pageSize), keep, pageSize, pageBytes, 'prev-1');
          const got = pagesOf(read, 'prev-1');
          expect(got).toEqual(want);
          expect(read.relevant).toEqual(all.slice(0, pageSize).filter(keep));
          for (const [k, page] of got.entries()) {
            expect(jsonOf(page)).toBe(JSON.stringify(page));
            expect(read.bytes(k)).toBe(Buffer.byteLength(JSON.stringify(page.ops)));
          }
          // The page's shape is what it was: only ops and prev are seen by JSON and by equality.
          expect(Object.keys(got[0] ?? {})).toEqual(got.length ? ['ops', 'prev'] : []);
        }
      }
    },
  );

  it('PROTO-6: the shared page of one prev is one object, another prev gets its own, and each one\'s JSON is JSON.stringify\'s', () => {
    const all = entries(20, 9);
    const shared = new SharedReads();
    const spec = { log: logOf(all), pos: 0, scopes: ['*'], pageSize: 500, pageBytes: 4 * 1024 * 1024 };
    const read = shared.read(spec, 'reader', keepFor('reader', ['*']));
    const [a, b] = [read.page(0, 'x'), read.page(0, 'y')];
    expect(read.page(0, 'x')).toBe(a);
    expect(jsonOf(a)).toBe(JSON.stringify(a));
    expect(jsonOf(b)).toBe(JSON.stringify(b));
    expect(jsonOf(a)).not.toBe(jsonOf(b));
  });
});
