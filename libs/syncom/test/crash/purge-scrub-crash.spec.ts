import { createMemoryBackend, IO_POINTS, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import { internals } from '../../src/testing/internals';
import { nodeKeys, openOn, T0 } from '../log/helpers';

/**
 * A purge is appended to the log, then scrubbed from the log and record
 * files (GUAR-20). A process that dies between the two leaves the purge in
 * the log and the record's data on disk: the reopen must finish the scrub,
 * since the app that asked for the purge never heard back and the record
 * already reads as purged. Its batch is sealed only once its scrub is done, so
 * the purge is still in the unsealed tail the reopen reads.
 */
const SECRET = 'SECRET-OF-X';

const holding = (b: MemoryBackend) => [...b.files()].filter(([, t]) => t.includes(SECRET)).map(([p]) => p);

/** A store holding x (and a few records beside it), settled, with a crash planned at the k-th I/O point of purge('x'). */
async function purgeCrashingAt(k: number, options: Record<string, unknown>): Promise<MemoryBackend> {
  const b = createMemoryBackend({ files: await nodeKeys() });
  const s = await openOn(b, options);
  await s.set('x', { title: SECRET });
  for (let i = 0; i < 6; i++) await s.set(`r${i}`, { i });
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { persisting: Promise<void> }).persisting;
  b.crashAt(k, { ops: IO_POINTS });
  await s.purge('x').catch(() => undefined);
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { persisting: Promise<void> }).persisting;
  if (!b.isCrashed()) await s.close();
  return b;
}

describe.each([
  ['a file per batch', false],
  ['batches as lines of open files (log.lines)', true],
])('a crash between a purge and the end of its scrub, %s', (_layout, lines) => {
  for (const durable of [false, true]) {
    it(`GUAR-20 GUAR-22 GUAR-8 (durable ${durable}): at every I/O point of the purge, a reopen that reads the record purged leaves no file holding its data`, async () => {
      const options = { now: () => T0, durable, sync: { log: { rollAfter: 4, lines } } };
      const problems: string[] = [];
      let purgedAtReopen = 0;
      let k = 1;
      for (let b = await purgeCrashingAt(k, options); b.isCrashed(); b = await purgeCrashingAt(++k, options)) {
        for (const damage of durable ? (['none', 'lost'] as const) : (['none'] as const)) {
          const disk = createMemoryBackend({ from: b.crash(damage).snapshot() });
          const errors: SyncomError[] = [];
          const s = await openOn(disk, options);
          s.on('error', (e) => errors.push(e));
          const purged = (await s.get('x')) === undefined;
          if (purged) purgedAtReopen++;
          if (purged && holding(disk).length > 0) problems.push(`k=${k} '${damage}': x reads purged, yet ${holding(disk).join(', ')} hold its data`);
          for (let i = 0; i < 6; i++) if ((await s.get(`r${i}`))?.i !== i) problems.push(`k=${k} '${damage}': r${i} lost`);
          await s.set('after', { ok: true });
          await s.close();
          if (purged && holding(disk).length > 0) problems.push(`k=${k} '${damage}': after close, ${holding(disk).join(', ')} hold x's data`);
          problems.push(...errors.map((e) => `k=${k} '${damage}': reported ${e.code}: ${e.message}`));
        }
      }
      // The sweep crossed the purge: from its append to its last write.
      expect(k).toBeGreaterThan(5);
      expect(purgedAtReopen).toBeGreaterThan(3);
      expect(problems.slice(0, 5)).toEqual([]);
    });
  }
});
