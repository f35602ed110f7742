import { createMemoryBackend } from '../../src/backend';
import { internals } from '../../src/testing/internals';
import { DAY, nodeKeys, T0 } from '../log/helpers';
import { type Call, sweepLadder } from './ladder';
import type { RunOptions } from './harness';

/**
 * Retention's drop of old segments, swept: index.json written with the new
 * floor, then each segment removed, as each seal (one a batch here) lets
 * the oldest go by age (retention.days, a day a call). A crash at each I/O
 * point, each damage, then a reopen: it opens (a segment left below the
 * floor is no damage), every resolved write is in the records though its
 * ops left the log, the next seq is above every seq used, a peer converges.
 */
const clock = { t: T0 };
const step = (call: Call): Call => (s) => {
  clock.t += DAY;
  return call(s);
};
const calls: Call[] = ([
  (s) => s.set('a', { title: 'one' }),
  (s) => s.set('b', { title: 'b' }),
  (s) => s.update('a', { title: 'two' }),
  (s) => s.inc('a', 'n', 2),
  (s) => s.add('b', 'tags', ['x', 'y']),
  (s) => s.delete('b'),
  (s) => s.set('c', { title: 'c' }),
  (s) => s.remove('a', 'tags', ['never']),
  (s) => s.update('c', { title: 'c2' }),
] as Call[]).map(step);

describe('crash recovery: a crash at every I/O point of retention dropping segments', () => {
  it.each([
    ['durable, every damage', true],
    ['not durable, a process crash', false],
  ])('LOG-14, GUAR-6, GUAR-7 (%s): the store opens, keeps every resolved write, signs no seq twice, and a peer converges', async (_how, durable) => {
    const options: RunOptions = { durable, now: () => clock.t, sync: { retention: { days: 1 }, log: { rollAfter: 1 } } };
    const keys = await nodeKeys();
    const { problems, total, clean } = await sweepLadder({
      make: async () => {
        clock.t = T0;
        return createMemoryBackend({ files: keys });
      },
      calls,
      options,
    });
    expect(clean.resolved).toBe(calls.length);
    expect(total).toBeGreaterThan(40);
    expect(problems.slice(0, 3)).toEqual([]);
  }, 240_000);

  it('LOG-14: the clean run drops segments (the floor moves up)', async () => {
    clock.t = T0;
    const b = createMemoryBackend({ files: await nodeKeys() });
    const { open } = await import('../../src');
    const s = await open({ path: 'n', backend: b, now: () => clock.t, sync: { retention: { days: 1 }, log: { rollAfter: 1 } } });
    for (const c of calls) await c(s);
    await internals(s).committer.idle();
    expect(internals(s).log.floor).toBeGreaterThan(4);
    await s.close();
    expect([...b.files().keys()].some((p) => p === 'log/seg-1.json')).toBe(false);
  });
});
