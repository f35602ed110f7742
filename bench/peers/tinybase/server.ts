import { createServer } from 'node:http';
import { createWsServer } from 'tinybase/synchronizers/synchronizer-ws-server';
import { WebSocketServer } from 'ws';
import { closeHttp, listen, serveServer } from '../server-side';

/**
 * TinyBase's server: its WsServer on a `ws` WebSocketServer, as its docs set
 * it up, with no persister for the path: the server relays the clients'
 * messages (TinyBase's default), it keeps no copy of the store.
 */
serveServer(async () => {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const server = createWsServer(wss);
  const port = await listen(http);
  return {
    http,
    url: `ws://127.0.0.1:${port}/bench`,
    async close() {
      await server.destroy();
      wss.close();
      await closeHttp(http);
    },
  };
});
