import type { Socket as ClientSocket } from 'socket.io-client';
import type { PageMessage } from '../../src/link';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';
import { Signal } from '../helpers/until';

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/**
 * A `{ bootstrap: true }` notice is the last thing a feed sends: the unit's
 * subscription is over. syncom's dialers open the next feed under a new sub
 * id once they bootstrapped (socket-io-feed.ts), and never unsubscribe the
 * old one, so the gateway lets go of a feed at its notice: its slot under
 * maxFeedsPerConnection and the socket's rooms (docs/nest.md, Rooms).
 */
describe('a changes feed that ends with a bootstrap notice', () => {
  const f = gatewayFixture();
  let hub: TestHub;
  let socket: ClientSocket;
  const notices: PageMessage[] = [];
  const noticed = new Signal();

  beforeEach(async () => {
    notices.length = 0;
    hub = await f.startHub({ options: { maxFeedsPerConnection: 2 } });
    socket = await rawSocket(hub.url);
    f.sockets.push(socket);
    socket.on('changes:data', (m: PageMessage, ack: (a: unknown) => void) => {
      notices.push(m);
      ack({ ok: true, value: null });
      noticed.notify();
    });
    expect(await socket.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
  });

  it('PROTO-6 BOOT-1: frees its slot and leaves no room: a connection bootstrapping again and again is never refused TOO_MANY_FEEDS', async () => {
    for (let i = 1; i <= 4; i++) {
      expect(await socket.timeout(5000).emitWithAck('changes', { sub: `f.${i}` })).toEqual({ ok: true, value: null });
      await noticed.until(() => notices.length === i, `the notice of feed ${i}`);
      expect(notices[i - 1]).toEqual({ sub: `f.${i}`, value: { bootstrap: true, reason: 'floor' } });
      expect((await hub.namespace().in('syncom:*').fetchSockets()).length).toBe(0);
    }
    // A live feed still opens, and joins the rooms.
    const head = hub.storage.replica.eventId(hub.storage.replica.head);
    expect(await socket.timeout(5000).emitWithAck('changes', { sub: 'live', lastEventId: head })).toEqual({ ok: true, value: null });
    expect((await hub.namespace().in('syncom:*').fetchSockets()).length).toBe(1);
  });
});
