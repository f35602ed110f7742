import { internals } from '../../src/testing/internals';
import { createMemoryBackend, type CrashDamage, type MemoryBackend, type MemorySnapshot, mulberry32 } from '../../src/backend';
import { type Op, streamKey } from '../../src/op';
import type { Storage } from '../../src/storage';
import type { OpenOptions } from '../../src/storage/options';
import { nodeKeys, openOn, T0, viewsOf } from '../log/helpers';
import { fold, opKey } from './recovery-check';

export { checkRecovery, fold, opKey } from './recovery-check';

/** One call of the script. */
export type Action =
  | { t: 'set'; id: string; data: Record<string, unknown> }
  | { t: 'insert'; data: Record<string, unknown> }
  | { t: 'update'; id: string; fields: Record<string, unknown> }
  | { t: 'inc'; id: string; by: number }
  | { t: 'add'; id: string; elements: string[] }
  | { t: 'remove'; id: string; elements: string[] }
  | { t: 'delete'; id: string }
  | { t: 'purge'; id: string };

/** A step: one call awaited alone, or several issued together (Promise.all). */
export type Step = Action[];

/** The op type each call of the script makes. */
export const OP_TYPE: Record<Action['t'], Op['type']> = {
  set: 'write', insert: 'write', update: 'set', inc: 'inc', add: 'add', remove: 'remove', delete: 'delete', purge: 'purge',
};

/**
 * A deterministic script of `calls` calls from a seeded PRNG: inserts and
 * whole writes, updates, incs, adds, removes and deletes on a few records,
 * about a third of them issued together; one record written with a secret
 * and purged three quarters in (and written to after, which is refused).
 */
export function makeScript(seed: number, calls: number): Step[] {
  const rng = mulberry32(seed);
  const ids = ['r0', 'r1', 'r2', 'r3'];
  const live = new Map<string, boolean>();
  const tags = new Map<string, Set<string>>();
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
  let n = 0;
  const action = (): Action => {
    n++;
    const id = pick(ids);
    const r = rng();
    if (!live.get(id) || r < 0.12) {
      live.set(id, true);
      tags.set(id, new Set());
      return { t: 'set', id, data: { title: `w${n}`, body: `b${Math.floor(rng() * 100)}` } };
    }
    if (r < 0.38) return { t: 'update', id, fields: rng() < 0.5 ? { title: `u${n}` } : { title: `u${n}`, body: `ub${n}` } };
    if (r < 0.56) return { t: 'inc', id, by: 1 + Math.floor(rng() * 5) };
    if (r < 0.72) {
      const els = [`e${Math.floor(rng() * 6)}`, `e${Math.floor(rng() * 6)}`];
      els.forEach((e) => tags.get(id)?.add(e));
      return { t: 'add', id, elements: els };
    }
    if (r < 0.86) {
      const have = [...(tags.get(id) ?? [])];
      const el = have.length && rng() < 0.8 ? pick(have) : 'never-added';
      tags.get(id)?.delete(el);
      return { t: 'remove', id, elements: [el] };
    }
    if (r < 0.94) {
      live.set(id, false);
      return { t: 'delete', id };
    }
    return { t: 'insert', data: { title: `i${n}` } };
  };
  const steps: Step[] = [[{ t: 'set', id: 'rp', data: { title: 'SECRET-crash', body: 'x' } }]];
  n = 1;
  let purged = false;
  while (n < calls) {
    if (!purged && n >= (calls * 3) / 4) {
      purged = true;
      n += 4;
      steps.push([{ t: 'update', id: 'rp', fields: { body: 'SECRET-2' } }, { t: 'inc', id: 'rp', by: 1 }]);
      steps.push([{ t: 'purge', id: 'rp' }]);
      steps.push([{ t: 'update', id: 'rp', fields: { title: 'refused' } }]);
      continue;
    }
    const size = rng() < 0.3 ? 2 + Math.floor(rng() * 3) : 1;
    const step: Step = [];
    for (let i = 0; i < size && n < calls; i++) step.push(action());
    steps.push(step);
  }
  return steps;
}

/** What became of one call. */
export interface Outcome {
  action: Action;
  /** The seq of the op it made (its own stream is '*'), when it made one. */
  seq?: number;
  resolved: boolean;
  error?: unknown;
}

/** What a (possibly crashed) run left in memory. */
export interface Run {
  opened: boolean;
  outcomes: Outcome[];
  /** Every op announced by a `change` event: the ones that passed the commit point. */
  announced: Op[];
  /** The records as the storage held them in memory when the run ended. */
  views: Record<string, unknown>;
  node?: string;
}

/** Issue one call; its outcome (seq made, resolved or the error) is filled in as it settles. */
export function issue(s: Storage, a: Action, out: Outcome[]): Promise<void> {
  const before = internals(s).committer.pvec[s.id] ?? 0;
  let p: Promise<unknown>;
  switch (a.t) {
    case 'set': p = s.set(a.id, a.data); break;
    case 'insert': p = s.insert(a.data); break;
    case 'update': p = s.update(a.id, a.fields); break;
    case 'inc': p = s.inc(a.id, 'n', a.by); break;
    case 'add': p = s.add(a.id, 'tags', a.elements); break;
    case 'remove': p = s.remove(a.id, 'tags', a.elements); break;
    case 'delete': p = s.delete(a.id); break;
    case 'purge': p = s.purge(a.id); break;
  }
  const after = internals(s).committer.pvec[s.id] ?? 0;
  const o: Outcome = { action: a, resolved: false };
  if (after > before) o.seq = after;
  out.push(o);
  return p.then(
    () => void (o.resolved = true),
    (e: unknown) => void (o.error = e),
  );
}

export type RunOptions = Omit<OpenOptions, 'path' | 'backend'>;

/** `lines`: the log's batches as lines of open files (log.lines) instead of the default file per batch. */
export const runOptions = (durable: boolean, rollAfter = 4, lines = false): RunOptions => ({ now: () => T0, durable, sync: { log: { rollAfter, lines } } });

/** Open, play the script (rejections caught), wait for the pipeline, close. Never throws. */
export async function runScript(b: MemoryBackend, script: Step[], options: RunOptions): Promise<Run> {
  const run: Run = { opened: false, outcomes: [], announced: [], views: {} };
  let s: Storage;
  try {
    s = await openOn(b, options);
  } catch {
    return run;
  }
  run.opened = true;
  run.node = s.id;
  s.on('change', (op) => run.announced.push(op));
  for (const step of script) await Promise.all(step.map((a) => issue(s, a, run.outcomes)));
  await internals(s).committer.idle();
  run.views = viewsOf(internals(s).committer.committed);
  await s.close().catch(() => undefined);
  return run;
}

/** A fresh backend with this file's node keys (so no RSA pair is made per run). */
export async function keyedBackend(): Promise<MemoryBackend> {
  return createMemoryBackend({ files: await nodeKeys() });
}

/** What a crash can leave of what was not synced: a process crash ('none'), then the four power-cut damages. */
export const DAMAGES: readonly CrashDamage[] = ['none', 'lost', 'torn', 'zeroed', 'reordered'];

/**
 * The disks a crash of a dead backend can leave, one per damage kind whose
 * state differs from those before it. Damage touches only what was not
 * synced, so disks are told apart by those files alone (a durable run leaves
 * little unsynced: most damages leave the same disk, which is checked once).
 */
export function distinctCrashes(b: MemoryBackend, seed: number): { damage: CrashDamage; disk: MemoryBackend }[] {
  const pending = Object.entries(b.snapshot().files).filter(([, f]) => f.current !== f.durable).map(([p]) => p);
  const seen = new Set<string>();
  const out: { damage: CrashDamage; disk: MemoryBackend }[] = [];
  for (const damage of pending.length ? DAMAGES : DAMAGES.slice(0, 1)) {
    const disk = b.crash(damage, seed);
    const files = disk.snapshot().files;
    const key = JSON.stringify(pending.map((p) => files[p]?.current ?? null));
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ damage, disk });
  }
  return out;
}

/** A copy of a backend's state, to recover it more than once. */
export const copyOf = (snap: MemorySnapshot): MemoryBackend => createMemoryBackend({ from: snap });

/** What a recovered directory holds: records as read, the log's op identities but the marker's. */
export interface Recovered {
  views: Record<string, unknown>;
  log: string[];
  /** records == fold(log). */
  foldOk: boolean;
  /** No (stream, seq) twice in the log. */
  seqsUnique: boolean;
}

/** Reopen, read the state, close. */
export async function readState(b: MemoryBackend, options: RunOptions): Promise<Recovered> {
  const s = await openOn(b, options);
  try {
    const entries = internals(s).log.read(internals(s).log.floor);
    const views = viewsOf(internals(s).committer.committed);
    const foldOk = JSON.stringify(viewsOf(fold(entries))) === JSON.stringify(views);
    const streams = entries.map((e) => `${streamKey(e.op.origin, e.op.scope)}#${e.op.seq}`);
    const log = entries.filter((e) => e.op.id !== 'marker').map((e) => opKey(e.op));
    return { views, log, foldOk, seqsUnique: new Set(streams).size === streams.length };
  } finally {
    await s.close().catch(() => undefined);
  }
}

/** A recovery: open (replaying the tail), one write that persists it, close (sealing). Throws on a crash. */
export async function recover(b: MemoryBackend, options: RunOptions): Promise<void> {
  const s = await openOn(b, options);
  try {
    await s.set('marker', { title: 'recovered' });
    await internals(s).committer.idle();
  } finally {
    await s.close();
  }
}
