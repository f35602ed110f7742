import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { logFileText } from '../../src/log/files';
import { SCRUB_FILE, scrubJournalText } from '../../src/log/scrub-journal';
import { generateSealingKeys } from '../../src/op';
import { applyPeerOps, type Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { freshBackend, indexJson, logFile, openBatches, openOn, segmentFiles, T0, reopenedWithErrors } from './helpers';

/**
 * A store directory damaged after it was written (bit rot, a partial copy or
 * restore, a file deleted or taken from another store), then opened. Where
 * the load cannot tell what the log holds, open() refuses (STORE_DAMAGED,
 * naming the file); where it can go on, it reports OP_UNREADABLE and leaves
 * a hole. Never does it lose acknowledged ops silently, serve changed data,
 * or sign a seq this node used.
 */

/** Seals every 2 batches; each awaited write below is one batch. */
const sealing = { now: () => T0, sync: { log: { rollAfter: 2 } } };
/** Nothing sealed in these few writes. */
const unsealed = { now: () => T0, sync: { log: { rollAfter: 64 } } };

/** Wait for the record writes and seals the awaited writes left running. */
async function settled(s: Storage): Promise<void> {
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { persisting: Promise<void> }).persisting;
}

async function writes(s: Storage, tag: string, from: number, to: number): Promise<void> {
  for (let i = from; i <= to; i++) await s.set(`${tag}${i}`, { i });
}

/** A store closed after writes 1..n (records r1..rn): segments seg-1, seg-3, ... of two batches each. */
async function closedStore(n: number, tag = 'r'): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, sealing);
  await writes(s, tag, 1, n);
  await s.close();
  return b;
}

/** The disk `b` leaves once writes from..to (unsealed) settled and the process died: their batches are open files. */
async function diedAfter(b: MemoryBackend, from: number, to: number, value = (i: number): Record<string, unknown> => ({ i })): Promise<MemoryBackend> {
  const s = await openOn(b, unsealed);
  for (let i = from; i <= to; i++) await s.set(`r${i}`, value(i));
  await settled(s);
  const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
  await s.close();
  return disk;
}

const copyOf = (b: MemoryBackend) => createMemoryBackend({ from: b.snapshot() });

const reopened = (b: MemoryBackend) => reopenedWithErrors(b, unsealed);

/** What open() rejected with (the test fails if it resolves). */
function refusal(b: MemoryBackend): Promise<unknown> {
  return openOn(b, unsealed).then(async (s) => { await s.close(); throw new Error('open() resolved'); }, (e: unknown) => e);
}

const codes = (errors: SyncomError[]) => errors.map((e) => [e.code, e.file]);

describe('the log: a store damaged after it was written', () => {
  it('LOG-5, LOG-8, GUAR-6: log/index.json lost, torn or not an index beside log files: open() refuses with STORE_DAMAGED naming it, and removes, writes and mints nothing', async () => {
    const b = await closedStore(6);
    expect(segmentFiles(b)).toEqual([1, 3, 5]);
    const index = b.files().get('log/index.json') as string;
    for (const damage of [undefined, index.slice(0, index.length >> 1), '', 'null', '{"epoch":"x"}']) {
      const d = copyOf(b);
      if (damage === undefined) await d.remove('log/index.json');
      else await d.write('log/index.json', damage);
      const before = new Map(d.files());
      expect(await refusal(d)).toMatchObject({ code: 'STORE_DAMAGED', file: 'log/index.json' });
      expect(new Map(d.files())).toEqual(before);
    }
    // Open batches only, nothing sealed yet: the same.
    const live = await diedAfter(await freshBackend(), 1, 2);
    await live.remove('log/index.json');
    expect(await refusal(live)).toMatchObject({ code: 'STORE_DAMAGED', file: 'log/index.json' });
    expect(openBatches(live)).toEqual([1, 2]);
    // index.json put back: the log is whole, and its epoch ends at its head (a reopen mints the next).
    const d = copyOf(b);
    await d.remove('log/index.json');
    await refusal(d);
    await d.write('log/index.json', index);
    const { s, errors } = await reopened(d);
    expect(internals(s).log.epochs.at(-1)).toEqual([(JSON.parse(index) as { epoch: string }).epoch, 6]);
    expect(internals(s).log.read(0)).toHaveLength(6);
    for (let i = 1; i <= 6; i++) expect(await s.get(`r${i}`)).toEqual({ i });
    await s.close();
    expect(errors).toEqual([]);
  });

  it('LOG-5: a segment entry of index.json that is not whole (a bit flipped) refuses the open, and no segment file is removed', async () => {
    const b = await closedStore(6);
    const entry = (indexJson(b).segments as Record<string, unknown>[])[1];
    for (const damaged of [{ to: 4 }, { from: 3, to: 2 }, { from: 2, to: 4 }, { from: '3', to: 4 }, { ...entry, chain: 7 }]) {
      const d = copyOf(b);
      const index = indexJson(d);
      (index.segments as unknown[])[1] = damaged;
      await d.write('log/index.json', JSON.stringify(index));
      expect(await refusal(d)).toMatchObject({ code: 'STORE_DAMAGED', file: 'log/index.json' });
      expect(segmentFiles(d)).toEqual([1, 3, 5]);
    }
  });

  it('LOG-4, GUAR-6: a segment index.json does not list is removed only as a crash leaves one (a seal cut before index.json listed it, its ops in the open batches); one past the sealed part the open batches do not hold refuses the open', async () => {
    const live = await diedAfter(await freshBackend(), 1, 3);
    const [one, two] = [logFile(live, 'log/open/1.json'), logFile(live, 'log/open/2.json')];
    await live.write('log/seg-1.json', logFileText(1, JSON.stringify([...one.ops, ...two.ops]), two.chain));
    const { s, errors } = await reopened(live);
    expect(segmentFiles(live)).toEqual([]);
    expect(internals(s).log.read(0).map((e) => e.pos)).toEqual([1, 2, 3]);
    await s.close();
    expect(errors).toEqual([]);
    // index.json older than the log (its last segment not listed): not a leftover, not removed.
    const b = await closedStore(6);
    const index = indexJson(b);
    (index.segments as unknown[]).pop();
    await b.write('log/index.json', JSON.stringify(index));
    expect(await refusal(b)).toMatchObject({ code: 'STORE_DAMAGED', file: 'log/seg-5.json' });
    expect(segmentFiles(b)).toEqual([1, 3, 5]);
  });

  it('LOG-4, GUAR-18: a segment a seal tore before index.json listed it (writes not atomic: OPFS at a power cut), or left empty, its positions in the open batches, is removed: the store opens whole, and the next seal writes it again', async () => {
    for (const torn of ['{"from":1,"ops":[["', '']) {
      const live = await diedAfter(await freshBackend(), 1, 3);
      await live.write('log/seg-1.json', torn);
      const { s, errors } = await reopened(live);
      expect(segmentFiles(live)).toEqual([]);
      expect(internals(s).log.read(0).map((e) => e.pos)).toEqual([1, 2, 3]);
      expect(await s.get('r2')).toEqual({ i: 2 });
      await s.close();
      expect(errors).toEqual([]);
      expect(segmentFiles(live)).toEqual([1]);
    }
  });

  it('LOG-3, GUAR-6: an open batch file a hundred million positions past the log\'s end (placed by hand) refuses the open at once, naming it, rather than keep that hole (3.7 GB and 30 s before; at 9e15 the load never ended)', async () => {
    for (const from of [100_000_004, 9e15]) {
      const live = await diedAfter(await freshBackend(), 1, 3);
      await live.write(`log/open/${from}.json`, logFileText(from, '[]', undefined));
      expect(await refusal(live)).toMatchObject({ code: 'STORE_DAMAGED', file: `log/open/${from}.json` });
    }
  });

  it('a record file named past 2^40 (records/9007199254740992.json, placed by hand) is no record file: the store opens, and its writes go to files of their own', async () => {
    const live = await diedAfter(await freshBackend(), 1, 3);
    await live.write('records/9007199254740992.json', '[]');
    await live.write('records/99999999999999999999.json', '[]');
    const { s } = await reopened(live);
    await s.set('after', { ok: true });
    await s.close();
    const again = await reopened(live);
    expect(await again.s.get('after')).toEqual({ ok: true });
    expect(await again.s.get('r2')).toEqual({ i: 2 });
    await again.s.close();
  });

  it('GUAR-23, LOG-2, GUAR-6: an open batch whose text changed after it was appended (a bit flipped, the JSON still valid) is reported OP_UNREADABLE and left out as a hole: never replayed, and its seq never signed again', async () => {
    const b = await diedAfter(await freshBackend(), 1, 3, (i) => ({ title: `tail-${i}` }));
    await b.write('log/open/3.json', (b.files().get('log/open/3.json') as string).replace('tail-3', 'tail-7'));
    const { s, errors } = await reopened(b);
    expect(codes(errors)).toEqual([['OP_UNREADABLE', 'log/open/3.json']]);
    const log = internals(s).log;
    expect(log.read(0).map((e) => e.pos)).toEqual([1, 2]);
    expect(log.batches.map((x) => [x.from, x.to])).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect(await s.get('r3')).toEqual({ title: 'tail-3' });
    await s.set('r4', { title: 'tail-4' });
    expect(log.at(4)?.op.seq).toBe(4);
    await s.close();
    // Sealed with its hole: the changed text is gone, the next open is clean.
    const again = await reopened(b);
    expect(await again.s.get('r3')).toEqual({ title: 'tail-3' });
    expect(internals(again.s).log.read(0).map((e) => e.pos)).toEqual([1, 2, 4]);
    await again.s.close();
    expect(again.errors).toEqual([]);
  });

  it('GUAR-23, LOG-2: a peer\'s op in a batch left out for its chain is not counted as held: its stream stays where it was, so the op comes again from a peer', async () => {
    const b = await freshBackend();
    const s = await openOn(b, unsealed);
    await s.set('mine', { title: 'own' });
    // A node of its own keys (freshBackend's are the same for every store of the process).
    const peer = await openOn(createMemoryBackend(), unsealed);
    await peer.set('theirs', { title: 'peer-1' });
    const ops = peer.replica.read(0).map((e) => e.op);
    await applyPeerOps(s, ops, { via: { url: 'memory://peer', node: peer.id } });
    await settled(s);
    const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
    await s.close();
    await peer.close();
    const [file, text] = [...disk.files()].find(([f, t]) => f.startsWith('log/open/') && t.includes('peer-1')) as [string, string];
    await disk.write(file, text.replace('peer-1', 'peer-7'));
    const { s: again, errors } = await reopened(disk);
    expect(codes(errors)).toEqual([['OP_UNREADABLE', file]]);
    const log = internals(again).log;
    expect([log.vector[again.id], log.vector[peer.id]]).toEqual([1, undefined]);
    await applyPeerOps(again, ops, { via: { url: 'memory://peer', node: peer.id } });
    expect(await again.get('theirs')).toEqual({ title: 'peer-1' });
    await again.close();
  });

  it('GUAR-20, GUAR-23: an open batch a purge rewrote loads with no report, by the hash of its new ops it carries, or without one (an earlier version\'s rewrite)', async () => {
    const b = await freshBackend();
    const s = await openOn(b, unsealed);
    await s.set('x', { title: 'secret' });
    await s.set('y', { title: 'kept' });
    await s.purge('x');
    await settled(s);
    const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
    await s.close();
    const line = disk.files().get('log/open/1.json') as string;
    expect(line).toMatch(/"scrub":"[\w-]{43}"/);
    const earlier = copyOf(disk);
    await earlier.write('log/open/1.json', line.replace(/,"scrub":"[\w-]{43}"/, ''));
    for (const d of [disk, earlier]) {
      const { s: again, errors } = await reopened(d);
      expect(internals(again).log.read(0).map((e) => e.pos)).toEqual([1, 2, 3]);
      expect(await again.get('y')).toEqual({ title: 'kept' });
      await again.close();
      expect(errors).toEqual([]);
    }
  });

  it('LOG-3, GUAR-6: an older open batch file deleted is reported OP_UNREADABLE with its positions and kept as a hole, from the first position after the sealed part; the batches after it load and the log goes on', async () => {
    const b = await diedAfter(await freshBackend(), 1, 4);
    await b.remove('log/open/2.json');
    const { s, errors } = await reopened(b);
    expect(codes(errors)).toEqual([['OP_UNREADABLE', 'log/open/2.json']]);
    expect(errors[0].message).toContain('2..2');
    const log = internals(s).log;
    expect(log.batches.map((x) => [x.from, x.to])).toEqual([[1, 1], [2, 2], [3, 3], [4, 4]]);
    expect(log.read(0).map((e) => e.pos)).toEqual([1, 3, 4]);
    expect(await s.get('r2')).toEqual({ i: 2 });
    await s.set('r5', { i: 5 });
    expect(log.head).toBe(5);
    await s.close();
    // The first open file after the sealed part: missing too.
    const c = await diedAfter(await closedStore(4), 5, 7);
    await c.remove('log/open/5.json');
    const second = await reopened(c);
    expect(codes(second.errors)).toEqual([['OP_UNREADABLE', 'log/open/5.json']]);
    expect(second.errors[0].message).toContain('5..5');
    expect(internals(second.s).log.batches.map((x) => x.from)).toEqual([5, 6, 7]);
    await second.s.close();
  });

  it('GUAR-20, GUAR-21, GUAR-22: log/scrub.json is finished only once it passes its checks: one whose text rotted, or whose text is not the file it names, is reported and let go, that file untouched; one an earlier version wrote (no hash) is still finished', async () => {
    const b = await closedStore(4);
    const seg = b.files().get('log/seg-3.json') as string;
    const chain = logFile(b, 'log/seg-3.json').chain as string;
    const rotted = { ...(JSON.parse(scrubJournalText('log/seg-3.json', seg)) as object), text: seg.replace('{"i":3}', '{"i":7}') };
    const journals = [
      JSON.stringify(rotted),
      scrubJournalText('log/seg-3.json', seg.replace(chain, 'x'.repeat(43))),
      scrubJournalText('log/seg-9.json', seg),
      '{"path":"log/seg-3.json","te',
    ];
    for (const journal of journals) {
      const d = copyOf(b);
      await d.write(SCRUB_FILE, journal);
      const { s, errors } = await reopened(d);
      expect(codes(errors)).toEqual([['OP_UNREADABLE', SCRUB_FILE]]);
      expect(d.files().get('log/seg-3.json')).toBe(seg);
      expect(d.files().has('log/seg-9.json')).toBe(false);
      expect(d.files().has(SCRUB_FILE)).toBe(false);
      expect(await s.get('r3')).toEqual({ i: 3 });
      await s.close();
    }
    // An open file's journal holding another log's batch at its position.
    const live = await diedAfter(await freshBackend(), 1, 2);
    const foreign = await diedAfter(await freshBackend(), 1, 2, (i) => ({ other: i }));
    const batch = live.files().get('log/open/1.json') as string;
    await live.write(SCRUB_FILE, scrubJournalText('log/open/1.json', foreign.files().get('log/open/1.json') as string));
    const open = await reopened(live);
    expect(codes(open.errors)).toEqual([['OP_UNREADABLE', SCRUB_FILE]]);
    expect(live.files().get('log/open/1.json')).toBe(batch);
    expect(await open.s.get('r1')).toEqual({ i: 1 });
    await open.s.close();
    // An earlier version's journal, the segment torn by the crash that cut its rewrite.
    const d = copyOf(b);
    await d.write(SCRUB_FILE, JSON.stringify({ path: 'log/seg-3.json', text: seg }));
    await d.overwrite('log/seg-3.json', seg.slice(0, seg.length >> 1));
    const { s, errors } = await reopened(d);
    expect(d.files().get('log/seg-3.json')).toBe(seg);
    expect(internals(s).log.read(0).map((e) => e.pos)).toEqual([1, 2, 3, 4]);
    await s.close();
    expect(errors).toEqual([]);
  });

  it('LOG-5, LOG-8: a sealed segment that is not the one index.json lists (another store\'s at its name) is reported OP_UNREADABLE and left out: none of its ops is taken; an index.json none of whose segments is there refuses the open', async () => {
    const b = await closedStore(6);
    const other = await closedStore(6, 'o');
    await b.write('log/seg-3.json', other.files().get('log/seg-3.json') as string);
    const { s, errors } = await reopened(b);
    expect(codes(errors)).toEqual([['OP_UNREADABLE', 'log/seg-3.json']]);
    const log = internals(s).log;
    expect(log.read(0).map((e) => [e.pos, e.op.id])).toEqual([[1, 'r1'], [2, 'r2'], [5, 'r5'], [6, 'r6']]);
    expect(await s.get('r3')).toEqual({ i: 3 });
    expect(await s.get('o3')).toBeUndefined();
    await s.close();
    // Another store's index.json: its epoch and vector are not this log's.
    const c = await closedStore(6);
    await c.write('log/index.json', other.files().get('log/index.json') as string);
    expect(await refusal(c)).toMatchObject({ code: 'STORE_DAMAGED', file: 'log/index.json' });
    expect(segmentFiles(c)).toEqual([1, 3, 5]);
  });

  it('GUAR-6: index.json saying positions are sealed that its segment does not hold, where open batches hold them, refuses the open: no batch file is removed', async () => {
    const b = await diedAfter(await closedStore(4), 5, 6);
    const index = indexJson(b);
    (index.segments as { to: number }[])[1].to = 6;
    await b.write('log/index.json', JSON.stringify(index));
    expect(await refusal(b)).toMatchObject({ code: 'STORE_DAMAGED', file: 'log/open/5.json' });
    expect(openBatches(b)).toEqual([5, 6]);
  });

  it('GUAR-23: index.json whose chain head is not its last segment\'s is reported, and the open batches after it are checked against the segment\'s head: none is taken for changed', async () => {
    const b = await diedAfter(await closedStore(4), 5, 6);
    const index = indexJson(b);
    await b.write('log/index.json', JSON.stringify({ ...index, chain: 'x'.repeat(43) }));
    const { s, errors } = await reopened(b);
    expect(codes(errors)).toEqual([['OP_UNREADABLE', 'log/index.json']]);
    expect(internals(s).log.read(0).map((e) => e.pos)).toEqual([1, 2, 3, 4, 5, 6]);
    await s.close();
    const after = indexJson(b) as { chain: string; segments: { chain: string }[] };
    expect(after.segments.map((x) => x.chain)).toContain(index.chain);
    expect(after.chain).toBe(after.segments[after.segments.length - 1].chain);
  });

  it('GUAR-19: a sealed segment whose entries do not open with keys/seal-private.pem (the pair replaced by another store\'s) says so, not that it is torn or missing', async () => {
    const b = await freshBackend();
    const s = await openOn(b, sealing);
    await s.set('p', { pin: 1 }, { sealed: true });
    await s.set('q', { x: 1 });
    await s.close();
    const pair = await generateSealingKeys();
    await b.write('keys/seal-public.pem', pair.publicPem);
    await b.write('keys/seal-private.pem', pair.privatePem);
    const { s: again, errors } = await reopened(b);
    const log = errors.filter((e) => String(e.file).startsWith('log/'));
    expect(codes(log)).toEqual([['OP_UNREADABLE', 'log/seg-1.json']]);
    expect(log[0].message).toContain('keys/seal-private.pem');
    expect(log[0].message).not.toContain('torn');
    expect(internals(again).log.read(0).map((e) => e.op.id)).toEqual(['q']);
    await again.close();
  });
});
