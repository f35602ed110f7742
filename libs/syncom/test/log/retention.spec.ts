import { internals } from '../../src/testing/internals';
import { createMemoryBackend } from '../../src/backend';
import type { LogEvent } from '../../src/log';
import type { Op } from '../../src/op';
import { open } from '../../src/open';
import { applyPeerOps, type Storage } from '../../src/storage';
import { DAY, freshBackend, indexJson, openBatches, openOn, segmentFiles, T0 } from './helpers';

/** Write `batches` batches of `per` concurrent ops each, on a few records. */
async function writeBatches(s: Storage, batches: number, per: number, tag = ''): Promise<void> {
  for (let i = 0; i < batches; i++) {
    await Promise.all(Array.from({ length: per }, (_, j) => s.set(`r${j % 7}`, { title: `${tag}${i}.${j}` })));
  }
  await internals(s).committer.idle();
}

/** The ops a peer node (its own keys) made, stamped by its own clock. */
async function peerOps(now: number, n: number): Promise<{ id: string; ops: Op[] }> {
  const peer = await open({ path: 'peer', backend: createMemoryBackend(), now: () => now });
  for (let i = 0; i < n; i++) await peer.set(`p${i}`, { title: `peer ${i}` });
  const ops = internals(peer).log.read(0).map((e) => e.op);
  await peer.close();
  return { id: peer.id, ops };
}

describe('the log: retention and the floor', () => {
  it('LOG-13, GUAR-28: retention.ops drops the oldest sealed segments once 1000 newer ops are kept; the floor moves up', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    const events: LogEvent[] = [];
    s.on('log', (e) => events.push(e));
    // 20 ops per batch, 5 batches per segment: segments of 100 positions.
    await writeBatches(s, 50, 20);
    expect(internals(s).log.head).toBe(1000);
    expect(internals(s).log.floor).toBe(0);
    expect(events.every((e) => e.dropped.length === 0)).toBe(true);
    await writeBatches(s, 5, 20);
    // head 1100: segment 1-100 has 1000 ops after it.
    expect(internals(s).log.floor).toBe(100);
    expect(events.at(-1)).toEqual({ kind: 'seal', sealed: { from: 1001, to: 1100 }, dropped: [{ from: 1, to: 100 }], floor: 100, segments: 10 });
    await writeBatches(s, 5, 20);
    expect(internals(s).log.floor).toBe(200);
    expect(segmentFiles(b)).toEqual(Array.from({ length: 10 }, (_, i) => 201 + i * 100));
    expect(indexJson(b)).toMatchObject({ floor: 200 });
    expect((indexJson(b).segments as { from: number }[]).map((x) => x.from)).toEqual(segmentFiles(b));
    // What is kept is at least retention.ops.
    expect(internals(s).log.head - internals(s).log.floor).toBeGreaterThanOrEqual(1000);
    expect(internals(s).log.read(internals(s).log.floor)[0].pos).toBe(201);
    await s.close();
  });

  it('LOG-13 OPS-11: the positions a purge finds its record by are let go with the segments retention drops', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    await s.set('gone', { title: 'x' });
    await writeBatches(s, 10, 20);
    // A purge builds the positions of every id; they are kept up to date from then on.
    await s.purge('gone');
    await internals(s).committer.idle();
    const log = internals(s).log;
    expect(log.positionsOf('r1').length).toBeGreaterThan(0);
    await writeBatches(s, 50, 20, 'later');
    expect(log.floor).toBeGreaterThan(0);
    for (const id of ['r0', 'r1', 'r6']) {
      const held = log.read(log.floor).filter((e) => e.op.id === id).map((e) => e.pos);
      expect(log.positionsOf(id)).toEqual(held);
    }
    // What retention dropped is not kept: the map holds no position at or below the floor.
    const byId = (log as unknown as { byId: Map<string, number | number[]> }).byId;
    for (const at of byId.values()) expect(Math.min(...[at].flat())).toBeGreaterThan(log.floor);
    await s.close();
  });

  it('LOG-15: a cursor below the floor is refused as floor; at or above it, it resumes', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    await writeBatches(s, 60, 20);
    const { log } = internals(s);
    expect(log.floor).toBe(200);
    expect(log.cursor(log.eventId(199))).toEqual({ ok: false, reason: 'floor' });
    expect(log.cursor(log.eventId(0))).toEqual({ ok: false, reason: 'floor' });
    expect(log.cursor(log.eventId(200))).toEqual({ ok: true, pos: 200 });
    expect(log.cursor(log.eventId(201))).toEqual({ ok: true, pos: 201 });
    expect(log.read(200)[0].pos).toBe(201);
    await s.close();
    // The floor survives a reopen.
    const s2 = await openOn(b.crash('none'), { now: () => T0, sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
    expect(internals(s2).log.floor).toBe(200);
    expect(internals(s2).log.cursor(internals(s2).log.eventId(150))).toEqual({ ok: false, reason: 'floor' });
    expect(internals(s2).log.read(0)[0].pos).toBe(201);
    await s2.close();
  });

  it('LOG-13, GUAR-6: after retention dropped segments, a reopen keeps the vector and never reuses a dropped seq', async () => {
    const b = await freshBackend();
    const opts = { now: () => T0, sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } };
    const s = await openOn(b, opts);
    await writeBatches(s, 60, 20);
    await s.close();
    const s2 = await openOn(b.crash('none'), opts);
    expect(internals(s2).log.vector).toEqual({ [s.id]: 1200 });
    await s2.set('new', { title: 'after' });
    expect(internals(s2).log.read(1200).map((e) => e.op.seq)).toEqual([1201]);
    expect(await s2.get('r3')).toEqual({ title: '59.17' });
    await s2.close();
  });

  it('GUAR-28: retention.ops below 1000 is raised to 1000', async () => {
    const floors: number[] = [];
    for (const ops of [1, 10, 999, 1000]) {
      const b = await freshBackend();
      const s = await openOn(b, { now: () => T0, sync: { retention: { ops }, log: { rollAfter: 5 } } });
      expect(internals(s).log.retention.ops).toBe(1000);
      await writeBatches(s, 55, 20);
      floors.push(internals(s).log.floor);
      await s.close();
    }
    expect(floors).toEqual([100, 100, 100, 100]);
  });

  it('OPT-5: retention.ops defaults to 10000', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0, sync: { log: { rollAfter: 10 } } });
    expect(internals(s).log.retention.ops).toBe(10_000);
    // Segments of 10 batches x 100 ops = 1000 positions.
    await writeBatches(s, 100, 100);
    expect(internals(s).log.head).toBe(10_000);
    expect(internals(s).log.floor).toBe(0);
    await writeBatches(s, 10, 100);
    expect(internals(s).log.floor).toBe(1000);
    expect(internals(s).log.head - internals(s).log.floor).toBe(10_000);
    await s.close();
  }, 30_000);

  it('CLK-12: retention by ops does not depend on stamps', async () => {
    const floors: number[] = [];
    const clocks: (() => () => number)[] = [
      () => () => T0,
      () => { let t = T0 - 400 * DAY; return () => (t += DAY); },
      () => { let i = 0; return () => (i++ % 2 ? T0 + 30 * DAY : T0 - 30 * DAY); },
    ];
    for (const make of clocks) {
      const b = await freshBackend();
      const s = await openOn(b, { now: make(), sync: { retention: { ops: 1000 }, log: { rollAfter: 5 } } });
      await writeBatches(s, 60, 20);
      floors.push(internals(s).log.floor);
      await s.close();
    }
    expect(floors).toEqual([200, 200, 200]);
  });

  it('LOG-14, CLK-11: with retention.days, segments whose stamps are older than that by this clock are dropped', async () => {
    const b = await freshBackend();
    let now = T0;
    const s = await openOn(b, { now: () => now, sync: { retention: { days: 1 }, log: { rollAfter: 2 } } });
    const events: LogEvent[] = [];
    s.on('log', (e) => events.push(e));
    await writeBatches(s, 4, 3, 'old');
    expect(segmentFiles(b)).toEqual([1, 7]);
    now = T0 + DAY / 2;
    await writeBatches(s, 2, 3, 'mid');
    // Not a day old yet: nothing dropped.
    expect(internals(s).log.floor).toBe(0);
    expect(segmentFiles(b)).toEqual([1, 7, 13]);
    now = T0 + DAY + DAY / 4;
    await writeBatches(s, 2, 3, 'new');
    // The two segments stamped at T0 are over a day old; the one at T0 + 12 h is not.
    expect(events.at(-1)).toMatchObject({ sealed: { from: 19, to: 24 }, dropped: [{ from: 1, to: 6 }, { from: 7, to: 12 }], floor: 12 });
    expect(internals(s).log.floor).toBe(12);
    expect(segmentFiles(b)).toEqual([13, 19]);
    expect(indexJson(b)).toMatchObject({ floor: 12 });
    expect(internals(s).log.cursor(internals(s).log.eventId(6))).toEqual({ ok: false, reason: 'floor' });
    // Records are not touched by retention.
    expect(await s.get('r0')).toEqual({ title: 'new1.0' });
    await s.close();
  });

  it('LOG-14, OPT-6: without retention.days no segment is dropped by age', async () => {
    const b = await freshBackend();
    let now = T0;
    const s = await openOn(b, { now: () => now, sync: { log: { rollAfter: 2 } } });
    await writeBatches(s, 4, 3);
    now = T0 + 3650 * DAY;
    await writeBatches(s, 4, 3);
    expect(internals(s).log.retention.days).toBeUndefined();
    expect(internals(s).log.floor).toBe(0);
    expect(segmentFiles(b)).toEqual([1, 7, 13, 19]);
    expect(openBatches(b)).toEqual([]);
    await s.close();
  });

  it('CLK-11: ops a peer stamped far ahead age out late, ops stamped far behind age out early', async () => {
    const ahead = await peerOps(T0 + 5 * DAY, 2);
    const behind = await peerOps(T0 - 10 * DAY, 2);
    let now = T0;
    const b = await freshBackend();
    const s = await openOn(b, { now: () => now, sync: { retention: { days: 1 }, maxSkew: Infinity, log: { rollAfter: 1 } } });
    const events: LogEvent[] = [];
    s.on('log', (e) => events.push(e));
    // Behind: stamped 10 days ago, it is dropped by the very seal that took it in.
    const r1 = await applyPeerOps(s, behind.ops, { via: { url: 'memory://behind', node: behind.id } });
    expect(r1.applied).toBe(2);
    await internals(s).committer.idle();
    expect(events[0]).toMatchObject({ sealed: { from: 1, to: 2 }, dropped: [{ from: 1, to: 2 }], floor: 2 });
    expect(await s.get('p0')).toEqual({ title: 'peer 0' });
    // Own op at T0, then the peer's ops stamped 5 days ahead.
    await s.set('own', { title: 'own at T0' });
    await applyPeerOps(s, ahead.ops, { via: { url: 'memory://ahead', node: ahead.id } });
    await internals(s).committer.idle();
    expect(internals(s).log.floor).toBe(2);
    // Three days later by this clock: the own segment is dropped, the one stamped ahead stays.
    now = T0 + 3 * DAY;
    await s.update('own', { title: 'later' });
    await internals(s).committer.idle();
    expect(internals(s).log.floor).toBe(3);
    expect(internals(s).log.read(0).map((e) => e.op.origin)).toEqual([ahead.id, ahead.id, s.id]);
    // Once this clock passes their stamps by a day, they go too.
    now = T0 + 6 * DAY + 10;
    await s.update('own', { title: 'much later' });
    await internals(s).committer.idle();
    expect(internals(s).log.floor).toBe(6);
    expect(internals(s).log.read(0).map((e) => [e.pos, e.op.origin])).toEqual([[7, s.id]]);
    await s.close();
  });
});
