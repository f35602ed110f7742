import { IO_POINTS } from '../../src/backend';
import { isSyncomError } from '../../src/errors';
import { checkRecovery, keyedBackend, makeScript, runOptions, runScript } from './harness';
import { type IoFault, runFaulted } from './io-faults';

/** Every IO_EVERY-th write or fsync of the run gets the fault (CI 4; the hunt tier can set 1). */
const EVERY = Number(process.env.IO_EVERY ?? 4);
const script = makeScript(31, 60);
const options = runOptions(true);
const KINDS = { write: ['write', 'overwrite'], fsync: ['fsync'] } as const;

/** The problems of one faulted run, each a line naming the fault. */
async function check(fault: IoFault, label: string): Promise<string[]> {
  const b = await keyedBackend();
  const run = await runFaulted(b, { script, options, fault });
  const problems: string[] = [];
  run.outcomes.forEach((o, i) => {
    const e = o.error;
    if (e === undefined) return;
    // The script's own refusal, and calls on a record whose creating write was refused.
    if (isSyncomError(e) && (e.code === 'PURGED' || e.code === 'NOT_FOUND')) return;
    // Refused with a clear error, naming the disk's: and so never acknowledged (the promise rejected).
    if (!isSyncomError(e) || e.code !== 'IO_ERROR' || !e.message.includes(fault.code)) problems.push(`${label}: call ${i} refused unclearly: ${String(e)}`);
    if (i >= run.clearedAt) problems.push(`${label}: call ${i}, after the fault cleared, was refused: ${String(e)}`);
  });
  if (!run.outcomes[run.outcomes.length - 1].resolved) problems.push(`${label}: the store is not usable once the fault cleared`);
  for (const e of run.reported) {
    if (!['UNPERSISTED', 'IO_ERROR'].includes(e.code) || !e.message.includes(fault.code)) problems.push(`${label}: reported ${e.code}: ${e.message}`);
  }
  // Consistent on disk: the log is what was announced, every resolved write is in it, records == fold(log).
  for (const damage of ['none', 'lost'] as const) {
    await checkRecovery(b.crash(damage), run, options, `${label}, reopened ('${damage}')`).catch((e: Error) => problems.push(e.message));
  }
  return problems;
}

describe('I/O errors: ENOSPC and EIO at every n-th write and fsync, once and persistent', () => {
  const totals: Record<string, number> = {};

  beforeAll(async () => {
    const b = await keyedBackend();
    const clean = await runScript(b, script, options);
    expect(clean.outcomes.filter((o) => !o.resolved)).toHaveLength(1);
    // Counted from the disk's creation: the open's few writes make a bound a little above the run's own.
    // (180 here: record files are written once for several batches, docs/guarantees.md "Record files follow the log".)
    for (const k of Object.keys(KINDS) as (keyof typeof KINDS)[]) totals[k] = b.opCount(KINDS[k]);
    expect(b.opCount(IO_POINTS)).toBeGreaterThan(150);
  });

  for (const code of ['ENOSPC', 'EIO'] as const) {
    for (const persistent of [false, true]) {
      for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
        const how = persistent ? 'from then on (cleared 3 steps later)' : 'once';
        it(`GUAR-6 GUAR-8 GUAR-9 LOG-2: ${code} at every ${EVERY}th ${kind}, ${how}: a refused write is rejected with IO_ERROR naming ${code}, never acknowledged; the store stays usable and consistent`, async () => {
          const problems: string[] = [];
          for (let at = 1; at <= totals[kind]; at += EVERY) {
            problems.push(...(await check({ code, persistent, ops: KINDS[kind], at }, `${code} at ${kind} ${at}/${totals[kind]}`)));
          }
          expect(problems.slice(0, 5)).toEqual([]);
        }, 240_000);
      }
    }
  }
});
