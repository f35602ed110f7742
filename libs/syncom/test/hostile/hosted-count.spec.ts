import type { Storage } from '../../src';
import { closeAll, hub, node } from '../sync/helpers';
import { greet } from '../sync/scenario-helpers';

/**
 * storage.sync.hostedCount() is what an unauthenticated GET /health reads
 * (apps/hub/test/health-cost.spec.ts): hosted().length kept as feeds come
 * and go, so that no one can make each such GET list every live feed.
 */
const live = (s: Storage) => ({ lastEventId: s.replica.eventId(s.replica.head), onData: () => undefined, onError: () => undefined, onEnd: () => undefined });

function expectCount(s: Storage, n: number): void {
  expect(s.sync.hosted()).toHaveLength(n);
  expect(s.sync.hostedCount()).toBe(n);
}

describe('hostile: the hosted feeds counted without listing them', () => {
  it('LIFE-5: hostedCount() is hosted().length through unsubscribes, bootstrap notices, re-hellos, disconnects and the unit\'s end, over two units', async () => {
    const h = await hub();
    const other = h.s.sync.unit({ access: 'public' });
    const peer = await node();
    const [a, b, c] = [await greet(h.unit, peer), await greet(h.unit, peer), await greet(other, peer, ['*'], {})];
    const subs = [a, a, a, b, b].map((ctx) => h.unit.subscribe('changes', {}, ctx, live(h.s)));
    other.subscribe('changes', {}, c, live(h.s));
    other.subscribe('changes', {}, c, live(h.s));
    expectCount(h.s, 7);
    subs[0].unsubscribe();
    subs[0].unsubscribe();
    expectCount(h.s, 6);
    // A feed without an event id ends at its bootstrap notice.
    h.unit.subscribe('changes', {}, b, { ...live(h.s), lastEventId: undefined });
    await new Promise((r) => setImmediate(r));
    expectCount(h.s, 6);
    await greet(h.unit, peer, ['*'], { token: 't' }, a);
    expectCount(h.s, 4);
    h.unit.disconnect(b);
    expectCount(h.s, 2);
    other.close();
    expectCount(h.s, 0);
    h.unit.subscribe('changes', {}, a, live(h.s));
    expectCount(h.s, 1);
    await closeAll(h.s, peer);
  });
});
