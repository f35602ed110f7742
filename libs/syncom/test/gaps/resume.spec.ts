import { internals } from '../../src/testing/internals';
import type { SubscribeOptions } from '../../src';
import { closeAll, dialer, hub } from '../sync/helpers';
import { record, waitFor, WatchedNet } from '../sync/scenario-helpers';

const URL = 'memory://h';

describe('resuming a subscription', () => {
  it('LOG-7 PROTO-12 REG-7: a subscriber hands back the last event id it took; the link carries it as the subscription\'s lastEventId', async () => {
    const net = new WatchedNet();
    const h = await hub();
    net.units.set(URL, h.unit);
    const atHost: (string | undefined)[] = [];
    const subscribe = h.unit.subscribe.bind(h.unit);
    h.unit.subscribe = (method, args, context, options: SubscribeOptions) => (atHost.push(options.lastEventId), subscribe(method, args, context, options));
    const d = await dialer(net);
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    const ids = [await h.s.insert({ n: 1 }), await h.s.insert({ n: 2 })];
    const head = internals(h.s).log.eventId();
    await waitFor(() => d.sync.listNodes()[0].cursor === head, [d]);
    for (const id of ids) expect(await d.has(id)).toBe(true);

    // The link itself resumes after a cut from the last event id taken (the link's job).
    const seen = atHost.length;
    net.links[0].cut();
    net.links[0].restore();
    await waitFor(() => atHost.length > seen, [d, h.s]);
    // (Opened again once the new connection is greeted, if the host asked for a hello first: same id.)
    expect(new Set(atHost.slice(seen))).toEqual(new Set([head]));

    // A new link (the dialer restarted) is handed the cursor the dialer saved.
    await d.sync.stop();
    await d.sync.start();
    await waitFor(() => net.watches.length === 2 && net.watches[1].subscribes.length === 1, [d, h.s]);
    expect(net.watches[1].subscribes).toEqual([head]);
    expect(atHost.at(-1)).toBe(head);
    // It resumed rather than bootstrapping, and takes what lands next.
    const later = await h.s.insert({ n: 3 });
    await waitFor(() => d.has(later), [d]);
    expect(boots).toHaveLength(1);
    await closeAll(d, h.s);
  });
});
