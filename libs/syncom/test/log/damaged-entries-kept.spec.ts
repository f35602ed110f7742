import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { internals } from '../../src/testing/internals';
import { freshBackend, logFile, openOn, opened, segmentFiles, T0 } from './helpers';

/**
 * A log entry damaged on disk (the file still parses, the entry is no packed
 * op) is reported OP_UNREADABLE and its position is a hole, but the bytes are
 * the operator's to salvage: every rewrite of its file (a seal, a purge's
 * scrub of another record) writes it back as read, as it does a sealed entry
 * this process cannot open (docs/guarantees.md, "Sealed records stay here").
 * Only a purge naming its id, or retention dropping its segment, erases it.
 */

const sealing = { now: () => T0, sync: { log: { rollAfter: 2 } } };
const unsealed = { now: () => T0, sync: { log: { rollAfter: 64 } } };
const lined = { now: () => T0, sync: { log: { rollAfter: 64, lines: true } } };

/** The origin slot rotted to a number: still JSON, no longer an op; its id slot still reads. */
function rot(packed: unknown): unknown[] {
  const out = [...(packed as unknown[])];
  out[0] = 7;
  return out;
}

/** Replace entry `i` of the log file at `path` (a segment, or a batch file of its own) with `entry`; `chain: false` drops its chain head. */
async function damage(b: MemoryBackend, path: string, i: number, entry: (packed: unknown) => unknown, chain = true): Promise<unknown> {
  const file = JSON.parse(b.files().get(path) as string) as { from: number; chain?: string; ops: unknown[] };
  file.ops[i] = entry(file.ops[i]);
  if (!chain) delete file.chain;
  await b.write(path, JSON.stringify(file));
  return file.ops[i];
}

/** The disk once `ids` were written (one batch each, none sealed) and the process died. */
async function diedAfter(ids: readonly string[], options: object): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, options);
  for (const id of ids) await s.set(id, { title: id });
  await internals(s).committer.idle();
  const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
  await s.close();
  return disk;
}

const unreadableIn = (errors: SyncomError[]) => errors.filter((e) => e.code === 'OP_UNREADABLE').map((e) => e.file);

describe('the log: damaged entries are kept through rewrites', () => {
  it('GUAR-20, GUAR-21: a purge scrubbing another record of a segment writes its damaged entry back as read; a purge of the entry\'s own id erases it', async () => {
    const b = await freshBackend();
    const s = await openOn(b, sealing);
    for (const id of ['a', 'b', 'c', 'd']) await s.set(id, { title: id });
    await s.close();
    expect(segmentFiles(b)).toEqual([1, 3]);
    const rotted = await damage(b, 'log/seg-1.json', 0, rot);
    const first = await opened(b, sealing);
    expect(unreadableIn(first.errors)).toEqual(['log/seg-1.json']);
    await first.s.purge('b');
    // Rewritten: b's payload (slot 9) scrubbed.
    expect((logFile(b, 'log/seg-1.json').ops[1] as unknown[])[9]).toBeNull();
    expect(logFile(b, 'log/seg-1.json').ops[0]).toEqual(rotted);
    await first.s.close();
    // Still there, still reported, at the next open.
    const second = await opened(b, sealing);
    expect(unreadableIn(second.errors)).toEqual(['log/seg-1.json']);
    expect(await second.s.get('b')).toBeUndefined();
    await second.s.purge('a');
    expect(logFile(b, 'log/seg-1.json').ops[0]).toBeNull();
    await second.s.close();
  });

  it('GUAR-20: a damaged entry with no id to read (not even an array) is kept by a purge of another record', async () => {
    const b = await freshBackend();
    const s = await openOn(b, sealing);
    for (const id of ['a', 'b']) await s.set(id, { title: id });
    await s.close();
    const rotted = await damage(b, 'log/seg-1.json', 0, () => ({ rot: 'x' }));
    const { s: again, errors } = await opened(b, sealing);
    expect(unreadableIn(errors)).toEqual(['log/seg-1.json']);
    await again.purge('b');
    await again.close();
    expect(logFile(b, 'log/seg-1.json').ops[0]).toEqual(rotted);
  });

  it('GUAR-20: a damaged entry nested too deep to be written again (50,000 levels) is left out of the rewrite, which goes through: the purge and the seals after it work', async () => {
    const b = await freshBackend();
    const s = await openOn(b, sealing);
    for (const id of ['a', 'b']) await s.set(id, { title: id });
    await s.close();
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    await b.write('log/seg-1.json', (b.files().get('log/seg-1.json') as string).replace('"a"}', `${deep}}`));
    const { s: again, errors } = await opened(b, sealing);
    expect(unreadableIn(errors)).toEqual(['log/seg-1.json']);
    expect(errors[0].message).toContain('too deep');
    await again.purge('b');
    for (const id of ['c', 'd', 'e']) await again.set(id, { title: id });
    expect(errors.map((e) => e.code)).toEqual(['OP_UNREADABLE']);
    await again.close();
    expect(logFile(b, 'log/seg-1.json').ops[0]).toBeNull();
    const last = await opened(b, sealing);
    expect(await last.s.get('e')).toEqual({ title: 'e' });
    await last.s.close();
  });

  it('LOG-4: open batches read at open (one of an earlier version, no chain head, holding a damaged entry) are sealed with the entry as read', async () => {
    const b = await diedAfter(['a', 'b', 'c'], unsealed);
    const rotted = await damage(b, 'log/open/2.json', 0, rot, false);
    const { s, errors } = await opened(b, unsealed);
    expect(unreadableIn(errors)).toEqual(['log/open/2.json']);
    expect(internals(s).log.read(0).map((e) => e.pos)).toEqual([1, 3]);
    await s.close();
    expect(segmentFiles(b)).toEqual([1]);
    expect(logFile(b, 'log/seg-1.json').ops[1]).toEqual(rotted);
    const again = await opened(b, unsealed);
    expect(unreadableIn(again.errors)).toEqual(['log/seg-1.json']);
    expect(await again.s.get('c')).toEqual({ title: 'c' });
    await again.s.close();
  });

  it('LOG-4, GUAR-6: a seal that wrote the damaged entry into its segment, cut before index.json listed it, leaves a store that opens', async () => {
    const b = await diedAfter(['a', 'b', 'c'], unsealed);
    const rotted = await damage(b, 'log/open/2.json', 0, rot, false);
    const sealed = createMemoryBackend({ from: b.snapshot() });
    const { s } = await opened(sealed, unsealed);
    await s.close();
    expect(logFile(sealed, 'log/seg-1.json').ops[1]).toEqual(rotted);
    // The disk between the segment's write and index.json's: the segment there, unlisted, the batches still open.
    await b.write('log/seg-1.json', sealed.files().get('log/seg-1.json') as string);
    const { s: again, errors } = await opened(b, unsealed);
    expect(unreadableIn(errors)).toEqual(['log/open/2.json']);
    expect(await again.get('c')).toEqual({ title: 'c' });
    await again.close();
  });

  it('GUAR-20: with log.lines, a purge scrubbing an open file writes its damaged entry back as read', async () => {
    const b = await diedAfter(['a', 'b', 'c'], lined);
    const path = 'log/open/1.json';
    const lines = (b.files().get(path) as string).split('\n');
    const batch = JSON.parse(lines[1]) as { chain?: string; ops: unknown[] };
    batch.ops[0] = rot(batch.ops[0]);
    delete batch.chain;
    lines[1] = JSON.stringify(batch);
    await b.write(path, lines.join('\n'));
    const { s, errors } = await opened(b, lined);
    expect(unreadableIn(errors)).toEqual([path]);
    await s.purge('c');
    const after = (b.files().get(path) as string).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { ops: unknown[] });
    expect(after[1].ops[0]).toEqual(batch.ops[0]);
    await s.close();
  });
});
