import { createReconciler, decodeMessage, type Message, MODE, type Reconciler } from '../../src/reconcile';
import { driftedSets, runProtocol, seeded } from './helpers';
import { corpusOf, mutate, randomMessage, reshape } from './mutate';

/** 40k in CI (every mode of the corpus mutated thousands of times), FUZZ_RUNS in the hunt. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40_000);
// A guard against hangs on random inputs, not a performance bound: inputs average under 0.2 ms
// (40,000 in a few seconds), so 50 ms is hundreds of times the typical cost, the best of three tries kept.
const SLOW_MS = 50;
const TUNING = { branching: 4, listBelow: 4, frameLimit: 32 * 1024 };

/** The targets: a responder, and an initiator that can be put back at any depth of a real run. */
function fixture() {
  // Small sets keep each input cheap: 40k of them run in the default tier.
  const { a, b } = driftedSets(60, 0.3, 11);
  const run = runProtocol(a, b, TUNING);
  const answers = run.messages.filter((_, k) => k % 2 === 1);
  const responder = createReconciler({ ...TUNING, items: b });
  const initiator = createReconciler({ ...TUNING, items: a });
  /** The initiator after `depth` real answers: what it has in flight is a real run's. */
  const reachDepth = (depth: number): Reconciler => {
    initiator.initiate();
    for (const m of answers.slice(0, depth)) initiator.reconcile(m);
    return initiator;
  };
  const wide = driftedSets(3000, 0.2, 12);
  const more = runProtocol(wide.a, wide.b, { frameLimit: 32 * 1024 }).messages;
  return { corpus: corpusOf([...run.messages, ...more]), responder, initiator: reachDepth(0), reachDepth, depths: answers.length };
}

/**
 * What is wrong with an outcome, or null: it must be a typed refusal, or a
 * step whose next message is itself well formed and within the frame.
 * Plain checks, not expect(): a million matcher calls would dominate the run.
 */
function outcomeFault(out: unknown): string | null {
  const o = out as { ok?: unknown; code?: unknown; reason?: unknown; next?: Message | null; have?: unknown; need?: unknown };
  if (o.ok === false) {
    const typed = Object.keys(o).sort().join() === 'code,ok,reason' && o.code === 'RECONCILE_MALFORMED';
    return typed && typeof o.reason === 'string' && o.reason.length > 0 ? null : 'an untyped refusal';
  }
  if (o.ok !== true || !Array.isArray(o.have) || !Array.isArray(o.need)) return 'neither a refusal nor a step';
  if (!o.next) return null;
  const text = JSON.stringify(o.next);
  if (!decodeMessage(JSON.parse(text)).ok) return 'a next message that does not decode';
  return Buffer.byteLength(text) <= TUNING.frameLimit ? null : 'a next message over frameLimit';
}

/** CPU milliseconds of fn: the machine is shared, so wall time would measure the neighbours. */
function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

type Fixture = ReturnType<typeof fixture>;

/**
 * Feed one input to the decoder and both roles. The initiator is at `depth`
 * (a refused input leaves it there). A slow input is tried twice more from
 * the same depth and the least CPU time kept: a slow input stays slow, a GC
 * pause does not.
 */
function probe(f: Fixture, input: unknown, depth: number): { outs: unknown[]; ms: number } {
  let outs: unknown[] = [];
  let ms = Infinity;
  let initiator = f.initiator;
  for (let tries = 0; tries < 3 && ms > SLOW_MS; tries++) {
    if (tries > 0) initiator = f.reachDepth(depth);
    ms = Math.min(ms, cpuMs(() => { outs = [decodeMessage(input), f.responder.reconcile(input), initiator.reconcile(input)]; }));
  }
  return { outs, ms };
}

/** The next input: one in five random, one in five reshaped but well formed, the rest mutated. */
function nextInput(f: Fixture, r: () => number, k: number): unknown {
  const seed = f.corpus[Math.floor(r() * f.corpus.length)];
  return k % 5 === 0 ? randomMessage(r) : k % 5 === 1 ? reshape(seed, r) : mutate(seed, r);
}

describe('RECON fuzz: decodeMessage and reconcile refuse, never throw', () => {
  it(`${RUNS} generated and mutated inputs: typed refusals or well-formed steps, none over ${SLOW_MS} ms`, () => {
    const f = fixture();
    const r = seeded(Number(process.env.FUZZ_SEED ?? 2024));
    const tally = { decoded: 0, answered: 0, taken: 0, reasons: new Set<string>() };
    let depth = 0;
    for (let k = 0; k < RUNS; k++) {
      const input = nextInput(f, r, k);
      const { outs, ms } = probe(f, input, depth);
      const [d, answer, step] = outs as [ReturnType<typeof decodeMessage>, { ok: boolean }, { ok: boolean }];
      const fault = (ms > SLOW_MS ? `${ms.toFixed(1)} ms` : null) ?? outcomeFault(d.ok ? { ...d, have: [], need: [], next: d.message } : d)
        ?? outcomeFault(answer) ?? outcomeFault(step);
      if (fault) throw new Error(`input ${k}: ${fault}: ${JSON.stringify(input)?.slice(0, 300)}`);
      if (d.ok) tally.decoded++;
      else tally.reasons.add(d.reason.replace(/\d+/g, '#'));
      if (answer.ok) tally.answered++;
      if (!step.ok) continue;
      tally.taken++;
      depth = Math.floor(r() * f.depths);
      f.reachDepth(depth);
    }
    expect(tally.decoded).toBeGreaterThan(RUNS / 10);
    expect(tally.answered).toBeGreaterThan(RUNS / 20);
    // An answer is taken only inside the ranges in flight, which most mutations of another depth's answer leave.
    expect(tally.taken).toBeGreaterThan(RUNS / 200);
    expect(tally.reasons.size).toBeGreaterThan(20);
  });

  it('the corpus holds every mode, so mutations reach every path', () => {
    const modes = new Set(fixture().corpus.flatMap((m) => m.ranges.map((x) => x[1])));
    expect([...modes].sort()).toEqual(Object.values(MODE).sort());
  });
});
