import { internals } from '../../src/testing/internals';
import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { FLAG_SEALED, generateSealingKeys } from '../../src/op';
import { freshBackend, logPaths, logFile, openOn, T0 } from '../log/helpers';
import { web, withPlatform } from '../platform/with-platform';
import { entriesOf } from './helpers';

/** The sealed log entries of 'p' in a log file, as written (19 slots: header in clear, the rest boxed). */
const sealedP = (b: MemoryBackend, path: string) => logFile(b, path).ops.filter((x) => Array.isArray(x) && x[4] === 'p' && x.length === 19);

/** Every sealed log entry of 'p', as written, with its file. */
const logBoxes = (b: MemoryBackend) => logPaths(b).flatMap((path) => sealedP(b, path).map((x) => JSON.stringify(x)));

/** Every element of the record files that is 'p''s box ({ id, sealed }), as written. */
function recordBoxes(b: MemoryBackend): string[] {
  const out: string[] = [];
  for (const [path, text] of b.files()) {
    if (!path.startsWith('records/')) continue;
    for (const x of JSON.parse(text) as { id?: string; sealed?: string }[]) if (x.id === 'p' && x.sealed) out.push(JSON.stringify(x));
  }
  return out;
}

/** A store made on Node holding the sealed 'p', the plain 'q' and `more` plain records written after (one batch each). */
async function nodeStore(more = 0): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, { now: () => T0 });
  await s.set('p', { pin: 1 }, { sealed: true });
  await s.set('q', { x: 1 });
  // A record file for each write (idle() writes the records that would wait for later batches'), so they merge.
  await internals(s).committer.idle();
  for (let i = 0; i < more; i++) {
    await s.set(`m${i}`, { i });
    await internals(s).committer.idle();
  }
  await s.close();
  return b;
}

/** Open on the browser's platform (no sealing: sealed entries read as unreadable), run `fn`, close. */
async function inBrowser(b: MemoryBackend, fn: (s: Awaited<ReturnType<typeof openOn>>) => Promise<void>): Promise<void> {
  await withPlatform(web, async () => {
    const s = await openOn(b, { now: () => T0 });
    await fn(s);
    await s.close();
  });
}

/** Back on Node: 'p' reads as written, sealed, and the open reports nothing. */
async function expectPBack(b: MemoryBackend): Promise<void> {
  const s = await openOn(b, { now: () => T0 });
  const errors = s.startupErrors.map((e: SyncomError) => e.message);
  expect(await s.get('p')).toEqual({ pin: 1 });
  expect(s.isSealed('p')).toBe(true);
  expect(entriesOf(s, 'p').map((e) => e.flags & FLAG_SEALED)).toEqual([FLAG_SEALED]);
  await s.close();
  expect(errors).toEqual([]);
}

// A sealed entry this process cannot open is still a record another can (Node, the key): a file rewritten here
// (a purge's scrub, a seal of batches read at open, a merge of record files) writes it back as it was read.
describe('sealed entries not opened here are kept through rewrites', () => {
  it('GUAR-19: made on Node, 40 writes and a purge in a browser, back on Node: the sealed record is there', async () => {
    const b = await nodeStore();
    await inBrowser(b, async (s) => {
      expect(s.isSealed('p')).toBe(true);
      for (let i = 0; i < 40; i++) await s.set(`w${i}`, { i });
      await s.purge('q');
    });
    const s = await openOn(b, { now: () => T0 });
    expect(await s.get('q')).toBeUndefined();
    expect(await s.get('w39')).toEqual({ i: 39 });
    await s.close();
    await expectPBack(b);
  });

  it('GUAR-19, GUAR-20: a purge in a browser rewrites the segment holding a sealed entry it cannot open: the entry is written back as read', async () => {
    const b = await nodeStore();
    const before = sealedP(b, 'log/seg-1.json');
    expect(before).toHaveLength(1);
    await inBrowser(b, (s) => s.purge('q'));
    // The segment was rewritten (q scrubbed), p's entry in it as it was.
    expect(logFile(b, 'log/seg-1.json').ops.some((x) => Array.isArray(x) && x[4] === 'q' && x[9] !== null)).toBe(false);
    expect(sealedP(b, 'log/seg-1.json')).toEqual(before);
    await expectPBack(b);
  });

  it('GUAR-19, LOG-4: open batches a crash left, read in a browser and sealed there: the segment holds the sealed entry as read', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('p', { pin: 1 }, { sealed: true });
    await s.set('q', { x: 1 });
    await internals(s).committer.idle();
    // The files as a crash leaves them: both batches recorded, none sealed.
    const crashed = createMemoryBackend({ files: Object.fromEntries(b.files()) });
    await s.close();
    const before = logBoxes(crashed);
    expect(before).toHaveLength(1);
    expect(logPaths(crashed).every((p) => p.startsWith('log/open/'))).toBe(true);
    await inBrowser(crashed, (w) => w.set('r', { x: 2 }));
    expect(logPaths(crashed).every((p) => p.startsWith('log/seg-'))).toBe(true);
    expect(logBoxes(crashed)).toEqual(before);
    await expectPBack(crashed);
  });

  it('GUAR-19: record files merged in a browser carry the sealed record\'s box on as read', async () => {
    const b = await nodeStore();
    const before = recordBoxes(b);
    expect(before).toHaveLength(1);
    await inBrowser(b, async (s) => {
      for (let i = 0; i < 40; i++) {
        await s.set(`w${i}`, { i });
        await internals(s).committer.idle();
      }
    });
    // The file that held it was merged away.
    expect(b.files().has('records/1.json')).toBe(false);
    expect(recordBoxes(b)).toEqual(before);
    await expectPBack(b);
  });

  it('GUAR-19, GUAR-20: a purge in a browser rewrites a record file holding the sealed record\'s box: the box stays', async () => {
    // 40 writes after p and q on Node merge them into one record file.
    const b = await nodeStore(40);
    const [before] = recordBoxes(b);
    const holder = [...b.files()].find(([p, t]) => p.startsWith('records/') && t.includes(before))?.[0] as string;
    expect(JSON.parse(b.files().get(holder) as string).some((x: { id: string }) => x.id === 'q')).toBe(true);
    await inBrowser(b, (s) => s.purge('q'));
    const after = JSON.parse(b.files().get(holder) as string) as { id: string; purged?: unknown }[];
    expect(after.find((x) => x.id === 'q')?.purged).toBeDefined();
    expect(recordBoxes(b)).toEqual([before]);
    await expectPBack(b);
  });

  it('GUAR-19, GUAR-20: a purge of the sealed record on Node under a replaced sealing pair erases its boxes that no longer open', async () => {
    const b = await nodeStore(40);
    const boxes = [...logBoxes(b), ...recordBoxes(b)];
    expect(boxes).toHaveLength(2);
    const pair = await generateSealingKeys();
    await b.write('keys/seal-public.pem', pair.publicPem);
    await b.write('keys/seal-private.pem', pair.privatePem);
    const s = await openOn(b, { now: () => T0 });
    expect(await s.get('p')).toBeUndefined();
    await s.purge('p');
    await s.close();
    const texts = [...b.files().values()];
    for (const box of boxes) expect(texts.some((t) => t.includes(box))).toBe(false);
  });
});
