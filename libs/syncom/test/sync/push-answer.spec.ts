import { takePushAnswer } from '../../src/sync/dial/dialer-push';
import { closeAll, until } from './helpers';
import { hostAndDialer } from './helpers';
import { dialerOf } from './scenario-helpers';

describe('a push answer raises the host vector a dialer holds', () => {
  it('HOST-20, LOG-17: in place, by the entries the page touched; its own streams are noted as acked', () => {
    const hv: Record<string, number> = { other: 4, me: 1 };
    const acked: Record<string, number> = { me: 1 };
    takePushAnswer({ id: 'me', vector: { me: 3, 'me@A': 2 } }, hv, acked, { me: 3, 'me@A': 2, other: 2, third: 1 });
    expect(hv).toEqual({ other: 4, me: 3, 'me@A': 2, third: 1 });
    expect(acked).toEqual({ me: 3, 'me@A': 2 });
  });

  it('HOST-20: a host\'s answer that is no vector moves nothing and throws nothing', () => {
    const hv: Record<string, number> = { a: 1 };
    const acked: Record<string, number> = {};
    for (const touched of [null, 7, 'x', [], { a: 'nine' }, { a: -1 }, { a: 1.5 }, JSON.parse('{"__proto__": {"polluted": 9}}')]) {
      takePushAnswer({ id: 'me', vector: { me: 1 } }, hv, acked, touched);
    }
    expect(hv).toEqual({ a: 1 });
    expect(Object.getPrototypeOf(hv)).toBe(Object.prototype);
    expect((hv as { polluted?: number }).polluted).toBeUndefined();
    expect(acked).toEqual({});
  });

  it('HOST-20: pushes keep the one vector object the hello gave (no copy of it per page)', async () => {
    const { h, d } = await hostAndDialer('memory://h');
    const first = await d.insert({ x: 0 });
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => (await h.s.has(first)) && d.sync.peers()[0]?.connected === true, [d, h.s]);
    const hv = dialerOf(d, 'memory://h').hv;
    const ids = await Promise.all([1, 2, 3].map((x) => d.insert({ x })));
    await until(async () => (await Promise.all(ids.map((id) => h.s.has(id)))).every(Boolean) && dialerOf(d, 'memory://h').hv[d.id] === 4, [d, h.s]);
    expect(dialerOf(d, 'memory://h').hv).toBe(hv);
    await closeAll(d, h.s);
  });
});
