import { checkRecovery, copyOf, keyedBackend, makeScript, readState, recover, runOptions, runScript } from './harness';
import { CRASH_STRIDE, crashPoints, traced } from './points';

/** Half the big sweep's stride: this script is smaller and crashes at mutating ops only. */
const STRIDE = Math.ceil(CRASH_STRIDE / 2);

/**
 * A second, smaller sweep of another shape: not durable (a process crash,
 * 'none', keeps what was written), a seal every 2 batches, another seed. For
 * every k, a crash at the k-th mutating op, a reopen and the recovery checks;
 * then a second crash inside the recovery of that state. CI cuts a seeded
 * sample holding every kind of op (points.ts); CRASH_STRIDE=1 cuts at every one.
 */
describe('crash recovery: a crash at every mutating op of a 60-call run (not durable, rollAfter 2)', () => {
  const script = makeScript(7, 60);
  const options = runOptions(false, 2);

  it("GUAR-6, GUAR-7, GUAR-8, LOG-2: for every k cut, a crash at the k-th mutating op ('none') loses no resolved write, reuses no seq and leaves records == fold(log); a second crash during the recovery changes nothing", async () => {
    const b0 = await keyedBackend();
    const t = traced(b0);
    const clean = await runScript(t.backend, script, options);
    const total = b0.opCount();
    expect(clean.outcomes.filter((o) => o.resolved)).toHaveLength(59);
    // The mutating ops alone (crashAt's default count): fsyncs are not points of this sweep.
    const kinds = t.kinds.filter((kind) => !kind.startsWith('fsync'));
    expect(kinds).toHaveLength(total);
    const points = crashPoints(kinds, STRIDE);
    const failures: string[] = [];
    for (const [i, k] of points.entries()) {
      const b = await keyedBackend();
      b.crashAt(k);
      const run = await runScript(b, script, options);
      try {
        await checkRecovery(b.crash('none'), run, options, `crash at ${k}/${total}`);
      } catch (e) {
        failures.push((e as Error).message);
      }
      // A second crash inside the recovery: at every one of its ops for every 10th k cut (these dominate the time), else at one (cycling).
      const snap = b.crash('none').snapshot();
      const once = copyOf(snap);
      await recover(once, options);
      const one = await readState(once.crash('none'), options);
      const steps = once.opCount();
      const js = i % 10 === 0 ? Array.from({ length: steps }, (_, n) => n + 1) : [1 + (k % steps)];
      for (const j of js) {
        const twice = copyOf(snap);
        twice.crashAt(j);
        await recover(twice, options).catch(() => undefined);
        const after = twice.crash('none');
        await recover(after, options);
        const two = await readState(after.crash('none'), options);
        const label = `crash at ${k}, then at recovery op ${j}`;
        if (!two.foldOk || !two.seqsUnique) failures.push(`${label}: inconsistent (fold ${two.foldOk}, seqs ${two.seqsUnique})`);
        if (JSON.stringify([two.views, two.log]) !== JSON.stringify([one.views, one.log])) failures.push(`${label}: differs from one recovery`);
      }
    }
    expect(failures.slice(0, 3)).toEqual([]);
  }, 240_000);
});
