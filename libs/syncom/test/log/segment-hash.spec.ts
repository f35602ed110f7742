import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { internals } from '../../src/testing/internals';
import { freshBackend, openOn, opened, segmentFiles, T0 } from './helpers';

/**
 * A sealed segment carries the hash of its ops as written (its `scrub`), so a
 * value or a signature changed on disk that leaves the file valid JSON is
 * seen at open: reported OP_UNREADABLE naming the segment, the entries whose
 * signature or digest fails left out (holes kept as read), the rest taken
 * (docs/guarantees.md, "What open() checks"). Before the hash, such a change
 * loaded as written and was served to peers.
 */

const sealing = { now: () => T0, sync: { log: { rollAfter: 2 } } };
const SEG = 'log/seg-1.json';

/** A store whose first segment holds the writes of a and b, one batch each. */
async function sealedAB(options: object): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, options);
  await s.set('a', { title: 'alpha' });
  await s.set('b', { title: 'bravo' });
  await s.close();
  expect(segmentFiles(b)).toEqual([1]);
  return b;
}

/** Replace `from` by `to` in the text of `path`, once, leaving every other byte as written. */
async function edit(b: MemoryBackend, path: string, from: string, to: string): Promise<void> {
  const text = b.files().get(path) as string;
  expect(text).toContain(from);
  await b.write(path, text.replace(from, to));
}

const unreadable = (errors: SyncomError[]) => errors.filter((e) => e.code === 'OP_UNREADABLE');

describe('the log: a sealed segment carries the hash of its ops', () => {
  it('a value changed in a sealed segment is reported at open; its op is left out, a hole, while the other op and both records stand', async () => {
    const b = await sealedAB(sealing);
    await edit(b, SEG, '"alpha"', '"alphA"');
    const { s, errors } = await opened(b, sealing);
    expect(unreadable(errors).map((e) => e.file)).toEqual([SEG]);
    expect(unreadable(errors)[0].message).toMatch(/do not match the hash written at its seal.*: 1 entries fail their signature or digest/);
    // The changed op is not taken (nor replayed, nor served); the record files still hold what was written.
    expect(internals(s).log.read(0).map((e) => e.op.id)).toEqual(['b']);
    expect(await s.get('a')).toEqual({ title: 'alpha' });
    expect(await s.get('b')).toEqual({ title: 'bravo' });
    await s.close();
    // Kept as read: the bytes are the operator's to salvage.
    expect(b.files().get(SEG)).toContain('"alphA"');
  });

  it('GUAR-20: a purge erases its record\'s changed op kept as read, and the rewrite keeps the hash it failed: the next open still reports the segment', async () => {
    const b = await sealedAB(sealing);
    await edit(b, SEG, '"alpha"', '"alphA"');
    const first = await opened(b, sealing);
    await first.s.purge('a');
    await first.s.close();
    expect(b.files().get(SEG)).not.toContain('alph');
    const again = await opened(b, sealing);
    expect(unreadable(again.errors).map((e) => e.file)).toEqual([SEG]);
    expect(await again.s.get('b')).toEqual({ title: 'bravo' });
    await again.s.close();
  });

  it('a purge\'s rewrite of a sound segment writes the hash of its new ops: the next open takes it without a report', async () => {
    const b = await sealedAB(sealing);
    const s = await openOn(b, sealing);
    await s.purge('a');
    await s.close();
    const again = await opened(b, sealing);
    expect(again.errors).toEqual([]);
    expect(await again.s.get('b')).toEqual({ title: 'bravo' });
    await again.s.close();
  });

  it('signatures off: a changed unsigned op cannot be checked, so it is taken as read, and the segment is still reported', async () => {
    const unsigned = { ...sealing, sync: { ...sealing.sync, signatures: false as const } };
    const b = await sealedAB(unsigned);
    await edit(b, SEG, '"alpha"', '"alphA"');
    const { s, errors } = await opened(b, unsigned);
    expect(unreadable(errors).map((e) => e.file)).toEqual([SEG]);
    expect(unreadable(errors)[0].message).toContain('2 unsigned ones taken as read, unchecked');
    expect(internals(s).log.read(0).map((e) => e.op.id)).toEqual(['a', 'b']);
    await s.close();
  });

  it('a segment sealed before segments carried a hash is read as before, entry by entry, with no report', async () => {
    const b = await sealedAB(sealing);
    const text = b.files().get(SEG) as string;
    await b.write(SEG, text.replace(/,"scrub":"[A-Za-z0-9_-]+"/, ''));
    await b.write('log/index.json', (b.files().get('log/index.json') as string).replace(',"hashed":true', ''));
    const { s, errors } = await opened(b, sealing);
    expect(errors).toEqual([]);
    expect(internals(s).log.read(0).map((e) => e.op.id)).toEqual(['a', 'b']);
    await s.close();
  });

  it('a sealed segment whose hash is gone, where index.json says it was sealed with one, is reported', async () => {
    const b = await sealedAB(sealing);
    await edit(b, SEG, '"scrub"', '"scrum"');
    const { s, errors } = await opened(b, sealing);
    expect(unreadable(errors).map((e) => e.file)).toEqual([SEG]);
    await s.close();
  });

  it('every one-character change of a sealed segment that leaves it valid JSON is seen at open: reported, or the store refused', async () => {
    const b = await sealedAB(sealing);
    const text = b.files().get(SEG) as string;
    let tried = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      const to = /[0-8]/.test(c) ? String(Number(c) + 1) : c === '9' ? '0' : /[a-y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : undefined;
      if (to === undefined) continue;
      const changed = text.slice(0, i) + to + text.slice(i + 1);
      try {
        JSON.parse(changed);
      } catch {
        continue;
      }
      tried++;
      const disk = createMemoryBackend({ from: b.snapshot() });
      await disk.write(SEG, changed);
      const seen = await opened(disk, sealing).then(
        async ({ s, errors }) => { await s.close(); return errors.some((e) => e.file === SEG || e.file === 'log/index.json'); },
        () => true,
      );
      if (!seen) throw new Error(`position ${i} ('${c}' -> '${to}') of ${SEG} went unseen: ${changed.slice(Math.max(0, i - 30), i + 30)}`);
    }
    // Digits and letters of stamps, seqs, ids, values, nonces, digests, signatures and the chain head.
    expect(tried).toBeGreaterThan(300);
  });
});
