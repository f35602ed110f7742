import { pageEncodings } from '../../src/gateway/page-message';
import { rawSubscriberFixture } from '../helpers/raw-subscriber';

describe('a subscriber that drifted behind reuses the encodings of the pages it follows', () => {
  const fx = rawSubscriberFixture();
  /** A raw subscriber from `from`; until(id) waits for the page of that event id. */
  const subscriber = async (node: string, from: string) => {
    const s = await fx.subscribe({ node, sub: 's', from });
    return { ...s, until: (id: string) => s.until((pages) => pages.some((p) => p.eventId === id)) };
  };

  it('PROTO-6: a later subscriber from the same event id is sent the pages already encoded, though the log grew since', async () => {
    const { storage } = fx.hub();
    const from = fx.head();
    await storage.insert({ n: 1 });
    await storage.insert({ n: 2 });
    const a = await subscriber('n1', from);
    await a.until(fx.head());
    await storage.insert({ n: 3 });
    await a.until(fx.head());
    const encoded = pageEncodings.count;
    const b = await subscriber('n2', from);
    await b.until(fx.head());
    // b's pages are a's, page for page, and none was encoded again.
    expect(b.pages.map((p) => p.value)).toEqual(a.pages.map((p) => p.value));
    expect(pageEncodings.count).toBe(encoded);
  });
});
