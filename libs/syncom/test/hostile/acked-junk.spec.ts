import { closeAll, hub, until } from '../sync/helpers';
import { CLAIMS_URL as URL, dialerOfClaims } from './vector-claims';

/**
 * `acked` (listNodes(), the registry file) holds, per own stream, how much
 * of it the host holds: retention keeps what an enabled host lacks (LOG-16).
 * A host's hello and push answers may name keys `<this node>@<anything>`;
 * each was taken into `acked` and kept there for good, so a host naming new
 * ones at every answer grew the registry record, which the dialer writes
 * after every changes page and push, without bound (2,000 keys an answer:
 * 14,000 after four hellos and three pushes, a registry file of 776 KB
 * written at each save).
 */

const JUNK = 2_000;

describe('hostile host: own streams this node never wrote', () => {
  it('LOG-16 LOG-17: keys of own streams the node never wrote, in hello and push answers, are not taken into acked nor written with the registry', async () => {
    const h = await hub();
    let round = 0;
    const { d, net, backend, errors } = await dialerOfClaims(h, (method, self) => {
      if (method !== 'hello' && method !== 'push') return undefined;
      round++;
      return Object.fromEntries(Array.from({ length: JUNK }, (_, i) => [`${self}@j${round}-${i}`, 1]));
    });
    // Dialed for scope a: own streams of other scopes the host names are not REWOUND (which moves them, docs/security.md).
    await d.sync.addNode({ url: URL, token: 't', scopes: ['a'] });
    await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
    for (let i = 0; i < 3; i++) {
      const id = await d.insert({ i });
      await until(async () => h.s.has(id), [d, h.s]);
      await d.sync.synced(URL);
      // A new session: the next hello answer names new keys again.
      net.links[0].cut();
      net.links[0].restore();
      await until(() => d.sync.peers()[0]?.connected === true && d.sync.peers()[0].subscribed === true, [d]);
    }
    await d.sync.synced(URL);
    expect(round).toBeGreaterThanOrEqual(6);
    expect(Object.keys(d.sync.listNodes()[0].acked)).toEqual([d.id]);
    expect(d.sync.listNodes()[0].acked[d.id]).toBe(3);
    const registry = [...backend.files()].filter(([p]) => p.startsWith('remote/')).reduce((n, [, t]) => n + t.length, 0);
    expect(registry).toBeLessThan(4096);
    expect(errors.map((e) => e.code)).toEqual([]);
    await closeAll(d, h.s);
  });
});
