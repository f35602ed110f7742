import { IO_POINTS, type MemorySnapshot } from '../../src/backend';
import {
  checkRecovery, copyOf, DAMAGES, distinctCrashes, keyedBackend, makeScript, readState, recover, type Run, runOptions, runScript,
} from './harness';
import { CRASH_STRIDE, crashPoints, traced } from './points';

/**
 * The crash sweep (GUAR-6, GUAR-7, GUAR-8, LOG-2, GUAR-17): a deterministic
 * 200-call script, run clean once to count its I/O points (every mutating
 * backend op and every fsync of a durable write), then once per k with the
 * process dying at the k-th one. Every run is durable; the reopen is checked
 * after a process crash ('none') and after each power-cut damage of what was
 * not synced ('lost', 'torn', 'zeroed', 'reordered'), once per distinct disk.
 * CI cuts a seeded sample of the points that holds every kind of point
 * (points.ts); `npm run test:hunt` (CRASH_STRIDE=1) cuts at every one.
 */
/** The full sweeps take ~60 s of CPU; leave room for a loaded machine. */
const SLOW = 480_000;

describe.each([
  ['a file per batch', false],
  ['batches as lines of open files (log.lines)', true],
])('crash recovery: a crash at every I/O point of a 200-call run (durable), %s', (_layout, lines) => {
  const script = makeScript(2024, 200);
  const options = runOptions(true, 4, lines);
  let clean: Run;
  let total = 0;
  /** The kind of each I/O point of the clean run, and the points cut. */
  let kinds: string[] = [];
  let points: number[] = [];
  /** What each crash at k left, for the second-crash sweep. */
  const crashed = new Map<number, MemorySnapshot>();

  beforeAll(async () => {
    const b = await keyedBackend();
    const t = traced(b);
    clean = await runScript(t.backend, script, options);
    total = b.opCount(IO_POINTS);
    kinds = t.kinds;
    points = crashPoints(kinds);
  });

  it('the script is deterministic and, run clean, lands every call but the refused ones', async () => {
    const calls = script.flat();
    expect(calls).toHaveLength(200);
    expect(new Set(calls.map((a) => a.t))).toEqual(new Set(['set', 'insert', 'update', 'inc', 'add', 'remove', 'delete', 'purge']));
    expect(script.some((step) => step.length > 1)).toBe(true);
    expect(clean.opened).toBe(true);
    expect(total).toBeGreaterThan(400);
    const b = await keyedBackend();
    const again = await runScript(b, script, options);
    expect(b.opCount(IO_POINTS)).toBe(total);
    expect(b.opCount(['fsync'])).toBeGreaterThan(100);
    expect(again.outcomes.map((o) => [o.action.t, o.seq, o.resolved])).toEqual(clean.outcomes.map((o) => [o.action.t, o.seq, o.resolved]));
    // Only the write to the purged record is refused; removes of unseen elements make no op.
    const refused = clean.outcomes.filter((o) => !o.resolved);
    expect(refused.map((o) => (o.error as { code?: string }).code)).toEqual(['PURGED']);
    expect(clean.outcomes.filter((o) => o.seq !== undefined).length).toBeGreaterThan(150);
    await checkRecovery(b.crash('none'), again, options, 'clean');
  });

  it(`the points cut (every one at CRASH_STRIDE=1, here ${CRASH_STRIDE}) hold every kind of I/O point, the first and the last`, () => {
    expect(kinds).toHaveLength(total);
    expect(points[0]).toBe(1);
    expect(points.at(-1)).toBe(total);
    expect(new Set(points.map((k) => kinds[k - 1]))).toEqual(new Set(kinds));
    // Every op kind (mkdir, write, overwrite, remove, each fsync) on every file kind (keys, index, batches, segments, records).
    expect(new Set(kinds).size).toBeGreaterThanOrEqual(15);
    // With log.lines each append and its fsync is a point cut (torn lines after a power cut); else each batch file's write.
    const batchPoints = lines ? ['append log/open/N.json', 'fsync(append) log/open/N.json'] : ['write log/open/N.json'];
    expect(kinds).toEqual(expect.arrayContaining([...batchPoints, 'overwrite log/open/N.json']));
    expect(points.length).toBeGreaterThanOrEqual(Math.floor(total / CRASH_STRIDE));
  });

  it("GUAR-6, GUAR-7, GUAR-8, GUAR-17, LOG-2: for every k cut, after a crash at the k-th I/O point and a reopen (each damage), every resolved write is there, records == fold(log), no seq is reused", async () => {
    const failures: string[] = [];
    const resolvedAt: number[] = [];
    const checked = new Map<string, number>();
    let previous = '';
    for (const k of points) {
      const b = await keyedBackend();
      b.crashAt(k, { ops: IO_POINTS });
      const run = await runScript(b, script, options);
      expect(b.opCount(IO_POINTS)).toBe(k);
      resolvedAt.push(run.outcomes.filter((o) => o.resolved).length);
      crashed.set(k, b.crash('none').snapshot());
      // A crash at an atomic write's fsync leaves the disk and the run of a crash at its write: checked already.
      const same = JSON.stringify([crashed.get(k), run.outcomes, run.announced.length]);
      if (same === previous) continue;
      previous = same;
      for (const { damage, disk } of distinctCrashes(b, k)) {
        checked.set(damage, (checked.get(damage) ?? 0) + 1);
        try {
          await checkRecovery(disk, run, options, `crash at ${k}/${total}, '${damage}'`);
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    }
    expect(failures.slice(0, 3)).toEqual([]);
    // Power cuts left disks of their own (unsynced removals undone, in-place scrubs cut before their fsync).
    expect([...checked.keys()].filter((d) => d !== 'none').length).toBeGreaterThanOrEqual(2);
    // The sweep crossed the whole run: from nothing resolved to all but the last calls.
    expect(resolvedAt[0]).toBe(0);
    expect(Math.max(...resolvedAt)).toBeGreaterThanOrEqual(198);
  }, SLOW);

  it('GUAR-8, LOG-2: a second crash during the recovery (open, the write that persists the tail, close), with any damage, then a recovery, leaves the same state as one recovery', async () => {
    expect(crashed.size).toBe(points.length);
    const failures: string[] = [];
    let secondCrashes = 0;
    for (const [k, snap] of crashed) {
      const once = copyOf(snap);
      await recover(once, options);
      const steps = once.opCount(IO_POINTS);
      const one = await readState(once.crash('none'), options);
      // A crash at one of the recovery's own I/O points (cycling through all of them over the ks), each damage in turn.
      const j = 1 + (k % steps);
      const damage = DAMAGES[k % DAMAGES.length];
      const twice = copyOf(snap);
      twice.crashAt(j, { ops: IO_POINTS });
      await recover(twice, options).catch(() => undefined);
      // close() reports a failed record write (UNPERSISTED) rather than throwing: count crashes that happened.
      if (twice.opCount(IO_POINTS) >= j) secondCrashes++;
      const after = twice.crash(damage, k);
      await recover(after, options);
      const two = await readState(after.crash('none'), options);
      const label = `crash at ${k}, then at recovery I/O point ${j}/${steps} ('${damage}')`;
      if (!one.foldOk || !one.seqsUnique) failures.push(`${label}: the single recovery is inconsistent`);
      if (!two.foldOk) failures.push(`${label}: records != fold(log)`);
      if (!two.seqsUnique) failures.push(`${label}: a seq was reused`);
      if (JSON.stringify(two.views) !== JSON.stringify(one.views)) failures.push(`${label}: records differ\n${JSON.stringify({ one: one.views, two: two.views })}`);
      if (JSON.stringify(two.log) !== JSON.stringify(one.log)) failures.push(`${label}: the log differs`);
    }
    expect(failures.slice(0, 3)).toEqual([]);
    expect(secondCrashes).toBeGreaterThan(points.length / 2);
  }, SLOW);
});
