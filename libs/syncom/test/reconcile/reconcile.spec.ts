import { createReconciler, type Message, MODE, type ReconcileItem } from '../../src/reconcile';
import { driftedSets, expectedDiff, runProtocol } from './helpers';

const item = (ts: number, id: string, digest = 'd'): ReconcileItem => ({ ts, id, digest });
const sorted = (xs: string[]) => [...xs].sort();

describe('RECON reconciliation: examples', () => {
  it('two empty sets end in one round trip with nothing found', () => {
    const run = runProtocol([], []);
    expect(run).toMatchObject({ rounds: 1, have: [], need: [] });
  });

  it('equal sets end in one round trip of a few bytes, small or large', () => {
    const { a } = driftedSets(5000, 0, 1);
    for (const set of [a.slice(0, 5), a]) {
      const run = runProtocol(set, [...set].reverse());
      expect(run).toMatchObject({ rounds: 1, have: [], need: [] });
      expect(run.sent + run.answered).toBeLessThan(400);
    }
  });

  it('one empty side: the other side holds everything', () => {
    const { a } = driftedSets(3000, 0, 2);
    const ids = sorted(a.map((x) => x.id));
    expect(sorted(runProtocol(a, []).have)).toEqual(ids);
    expect(sorted(runProtocol([], a).need)).toEqual(ids);
  });

  it('disjoint sets: each side needs all of the other', () => {
    const { a } = driftedSets(2000, 0, 3);
    const left = a.filter((_, k) => k % 2 === 0);
    const right = a.filter((_, k) => k % 2 === 1);
    const run = runProtocol(left, right);
    expect(sorted(run.have)).toEqual(sorted(left.map((x) => x.id)));
    expect(sorted(run.need)).toEqual(sorted(right.map((x) => x.id)));
  });

  it('an id held in two states is in both have and need, whether ts or only the digest differs', () => {
    const a = [item(5, 'x', 'd1'), item(5, 'y', 'd1'), item(9, 'z')];
    const b = [item(7, 'x', 'd1'), item(5, 'y', 'd2'), item(9, 'z')];
    const run = runProtocol(a, b);
    expect(sorted(run.have)).toEqual(['x', 'y']);
    expect(sorted(run.need)).toEqual(['x', 'y']);
  });

  it('items may come in any order: the result is the same', () => {
    const { a, b } = driftedSets(1500, 0.2, 4);
    const shuffled = [...a].sort((x, y) => (x.digest < y.digest ? -1 : 1));
    const run = runProtocol(shuffled, [...b].reverse());
    expect({ have: sorted(run.have), need: sorted(run.need) }).toEqual(expectedDiff(a, b));
  });

  it('an id held twice is refused with a TypeError (one merge state per record), as is a malformed item', () => {
    expect(() => createReconciler({ items: [item(1, 'x'), item(2, 'x')] })).toThrow(TypeError);
    expect(() => createReconciler({ items: [item(1, 'x'), item(1, 'x')] })).toThrow(/held twice/);
    expect(() => createReconciler({ items: [item(-1, 'x')] })).toThrow(TypeError);
    expect(() => createReconciler({ items: [item(1, '')] })).toThrow(TypeError);
    expect(() => createReconciler({ items: [item(1, 'x', '')] })).toThrow(TypeError);
    expect(() => createReconciler({ items: [item(1, 'x'.repeat(513))] })).toThrow(TypeError);
  });

  it('options out of range are TypeErrors', () => {
    for (const o of [{ branching: 1 }, { branching: 2.5 }, { listBelow: 1 }, { listBelow: 1025 }, { frameLimit: 1000 }]) {
      expect(() => createReconciler({ items: [], ...o })).toThrow(TypeError);
    }
  });

  it('ids with lone surrogates, quotes and shared prefixes survive JSON and tie-breaking bounds', () => {
    const ids = ['a', 'ab', 'ab\ud800', 'ab\udc00', 'ab"', 'b\u0000', 'é', '\ud800'];
    const a = ids.map((id, k) => item(1, id, `d${k % 3}`));
    const b = ids.map((id, k) => item(1, id, `d${k % 2}`)).concat(item(1, 'ab\ud800x'));
    const run = runProtocol(a, b, { listBelow: 2, branching: 2 });
    expect({ have: sorted(run.have), need: sorted(run.need) }).toEqual(expectedDiff(a, b));
  });
});

describe('RECON reconciliation: roles and state', () => {
  const { a, b } = driftedSets(800, 0.3, 5);

  it('the responder keeps no state: one responder answers two initiators interleaved', () => {
    const responder = createReconciler({ items: b });
    const runs = [createReconciler({ items: a }), createReconciler({ items: a.slice(100) })];
    const msgs: (Message | null)[] = runs.map((r) => r.initiate());
    const found = runs.map(() => ({ have: [] as string[], need: [] as string[] }));
    while (msgs.some((m) => m)) {
      runs.forEach((r, k) => {
        const m = msgs[k];
        if (!m) return;
        const answer = responder.reconcile(m);
        if (!answer.ok || !answer.next) throw new Error('refused');
        expect(answer.have).toEqual([]);
        const step = r.reconcile(answer.next);
        if (!step.ok) throw new Error(step.reason);
        found[k].have.push(...step.have);
        found[k].need.push(...step.need);
        msgs[k] = step.next;
      });
    }
    expect({ have: sorted(found[0].have), need: sorted(found[0].need) }).toEqual(expectedDiff(a, b));
    expect({ have: sorted(found[1].have), need: sorted(found[1].need) }).toEqual(expectedDiff(a.slice(100), b));
  });

  it('initiate() starts over; a message after the end is refused', () => {
    const A = createReconciler({ items: a });
    const B = createReconciler({ items: a });
    A.initiate();
    const first = A.initiate();
    const answer = B.reconcile(first);
    if (!answer.ok) throw new Error(answer.reason);
    const step = A.reconcile(answer.next);
    expect(step).toMatchObject({ ok: true, next: null });
    expect(A.reconcile(answer.next)).toMatchObject({ ok: false, code: 'RECONCILE_MALFORMED' });
  });

  it('each role refuses the modes only the other role sends', () => {
    const responder = createReconciler({ items: b });
    for (const mode of [MODE.items, MODE.diff]) {
      const msg = mode === MODE.items ? { v: 1, ranges: [[null, mode, []]] } : { v: 1, ranges: [[null, mode, [], []]] };
      expect(responder.reconcile(msg)).toMatchObject({ ok: false, code: 'RECONCILE_MALFORMED' });
    }
    expect(responder.reconcile({ v: 1, ranges: [[null, MODE.defer]] })).toMatchObject({ ok: false });
    const initiator = createReconciler({ items: a });
    initiator.initiate();
    expect(initiator.reconcile({ v: 1, ranges: [[null, MODE.tags, []]] })).toMatchObject({ ok: false, code: 'RECONCILE_MALFORMED' });
  });

  it('a diff that names an item past the range is refused, and the run can still go on', () => {
    const A = createReconciler({ items: a.slice(0, 10) });
    const B = createReconciler({ items: b.slice(0, 10) });
    const first = A.initiate();
    expect(first.ranges[0][1]).toBe(MODE.tags);
    expect(A.reconcile({ v: 1, ranges: [[null, MODE.diff, [], [10]]] })).toMatchObject({ ok: false });
    const answer = B.reconcile(first);
    if (!answer.ok) throw new Error(answer.reason);
    const step = A.reconcile(answer.next);
    if (!step.ok) throw new Error(step.reason);
    expect({ have: sorted(step.have), need: sorted(step.need) }).toEqual(expectedDiff(a.slice(0, 10), b.slice(0, 10)));
  });

  it('an answer range over keys not asked about is refused, one inside an ask is taken, and the run can still go on', () => {
    const A = createReconciler({ items: Array.from({ length: 100 }, (_, k) => item(1000 + k, `r${k}`)), branching: 4, listBelow: 4 });
    A.initiate();
    const never = 'A'.repeat(22);
    // The one ask covers everything: its four parts are asked next.
    const step = A.reconcile({ v: 1, ranges: [[null, MODE.fingerprint, never]] });
    if (!step.ok || !step.next) throw new Error('the first answer was not taken');
    const asks = step.next.ranges.filter((r) => r[1] !== MODE.skip);
    expect(asks.length).toBe(4);
    // Items over the whole key space span four asks, as none of them: refused. Over the first ask alone: taken.
    expect(A.reconcile({ v: 1, ranges: [[null, MODE.items, []]] })).toMatchObject({ ok: false, reason: expect.stringContaining('not asked about') });
    const taken = A.reconcile({ v: 1, ranges: [[asks[0][0], MODE.items, []], [null, MODE.skip]] });
    expect(taken).toMatchObject({ ok: true });
    expect(taken.ok && taken.have.length).toBe(25);
  });

  it('after a defer before any answer, the next message asks one range; a full answer lets it grow again', () => {
    const mine = Array.from({ length: 2000 }, (_, k) => item(1000 + k, `r${k}`));
    const A = createReconciler({ items: mine, branching: 16 });
    A.initiate();
    const never = 'A'.repeat(22);
    const asks = (m: Message | null) => (m ? m.ranges.filter((r) => r[1] !== MODE.skip).length : 0);
    const first = A.reconcile({ v: 1, ranges: [[null, MODE.fingerprint, never]] });
    if (!first.ok) throw new Error(first.reason);
    expect(asks(first.next)).toBe(16);
    const deferred = A.reconcile({ v: 1, ranges: [[null, MODE.defer]] });
    if (!deferred.ok) throw new Error(deferred.reason);
    expect(asks(deferred.next)).toBe(1);
    // Answered whole (a match): twice as many, then twice again.
    const full = A.reconcile({ v: 1, ranges: [[null, MODE.skip]] });
    if (!full.ok) throw new Error(full.reason);
    expect(asks(full.next)).toBe(2);
  });

  it('have and need name each id once over a whole run', () => {
    const run = runProtocol(a, b, { frameLimit: 32 * 1024, branching: 2, listBelow: 2 });
    expect(new Set(run.have).size).toBe(run.have.length);
    expect(new Set(run.need).size).toBe(run.need.length);
  });
});

describe('RECON the package exports', () => {
  it('syncom exports the reconciler, the decoder and the digests by name', async () => {
    const root = await import('syncom');
    const { a, b } = driftedSets(50, 0.5, 6);
    const A = root.createReconciler({ items: a });
    const answer = root.createReconciler({ items: b }).reconcile(A.initiate());
    expect(answer.ok).toBe(true);
    expect(root.decodeReconcileMessage({ v: root.RECONCILE_VERSION, ranges: [[null, root.RECONCILE_MODES.skip]] }).ok).toBe(true);
    expect(typeof root.entryItem).toBe('function');
    expect(root.RECONCILE_DEFAULTS).toEqual({ branching: 16, frameLimit: 512 * 1024 });
  });
});
