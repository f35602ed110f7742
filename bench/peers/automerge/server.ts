import { createServer } from 'node:http';
import { type NetworkAdapterInterface, type PeerId, Repo } from '@automerge/automerge-repo';
import { WebSocketServerAdapter } from '@automerge/automerge-repo-network-websocket';
import { WebSocketServer } from 'ws';
import { closeHttp, listen, serveServer } from '../server-side';

/**
 * Automerge's server: a Repo whose network is the websocket server adapter
 * on a `ws` WebSocketServer, no storage (documents in memory), and a share
 * policy that announces nothing: it syncs a document with the clients that
 * ask for it, as automerge-repo's sync server is set up. (The cast: see
 * client.ts, the adapter's typings name a subpath node10 resolution misses.)
 */
serveServer(async () => {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const repo = new Repo({ network: [new WebSocketServerAdapter(wss) as unknown as NetworkAdapterInterface], peerId: 'bench-server' as PeerId, sharePolicy: async () => false });
  const port = await listen(http);
  return {
    http,
    url: `ws://127.0.0.1:${port}`,
    async close() {
      await repo.shutdown();
      wss.close();
      await closeHttp(http);
    },
  };
});
