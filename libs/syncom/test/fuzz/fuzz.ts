import fc from 'fast-check';

/** Inputs per decoder: 50k in CI (each damage kind thousands of times), FUZZ_RUNS=10000000 in the hunt. */
export const RUNS = Number(process.env.FUZZ_RUNS ?? 50_000);
/**
 * CPU milliseconds one input may take: a guard against hangs on random
 * inputs, not a performance bound (benchmarks measure that). Inputs average
 * well under a millisecond (50,000 run in seconds), so this is hundreds of
 * times the typical cost, and a slow one is timed twice more, the least kept.
 */
export const SLOW_MS = 50;
/** The fast-check seed of every suite: fixed, so a failure replays (FUZZ_SEED overrides it). */
export const SEED = Number(process.env.FUZZ_SEED ?? 20_261_130);

/** A value no JSON parser makes, but a caller in-process can pass: reading it throws, or it lies about its length. */
const HOSTILE: readonly (() => unknown)[] = [
  () => new Proxy({}, { get: () => { throw new Error('trap'); }, ownKeys: () => { throw new Error('trap'); } }),
  () => new Proxy([], { get: (t, k) => (k === 'length' ? 4096 : Reflect.get(t, k)) }),
  () => Object.defineProperty({}, 'ops', { enumerable: true, get: () => { throw new Error('getter'); } }),
  () => { const a: unknown[] = [1]; a.push(a); return a; },
  () => { const o: Record<string, unknown> = { a: 1 }; o.self = o; return o; },
  () => new Array(7),
  () => 10n,
  () => Symbol('s'),
  () => () => 1,
  () => new Date(0),
  () => Object.create(null) as unknown,
  () => new Uint8Array(4),
];

const HUGE = [2 ** 53, -(2 ** 53), 2 ** 53 - 1, 1e308, -1e308, 5e-324, Number.MAX_VALUE, -0, 0.5, -1, 2 ** 31, 2 ** 32];
const NAN_LIKE = ['NaN', 'Infinity', '-Infinity', '1e309', '-0', '0x10', '1_000', ' 1', '1.0', '', 'null', 'undefined', 'true'];
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', 'length', '0'];

/** A value nested `depth` levels, arrays or objects: far past what a recursive walk survives. */
export function nested(depth: number, asObject: boolean, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asObject ? { a: v } : [v];
  return v;
}

/** An object whose own keys include the names that reach a prototype (JSON.parse makes them own keys). */
function protoKeyed(base: unknown): unknown {
  let inner = 'null';
  try { inner = JSON.stringify(base ?? null) ?? 'null'; } catch { /* a cycle or a deep value: keyed on null */ }
  return JSON.parse(`{"__proto__":${inner},"constructor":{"prototype":${inner}},"prototype":1,"toString":"x"}`) as unknown;
}

/** The same characters count, but no longer base64url: padding, the other alphabet, a control character. */
function badBase64(s: string): string {
  const bad = ['+', '/', '=', ' ', '\u0000', '\u00e9', '.'];
  const at = s.length === 0 ? 0 : s.length - 1;
  return s.slice(0, at) + bad[s.length % bad.length];
}

/** One way to damage a value: what a peer with a bug, or an attacker probing edges, would send. */
export type Damage =
  | 'drop' | 'swap' | 'huge' | 'nan-like' | 'deep' | 'long' | 'proto' | 'truncate' | 'base64' | 'duplicate' | 'empty' | 'hostile';

const DAMAGES: readonly Damage[] = ['drop', 'swap', 'huge', 'nan-like', 'deep', 'long', 'proto', 'truncate', 'base64', 'duplicate', 'empty', 'hostile'];

const SWAPS: readonly unknown[] = [null, true, false, 0, 1, -1, '', 'x', [], {}, [null], { '': null }];

// Built once: building 20,000 levels per input would cost more than the decoders. Nothing edits them (an edit stops after 'deep').
const DEEP: readonly unknown[] = [nested(20_000, false), nested(20_000, true), nested(150, false), nested(150, true), nested(101, false, 'x')];
const LONG = 'x'.repeat(200_000);

/** The damaged value at a node; undefined means: drop the node. */
function damaged(v: unknown, how: Damage, n: number): unknown {
  switch (how) {
    case 'drop': return undefined;
    // A fresh copy: a later edit may change it in place, and a shared one would carry that into every input.
    case 'swap': return structuredClone(SWAPS[n % SWAPS.length]);
    case 'huge': return typeof v === 'number' ? HUGE[n % HUGE.length] : HUGE[(n + 3) % HUGE.length];
    case 'nan-like': return NAN_LIKE[n % NAN_LIKE.length];
    case 'deep': return DEEP[n % DEEP.length];
    case 'long': return typeof v === 'string' && v.length > 0 && n % 2 === 0 ? v + LONG : LONG;
    case 'proto': return protoKeyed(v);
    case 'truncate':
      if (typeof v === 'string') return v.slice(0, Math.floor(v.length / 2));
      if (Array.isArray(v)) return v.slice(0, Math.floor(v.length / 2));
      return typeof v === 'number' ? Math.trunc(v / 10) : v;
    case 'base64': return typeof v === 'string' ? badBase64(v) : badBase64('AAAA');
    case 'duplicate': return Array.isArray(v) ? [...v, ...v] : [v, v];
    case 'empty': return Array.isArray(v) ? [] : typeof v === 'string' ? '' : {};
    default: return HOSTILE[n % HOSTILE.length]();
  }
}

/** A small PRNG (mulberry32) steering one edit's walk: cheaper than a fast-check draw per step. */
function steer(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One edit: where its walk goes (a seed), how it damages the node reached, and a number steering the replacement. */
interface Edit {
  at: number;
  how: Damage;
  n: number;
}

/** Each object sample's JSON, written once: every input edited from a sample starts from a fresh copy of it. */
const sampleTexts = new WeakMap<object, string>();

/** A fresh copy of a sample, as JSON round-trips it (a sample is never edited in place). */
function copyOf(sample: unknown): unknown {
  if (typeof sample !== 'object' || sample === null) return JSON.parse(JSON.stringify(sample)) as unknown;
  let text = sampleTexts.get(sample);
  if (text === undefined) sampleTexts.set(sample, (text = JSON.stringify(sample)));
  return JSON.parse(text) as unknown;
}

/**
 * A copy of `sample` with each edit applied at a node reached by a random
 * walk from the root (stopping at each level one time in four, and at
 * leaves): every node can be hit, and a walk costs its depth, not the sample's size.
 */
export function applyEdits(sample: unknown, edits: readonly Edit[]): unknown {
  const holder: Record<string, unknown> = { root: copyOf(sample) };
  for (const e of edits) {
    const r = steer(e.at);
    let parent: Record<string, unknown> = holder;
    let key = 'root';
    for (;;) {
      const v = parent[key];
      if (typeof v !== 'object' || v === null || (key !== 'root' && r() < 0.25)) break;
      const keys = Object.keys(v);
      if (keys.length === 0) break;
      parent = v as Record<string, unknown>;
      key = keys[Math.floor(r() * keys.length)];
    }
    const next = damaged(parent[key], e.how, e.n);
    if (next !== undefined) parent[key] = next;
    else if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else if (parent !== holder) delete parent[key];
    else holder.root = undefined;
    // A hostile value or a deep one is not walked again: later edits go elsewhere.
    if (e.how === 'hostile' || e.how === 'deep') break;
  }
  return holder.root;
}

// Deep and long values cost every decoder a walk of 20,000 levels or 200,000 characters: one edit in 40 of each is plenty.
const DAMAGE_WEIGHTS: readonly (readonly [Damage, number])[] = DAMAGES.map((d) => [d, d === 'deep' || d === 'long' ? 1 : 4] as const);
const damageArb: fc.Arbitrary<Damage> = fc.oneof(...DAMAGE_WEIGHTS.map(([d, weight]) => ({ weight, arbitrary: fc.constant(d) })));

const editArb: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  how: damageArb,
  n: fc.nat(),
});

/** Arbitrary JSON, with the awkward keys and numbers more likely than fast-check's defaults make them. */
export const jsonArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...HUGE, ...NAN_LIKE, null, true, [], {}, '') },
);

/**
 * The inputs of a decoder: arbitrary JSON (one in five), a valid sample
 * (one in ten), and the rest a sample with one to three edits; now and
 * then a hostile non-JSON value (never with `wire`: a link's frames are JSON).
 */
export function inputsOf(samples: readonly unknown[], o: { wire?: boolean } = {}): fc.Arbitrary<unknown> {
  if (samples.length === 0) throw new TypeError('inputsOf needs at least one valid sample');
  const sample = fc.nat({ max: samples.length - 1 }).map((i) => samples[i]);
  // What a wire delivers is parsed JSON (deep, long, __proto__-keyed and all), never a proxy or a getter.
  const edits = fc.array(o.wire ? editArb.filter((e) => e.how !== 'hostile') : editArb, { minLength: 1, maxLength: 3 });
  const mutated = fc.tuple(fc.nat({ max: samples.length - 1 }), edits).map(([i, es]) => applyEdits(samples[i], es));
  return fc.oneof(
    { weight: 2, arbitrary: jsonArb },
    { weight: 1, arbitrary: sample },
    { weight: 7, arbitrary: mutated },
  );
}

/** CPU milliseconds of fn, with its outcome: the machine is shared, so wall time would measure the neighbours. */
export function timed<T>(fn: () => T): { out: T; ms: number } {
  const start = process.cpuUsage();
  const out = fn();
  const d = process.cpuUsage(start);
  return { out, ms: (d.user + d.system) / 1000 };
}

/** What a decoder did with an input: a value, or what it threw. */
export type Outcome = { threw: false; value: unknown } | { threw: true; error: unknown };

/**
 * Run `decode` on an input and time it. The first try is timed by the wall
 * clock (a fraction of a microsecond; process.cpuUsage costs a few, a
 * million inputs over): the JS thread cannot spend more CPU than the time
 * that passed, so an input under SLOW_MS of wall time is under SLOW_MS of
 * CPU. An input over it (slow, or a neighbour took the core) is run twice
 * more timed in CPU, and the least kept: a slow input stays slow, a GC
 * pause or a busy machine does not.
 */
export function probe(decode: (input: unknown) => unknown, input: unknown): { outcome: Outcome; ms: number } {
  const run = (): Outcome => {
    try {
      return { threw: false, value: decode(input) };
    } catch (error) {
      return { threw: true, error };
    }
  };
  const start = performance.now();
  let outcome = run();
  let ms = performance.now() - start;
  for (let tries = 1; tries < 3 && ms > SLOW_MS; tries++) {
    const t = timed(run);
    outcome = t.out;
    ms = tries === 1 ? t.ms : Math.min(ms, t.ms);
  }
  return { outcome, ms };
}

/** A short, never-throwing description of an input for a failure message. */
export function show(input: unknown): string {
  try {
    return (JSON.stringify(input, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? String(input)).slice(0, 300);
  } catch {
    try { return Object.prototype.toString.call(input); } catch { return 'an unreadable value'; }
  }
}

/** Tallies of a run: how many inputs were taken and how many refused, and the distinct refusal codes. */
export interface Tally {
  taken: number;
  refused: number;
  codes: Set<string>;
}

/**
 * Run `fn` with Node's default stack depth in errors (10 frames), as
 * production runs: jest raises it to 100, and a decoder's typed refusal is
 * an Error whose stack capture would then cost more than the decoding.
 */
export function withProductionStacks<T>(fn: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 10;
  let async = false;
  try {
    const out = fn();
    if (out instanceof Promise) {
      async = true;
      return out.finally(() => { Error.stackTraceLimit = limit; }) as T;
    }
    return out;
  } finally {
    if (!async) Error.stackTraceLimit = limit;
  }
}

/**
 * fast-check's report without the counterexample's own text: a hostile one
 * throws when printed. The seed and path replay it (FUZZ_SEED).
 */
function reporter(run: fc.RunDetails<[unknown]>): void {
  if (!run.failed) return;
  const why = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
  throw new Error(`fuzz failed after ${run.numRuns} inputs (seed ${run.seed}, path "${run.counterexamplePath ?? ''}"): ${why}`);
}

/**
 * Fuzz one decoder synchronously: RUNS inputs from `arb` (fixed seed),
 * each judged by `fault` (null when the outcome is a typed refusal or a
 * valid result) and timed. Fails at the first input that throws, is judged
 * faulty or takes over SLOW_MS of CPU, printing the seed and the input.
 * Plain checks inside, not expect(): 100k matcher calls would dominate.
 */
export function fuzzSync(
  arb: fc.Arbitrary<unknown>,
  decode: (input: unknown) => unknown,
  judge: (outcome: Outcome, input: unknown) => { fault: string | null; code?: string },
  runs = RUNS,
): Tally {
  const tally: Tally = { taken: 0, refused: 0, codes: new Set() };
  withProductionStacks(() => fc.assert(
    fc.property(arb, (input) => {
      const { outcome, ms } = probe(decode, input);
      if (ms > SLOW_MS) throw new Error(`${ms.toFixed(1)} ms of CPU on ${show(input)}`);
      const { fault, code } = judge(outcome, input);
      if (fault) throw new Error(`${fault} on ${show(input)}`);
      if (code === undefined) tally.taken++;
      else { tally.refused++; tally.codes.add(code); }
    }),
    { numRuns: runs, seed: SEED, endOnFailure: true, verbose: 0, reporter },
  ));
  return tally;
}

/** What a thrown value says of itself: its class and code, for a judge. */
export function describeError(e: unknown): string {
  const name = (e as { constructor?: { name?: string } })?.constructor?.name ?? typeof e;
  const code = (e as { code?: unknown })?.code;
  const message = (e as { message?: unknown })?.message;
  return `${name}${typeof code === 'string' ? ` ${code}` : ''}: ${typeof message === 'string' ? message.slice(0, 200) : ''}`;
}

/**
 * fuzzSync for a decoder that answers with a promise (a host unit's
 * procedures): the time counts the awaited call.
 */
export async function fuzzAsync(
  arb: fc.Arbitrary<unknown>,
  decode: (input: unknown) => Promise<unknown>,
  judge: (outcome: Outcome, input: unknown) => { fault: string | null; code?: string },
  runs = RUNS,
): Promise<Tally> {
  const tally: Tally = { taken: 0, refused: 0, codes: new Set() };
  const once = async (input: unknown, clock: 'wall' | 'cpu'): Promise<{ outcome: Outcome; ms: number }> => {
    const start = clock === 'wall' ? performance.now() : 0;
    const cpu = clock === 'cpu' ? process.cpuUsage() : undefined;
    let outcome: Outcome;
    try {
      outcome = { threw: false, value: await decode(input) };
    } catch (error) {
      outcome = { threw: true, error };
    }
    if (!cpu) return { outcome, ms: performance.now() - start };
    const d = process.cpuUsage(cpu);
    return { outcome, ms: (d.user + d.system) / 1000 };
  };
  await withProductionStacks(() => fc.assert(
    fc.asyncProperty(arb, async (input) => {
      // As probe: the wall clock first, the CPU clock for an input over SLOW_MS.
      let run = await once(input, 'wall');
      for (let tries = 1; tries < 3 && run.ms > SLOW_MS; tries++) {
        const again = await once(input, 'cpu');
        if (tries === 1 || again.ms < run.ms) run = again;
      }
      if (run.ms > SLOW_MS) throw new Error(`${run.ms.toFixed(1)} ms of CPU on ${show(input)}`);
      const { fault, code } = judge(run.outcome, input);
      if (fault) throw new Error(`${fault} on ${show(input)}`);
      if (code === undefined) tally.taken++;
      else { tally.refused++; tally.codes.add(code); }
    }),
    { numRuns: runs, seed: SEED, endOnFailure: true, verbose: 0, reporter },
  ));
  return tally;
}
