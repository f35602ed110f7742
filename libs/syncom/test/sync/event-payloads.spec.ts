import { createMemoryLink, isSyncLink, type Storage, type SyncLink } from '../../src';
import { closeAll, dialer, hub, Net, until } from './helpers';
import { record, waitFor, wrapUnit } from './scenario-helpers';

const URL = 'memory://hub';

/** Every change a storage emits, as [op type, via]. */
function changes(s: Storage): [string, unknown][] {
  const out: [string, unknown][] = [];
  s.on('change', (op, via) => out.push([op.type, via]));
  return out;
}

describe('event payloads over a link', () => {
  it('LIFE-15: a change a peer brought names it as via { url, node } (the registered url, the peer\'s id); a local write has via null', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const seen = changes(d);
    const atHost = changes(h.s);
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.subscribed === true, [d]);
    const fromHub = await h.s.insert({ by: 'hub' });
    await until(() => d.has(fromHub), [d]);
    const mine = await d.insert({ by: 'dialer' });
    await until(() => h.s.has(mine), [h.s]);
    expect(seen).toEqual([['write', { url: URL, node: h.s.id }], ['write', null]]);
    expect(atHost).toEqual([['write', null], ['write', { url: expect.any(String), node: d.id }]]);
    await closeAll(d, h.s);
  });

  it('LINK-9: a plain object of the SyncLink shape, without stream, carries the whole protocol: hello, push, changes and an inline snapshot', async () => {
    const net = new Net();
    const h = await hub();
    const unit = wrapUnit(h.unit);
    const made: SyncLink[] = [];
    // Only the contract's six members, none of the memory link's own: nothing else is there to lean on.
    const connect = () => {
      const inner = createMemoryLink(unit);
      const link: SyncLink = {
        call: (method, args) => inner.call(method, args),
        subscribe: (method, args, options) => inner.subscribe(method, args, options),
        on: (event, listener) => inner.on(event, listener),
        off: (event, listener) => inner.off(event, listener),
        close: () => inner.close(),
      };
      made.push(link);
      return link;
    };
    const early = await h.s.insert({ n: 1 });
    const d = await dialer(net, { sync: { connect } });
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    expect(isSyncLink(made[0])).toBe(true);
    expect(await d.get(early)).toEqual({ n: 1 });
    const late = await h.s.insert({ n: 2 });
    const mine = await d.insert({ n: 3 });
    await until(async () => (await d.has(late)) && (await h.s.has(mine)), [d, h.s]);
    expect(new Set(unit.methods)).toEqual(new Set(['hello', 'push', 'changes', 'snapshot']));
    await closeAll(d, h.s);
  });

  it('LIFE-9: PAGE_FAILED names the peer\'s url, the saved cursor the page comes again from and the attempt; STUCK names the url', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { hooks: { beforeApply: () => { throw new Error('not now'); } } });
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].cursor !== null, [d]);
    const cursor = d.sync.peers()[0].cursor;
    await h.s.insert({ x: 1 });
    await waitFor(() => errors.some((e) => e.code === 'STUCK'), [d]);
    expect(errors.map((e) => ({ code: e.code, url: e.url, cursor: e.cursor, attempt: e.attempt }))).toEqual([
      { code: 'PAGE_FAILED', url: URL, cursor, attempt: 1 },
      { code: 'PAGE_FAILED', url: URL, cursor, attempt: 2 },
      { code: 'PAGE_FAILED', url: URL, cursor, attempt: 3 },
      { code: 'STUCK', url: URL, cursor, attempt: undefined },
    ]);
    await closeAll(d, h.s);
  });

  it('LIFE-20: change and apply listeners that throw, or reject, while a peer\'s page lands fail nothing: the page is taken and the cursor moves', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const errors = record(d, 'error');
    d.on('change', () => { throw new Error('listener bug'); });
    d.on('apply', () => { throw new Error('listener bug'); });
    d.on('apply', (async () => { throw new Error('async listener bug'); }) as never);
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => d.sync.peers()[0]?.subscribed === true, [d]);
    const id = await h.s.insert({ x: 1 });
    await until(() => d.has(id), [d]);
    await waitFor(() => d.sync.peers()[0].cursor === h.s.sync.hosted()[0]?.cursor, [d]);
    expect(errors).toEqual([]);
    expect(d.sync.peers()[0]).toMatchObject({ stuck: false, lastError: null });
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    await closeAll(d, h.s);
  });
});
