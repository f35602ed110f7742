import { io, type Socket } from 'socket.io-client';
import { open } from 'syncom';
import { createSocketIoLink } from 'syncom/socket.io';
import { startHub } from '../helpers/hub';
import { waitFor } from '../helpers/until';

/**
 * socket.io-client starts with HTTP long-polling unless told otherwise, and
 * the gateway takes WebSocket only by default: the handshake is answered 400
 * "Transport unknown", which the link had reported as "cannot reach the host:
 * xhr poll error", a host it had reached, and nothing said what to change.
 */
describe('a socket made with socket.io-client\'s default transports, against a WebSocket-only gateway', () => {
  it('the dialer\'s lastError says the host takes WebSocket only and how to make the socket', async () => {
    const hub = await startHub();
    const sockets: Socket[] = [];
    const dialer = await open({
      path: 'polling-first', backend: 'memory',
      sync: {
        antiEntropyInterval: 0,
        connect: (node) => {
          const socket = io(node.url, { reconnectionDelay: 50, reconnectionDelayMax: 100, transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } } });
          sockets.push(socket);
          return createSocketIoLink(socket);
        },
      },
    });
    try {
      await dialer.sync.addNode({ url: hub.url });
      // No event tells a link that never connected (lastError only): checked a turn after each failed attempt.
      const told = () => dialer.sync.peers()[0]?.lastError?.code === 'LINK_DOWN';
      await waitFor(told, (retest) => {
        const onError = () => setImmediate(retest);
        sockets[0].on('connect_error', onError);
        return () => sockets[0].off('connect_error', onError);
      }, 'lastError LINK_DOWN');
      expect(dialer.sync.peers()[0].lastError?.message).toMatch(/takes WebSocket only.*transports: \['websocket'\]/);
    } finally {
      await dialer.close();
      await hub.close();
    }
  });
});
