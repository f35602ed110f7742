import type { Socket as ClientSocket } from 'socket.io-client';
import { pageEncodings } from '../../src/gateway/page-message';
import { startHub, type TestHub } from '../helpers/hub';
import { rawSubscriber } from '../helpers/raw-subscriber';

/** A raw subscriber; until(n) waits for its n-th page. */
async function subscriber(hub: TestHub, node: string, sub: string, transports: ('websocket' | 'polling')[], from: string) {
  const s = await rawSubscriber(hub, { node, sub, from, transports });
  return { ...s, until: (n: number) => s.until((pages) => pages.length >= n) };
}

describe('the gateway encodes a page once for every socket at the head', () => {
  let hub: TestHub;
  const sockets: ClientSocket[] = [];

  beforeEach(async () => {
    hub = await startHub();
  });

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.disconnect();
    await hub.close();
  });

  const head = () => hub.storage.replica.eventId(hub.storage.replica.head);

  it('PROTO-6 HOST-4: three WebSocket subscribers and one on polling take the same pages, each with its own sub and acks, from one encoding per page', async () => {
    const from = head();
    const subs = [
      await subscriber(hub, 'n1', 'a', ['websocket'], from),
      await subscriber(hub, 'n2', 'b', ['websocket'], from),
      await subscriber(hub, 'n3', 'c.with "quotes"', ['websocket'], from),
      await subscriber(hub, 'n4', 'd', ['polling'], from),
    ];
    sockets.push(...subs.map((s) => s.socket));
    const before = pageEncodings.count;
    // Each write taken by every subscriber before the next: a feed with a page out batches what comes meanwhile.
    for (let n = 0; n < 3; n++) {
      await hub.storage.insert({ n, text: 'é€😀'.repeat(n * 50) });
      await Promise.all(subs.map((s) => s.until(n + 1)));
    }
    // One encoding per page, whatever the number of sockets (3 pages, 4 sockets).
    expect(pageEncodings.count - before).toBe(3);
    const [a, ...others] = subs;
    for (const s of others) expect(s.pages.map((p) => ({ ...p, sub: '' }))).toEqual(a.pages.map((p) => ({ ...p, sub: '' })));
    expect(subs.map((s) => [...new Set(s.pages.map((p) => p.sub))])).toEqual([['a'], ['b'], ['c.with "quotes"'], ['d']]);
    expect(a.pages.map((p) => p.eventId)).toHaveLength(3);
    expect(a.pages[2].eventId).toBe(head());
  });
});
