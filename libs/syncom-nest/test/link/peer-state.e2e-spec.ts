import type { Storage } from 'syncom';
import { memoryStorage, startHub } from '../helpers/hub';
import { socketDialer } from '../helpers/dialer';

/** This node's own ops the host has not acknowledged: what apps/web's sync line counts (apps/web/src/sync-state.ts). */
function unacked(s: Storage, url: string): number {
  const acked = s.sync.listNodes().find((n) => n.url === url)?.acked ?? {};
  return Object.entries(s.replica.vector).filter(([k]) => k === s.id || k.startsWith(`${s.id}@`))
    .reduce((n, [k, seq]) => n + Math.max(0, seq - (acked[k] ?? 0)), 0);
}

/** Resolves at the next 'peer' event of `s` that says `connected`. */
function nextPeer(s: Storage, connected: boolean): Promise<void> {
  return new Promise((resolve) => {
    const off = s.sync.on('peer', (e) => { if (e.connected === connected) { off(); resolve(); } });
  });
}

describe('peers() over the socket.io link as a hub goes and comes back', () => {
  it('LIFE-4: connected, subscribed and lastError follow the socket; writes made meanwhile are counted unacked, then acked', async () => {
    const held = await memoryStorage();
    let hub = await startHub({ storage: held });
    const { storage: d } = await socketDialer({ sync: { antiEntropyInterval: 0 } });
    const url = hub.url;
    try {
      await d.sync.addNode({ url });
      await d.sync.synced(url);
      expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true, lastError: null, pending: 0, incoming: 0, behind: false });
      // The hub goes: its sockets drop.
      const down = nextPeer(d, false);
      await hub.close();
      await down;
      expect(d.sync.peers()[0]).toMatchObject({ connected: false, subscribed: false, incoming: null, lastError: { code: 'LINK_DOWN' } });
      await d.insert({ title: 'written while the hub was down' });
      expect(unacked(d, url)).toBe(1);
      // The documented meaning: the live link's queue, not the writes that wait (docs/replication.md, peers()).
      expect(d.sync.peers()[0].pending).toBe(0);
      hub = await startHub({ storage: held, port: hub.port });
      await d.sync.synced(url);
      expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true, lastError: null, pending: 0 });
      expect(unacked(d, url)).toBe(0);
    } finally {
      await d.close();
      await hub.close();
      await held.close();
    }
  });

  it('LIFE-4: a token the hub refused, then took: lastError clears at the greeting, and the hub going later reads LINK_DOWN, not a refused token', async () => {
    let admit = false;
    const hub = await startHub({ options: { access: 'session', authorize: (_ctx, hello) => admit && hello.token === 't' } });
    const { storage: d } = await socketDialer({ sync: { antiEntropyInterval: 0 } });
    const url = hub.url;
    try {
      const refused = new Promise<void>((resolve) => { const off = d.sync.on('error', (e) => { if (e.code === 'UNAUTHORIZED') { off(); resolve(); } }); });
      await d.sync.addNode({ url, token: 't' });
      await refused;
      expect(d.sync.peers()[0]).toMatchObject({ connected: false, subscribed: false, lastError: { code: 'UNAUTHORIZED', status: 401 } });
      // The hub's operator adds the token: the link's next attempt is taken.
      admit = true;
      await d.sync.synced(url);
      expect(d.sync.peers()[0]).toMatchObject({ connected: true, subscribed: true, lastError: null });
      const down = nextPeer(d, false);
      await hub.close();
      await down;
      expect(d.sync.peers()[0]).toMatchObject({ connected: false, lastError: { code: 'LINK_DOWN' } });
    } finally {
      await d.close();
      await hub.close();
    }
  });
});
