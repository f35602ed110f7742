import { IO_POINTS } from '../../src/backend';
import { isSyncomError } from '../../src/errors';
import { checkRecovery, keyedBackend, runOptions, runScript, type Step } from './harness';
import { type IoFault, runFaulted } from './io-faults';

/**
 * An I/O error in the middle of a burst: 100 writes in flight at once (incs
 * of one counter, whole writes, updates and adds of one record), so the
 * fault meets appends of many batches, record writes and seals running
 * beside them. The io-errors sweep issues a few calls at a time; here most
 * of the burst is queued behind the batch that fails.
 */
const burst: Step = Array.from({ length: 100 }, (_, i) => {
  if (i % 4 === 0) return { t: 'inc', id: 'c', by: 1 } as const;
  if (i % 4 === 1) return { t: 'set', id: `b${i}`, data: { title: `b${i}` } } as const;
  if (i % 4 === 2) return { t: 'update', id: 'c', fields: { body: `u${i}` } } as const;
  return { t: 'add', id: 'c', elements: [`e${i}`] } as const;
});
const script: Step[] = [[{ t: 'set', id: 'c', data: { title: 'c' } }], burst, [{ t: 'inc', id: 'c', by: 10 }], [{ t: 'set', id: 'd', data: { title: 'd' } }]];
const KINDS = { write: ['write', 'overwrite'], fsync: ['fsync'] } as const;

describe.each([
  ['a file per batch', false],
  ['batches as lines of open files (log.lines)', true],
])('I/O errors inside a burst of 100 writes in flight, %s', (_layout, lines) => {
  const options = runOptions(true, 4, lines);

  for (const [code, persistent] of [['EIO', false], ['ENOSPC', true]] as const) {
    for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
      it(`GUAR-6 GUAR-8 GUAR-9 LOG-2: ${code} at each ${kind} of the run${persistent ? ' and after it, for a few steps' : ''}: every write that resolved stays, one refused is rejected IO_ERROR and leaves nothing applied, no seq is reused`, async () => {
        const clean = await keyedBackend();
        const run = await runScript(clean, script, options);
        expect(run.outcomes.every((o) => o.resolved)).toBe(true);
        const total = clean.opCount(KINDS[kind]);
        expect(clean.opCount(IO_POINTS)).toBeGreaterThan(20);
        const problems: string[] = [];
        let refused = 0;
        for (let at = 1; at <= total; at++) {
          const fault: IoFault = { code, persistent, ops: KINDS[kind], at };
          const b = await keyedBackend();
          const faulted = await runFaulted(b, { script, options, fault });
          const label = `${code} at ${kind} ${at}/${total}`;
          for (const o of faulted.outcomes) {
            // A call on 'c' whose creating write was refused has no record to change.
            if (o.error === undefined || (isSyncomError(o.error) && o.error.code === 'NOT_FOUND')) continue;
            refused++;
            if (!isSyncomError(o.error) || o.error.code !== 'IO_ERROR' || !o.error.message.includes(code)) problems.push(`${label}: refused unclearly: ${String(o.error)}`);
          }
          if (!faulted.outcomes[faulted.outcomes.length - 1].resolved) problems.push(`${label}: the store is not usable once the fault cleared`);
          for (const damage of ['none', 'lost'] as const) {
            await checkRecovery(b.crash(damage), faulted, options, `${label}, reopened ('${damage}')`).catch((e: Error) => problems.push(e.message));
          }
        }
        // The faults met the burst: some of its writes were refused.
        expect(refused).toBeGreaterThan(0);
        expect(problems.slice(0, 5)).toEqual([]);
      }, 120_000);
    }
  }
});
