import { internals } from '../../src/testing/internals';
import type { Storage } from '../../src';
import { packOp, packOps, type Op } from '../../src/op';
import { opsOfEachType } from '../op/fixtures';
import { closeAll, hub, node } from '../sync/helpers';

/** Valid wire values, made once by real storages: what the mutations start from. */
export interface Samples {
  /** Ops as a peer sends them: a real node's signed log (every type) and the fixtures' unsigned ones. */
  ops: Op[];
  /** The same, packed (the wire's and the log's form). */
  packed: unknown[];
  /** Push pages, `{ ops: packed[] }`. */
  pushes: unknown[];
  /** Snapshot pages a real host answered (the first with its vector and event id), and their entries. */
  pages: unknown[];
  entries: unknown[];
  /** A hello a real dialer sends, and the answer a real host gives. */
  hello: Record<string, unknown>;
  answer: unknown;
  /** Event ids and vectors of a real log. */
  eventIds: string[];
  vectors: Record<string, number>[];
  /** records requests and answers of a real host. */
  recordsAsked: unknown[];
  recordsAnswers: unknown[];
}

/** A list cut into pieces of at most `n`: small samples keep each copy and walk cheap, 100k times over. */
export function pieces<T>(list: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += n) out.push(list.slice(i, i + n));
  return out;
}

/** A node's log after one write of every kind on a few records, a sealed one and a purge among them. */
async function writeAll(s: Storage): Promise<void> {
  const a = await s.insert({ title: 'Draft', n: 1, nested: { deep: [1, { x: 'y' }] } });
  await s.inc(a, 'views', 2);
  await s.add(a, 'tags', ['bug', 'ui', { k: 1 }]);
  await s.remove(a, 'tags', ['ui']);
  await s.update(a, { title: 'Final' });
  const b = await s.insert({ title: 'second' });
  await s.set(b, { title: 'reset' });
  await s.delete(b);
  const c = await s.insert({ gone: true });
  await s.purge(c);
  for (let i = 0; i < 6; i++) await s.insert({ i, text: `record ${i}` });
}

/** Build the samples: a host that took a dialer's log, paged its snapshot and answered records. */
export async function makeSamples(): Promise<Samples> {
  const writer = await node();
  const h = await hub();
  try {
    await writeAll(writer);
    const own = internals(writer).log.read(0).map((e) => e.op);
    const ops = [...own, ...opsOfEachType(writer.id)];
    const packed = ops.map((op) => packOp(op));
    const ctx = {};
    const hello = { node: writer.id, vector: internals(writer).log.vector, epoch: internals(writer).log.epoch, schema: null, scopes: ['*'], token: 't', versions: [1], caps: ['reconcile/1'] };
    const answer = await h.unit.call('hello', hello, ctx);
    const pushes = [{ ops: packOps(own) }, { ops: packOps(own.slice(0, 3)) }, { ops: [] }];
    for (const p of pushes.slice(0, 1)) await h.unit.call('push', p, ctx);
    const first = (await h.unit.call('snapshot', { offset: 0 }, ctx)) as { entries: unknown[]; token: string };
    const { entries: all, ...head } = first;
    // The first page's head (vector, eventId) on each piece of its entries, and later pages without it.
    const pages: unknown[] = pieces(all, 3).map((entries, k) => (k === 0 ? { ...head, entries } : { token: head.token, next: null, total: all.length, count: entries.length, entries }));
    const ids = internals(h.s).log.read(0).map((e) => e.op.id);
    const recordsAsked = [{ scope: '*', ids }, { scope: '*', ids: ids.slice(0, 2) }];
    const recordsAnswers: unknown[] = [];
    for (const r of recordsAsked) recordsAnswers.push(await h.unit.call('records', r, ctx));
    const log = internals(h.s).log;
    const eventIds = [log.eventId(0), log.eventId(log.head), internals(writer).log.eventId(3), `${log.epoch}.9007199254740991`];
    const vectors = [log.vector, internals(writer).log.vector, { [writer.id]: 3, [`${writer.id}@team`]: 1 }, {}];
    return {
      ops, packed, pushes, pages, entries: first.entries, hello, answer, eventIds, vectors, recordsAsked, recordsAnswers,
    };
  } finally {
    await closeAll(writer, h.s);
  }
}
