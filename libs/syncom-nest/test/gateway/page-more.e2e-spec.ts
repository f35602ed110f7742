import type { Socket as ServerSocket } from 'socket.io';
import type { PageMessage } from '../../src/link';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import { Signal } from '../helpers/until';

/**
 * A changes page on the wire says `more: true` when the hub sends the feed's
 * next page without waiting for its ack (PROTOCOL-SOCKETIO.md, "Page acks"),
 * whichever way the page goes out (pre-encoded, or through socket.emit), and
 * never at the head of the log: there the hub waits for the ack.
 */

const HELLO = { node: 'more-reader', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const OK = { ok: true, value: null };

describe('gateway: the `more` of a changes page', () => {
  const { sockets, startHub } = gatewayFixture();

  for (const outgoing of [false, true]) {
    it(`PROTO-6 a long log's pages are marked but its last; a live page is not${outgoing ? ' (pages through socket.emit)' : ''}`, async () => {
      const hub = await startHub({ options: { pageSize: 1, maxInFlightFrames: 8 } });
      for (let i = 0; i < 12; i++) await hub.storage.insert({ i });
      const socket = await rawSocket(hub.url);
      sockets.push(socket);
      if (outgoing) ([...hub.namespace().sockets.values()][0] as ServerSocket).onAnyOutgoing(() => undefined);
      await socket.timeout(5000).emitWithAck('hello', HELLO);
      const pages: PageMessage[] = [];
      const signal = new Signal();
      // A reader that acks every page at once, as a dialer ignoring `more` does.
      socket.on('changes:data', (m: PageMessage, ack: (a: unknown) => void) => {
        pages.push(m);
        ack(OK);
        signal.notify();
      });
      await socket.timeout(5000).emitWithAck('changes', { sub: 'm', lastEventId: hub.storage.replica.eventId(0) });
      await signal.until(() => pages.length === 12, 'every page');
      expect(pages[0].more).toBe(true);
      expect(pages[11].more).toBeUndefined();
      // `more` is true or absent, and the page is the same either way.
      for (const [i, p] of pages.entries()) {
        expect(p.more === undefined || p.more === true).toBe(true);
        expect(p).toMatchObject({ sub: 'm', eventId: hub.storage.replica.eventId(i + 1) });
      }
      await hub.storage.insert({ i: 12 });
      await signal.until(() => pages.length === 13, 'the live page');
      expect(pages[12].more).toBeUndefined();
    });
  }
});
