import { packOps, type SyncomError } from '../../src';
import { FLAG_GRANTED } from '../../src/log/op-log';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { feedingUnit } from './hostile-units';

/**
 * The feed host's own advance op moves the dialer's vector (BOOT-11). An
 * honest host serves a feed of scope `a` the advances of `a` and the global
 * ones; a host dialed for `a` that served its own advance naming a stream
 * of scope `b` had the dialer count that stream's ops as held, and drop
 * them as duplicates when the host it dials for `b` sent them.
 */

const scope = (_id: string, data: Record<string, unknown>) => (typeof data.team === 'string' ? data.team : '*');

describe('hostile host: its own advance naming streams of a scope it is not dialed for', () => {
  it('BOOT-11 BOOT-12 SCOPE-20: the advance is logged but grants nothing of that scope (the streams of the dialed scopes are adopted); the other host\'s ops of that scope land', async () => {
    const net = new Net();
    const writer = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, scope } });
    const honest = await hub({}, { sync: { scope } });
    const evil = await hub({}, { sync: { scope } });
    // A genuine advance of the hostile host's own, claiming the writer's stream of b far ahead beside a stream of a.
    const vector = { [`${writer.id}@b`]: 50, 'someone@a': 7 };
    const advance = evil.s.replica.makeOp({ type: 'advance', id: 'elsewhere', from: 'elsewhere', vector }, '*');
    await evil.s.replica.submit({ op: advance, flags: FLAG_GRANTED, via: null });
    const fed = feedingUnit(evil.unit, async (n, o) => {
      if (n === 1) await o.onData({ ops: packOps([advance]) }, 'e.1');
    });
    net.units.set('memory://evil', fed);
    net.units.set('memory://honest', honest.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, scope } });
    const errors: SyncomError[] = [];
    d.sync.on('error', (e) => errors.push(e));
    await writer.sync.addNode({ url: 'memory://honest', token: 't' });
    await d.sync.addNode({ url: 'memory://honest', token: 't', scopes: ['b'] });
    await d.sync.synced('memory://honest');
    await d.sync.addNode({ url: 'memory://evil', token: 't', scopes: ['a'] });
    await fed.subscribed(1);
    await d.sync.synced('memory://evil');
    await internals(d).committer.idle();
    const log = internals(d).log;
    expect(log.read(0).some((e) => e.op.origin === evil.s.id && e.op.seq === advance.seq)).toBe(true);
    expect([log.vector[`${writer.id}@b`] ?? 0, log.vector['someone@a']]).toEqual([0, 7]);
    // The writer's ops of b reach the dialer on the feed of the host it dials for b: they had been dropped as duplicates.
    const ids = [await writer.insert({ team: 'b', n: 1 }), await writer.insert({ team: 'b', n: 2 })];
    await until(async () => (await Promise.all(ids.map((id) => d.has(id)))).every(Boolean), [d, writer, honest.s]);
    expect(errors.map((e) => e.code)).toEqual([]);
    await closeAll(d, writer, honest.s, evil.s);
  });
});
