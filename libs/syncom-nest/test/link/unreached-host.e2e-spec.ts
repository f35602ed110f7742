import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { io, type Socket } from 'socket.io-client';
import { open } from 'syncom';
import { createSocketIoLink } from 'syncom/socket.io';
import { startHub } from '../helpers/hub';
import { until, waitFor } from '../helpers/until';

/** A port nothing listens on now (taken, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a host the socket.io link cannot reach yet', () => {
  it('LINK-2 PROTO-13: the dialer shows why (lastError LINK_DOWN, cannot reach the host) while it is out of reach, then greets and syncs once it listens', async () => {
    const port = await freePort();
    const sockets: Socket[] = [];
    const dialer = await open({
      path: 'unreached', backend: 'memory',
      sync: {
        antiEntropyInterval: 0,
        connect: (node) => {
          const socket = io(node.url, { transports: ['websocket'], reconnectionDelay: 50, reconnectionDelayMax: 100, transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } } });
          sockets.push(socket);
          return createSocketIoLink(socket);
        },
      },
    });
    const url = `http://127.0.0.1:${port}/syncom`;
    let hub: Awaited<ReturnType<typeof startHub>> | undefined;
    try {
      await dialer.sync.addNode({ url });
      const mine = await dialer.insert({ title: 'written while the host was down' });
      // No event tells a lost link (lastError only): checked a turn after each failed attempt, once the dialer took the call's failure.
      const lastError = () => dialer.sync.peers()[0]?.lastError?.code === 'LINK_DOWN';
      await waitFor(lastError, (retest) => {
        const onError = () => setImmediate(retest);
        sockets[0].on('connect_error', onError);
        return () => sockets[0].off('connect_error', onError);
      }, 'lastError LINK_DOWN');
      expect(dialer.sync.peers()[0]).toMatchObject({ connected: false, lastError: { message: expect.stringContaining('cannot reach the host') } });
      hub = await startHub({ port, options: { access: 'public' } });
      const at = hub.storage;
      await until(async () => (await at.get(mine))?.title === 'written while the host was down', [dialer, at], 'the write at the hub');
      expect(dialer.sync.peers()[0]).toMatchObject({ connected: true });
    } finally {
      await dialer.close();
      await hub?.close();
    }
  });
});
