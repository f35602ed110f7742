import { internals } from '../../src/testing/internals';
import type { MemoryBackend, MemoryOp } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { openOn, viewsOf } from '../log/helpers';
import { issue, type Run, type RunOptions, type Step } from './harness';

/** An I/O error injected into a run: the at-th operation of `ops` fails with `code`, once or from then on. */
export interface IoFault {
  code: 'ENOSPC' | 'EIO';
  persistent: boolean;
  ops: readonly MemoryOp[];
  at: number;
}

/** A run under an I/O fault: what the storage reported, and how many calls were issued before the fault cleared. */
export interface FaultedRun extends Run {
  reported: SyncomError[];
  /** Calls issued before the disk had room again (a persistent fault clears HOLD steps after it fired). */
  clearedAt: number;
}

/** Steps a persistent fault lasts once it fired: then the disk has room again (clearFaults). */
const HOLD = 3;

/**
 * Open a store, set the fault, play the script (a persistent fault cleared
 * HOLD steps after it fired), then one more write, which must land; wait for
 * the pipeline and close. Never throws for a refused call: outcomes say.
 */
export async function runFaulted(b: MemoryBackend, o: { script: Step[]; options: RunOptions; fault: IoFault }): Promise<FaultedRun> {
  const { script, fault } = o;
  const s = await openOn(b, o.options);
  const run: FaultedRun = { opened: true, outcomes: [], announced: [], views: {}, node: s.id, reported: [], clearedAt: Infinity };
  s.on('change', (op) => run.announced.push(op));
  s.on('error', (e) => run.reported.push(e));
  b.failAt(fault.at, { code: fault.code, persistent: fault.persistent, ops: fault.ops });
  const base = b.opCount(fault.ops);
  let held = 0;
  for (const step of script) {
    await Promise.all(step.map((a) => issue(s, a, run.outcomes)));
    if (!fault.persistent || run.clearedAt !== Infinity || b.opCount(fault.ops) - base < fault.at) continue;
    if (++held >= HOLD) {
      b.clearFaults();
      run.clearedAt = run.outcomes.length;
    }
  }
  b.clearFaults();
  await issue(s, { t: 'set', id: 'after-fault', data: { title: 'the disk has room again' } }, run.outcomes);
  await internals(s).committer.idle();
  run.views = viewsOf(internals(s).committer.committed);
  await s.close();
  return run;
}
