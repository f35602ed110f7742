import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import type { SyncomError } from '../../src/errors';
import { OpLog } from '../../src/log/op-log';
import type { Op } from '../../src/op/types';
import { applyPeerOps, type Storage } from '../../src/storage';
import { internals } from '../../src/testing/internals';
import { freshBackend, indexJson, openOn, segmentFiles, T0 } from './helpers';

/**
 * A batch the load leaves out (it fails its chain check) was appended all
 * the same: the seqs it used in this node's own streams are counted at
 * open, and stay counted once a seal rolls its positions into a segment as
 * a hole, where no op shows them any more. Else the open after that signs
 * them again: two different ops of one origin and seq, one of which peers
 * may already hold.
 */

const unsealed = { now: () => T0, sync: { log: { rollAfter: 64 } } };

async function reopened(b: MemoryBackend, options: object = unsealed): Promise<{ s: Storage; errors: SyncomError[] }> {
  const errors: SyncomError[] = [];
  const s = await openOn(b, options);
  s.on('error', (e) => errors.push(e));
  await new Promise((r) => setImmediate(r));
  return { s, errors };
}

/** Wait for the record writes and seals the awaited writes left running. */
async function settled(s: Storage): Promise<void> {
  await internals(s).committer.idle();
  await (internals(s).committer as unknown as { persisting: Promise<void> }).persisting;
}

/** Writes r1..r3 (own seqs 1..3, a batch each), the process dies, and the last batch's text changes (its JSON still valid). */
async function damagedTail(): Promise<MemoryBackend> {
  const b = await freshBackend();
  const s = await openOn(b, unsealed);
  for (let i = 1; i <= 3; i++) await s.set(`r${i}`, { title: `tail-${i}` });
  await settled(s);
  const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
  await s.close();
  await disk.write('log/open/3.json', (disk.files().get('log/open/3.json') as string).replace('tail-3', 'tail-7'));
  return disk;
}

describe('own seqs of a batch left out at open, once a seal holds it as a hole', () => {
  it('GUAR-23, LOG-2, GUAR-6: closed without an own write after, the next open still counts them: the next own op is seq 4, not 3 again', async () => {
    const b = await damagedTail();
    const first = await reopened(b);
    expect(first.errors.map((e) => [e.code, e.file])).toEqual([['OP_UNREADABLE', 'log/open/3.json']]);
    expect(internals(first.s).log.vector[first.s.id]).toBe(3);
    // The close seals the batches, the one left out among them: its file goes, a hole in the segment.
    await first.s.close();
    expect(segmentFiles(b)).toEqual([1]);
    expect(indexJson(b).vector).toEqual({ [first.s.id]: 2 });
    const again = await reopened(b);
    expect(again.errors).toEqual([]);
    expect(internals(again.s).log.vector[again.s.id]).toBe(3);
    await again.s.set('next', { title: 'after' });
    const log = internals(again.s).log;
    expect(log.at(log.head)?.op.seq).toBe(4);
    await again.s.close();
  });

  it('GUAR-23, LOG-2, GUAR-6: sealed by rollAfter as a peer\'s ops come in, then the process dies: the next open does not sign seq 3 again', async () => {
    const b = await damagedTail();
    const peer = await openOn(createMemoryBackend(), unsealed);
    await peer.set('theirs', { title: 'peer-1' });
    const first = await reopened(b, { now: () => T0, sync: { log: { rollAfter: 2 } } });
    await applyPeerOps(first.s, peer.replica.read(0).map((e) => e.op), { via: { url: 'memory://peer', node: peer.id } });
    await settled(first.s);
    // Batches 1..4 sealed two at a time: the one left out (3) is a hole of seg-3, beside the peer's op.
    expect(segmentFiles(b)).toEqual([1, 3]);
    const disk = createMemoryBackend({ from: b.crash('none').snapshot() });
    await first.s.close();
    await peer.close();
    const again = await reopened(disk);
    const log = internals(again.s).log;
    expect([log.vector[again.s.id], log.vector[peer.id]]).toEqual([3, 1]);
    await again.s.set('next', { title: 'after' });
    expect(log.at(log.head)?.op).toMatchObject({ origin: again.s.id, seq: 4 });
    await again.s.close();
  });
});

/** A memory backend whose next write of log/index.json once armed waits until `release` is called; `held` resolves as it waits. */
function gatedIndex() {
  const backend = createMemoryBackend();
  const write = backend.write.bind(backend);
  const gate: { armed: boolean; release: () => void; held?: Promise<void>; hold?: () => void } = { armed: false, release: () => undefined };
  gate.held = new Promise<void>((r) => { gate.hold = r; });
  backend.write = async (path, data, o) => {
    if (path === 'log/index.json' && gate.armed) {
      gate.armed = false;
      const wait = new Promise<void>((r) => { gate.release = r; });
      gate.hold?.();
      await wait;
    }
    return write(path, data, o);
  };
  return { backend, gate };
}

const op = (seq: number): Op => ({ origin: 'me', seq, ts: T0 + seq, type: 'set', id: `r${seq}`, data: { n: seq } });

describe("index.json's raised counts", () => {
  it('LOG-5, LOG-23: a raise asked for while a seal writes index.json lands after it, and neither unlists the segment nor loses the raise', async () => {
    const { backend, gate } = gatedIndex();
    const { log } = await OpLog.open({ backend, rollAfter: 2, self: 'me' });
    for (const seq of [1, 2]) log.markRecorded(await log.append([{ op: op(seq) }]));
    gate.armed = true;
    const sealing = log.maybeSeal();
    await gate.held;
    const raising = log.raise({ me: 9 });
    gate.release();
    await Promise.all([sealing, raising]);
    expect(indexJson(backend)).toMatchObject({ segments: [{ from: 1, to: 2 }], vector: { me: 2 }, raised: { me: 9 } });
    const again = await OpLog.open({ backend, self: 'me' });
    expect(again.log.vector).toEqual({ me: 9 });
  });

  it('LOG-5: a raised count the sealed ops reach is no longer kept apart', async () => {
    const backend = createMemoryBackend();
    const { log } = await OpLog.open({ backend, rollAfter: 1, self: 'me' });
    await log.raise({ me: 2 });
    expect(indexJson(backend).raised).toEqual({ me: 2 });
    for (const seq of [3]) log.markRecorded(await log.append([{ op: op(seq) }]));
    await log.maybeSeal();
    expect(indexJson(backend).raised).toBeUndefined();
    expect(indexJson(backend).vector).toEqual({ me: 3 });
  });

  it('LOG-5: a raised count of another node\'s stream, or past 2^52 (rot: index.json has no checksum), is reported and left out; a count of its own is taken', async () => {
    const backend = createMemoryBackend();
    const { log } = await OpLog.open({ backend, self: 'me' });
    await log.raise({ 'me@a': 4 });
    const index = indexJson(backend);
    await backend.write('log/index.json', JSON.stringify({ ...index, raised: { ...(index.raised as object), peer: 7, me: 2 ** 52 + 1 } }));
    const errors: Error[] = [];
    const again = await OpLog.open({ backend, self: 'me', onError: (e) => errors.push(e) });
    expect(again.log.vector).toEqual({ 'me@a': 4 });
    expect(errors).toEqual([expect.objectContaining({ code: 'OP_UNREADABLE', file: 'log/index.json' })]);
    expect(errors[0].message).toMatch(/peer, me/);
  });
});
