import { pageEncodings } from '../../src/gateway/page-message';
import { rawSubscriberFixture } from '../helpers/raw-subscriber';

describe('the gateway encodes a page once for every socket at the head', () => {
  // Long-polling is the gateway's to allow (WebSocket only by default): one subscriber here takes it.
  const fx = rawSubscriberFixture({ transports: ['websocket', 'polling'] });
  /** A raw subscriber; until(n) waits for its n-th page. */
  const subscriber = async (node: string, sub: string, transports: ('websocket' | 'polling')[], from: string) => {
    const s = await fx.subscribe({ node, sub, from, transports });
    return { ...s, until: (n: number) => s.until((pages) => pages.length >= n) };
  };

  it('PROTO-6 HOST-4: three WebSocket subscribers and one on polling (a gateway with transports: websocket and polling) take the same pages, each with its own sub and acks, from one encoding per page', async () => {
    const from = fx.head();
    const subs = [
      await subscriber('n1', 'a', ['websocket'], from),
      await subscriber('n2', 'b', ['websocket'], from),
      await subscriber('n3', 'c.with "quotes"', ['websocket'], from),
      await subscriber('n4', 'd', ['polling'], from),
    ];
    const before = pageEncodings.count;
    // Each write taken by every subscriber before the next: a feed with a page out batches what comes meanwhile.
    for (let n = 0; n < 3; n++) {
      await fx.hub().storage.insert({ n, text: 'é€😀'.repeat(n * 50) });
      await Promise.all(subs.map((s) => s.until(n + 1)));
    }
    // One encoding per page, whatever the number of sockets (3 pages, 4 sockets).
    expect(pageEncodings.count - before).toBe(3);
    const [a, ...others] = subs;
    for (const s of others) expect(s.pages.map((p) => ({ ...p, sub: '' }))).toEqual(a.pages.map((p) => ({ ...p, sub: '' })));
    expect(subs.map((s) => [...new Set(s.pages.map((p) => p.sub))])).toEqual([['a'], ['b'], ['c.with "quotes"'], ['d']]);
    expect(a.pages.map((p) => p.eventId)).toHaveLength(3);
    expect(a.pages[2].eventId).toBe(fx.head());
  });
});
