import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src';
import type { Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { chainBlock, logFileText } from '../../src/log/files';
import { nodeKeys, openBatches, openFiles, openLines, openOn, segmentFiles, T0 } from './helpers';

/**
 * The open part of the log with log.lines on a backend that appends: each
 * batch is one line of the newest open file (log/open/<from of its first
 * batch>.json), not a file of its own (the default, the spec's layout, and what
 * a backend without append, OPFS, always writes). Both layouts load, each
 * after the other.
 */

const options = { now: () => T0, sync: { log: { rollAfter: 4, lines: true } } };
/** Nothing sealed in these few writes. */
const unsealed = { now: () => T0, sync: { log: { rollAfter: 64, lines: true } } };

/** Wait for the record writes and seals the awaited writes left running. */
async function settled(s: Storage): Promise<void> {
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { persisting: Promise<void> }).persisting;
}

async function writes(s: Storage, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) await s.set(`r${i}`, { i });
}

/** The disk left after `n` awaited writes (records r1..rn) settled and the process died (its storage closed on the dead disk). */
async function diskAfter(n: number): Promise<MemoryBackend> {
  const b = createMemoryBackend({ files: await nodeKeys() });
  const s = await openOn(b, options);
  await writes(s, 1, n);
  await settled(s);
  const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
  await s.close();
  return disk;
}

/** The open files' text, by name. */
const texts = (b: MemoryBackend) => openFiles(b).map((n) => b.files().get(`log/open/${n}.json`) as string);

async function reopened(b: MemoryBackend, extra: Record<string, unknown> = {}) {
  const errors: SyncomError[] = [];
  const s = await openOn(b, { ...unsealed, ...extra });
  s.on('error', (e) => errors.push(e));
  await new Promise((r) => setImmediate(r));
  return { s, errors };
}

describe('the log: batches appended as lines of open files', () => {
  it('LOG-1, LOG-3, LOG-4: awaited writes add one line each to the newest open file; a file starts where a seal cuts, and a seal removes whole files', async () => {
    const b = createMemoryBackend({ files: await nodeKeys() });
    const s = await openOn(b, options);
    await writes(s, 1, 3);
    await settled(s);
    expect(openFiles(b)).toEqual([1]);
    expect(texts(b)[0].split('\n')).toHaveLength(4);
    expect(texts(b)[0].endsWith('\n')).toBe(true);
    expect(openBatches(b)).toEqual([1, 2, 3]);
    await writes(s, 4, 7);
    await settled(s);
    // Batches 1..4 and 5..8 were sealed: their files are gone, whole; 9 and 10 are lines of file 9.
    expect(segmentFiles(b)).toEqual([1, 5]);
    expect(openFiles(b)).toEqual([9]);
    expect(openBatches(b)).toEqual([9, 10]);
    await s.close();
    expect(openFiles(b)).toEqual([]);
    const again = await reopened(b);
    for (let i = 1; i <= 10; i++) expect(await again.s.get(`r${i}`)).toEqual({ i });
    await again.s.close();
    expect(again.errors).toEqual([]);
  });

  it('LOG-2: a directory of one file per batch (a backend without append) opens on one that appends, which goes on in a file of lines; and back', async () => {
    const old = createMemoryBackend({ files: await nodeKeys(), append: false });
    const s = await openOn(old, unsealed);
    await writes(s, 1, 3);
    await settled(s);
    expect(openFiles(old)).toEqual([1, 2, 3]);
    // One batch a file, its newline after it (written with it: a file that has it was written whole).
    expect(texts(old).every((t) => t.indexOf('\n') === t.length - 1)).toBe(true);
    const b = createMemoryBackend({ from: old.crash('none').snapshot() });
    const one = await reopened(b);
    await writes(one.s, 4, 2);
    await settled(one.s);
    // The three old files stay (not sealed yet); the new batches are lines of a file of their own.
    expect(openFiles(b)).toEqual([1, 2, 3, 4]);
    expect(openLines(b).get(5)?.path).toBe('log/open/4.json');
    const back = createMemoryBackend({ from: b.crash('none').snapshot(), append: false });
    const two = await reopened(back);
    for (let i = 1; i <= 5; i++) expect(await two.s.get(`r${i}`)).toEqual({ i });
    expect(internals(two.s).log.head).toBe(5);
    await two.s.close();
    expect([...one.errors, ...two.errors]).toEqual([]);
  });

  it('GUAR-6, LOG-1: a torn last line (an append a crash cut) is dropped without a report, and its position is written again', async () => {
    const disk = await diskAfter(2);
    const file = disk.files().get('log/open/1.json') as string;
    await disk.write('log/open/1.json', `${file}{"from":3,"chain":"x","ops":[[1,`);
    const { s: again, errors } = await reopened(disk);
    expect(internals(again).log.head).toBe(2);
    await again.set('r3', { i: 3 });
    await settled(again);
    expect(openLines(disk).get(3)?.path).toBe('log/open/3.json');
    await again.close();
    expect(errors).toEqual([]);
    // The torn line is cut off file 1 by the reopen; the file after it starts at its position.
    const third = await reopened(createMemoryBackend({ from: disk.crash('none').snapshot() }));
    expect(await third.s.get('r3')).toEqual({ i: 3 });
    await third.s.close();
    expect(third.errors).toEqual([]);
  });

  it('LIFE-19: a torn line that is not the last is damage: reported OP_UNREADABLE, its positions a hole, the lines after it kept', async () => {
    const disk = await diskAfter(3);
    const lines = (disk.files().get('log/open/1.json') as string).split('\n');
    lines[1] = '\u0000\u0000garbage';
    await disk.write('log/open/1.json', lines.join('\n'));
    const { s: again, errors } = await reopened(disk);
    expect(errors.map((e) => [e.code, (e as { file?: string }).file])).toEqual([['OP_UNREADABLE', 'log/open/1.json']]);
    const log = internals(again).log;
    expect(log.read(0).map((e) => e.pos)).toEqual([1, 3]);
    expect(log.head).toBe(3);
    // The records kept the write the hole holds; the next op takes a new position.
    expect(await again.get('r2')).toEqual({ i: 2 });
    await again.set('r4', { i: 4 });
    expect(log.head).toBe(4);
    await again.close();
  });

  it('GUAR-6, GUAR-9: a line left by a failed append the backend could not cut back is superseded by the file the next append started', async () => {
    const disk = await diskAfter(2);
    const file = disk.files().get('log/open/1.json') as string;
    // Batch 3 landed whole in file 1 but its append failed; the next append started file 3 with another batch 3.
    const line3 = file.split('\n')[1].replace('"from":2', '"from":3');
    await disk.write('log/open/1.json', `${file}${line3}\n`);
    const other = createMemoryBackend({ files: await nodeKeys() });
    const o = await openOn(other, options);
    await writes(o, 1, 3);
    await settled(o);
    // That append chained to batch 2: a failed append never moves the chain.
    const ops = JSON.stringify(JSON.parse((other.files().get('log/open/1.json') as string).split('\n')[2]).ops);
    const chain2 = (JSON.parse(file.split('\n')[1]) as { chain: string }).chain;
    await disk.write('log/open/3.json', `${logFileText(3, ops, chainBlock(chain2, ops))}\n`);
    const { s: again, errors } = await reopened(disk);
    const log = internals(again).log;
    expect(log.batches.map((x) => [x.from, x.file])).toEqual([[1, 1], [2, 1], [3, 3]]);
    await Promise.all([again.close(), o.close()]);
    expect(errors).toEqual([]);
  });

  it('GUAR-20, GUAR-21: a purge rewrites the open file in place and the next append goes to a new file, so a crash tearing the rewrite is reported, never taken for a cut append', async () => {
    const b = createMemoryBackend({ files: await nodeKeys() });
    const s = await openOn(b, { ...unsealed, durable: true });
    await s.set('p', { secret: 'SECRET' });
    await s.set('q', { i: 1 });
    await s.purge('p');
    await settled(s);
    const names = openFiles(b);
    expect(names).toEqual([1, 4]);
    expect(b.files().get('log/open/1.json')).not.toContain('SECRET');
    expect(b.files().get('log/open/4.json')).toBe('');
    await s.set('r', { i: 2 });
    await settled(s);
    expect(openLines(b).get(4)?.path).toBe('log/open/4.json');
    // A tear inside the rewrite of file 1 that no scrub journal finishes (a backend whose writes are not atomic).
    const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
    const text = disk.files().get('log/open/1.json') as string;
    await disk.write('log/open/1.json', text.slice(0, text.length - 20) + '\u0000'.repeat(20));
    const { s: again, errors } = await reopened(disk, { durable: true });
    expect(errors.map((e) => e.code)).toEqual(['OP_UNREADABLE']);
    // The hole keeps the torn batch's position: the next op does not take it.
    expect(internals(again).log.head).toBe(4);
    expect(await again.get('r')).toEqual({ i: 2 });
    await again.close();
    await s.close();
  });
});
