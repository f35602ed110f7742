import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import { applyPeerOps, type Storage } from '../../src/storage';
import { salvageEntries } from '../../src/log/salvage';
import { internals } from '../../src/testing/internals';
import { freshBackend, openOn, T0, reopenedWithErrors } from './helpers';

const unsealed = { now: () => T0, sync: { log: { rollAfter: 64 } } };

const reopened = (b: MemoryBackend) => reopenedWithErrors(b, unsealed);

/**
 * One byte rotted in an open batch that is not the newest makes its JSON
 * unparseable: the load reports it and keeps its positions a hole. Its own
 * ops were appended (and maybe pushed) all the same; when no later batch
 * holds an own op, nothing else showed their seqs, and the next write signed
 * one of them again: two ops of one origin and seq.
 */

/** Own writes r1 and r2 (batches 1 and 2), then a peer's op (batch 3); the process dies; batch 2 no longer parses. */
async function rotted(): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, unsealed);
  await s.set('r1', { title: 'one' });
  await s.set('r2', { title: 'two' });
  const peer = await openOn(createMemoryBackend(), unsealed);
  await peer.set('theirs', { title: 'peer' });
  await applyPeerOps(s, peer.replica.read(0).map((e) => e.op), { via: { url: 'memory://peer', node: peer.id } });
  await internals(s).committer.idle();
  const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
  await s.close();
  await peer.close();
  const text = disk.files().get('log/open/2.json') as string;
  await disk.write('log/open/2.json', text.replace('"ops":[', '"ops":{'));
  return disk;
}

const ownSeqs = (s: Storage) => internals(s).log.read(0).filter((e) => e.op.origin === s.id).map((e) => e.op.seq);

describe('the log: an open batch that no longer parses, not the newest', () => {
  it('LOG-2, GUAR-6: the seqs of this node\'s own ops in it are not signed again', async () => {
    const disk = await rotted();
    const { s: again, errors } = await reopened(disk);
    expect(errors.map((e) => [e.code, e.file])).toEqual([['OP_UNREADABLE', 'log/open/2.json']]);
    await again.set('r3', { title: 'three' });
    const own = ownSeqs(again);
    await again.close();
    expect(own).toEqual([1, 3]);
  });

  it('LOG-2, LOG-4: once a seal made it a hole of a segment, the next open still does not sign them again', async () => {
    const disk = await rotted();
    const first = await reopened(disk);
    await first.s.close();
    expect([...disk.files().keys()].filter((p) => p.startsWith('log/open/'))).toEqual([]);
    const { s: again } = await reopened(disk);
    await again.set('r3', { title: 'three' });
    const own = ownSeqs(again);
    await again.close();
    expect(own).toEqual([1, 3]);
  });
});

type Options = Parameters<typeof reopenedWithErrors>[1];

/** Own writes r1 and r2 under `options`; the process dies; `damage` is done to `file`'s text. */
async function afterTwo(options: Options, file: string, damage: (text: string) => string): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, options);
  await s.set('r1', { title: 'one' });
  await s.set('r2', { title: 'two' });
  await internals(s).committer.idle();
  const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
  await s.close();
  await disk.write(file, damage(disk.files().get(file) as string));
  return disk;
}

/** Open `disk` again and write r3: what the open reported, and the own seqs and the positions of the log after. */
async function writeAfter(disk: MemoryBackend, options: Options): Promise<{ errors: [string, unknown][]; own: number[]; at: number[] }> {
  const { s, errors } = await reopenedWithErrors(disk, options);
  await s.set('r3', { title: 'three' });
  const own = ownSeqs(s);
  const at = internals(s).log.read(0).map((e) => e.pos);
  await s.close();
  return { errors: errors.map((e) => [e.code, e.file]), own, at };
}

describe('the log: the newest line of an open file, whole but no longer parsing (log.lines)', () => {
  const lined = { now: () => T0, sync: { log: { rollAfter: 64, lines: true } } };

  it('LOG-2, GUAR-6: its newline shows the append finished: it is damage, not an append cut short, and neither its seqs nor its positions are used again', async () => {
    const disk = await afterTwo(lined, 'log/open/1.json', (text) => {
      const lines = text.split('\n');
      expect(lines).toHaveLength(3);
      lines[1] = lines[1].replace('"ops":[', '"ops":{');
      return lines.join('\n');
    });
    const { errors, own, at } = await writeAfter(disk, lined);
    expect(errors).toEqual([['OP_UNREADABLE', 'log/open/1.json']]);
    expect(own).toEqual([1, 3]);
    expect(at[1]).toBeGreaterThan(2);
  });
});

describe('the log: the newest batch file (one batch a file), whole but no longer parsing', () => {
  it('LOG-2, GUAR-6: the newline written with it shows the write finished: it is damage, not a write cut short, and neither its seqs nor its positions are used again', async () => {
    const disk = await afterTwo(unsealed, 'log/open/2.json', (text) => {
      expect(text.endsWith('\n')).toBe(true);
      return text.replace('"ops":[', '"ops":{');
    });
    const { errors, own, at } = await writeAfter(disk, unsealed);
    expect(errors).toEqual([['OP_UNREADABLE', 'log/open/2.json']]);
    expect(own).toEqual([1, 3]);
    expect(at[1]).toBeGreaterThan(2);
  });

  it('GUAR-6: one without its newline (cut short, or written by an earlier version) is a write cut short: dropped without a report, its position and seq written again', async () => {
    const disk = await afterTwo(unsealed, 'log/open/2.json', (text) => text.slice(0, text.length - 10));
    expect(await writeAfter(disk, unsealed)).toEqual({ errors: [], own: [1, 2], at: [1, 2] });
  });
});

describe('salvageEntries', () => {
  it('finds the whole entries of one origin in a line that does not parse, brackets and quotes in strings skipped, a rotted one left out', () => {
    const a = ['me', 4, 1, 'write', 'x', '*', null, null, null, { t: 'a ] ["me", [' }];
    const b = ['me', 5, 1, 'write', 'y', '*', null, null, null, { t: [[1], 2] }];
    const text = `{"from":7,"ops":[${JSON.stringify(a)},["other",1],${JSON.stringify(b)},["me",6,1,"wr}ite"`;
    expect(salvageEntries(text, 'me')).toEqual([a, b]);
    expect(salvageEntries(text.replace('"from":7', '"from":7,'), 'nobody')).toEqual([]);
  });
});
