import { bracketFigure, bracketOf, bracketRuns } from '../../../../bench/lib/brackets';
import { figureOf, recordFigure } from '../../../../bench/lib/figures';
import type { Benchmark } from '../../../../bench/lib/types';

/** A rate benchmark whose runs take the given ms in turn (1,000 ops a run). */
function rate(name: string, ms: number[], o: Partial<Benchmark> = {}): Benchmark {
  let i = 0;
  return { name, unit: 'ops/s', baseline: null, ops: 1000, run: async () => ms[i++ % ms.length], ...o };
}

const noWait = async () => undefined;

describe('bench brackets: baselines measured again beside the figure compared with them', () => {
  const sign = rate('sign', [100], { bracket: 'measured' });
  const verify = rate('verify', [200], { bracket: 'measured' });
  // 1 / (1/sign + 2/verify), from the figures in force when it runs, as replication/bound.
  const bound = rate('bound', [0], {
    baseline: 'verify', needs: ['sign'], ops: 1, bracket: 'computed',
    run: async () => 1000 / (1 / (1 / figureOf('sign') + 2 / figureOf('verify'))),
  });
  const peer = rate('peer', [50]);
  const byName = new Map([sign, verify, bound, peer].map((b) => [b.name, b]));

  it('a figure is bracketed by its baseline and what that reads, dependencies first', () => {
    expect(bracketOf(rate('add', [1], { baseline: 'sign' }), byName)?.map((b) => b.name)).toEqual(['sign']);
    expect(bracketOf(rate('of-bound', [1], { baseline: 'bound' }), byName)?.map((b) => b.name)).toEqual(['verify', 'sign', 'bound']);
  });

  it('no bracket without a baseline, against a baseline not marked cheap, or for a baseline itself', () => {
    expect(bracketOf(rate('alone', [1]), byName)).toBeUndefined();
    expect(bracketOf(rate('vs-peer', [1], { baseline: 'peer' }), byName)).toBeUndefined();
    expect(bracketOf(bound, byName)).toBeUndefined();
    expect(bracketOf(rate('odd', [1], { baseline: 'sign', needs: ['peer'] }), byName)).toBeUndefined();
  });

  it('the figure is the median of the runs on both sides; a computed baseline is worked out from them, the run-wide figures left as they were', async () => {
    recordFigure('sign', 1);
    recordFigure('verify', 1);
    const signs = rate('sign', [100, 200, 400, 100], { bracket: 'measured' });
    const verifies = rate('verify', [250], { bracket: 'measured' });
    const bracket = [verifies, signs, bound];
    const runs = await bracketRuns(bracket, 2, new Map(), noWait);
    await bracketRuns(bracket, 2, runs, noWait);
    // sign: 1,000 ops in 100, 200, 400, 100 ms: 10,000, 5,000, 2,500, 10,000/s, median 7,500; verify 4,000/s.
    expect(runs.get('sign')).toEqual([10_000, 5_000, 2_500, 10_000]);
    expect(await bracketFigure(bracket, runs, 'sign')).toBe(7_500);
    expect(await bracketFigure(bracket, runs, 'bound')).toBeCloseTo(1 / (1 / 7_500 + 2 / 4_000), 6);
    expect([figureOf('sign'), figureOf('verify')]).toEqual([1, 1]);
  });
});
