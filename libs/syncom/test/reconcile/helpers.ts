import fc from 'fast-check';
import { createReconciler, type Message, type ReconcileItem, type ReconcilerOptions } from '../../src/reconcile';

/** How a run between two reconcilers went. */
export interface Run {
  have: string[];
  need: string[];
  /** Round trips: messages the initiator sent. */
  rounds: number;
  /** UTF-8 bytes of JSON each way, and of the largest message. */
  sent: number;
  answered: number;
  largest: number;
  messages: Message[];
}

const bytes = (m: Message) => Buffer.byteLength(JSON.stringify(m));

/**
 * Run the protocol from A (initiator) to B (responder) to its end. Every
 * message crosses as JSON text, as on a link; a refusal fails the run.
 */
export function runProtocol(a: ReconcileItem[], b: ReconcileItem[], o: Omit<ReconcilerOptions, 'items'> = {}, maxRounds = 1000): Run {
  const A = createReconciler({ ...o, items: a });
  const B = createReconciler({ ...o, items: b });
  const run: Run = { have: [], need: [], rounds: 0, sent: 0, answered: 0, largest: 0, messages: [] };
  let msg: Message | null = A.initiate();
  while (msg) {
    if (++run.rounds > maxRounds) throw new Error(`no end after ${maxRounds} rounds`);
    run.messages.push(msg);
    run.sent += bytes(msg);
    run.largest = Math.max(run.largest, bytes(msg));
    const answer = B.reconcile(JSON.parse(JSON.stringify(msg)));
    if (!answer.ok || !answer.next) throw new Error(`the responder refused: ${answer.ok ? 'no answer' : answer.reason}`);
    run.messages.push(answer.next);
    run.answered += bytes(answer.next);
    run.largest = Math.max(run.largest, bytes(answer.next));
    const step = A.reconcile(JSON.parse(JSON.stringify(answer.next)));
    if (!step.ok) throw new Error(`the initiator refused: ${step.reason}`);
    run.have.push(...step.have);
    run.need.push(...step.need);
    msg = step.next;
  }
  return run;
}

/** What the run must find: ids A holds that B lacks or holds differently, and the converse. */
export function expectedDiff(a: ReconcileItem[], b: ReconcileItem[]): { have: string[]; need: string[] } {
  const key = (x: ReconcileItem) => `${x.ts}\u0000${x.digest}`;
  const inA = new Map(a.map((x) => [x.id, key(x)]));
  const inB = new Map(b.map((x) => [x.id, key(x)]));
  return {
    have: a.filter((x) => inB.get(x.id) !== key(x)).map((x) => x.id).sort(),
    need: b.filter((x) => inA.get(x.id) !== key(x)).map((x) => x.id).sort(),
  };
}

/** A small seeded PRNG (mulberry32): large sets without fast-check's shrinking cost. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Two sets of n records where a share `diff` differs: a third only in A, a
 * third only in B, a third in both with another digest (and half of those
 * another ts too, as a newer write would give).
 */
export function driftedSets(n: number, diff: number, seed: number): { a: ReconcileItem[]; b: ReconcileItem[] } {
  const r = seeded(seed);
  const a: ReconcileItem[] = [];
  const b: ReconcileItem[] = [];
  for (let k = 0; k < n; k++) {
    const it = { ts: 1_700_000_000_000 + Math.floor(r() * 1e9), id: `rec-${k.toString(36)}`, digest: Math.floor(r() * 2 ** 48).toString(36) };
    const x = r();
    const fate = x >= diff ? 'same' : x < diff / 3 ? 'a' : x < (2 * diff) / 3 ? 'b' : 'changed';
    if (fate !== 'b') a.push(it);
    if (fate === 'same' || fate === 'b') b.push(it);
    if (fate === 'changed') b.push({ ...it, digest: `${it.digest}'`, ts: it.ts + (x < (5 * diff) / 6 ? 0 : 7) });
  }
  return { a, b };
}

/** An item arbitrary: small ts and id alphabets, so that keys tie and bounds need id prefixes. */
export const itemArb = fc.record({
  ts: fc.integer({ min: 0, max: 40 }),
  id: fc.string({ unit: fc.constantFrom('a', 'b', 'ab', '\u00e9', '\ud800', '"'), minLength: 1, maxLength: 6 }),
  digest: fc.constantFrom('d1', 'd2', 'd3'),
});

/**
 * Two overlapping sets from one pool of distinct ids: each id is in A, in B,
 * or in both, either equal or with another digest and ts.
 */
export const pairArb = fc
  .uniqueArray(itemArb, { selector: (x) => x.id, maxLength: 300 })
  .chain((pool) => fc.tuple(fc.constant(pool), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: pool.length, maxLength: pool.length })))
  .map(([pool, fates]) => {
    const a: ReconcileItem[] = [];
    const b: ReconcileItem[] = [];
    pool.forEach((it, k) => {
      const f = fates[k];
      if (f !== 1) a.push(it);
      if (f === 1 || f >= 3) b.push(it);
      if (f === 2) b.push({ ...it, digest: `${it.digest}+`, ts: it.ts + (k % 2) });
    });
    return { a, b };
  });

/** fast-check runs: FC_RUNS in the hunt tier. */
export const fcRuns = (base: number) => Number(process.env.FC_RUNS ?? base);
