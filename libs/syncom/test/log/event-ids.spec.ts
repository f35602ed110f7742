import { internals } from '../../src/testing/internals';
import { createMemoryBackend } from '../../src/backend';
import { formatEventId, parseEventId } from '../../src/log';
import { type EndedEpoch, epochsAfter } from '../../src/log/event-id';
import { readIndex } from '../../src/log/files';
import { open } from '../../src/open';
import { applyPeerOps } from '../../src/storage';
import { freshBackend, indexJson, openOn, T0 } from './helpers';

describe('the log: event ids and version vectors', () => {
  it('LOG-6: an event id is <epoch>.<seq>, naming a position in this log', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    const { log } = internals(s);
    expect(log.epoch).toMatch(/^[A-Za-z0-9]+$/);
    expect(log.eventId()).toBe(`${log.epoch}.0`);
    await s.set('a', { title: '1' });
    await Promise.all([s.set('b', { title: '2' }), s.set('c', { title: '3' })]);
    expect(log.eventId()).toBe(`${log.epoch}.3`);
    expect(log.eventId(2)).toBe(`${log.epoch}.2`);
    expect(formatEventId(log.epoch, 2)).toBe(log.eventId(2));
    expect(parseEventId(log.eventId(2))).toEqual({ epoch: log.epoch, seq: 2 });
    // A cursor resumes after its position: the entries after .1 are positions 2 and 3.
    expect(log.cursor(log.eventId(1))).toEqual({ ok: true, pos: 1 });
    expect(log.read(1).map((e) => [e.pos, e.op.id])).toEqual([[2, 'b'], [3, 'c']]);
    expect(log.cursor(log.eventId(0))).toEqual({ ok: true, pos: 0 });
    expect(log.cursor(log.eventId())).toEqual({ ok: true, pos: 3 });
    expect(log.cursor(`${log.epoch}.4`)).toEqual({ ok: false, reason: 'ahead' });
    await s.close();
  });

  it('LOG-6, LOG-8: a reopen mints a new epoch; the event ids of the one before name their positions up to the head it ended at, and positions continue', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    const epoch = internals(s).log.epoch;
    await s.set('a', { title: '1' });
    await s.set('a', { title: '2' });
    const before = internals(s).log.eventId();
    expect(before).toBe(`${epoch}.2`);
    await s.close();

    const c = b.crash('none');
    const s2 = await openOn(c, { now: () => T0 });
    const { log } = internals(s2);
    expect(log.epoch).not.toBe(epoch);
    // Kept before any event id of it is served: a crash now reopens with it.
    expect(indexJson(c)).toMatchObject({ epoch: log.epoch, epochs: [[epoch, 2]] });
    expect(log.eventId()).toBe(`${log.epoch}.2`);
    expect(log.cursor(before)).toEqual({ ok: true, pos: 2 });
    expect(log.cursor(`${epoch}.1`)).toEqual({ ok: true, pos: 1 });
    await s2.set('b', { title: '3' });
    expect(log.eventId()).toBe(`${log.epoch}.3`);
    // The epoch before ended at 2: its id of position 3 names an op this log never held there.
    expect(log.cursor(`${epoch}.3`)).toEqual({ ok: false, reason: 'foreign' });
    expect(log.read(2).map((e) => [e.pos, e.op.id, e.op.seq])).toEqual([[3, 'b', 3]]);
    await s2.close();
  });

  it('LOG-6, LOG-8: a reopen that replays an unsealed tail ends the epoch before at the replayed head; positions continue after it', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    const epoch = internals(s).log.epoch;
    await s.set('a', { title: '1' });
    await Promise.all([s.set('b', { title: '2' }), s.set('c', { title: '3' })]);
    await internals(s).committer.idle();
    // Crash without close: three positions sit in open/.
    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    const { log } = internals(s2);
    expect(log.epochs).toEqual([[epoch, 3]]);
    expect(log.cursor(`${epoch}.3`)).toEqual({ ok: true, pos: 3 });
    await s2.set('d', { title: '4' });
    expect(log.eventId()).toBe(`${log.epoch}.4`);
    await s2.close();
  });

  it('LOG-8: a directory restored from a copy taken stopped takes an event id the original served after the copy as foreign, even once it has logged that far', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: '1' });
    await s.close();
    const copy = createMemoryBackend({ from: b.snapshot() });
    // The original goes on: a dialer reads it up to position 3.
    const s2 = await openOn(b.crash('none'), { now: () => T0 });
    await s2.set('b', { title: '2' });
    await s2.set('c', { title: '3' });
    const cursor = internals(s2).log.eventId();
    await s2.close();
    // Restored, the copy logs other ops at positions 2 and 3: the cursor names none of them.
    const r = await openOn(copy, { now: () => T0 });
    await r.set('x', { title: 'other' });
    await r.set('y', { title: 'history' });
    expect(internals(r).log.head).toBe(3);
    expect(internals(r).log.cursor(cursor)).toEqual({ ok: false, reason: 'foreign' });
    // Up to where the two share their history, an id of the copy's epochs still names a position.
    expect(internals(r).log.cursor(`${internals(s).log.epoch}.1`)).toEqual({ ok: true, pos: 1 });
    await r.close();
  });

  it('LOG-8: the epochs kept are the last 64 and those whose head is at or above the floor; a damaged list is a damaged index', async () => {
    expect(epochsAfter([['a', 1], ['b', 5]], 'c', 9, 4)).toEqual([['b', 5], ['c', 9]]);
    const many = Array.from({ length: 70 }, (_, i): EndedEpoch => [`e${i}`, i]);
    const kept = epochsAfter(many, 'last', 99, 0);
    expect(kept).toHaveLength(64);
    expect(kept[63]).toEqual(['last', 99]);
    expect(kept[0]).toEqual(['e7', 7]);
    const index = (epochs: unknown) => JSON.stringify({ epoch: 'e', floor: 0, segments: [], epochs });
    expect(readIndex(index([['a', 3]]))).toMatchObject({ index: { epochs: [['a', 3]] } });
    for (const bad of [[['a']], [['a', -1]], [['a.b', 1]], [[3, 1]], [['a', 1.5]], 'a', [['a', '3']]]) {
      expect(readIndex(index(bad))).toEqual({ fault: 'its epochs are not whole' });
    }
  });

  it('LOG-8: an event id of another epoch is foreign; a wiped directory gets a new epoch', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: '1' });
    const old = internals(s).log.eventId();
    await s.close();

    // Wiped: the same node keys, no log.
    const wiped = await freshBackend();
    const w = await openOn(wiped, { now: () => T0 });
    expect(w.id).toBe(s.id);
    expect(internals(w).log.epoch).not.toBe(internals(s).log.epoch);
    expect(internals(w).log.cursor(old)).toEqual({ ok: false, reason: 'foreign' });
    await w.set('a', { title: '1' });
    // Even at a position both logs have, the other epoch is not taken as one.
    expect(internals(w).log.cursor(old)).toEqual({ ok: false, reason: 'foreign' });
    expect(internals(s).log.cursor(internals(w).log.eventId())).toEqual({ ok: false, reason: 'foreign' });
    expect(internals(w).log.cursor('someOtherEpoch.0')).toEqual({ ok: false, reason: 'foreign' });
    await w.close();
  });

  it('LOG-8: malformed event ids are invalid, never a position', async () => {
    const b = await freshBackend();
    const s = await openOn(b, { now: () => T0 });
    await s.set('a', { title: '1' });
    const { log } = internals(s);
    const bad: unknown[] = [
      'nodot', `${log.epoch}.`, `.1`, `${log.epoch}.-1`, `${log.epoch}.01`, `${log.epoch}.1.5`, `${log.epoch}.x`,
      `${log.epoch}.1e3`, `ep och.1`, `${log.epoch}.99999999999999999`, 'a'.repeat(70) + '.1', 42, {}, ['x.1'], true,
    ];
    for (const id of bad) expect([id, log.cursor(id)]).toEqual([id, { ok: false, reason: 'invalid' }]);
    for (const id of bad) expect(parseEventId(id)).toBeUndefined();
    await s.close();
  });

  it("LOG-9, LOG-10: the vector holds the highest seq per origin for scope '*' and per origin@scope otherwise", async () => {
    const b = await freshBackend();
    const scope = (_id: string, d: Record<string, unknown>) => (typeof d.$type === 'string' ? d.$type : '*');
    const s = await openOn(b, { now: () => T0, sync: { scope, log: { rollAfter: 100 } } });
    await s.set('g1', { title: 'global' });
    await s.set('d1', { $type: 'Doc', title: 'doc' });
    await s.set('d2', { $type: 'Doc', title: 'doc2' });
    await s.set('n1', { $type: 'Note', title: 'note' });
    await s.update('g1', { title: 'global2' });
    await s.inc('d1', 'n', 1);
    const ops = internals(s).log.read(0).map((e) => e.op);
    // Sequence numbers run per origin and scope: no holes in any stream.
    expect(ops.map((o) => [o.id, o.scope, o.seq])).toEqual([
      ['g1', '*', 1], ['d1', 'Doc', 1], ['d2', 'Doc', 2], ['n1', 'Note', 1], ['g1', '*', 2], ['d1', 'Doc', 3],
    ]);
    expect(internals(s).log.vector).toEqual({ [s.id]: 2, [`${s.id}@Doc`]: 3, [`${s.id}@Note`]: 1 });
    await s.close();
    // index.json carries the same vector once sealed, and a reopen continues every stream.
    expect(indexJson(b).vector).toEqual({ [s.id]: 2, [`${s.id}@Doc`]: 3, [`${s.id}@Note`]: 1 });
    const s2 = await openOn(b.crash('none'), { now: () => T0, sync: { scope, log: { rollAfter: 100 } } });
    expect(internals(s2).log.vector).toEqual({ [s.id]: 2, [`${s.id}@Doc`]: 3, [`${s.id}@Note`]: 1 });
    await s2.set('n2', { $type: 'Note', title: 'n2' });
    await s2.update('g1', { title: 'g3' });
    expect(internals(s2).log.read(6).map((e) => [e.op.scope, e.op.seq])).toEqual([['Note', 2], ['*', 3]]);
    await s2.close();
  });

  it('LOG-9: the vector is the highest seq applied per origin, also for a peer origin', async () => {
    const pb = await freshBackend();
    const peer = await openOn(pb, { now: () => T0 });
    await peer.set('p', { title: 'from the peer' });
    await peer.update('p', { title: 'again' });
    const peerOps = internals(peer).log.read(0).map((e) => e.op);
    await peer.close();
    // A second node with its own keys.
    const other = await open({ path: 'o', backend: createMemoryBackend(), now: () => T0 });
    await other.set('mine', { title: 'own' });
    const r = await applyPeerOps(other, peerOps, { via: { url: 'memory://peer', node: peer.id } });
    expect(r.applied).toBe(2);
    expect(internals(other).log.vector).toEqual({ [other.id]: 1, [peer.id]: 2 });
    await other.close();
  });
});
