import { internals } from '../../src/testing/internals';
import { createMemoryBackend, type MemoryBackend } from '../../src/backend';
import { SyncomError } from '../../src/errors';
import { hasPayload, isScrubbed, type Op, PAYLOAD_FIELDS, verifyOps } from '../../src/op';
import { open } from '../../src/open';
import { applyPeerOps, type Storage } from '../../src/storage';
import { FAN } from '../../src/storage/records';
import { SCRUB_FILE } from '../../src/log/scrub-journal';
import { fileOps, freshBackend, logFile, logPaths, openBatches, openOn, recording, segmentFiles, T0 } from './helpers';

const SECRET = 'SECRET-7f3a9c';

/** Files (any kind) whose content holds the string. */
function filesHolding(b: MemoryBackend, text: string): string[] {
  return [...b.files()].filter(([, content]) => content.includes(text)).map(([p]) => p);
}

/** Every op of every log file, with the file it sits in. */
function allLogOps(b: MemoryBackend): { path: string; op: Op }[] {
  return logPaths(b).flatMap((path) => fileOps(b, path).filter((o): o is Op => o !== null).map((op) => ({ path, op })));
}

/**
 * x written over five batches, y beside it: with rollAfter 3, positions 1-3
 * are sealed into seg-1 and 4-6 sit in open/4.json when x is purged.
 */
async function setup(b: MemoryBackend | ReturnType<typeof recording>['backend']): Promise<Storage> {
  const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 3 } } });
  await s.set('x', { title: SECRET, body: `${SECRET}-body` });
  await s.set('y', { title: 'keep-y', tags: 'plain' });
  await s.update('x', { note: `${SECRET}-note` });
  await Promise.all([
    s.inc('x', `${SECRET}-counter`, 2),
    s.add('x', 'tags', [`${SECRET}-tag`]),
    s.update('y', { title: 'keep-y-2' }),
  ]);
  await internals(s).committer.idle();
  return s;
}

/**
 * A purge whose process died inside the rewrite of seg-1 (its journal
 * written whole), seg-1 left as node:fs leaves it when the process dies
 * between the rewrite's write and its cut: the new text, then the old
 * one's tail. The crashed disk and the journal.
 */
async function tornScrub(): Promise<{ disk: MemoryBackend; journal: { path: string; text: string } }> {
  const b = await freshBackend();
  const s = await setup(b);
  const old = b.files().get('log/seg-1.json') as string;
  b.crashAt(1, { ops: ['overwrite'] });
  await s.purge('x').catch(() => undefined);
  await internals(s).committer.idle();
  const disk = b.crash('none');
  const journal = JSON.parse(disk.files().get(SCRUB_FILE) as string) as { path: string; text: string };
  await disk.overwrite('log/seg-1.json', journal.text + old.slice(journal.text.length));
  return { disk, journal };
}

describe('the log: purge scrubs the id from every log file', () => {
  it('OPS-11, SIG-10, GUAR-20: purge strips payload and nonce of every entry of the id in open batches and sealed segments; header, sig and digest stay and still verify', async () => {
    const b = await freshBackend();
    const s = await setup(b);
    expect(segmentFiles(b)).toEqual([1]);
    expect(openBatches(b)).toEqual([4]);
    const before = allLogOps(b);
    const xBefore = before.filter((e) => e.op.id === 'x');
    expect(xBefore.map((e) => [e.path, e.op.type])).toEqual([
      ['log/seg-1.json', 'write'], ['log/seg-1.json', 'set'], ['log/open/4.json', 'inc'], ['log/open/4.json', 'add'],
    ]);
    expect(filesHolding(b, SECRET).filter((p) => p.startsWith('log/'))).toEqual(['log/open/4.json', 'log/seg-1.json']);

    await s.purge('x');
    await internals(s).committer.idle();

    const after = allLogOps(b);
    const xAfter = after.filter((e) => e.op.id === 'x');
    expect(xAfter.map((e) => [e.path, e.op.type])).toEqual([
      ['log/seg-1.json', 'write'], ['log/seg-1.json', 'set'], ['log/open/4.json', 'inc'], ['log/open/4.json', 'add'],
      ['log/open/7.json', 'purge'],
    ]);
    for (const [i, { op }] of xAfter.slice(0, 4).entries()) {
      const was = xBefore[i].op;
      expect(isScrubbed(op)).toBe(true);
      expect(hasPayload(op)).toBe(false);
      for (const f of PAYLOAD_FIELDS) expect(op[f]).toBeUndefined();
      expect(op.nonce).toBeUndefined();
      // Header, sig and digest as they were.
      const { data: _d, key: _k, value: _v, meta: _m, vector: _w, nonce: _n, ...header } = was;
      expect(op).toEqual(header);
      expect(op.sig).toBe(was.sig);
      expect(op.digest).toBe(was.digest);
      expect(op.digest).toEqual(expect.any(String));
    }
    expect(await verifyOps(xAfter.map((e) => e.op))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    // The other id's entries are untouched, byte for byte.
    const packedY = (path: string) => logFile(b, path).ops.filter((p) => (p as unknown[])[4] === 'y');
    expect(after.filter((e) => e.op.id === 'y')).toEqual(before.filter((e) => e.op.id === 'y'));
    expect(packedY('log/seg-1.json')).toHaveLength(1);
    expect(await verifyOps(after.map((e) => e.op))).toEqual(after.map(() => 'ok'));
    // No file holds the purged data any more: log, records, index.
    expect(filesHolding(b, SECRET)).toEqual([]);
    expect(await s.get('x')).toBeUndefined();
    expect(await s.has('x')).toBe(false);
    expect(await s.get('y')).toEqual({ title: 'keep-y-2', tags: 'plain' });
    await s.close();
    expect(filesHolding(b, SECRET)).toEqual([]);
  });

  it('GUAR-20: the scrub rewrites the log files in place (overwrite, no rename)', async () => {
    const inner = await freshBackend();
    const rec = recording(inner);
    const s = await setup(rec.backend);
    const mark = rec.calls.length;
    await s.purge('x');
    const logCalls = rec.calls.slice(mark).filter((c) => c.path.startsWith('log/') && c.path !== 'log/index.json');
    expect(logCalls.filter((c) => c.op === 'overwrite').map((c) => c.path).sort()).toEqual(['log/open/4.json', 'log/seg-1.json']);
    // Besides the purge's own batch, no log file was written or removed: each rewrite's journal (whole, before it) is no log file.
    expect(logCalls.filter((c) => c.op !== 'overwrite').map((c) => `${c.op} ${c.path}`)).toEqual([
      'write log/open/7.json', `write ${SCRUB_FILE}`, `write ${SCRUB_FILE}`, `remove ${SCRUB_FILE}`,
    ]);
    const journaled = rec.calls.slice(mark).filter((c) => c.path === SCRUB_FILE && c.op === 'write').map((c) => JSON.parse(c.data as string) as { path: string; text: string });
    for (const j of journaled) expect(inner.files().get(j.path)).toBe(j.text);
    await s.close();
  });

  it('OPS-11: a purge in the same batch as writes of the id scrubs them too, and the sealed segment holds no payload', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 2 } } });
    await s.set('x', { title: SECRET });
    await Promise.all([s.update('x', { title: `${SECRET}-2` }), s.set('y', { title: 'y' }), s.purge('x')]);
    await internals(s).committer.idle();
    expect(segmentFiles(b)).toEqual([1]);
    expect(filesHolding(b, SECRET)).toEqual([]);
    const xs = fileOps(b, 'log/seg-1.json').filter((o): o is Op => o?.id === 'x');
    expect(xs.map((o) => [o.type, isScrubbed(o)])).toEqual([['write', true], ['set', true], ['purge', false]]);
    expect(await verifyOps(xs)).toEqual(['ok', 'ok', 'ok']);
    await s.close();
  });

  it('OPS-11, GUAR-20: after a reopen the purged id stays scrubbed and purged; its writes still reject with PURGED', async () => {
    const b = await freshBackend();
    const s = await setup(b);
    await s.purge('x');
    await internals(s).committer.idle();
    // Crash without close: open/ still holds the scrubbed batch.
    const b2 = b.crash('none');
    const s2 = await openOn(b2, { now: () => T0, sync: { log: { rollAfter: 3 } } });
    expect(await s2.get('x')).toBeUndefined();
    expect(await s2.get('y')).toEqual({ title: 'keep-y-2', tags: 'plain' });
    const xs = internals(s2).log.read(0).filter((e) => e.op.id === 'x').map((e) => e.op);
    expect(xs.map((o) => [o.type, isScrubbed(o)])).toEqual([['write', true], ['set', true], ['inc', true], ['add', true], ['purge', false]]);
    await expect(s2.set('x', { title: 'back' })).rejects.toMatchObject({ code: 'PURGED' });
    await s2.close();
    expect(filesHolding(b2, SECRET)).toEqual([]);
  });

  it('OPS-10: a write to a purged id rejects with code PURGED and logs nothing', async () => {
    const b = await freshBackend();
    const s = await setup(b);
    await s.purge('x');
    const head = internals(s).log.head;
    const writes: Promise<unknown>[] = [
      s.set('x', { title: 'again' }), s.update('x', { title: 'again' }), s.inc('x', 'n', 1), s.add('x', 'tags', ['a']),
      s.remove('x', 'tags', [`${SECRET}-tag`]), s.delete('x'), s.saveData('x', { title: 'again' }),
    ];
    for (const p of writes) {
      await expect(p).rejects.toBeInstanceOf(SyncomError);
      await expect(p).rejects.toMatchObject({ code: 'PURGED' });
    }
    await internals(s).committer.idle();
    expect(internals(s).log.head).toBe(head);
    await s.close();
  });

  describe('with signatures: false (no digest on any op)', () => {
    const opts = { now: () => T0, sync: { signatures: false as const, log: { rollAfter: 3 } } };

    async function purgedUnsigned(b: MemoryBackend): Promise<Storage> {
      const s = await openOn(b, opts);
      await s.set('x', { title: SECRET });
      await s.add('x', 'tags', [`${SECRET}-tag`]);
      await s.set('y', { title: 'keep-y' });
      await s.inc('x', 'n', 1);
      await s.purge('x');
      await internals(s).committer.idle();
      expect(filesHolding(b, SECRET)).toEqual([]);
      return s;
    }

    it('OPS-11, SIG-10: the scrubbed entries of a purged id read back after a reopen: no OP_UNREADABLE, no hole in the log', async () => {
      const b = await freshBackend();
      const s = await purgedUnsigned(b);
      await s.close();
      const errors: SyncomError[] = [];
      const s2 = await openOn(b.crash('none'), opts);
      s2.on('error', (e) => errors.push(e));
      await new Promise((r) => setImmediate(r)); // open() reports what it met on the next turn
      expect(errors.map((e) => e.code)).toEqual([]);
      const entries = internals(s2).log.read(0);
      expect(entries.map((e) => e.pos)).toEqual([1, 2, 3, 4, 5]);
      expect(entries.map((e) => [e.op.id, e.op.type])).toEqual([['x', 'write'], ['x', 'add'], ['y', 'write'], ['x', 'inc'], ['x', 'purge']]);
      expect(await s2.get('y')).toEqual({ title: 'keep-y' });
      expect(await s2.get('x')).toBeUndefined();
      await s2.close();
    });

    it('OPS-11, SIG-11: a peer resuming across the scrubbed entries takes them as no-ops, not as malformed ops (no gap)', async () => {
      const b = await freshBackend();
      const s = await purgedUnsigned(b);
      const feed = internals(s).log.read(0).map((e) => e.op);
      await s.close();
      const peer = await open({ path: 'peer', backend: createMemoryBackend(), now: () => T0, sync: { signatures: false } });
      const r = await applyPeerOps(peer, feed, { via: { url: 'memory://n', node: s.id } });
      expect({ malformed: r.malformed, gaps: r.gaps }).toEqual({ malformed: 0, gaps: 0 });
      expect(internals(peer).log.vector[s.id]).toBe(5);
      expect(await peer.get('y')).toEqual({ title: 'keep-y' });
      expect(await peer.get('x')).toBeUndefined();
      await peer.close();
    });
  });

  it('GUAR-22: purge is idempotent: purging a purged id again resolves and leaves it purged', async () => {
    const b = await freshBackend();
    const s = await setup(b);
    await s.purge('x');
    await expect(s.purge('x')).resolves.toBeUndefined();
    expect(await s.get('x')).toBeUndefined();
    expect(filesHolding(b, SECRET)).toEqual([]);
    await s.close();
  });

  it('GUAR-22: a scrub that failed part-way is finished by purging again', async () => {
    const b = await freshBackend();
    const s = await setup(b);
    const errors: SyncomError[] = [];
    s.on('error', (e) => errors.push(e));
    // The first in-place rewrite of a log file fails.
    b.failAt(1, { ops: ['overwrite'] });
    await s.purge('x');
    await internals(s).committer.idle();
    expect(errors.map((e) => e.code)).toContain('IO_ERROR');
    expect(await s.get('x')).toBeUndefined();
    expect(filesHolding(b, SECRET).length).toBeGreaterThan(0);
    // Running it again finishes the scrub (GUAR-22: "Idempotent: run it again").
    await s.purge('x');
    await internals(s).committer.idle();
    expect(filesHolding(b, SECRET)).toEqual([]);
    await s.close();
  });

  it('GUAR-17, GUAR-22: a power cut that undoes the (unsynced) removal of old record files brings the data back; purging again clears it', async () => {
    const b = await freshBackend();
    const opts = { now: () => T0, durable: true };
    const s = await openOn(b, opts);
    // A record file each (idle() writes the records that wait): FAN of them are merged into one and removed.
    await s.set('x', { title: SECRET });
    await internals(s).committer.idle();
    for (let i = 1; i < FAN; i++) {
      await s.set(`r${i}`, { title: `r${i}` });
      await internals(s).committer.idle();
    }
    await s.purge('x');
    await internals(s).committer.idle();
    expect(filesHolding(b, SECRET)).toEqual([]);
    const b2 = b.crash('lost');
    // The removed record file holding x came back.
    expect(filesHolding(b2, SECRET).some((p) => p.startsWith('records/'))).toBe(true);
    const s2 = await openOn(b2, opts);
    expect(await s2.get('x')).toBeUndefined();
    await s2.purge('x');
    await internals(s2).committer.idle();
    expect(filesHolding(b2, SECRET)).toEqual([]);
    await s2.close();
  });

  it('GUAR-20, GUAR-21, GUAR-22: a process killed inside a rewrite in place (its bytes written, the old tail not cut yet) leaves the file torn; the scrub journal has the next open finish it, with no hole and no error', async () => {
    const { disk, journal } = await tornScrub();
    expect(journal.path).toBe('log/seg-1.json');
    expect(journal.text).not.toContain(SECRET);
    expect(() => JSON.parse(disk.files().get('log/seg-1.json') as string)).toThrow();
    const errors: string[] = [];
    const s2 = await openOn(disk, { now: () => T0, sync: { log: { rollAfter: 3 } } });
    s2.on('error', (e) => void errors.push(e.code));
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([]);
    expect(disk.files().get('log/seg-1.json')).toBe(journal.text);
    expect(disk.files().has(SCRUB_FILE)).toBe(false);
    expect(internals(s2).log.read(0).map((e) => e.pos)).toEqual(Array.from({ length: internals(s2).log.head }, (_, i) => i + 1));
    expect(await s2.get('x')).toBeUndefined();
    expect(await s2.get('y')).toEqual({ title: 'keep-y-2', tags: 'plain' });
    // The purge's other file (open/4.json) was never reached: purging again finishes it.
    await s2.purge('x');
    await internals(s2).committer.idle();
    expect(filesHolding(disk, SECRET)).toEqual([]);
    await s2.close();
  });

  it('GUAR-21: a rewrite torn with no journal left (a backend whose writes are not atomic, a journal a power cut lost) is reported OP_UNREADABLE, its positions a hole', async () => {
    const { disk } = await tornScrub();
    await disk.remove(SCRUB_FILE);
    const errors: { code: string; file?: unknown }[] = [];
    const s2 = await openOn(disk, { now: () => T0, sync: { log: { rollAfter: 3 } } });
    s2.on('error', (e) => void errors.push(e));
    await new Promise((r) => setImmediate(r));
    expect(errors).toEqual([expect.objectContaining({ code: 'OP_UNREADABLE', file: 'log/seg-1.json' })]);
    expect(await s2.get('y')).toEqual({ title: 'keep-y-2', tags: 'plain' });
    await s2.close();
  });

  it('GUAR-21, GUAR-22: after a crash mid-scrub, a reopen and a second purge finish the scrub', async () => {
    const b = await freshBackend();
    const s = await setup(b);
    // The purge's batch (1 write) and its record file (1 write) land, then the process dies in the scrub.
    b.crashAt(3);
    await s.purge('x').catch(() => undefined);
    await internals(s).committer.idle();
    const b2 = b.crash('none');
    expect(filesHolding(b2, SECRET).length).toBeGreaterThan(0);
    const s2 = await openOn(b2, { now: () => T0, sync: { log: { rollAfter: 3 } } });
    expect(await s2.get('x')).toBeUndefined();
    await s2.purge('x');
    await internals(s2).committer.idle();
    expect(filesHolding(b2, SECRET)).toEqual([]);
    await s2.close();
  });
});
