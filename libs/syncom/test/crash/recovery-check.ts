import { internals } from '../../src/testing/internals';
import type { MemoryBackend } from '../../src/backend';
import { applyOp, type Entry } from '../../src/crdt';
import type { LogEntry } from '../../src/log';
import { isScrubbed, type Op, streamKey } from '../../src/op';
import type { Storage } from '../../src/storage';
import { openOn, viewsOf } from '../log/helpers';
import { OP_TYPE, type Run, type RunOptions } from './harness';

/** Replay log entries from scratch onto an empty state, as open() replays a tail. */
export function fold(entries: readonly LogEntry[]): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const e of entries) {
    if (isScrubbed(e.op) || e.op.type === 'advance') continue;
    const have = out.get(e.op.id);
    if (have?.purged && e.op.type !== 'purge') continue;
    out.set(e.op.id, applyOp(have, e.op).entry);
  }
  return out;
}

/** The identity of a logged op: its stream, seq and signature. */
export const opKey = (op: Op): string => `${streamKey(op.origin, op.scope)}#${op.seq}#${op.sig ?? ''}`;

/** Open a crashed disk; the codes of the errors its open reported (they come a turn later). */
async function openReporting(b: MemoryBackend, options: RunOptions): Promise<{ s: Storage; errors: { code: string; file?: unknown }[] }> {
  const s = await openOn(b, options);
  const errors: { code: string; file?: unknown }[] = [];
  s.on('error', (e) => void errors.push(e));
  await new Promise((r) => setImmediate(r));
  return { s, errors };
}

/**
 * GUAR-21, a documented limit: the purge scrub rewrites log files in place
 * (GUAR-20), so a power cut before its fsync can leave one torn, its entries
 * unreadable (OP_UNREADABLE) though the records keep their effect. True when
 * the reopen found such a file and the run had committed a purge.
 */
function tornByScrub(run: Run, errors: { code: string; file?: unknown }[]): boolean {
  const torn = errors.some((e) => e.code === 'OP_UNREADABLE' && String(e.file).startsWith('log/'));
  return torn && run.announced.some((op) => op.type === 'purge');
}

/**
 * The ops of an append the crash cut after its batch file landed whole (it is
 * written in place: the fsync or the return was not reached): logged, never
 * announced, in doubt as any write in flight at a crash is. Only ops of the
 * newest batch may be in doubt; an unannounced op anywhere else is made up.
 */
function inDoubt(s: Storage, entries: readonly LogEntry[], run: Run): Set<Op> {
  const announced = new Set(run.announced.map(opKey));
  const newest = internals(s).log.batches.at(-1)?.from ?? Infinity;
  return new Set(entries.filter((e) => e.pos >= newest && !announced.has(opKey(e.op))).map((e) => e.op));
}

/**
 * Reopen a crashed backend and check the recovery against what the run saw
 * (GUAR-6, GUAR-7, GUAR-8, LOG-2). Throws a descriptive error on the first
 * broken property; returns the reopened storage's views. A log file torn by
 * a crash mid-scrub (GUAR-21) may leave a hole in the log, never in the
 * records, and never a seq minted twice.
 */
export async function checkRecovery(b: MemoryBackend, run: Run, options: RunOptions, label: string): Promise<Record<string, unknown>> {
  const { s, errors } = await openReporting(b, options);
  const torn = tornByScrub(run, errors);
  const fail = (what: string, detail?: unknown): never => {
    throw new Error(`${label}${torn ? ' (a log file torn mid-scrub)' : ''}: ${what}${detail === undefined ? '' : `\n${JSON.stringify(detail, null, 1).slice(0, 3000)}`}`);
  };
  try {
    const entries = internals(s).log.read(internals(s).log.floor);
    if (internals(s).log.floor !== 0) fail('retention dropped part of a short log');
    // LOG-5: index.json lists each sealed segment once, in order, one after the other.
    const segs = internals(s).log.segments;
    if (segs.some((g, i) => g.from !== (i === 0 ? internals(s).log.floor + 1 : segs[i - 1].to + 1))) fail('index.json lists overlapping segments', segs.map((g) => [g.from, g.to]));
    const ops = entries.map((e) => e.op);
    // GUAR-6: no (stream, seq) twice, and the own stream has no holes (but in a file torn mid-scrub).
    const seen = new Set<string>();
    for (const op of ops) {
      const k = `${streamKey(op.origin, op.scope)}#${op.seq}`;
      if (seen.has(k)) fail(`seq reused: ${k}`);
      seen.add(k);
    }
    const own = ops.filter((o) => o.origin === s.id).map((o) => o.seq);
    if (own.some((q, i) => (torn ? i > 0 && q <= own[i - 1] : q !== i + 1))) fail('own seqs are not 1..n in log order', own);
    // Every resolved write that made an op is in the log: its seq, type and id.
    const bySeq = new Map(ops.filter((o) => o.origin === s.id).map((o) => [o.seq, o]));
    for (const o of run.outcomes) {
      if (!o.resolved || o.seq === undefined || (torn && !bySeq.has(o.seq))) continue;
      const op = bySeq.get(o.seq);
      const id = 'id' in o.action ? o.action.id : op?.id;
      if (!op || op.type !== OP_TYPE[o.action.t] || op.id !== id) fail(`resolved write lost: seq ${o.seq}`, { action: o.action, logged: op });
    }
    // The log holds exactly the ops that passed the commit point: none lost, none made up.
    const doubt = inDoubt(s, entries, run);
    const announced = run.announced.map(opKey).sort();
    const logged = ops.filter((o) => !doubt.has(o)).map(opKey).sort();
    const made = torn ? logged.some((k) => !announced.includes(k)) : JSON.stringify(announced) !== JSON.stringify(logged);
    if (made) fail('the log is not the announced ops', { announced: announced.length, logged: logged.length });
    // No record half-applied: records == fold(log) (a hole in the log cannot be folded).
    const views = viewsOf(internals(s).committer.committed);
    const folded = viewsOf(fold(entries));
    if (!torn && JSON.stringify(views) !== JSON.stringify(folded)) fail('records differ from a replay of the log', { views, folded });
    // What was read before the crash is what is read after it.
    const before = doubt.size ? viewsOf(fold(entries.filter((e) => !doubt.has(e.op)))) : views;
    // A purge in doubt that landed is applied and scrubbed by the reopen: the ops before it no longer fold to what it erased.
    for (const op of doubt) {
      if (op.type !== 'purge') continue;
      if (views[op.id] !== '<purged>') fail(`a purge in the log left ${op.id} unpurged`, views[op.id]);
      before[op.id] = run.views[op.id];
    }
    if (JSON.stringify(before) !== JSON.stringify(run.views)) fail('records differ from the state before the crash', { views, before: run.views });
    // The next own op takes a seq above every seq of this origin ever logged.
    const max = Math.max(own.length ? own[own.length - 1] : 0, internals(s).log.vector[s.id] ?? 0);
    await s.set('after-crash', { title: label });
    const next = internals(s).log.read(internals(s).log.head - 1).map((e) => e.op);
    if (next.length !== 1 || next[0].seq !== max + 1) fail(`next seq is not ${max + 1}`, next);
    return views;
  } finally {
    await s.close().catch(() => undefined);
  }
}
