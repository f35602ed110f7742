import { setTimeout as delay } from 'node:timers/promises';
import type { SyncomError } from 'syncom';
import { socketDialer } from '../helpers/dialer';
import { startHub, type TestHub } from '../helpers/hub';

/**
 * A node whose hello is over an open hub's pre-auth bytes. The gateway says
 * MESSAGE_TOO_LARGE in an `exception` notice and closes the socket; the link
 * used to drop the notice, so the dialer saw only LINK_DOWN (never reported)
 * and the link redialed after socket.io's reconnection delay, for ever: about
 * 25 connections in this test's half second with the helpers' 20 ms delay.
 */
describe('hostile: a hello over the pre-auth bytes of an open hub', () => {
  let hub: TestHub;

  beforeEach(async () => {
    hub = await startHub({ options: { access: 'public', preAuthBytes: 1024 } });
  });
  afterEach(() => hub.close());

  it('HOST-3: the dialer reports MESSAGE_TOO_LARGE (413) and backs off instead of redialing at once', async () => {
    const dialer = await socketDialer();
    try {
      let connects = 0;
      const reported = new Promise<SyncomError>((resolve) => dialer.storage.sync.on('error', (e) => e.code === 'MESSAGE_TOO_LARGE' && resolve(e)));
      // The scopes a node asks for are part of its hello (not of the handshake): 40 of them put it over the hub's 1 KiB.
      const scopes = Array.from({ length: 40 }, (_, i) => `scope-${i}-`.padEnd(40, 'x'));
      await dialer.storage.sync.addNode({ url: hub.url, scopes });
      dialer.sockets[0].on('connect', () => connects++);
      const error = await reported;
      expect(error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', status: 413 });
      const after = connects;
      // Observing an absence: half a second in which the old link redialed about 25 times; a slower machine only redials less.
      await delay(500);
      expect(connects - after).toBe(0);
    } finally {
      await dialer.storage.close();
    }
  });
});
