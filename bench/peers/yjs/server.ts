import { createServer } from 'node:http';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { WebSocket, WebSocketServer } from 'ws';
import * as syncProtocol from 'y-protocols/sync';
import * as Y from 'yjs';
import { closeHttp, listen, serveServer } from '../server-side';

/** y-websocket's message types: the first varuint of every message. */
const SYNC = 0;
const AWARENESS = 1;

/**
 * A minimal Yjs server speaking y-websocket's protocol (y-protocols' sync
 * messages, awareness passed on), written for the bench: one room, one
 * Y.Doc in memory that every client's updates are applied to; each update
 * goes on to the other clients, as y-websocket's own server does.
 */
serveServer(async () => {
  const http = createServer();
  const wss = new WebSocketServer({ server: http });
  const doc = new Y.Doc();
  const clients = new Set<WebSocket>();
  const others = (from: unknown, message: Uint8Array | Buffer) => {
    for (const c of clients) if (c !== from && c.readyState === WebSocket.OPEN) c.send(message);
  };
  doc.on('update', (update: Uint8Array, origin: unknown) => others(origin, syncMessage((e) => syncProtocol.writeUpdate(e, update))));
  wss.on('connection', (ws) => {
    clients.add(ws);
    ws.on('close', () => clients.delete(ws));
    ws.on('message', (data: Buffer) => {
      const decoder = decoding.createDecoder(new Uint8Array(data));
      const type = decoding.readVarUint(decoder);
      if (type === AWARENESS) return others(ws, data);
      if (type !== SYNC) return;
      // readSyncMessage answers a step 1 with a step 2 and applies a step 2 or an update, with this socket as origin.
      const reply = encoding.createEncoder();
      encoding.writeVarUint(reply, SYNC);
      syncProtocol.readSyncMessage(decoder, reply, doc, ws);
      if (encoding.length(reply) > 1) ws.send(encoding.toUint8Array(reply));
    });
    ws.send(syncMessage((e) => syncProtocol.writeSyncStep1(e, doc)));
  });
  const port = await listen(http);
  return {
    http,
    url: `ws://127.0.0.1:${port}`,
    async close() {
      wss.close();
      await closeHttp(http);
      doc.destroy();
    },
  };
});

/** A sync message: the SYNC type, then what `write` puts. */
function syncMessage(write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, SYNC);
  write(e);
  return encoding.toUint8Array(e);
}
