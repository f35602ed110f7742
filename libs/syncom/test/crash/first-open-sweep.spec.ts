import { createMemoryBackend, type MemorySnapshot } from '../../src/backend';
import { FORMAT_FILE } from '../../src/storage/store-format';
import { nodeKeys, openOn, T0 } from '../log/helpers';
import { type Call, sweepLadder } from './ladder';
import { runOptions } from './harness';

/**
 * The first open of a store, swept: format.json, both key pairs (the signing
 * pair, and the RSA pair that seals records), the log's index.json and the
 * folders, then the first writes (a sealed one among them, so the sealing
 * pair is used), the first seals. A crash at each I/O point, each damage a
 * power cut may do to what was not synced, then a reopen: it opens (no key
 * pair refused as damage), holds every resolved write, signs no seq twice,
 * and a peer bootstrapping from it converges. The same for the open that
 * upgrades a store an earlier version wrote (no format.json yet).
 */
const calls: Call[] = [
  (s) => s.set('a', { title: 'one' }),
  (s) => s.set('secret', { title: 'sealed' }, { sealed: true }),
  (s) => s.update('a', { title: 'two' }),
  (s) => s.inc('a', 'n', 2),
  (s) => s.set('b', { title: 'b' }),
  (s) => s.add('b', 'tags', ['x']),
];

const cases = [
  ['durable, every damage', true, false],
  ['durable, log.lines, every damage', true, true],
  ['not durable, a process crash', false, false],
] as const;

describe('crash recovery: a crash at every I/O point of a first open (keys, format, index) and its first writes', () => {
  // log.lines is swept in the upgrade below and in sweep.spec.ts: each first open here makes an RSA pair.
  it.each(cases.filter(([, , lines]) => !lines))('GUAR-6, GUAR-7, SIG-4, LOG-2 (%s): the store opens, keeps every resolved write, signs no seq twice, and a peer converges', async (_how, durable, lines) => {
    const { problems, total, clean } = await sweepLadder({
      make: async () => createMemoryBackend(),
      calls,
      options: { ...runOptions(durable, 2, lines), now: () => T0 },
    });
    expect(clean.resolved).toBe(calls.length);
    expect(total).toBeGreaterThan(20);
    expect(problems.slice(0, 3)).toEqual([]);
  }, 240_000);
});

describe('crash recovery: a crash at every I/O point of the open that upgrades a store with no format.json', () => {
  let old: MemorySnapshot;

  beforeAll(async () => {
    // A store as an earlier version left it: records, a sealed log and open batches, no format.json.
    const b = createMemoryBackend({ files: await nodeKeys() });
    const s = await openOn(b, { ...runOptions(true, 2), now: () => T0 });
    for (const call of calls) await call(s);
    await s.set('c', { title: 'open batch' });
    await s.close();
    old = b.crash('none').snapshot();
    delete old.files[FORMAT_FILE];
  });

  it.each(cases)('GUAR-6, GUAR-7, LOG-2 (%s): the store opens, keeps every resolved write, signs no seq twice, and a peer converges', async (_how, durable, lines) => {
    const { problems, total, clean } = await sweepLadder({
      make: async () => createMemoryBackend({ from: old }),
      calls: [(s) => s.update('c', { title: 'upgraded' }), (s) => s.delete('b'), (s) => s.set('d', { title: 'd' })],
      options: { ...runOptions(durable, 2, lines), now: () => T0 },
    });
    expect(clean.resolved).toBe(3);
    expect(total).toBeGreaterThan(8);
    expect(problems.slice(0, 3)).toEqual([]);
  }, 240_000);
});
