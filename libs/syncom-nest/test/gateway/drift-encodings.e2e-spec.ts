import type { Socket as ClientSocket } from 'socket.io-client';
import { pageEncodings } from '../../src/gateway/page-message';
import { startHub, type TestHub } from '../helpers/hub';
import { rawSubscriber } from '../helpers/raw-subscriber';

/** A raw subscriber from `from`; until(id) waits for the page of that event id. */
async function subscriber(hub: TestHub, node: string, from: string) {
  const s = await rawSubscriber(hub, { node, sub: 's', from });
  return { ...s, until: (id: string) => s.until((pages) => pages.some((p) => p.eventId === id)) };
}

describe('a subscriber that drifted behind reuses the encodings of the pages it follows', () => {
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

  it('PROTO-6: a later subscriber from the same event id is sent the pages already encoded, though the log grew since', async () => {
    const from = head();
    await hub.storage.insert({ n: 1 });
    await hub.storage.insert({ n: 2 });
    const a = await subscriber(hub, 'n1', from);
    sockets.push(a.socket);
    await a.until(head());
    await hub.storage.insert({ n: 3 });
    await a.until(head());
    const encoded = pageEncodings.count;
    const b = await subscriber(hub, 'n2', from);
    sockets.push(b.socket);
    await b.until(head());
    // b's pages are a's, page for page, and none was encoded again.
    expect(b.pages.map((p) => p.value)).toEqual(a.pages.map((p) => p.value));
    expect(pageEncodings.count).toBe(encoded);
  });
});
