import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { makeRecord } from '../../lib/record';
import { paced, serveClient } from '../client-side';
import { recordId, TABLE, WINDOW, wideRecord } from '../protocol';

/** The room both clients join. */
const ROOM = 'bench';

/**
 * A Yjs client: a Y.Doc synced by y-websocket's WebsocketProvider (with `ws`
 * as its WebSocket). A record is a Y.Map of its fields set in the doc's
 * top-level map, in one transaction: one change, one update message.
 * Records held are counted from the map's events (Y.Map's size walks every
 * entry, too slow to ask at each change).
 */
serveClient(async ({ url }) => {
  const doc = new Y.Doc();
  const records = doc.getMap<Y.Map<unknown>>(TABLE);
  // ws's WebSocket where the typings name the DOM's: y-websocket documents it for Node.
  const provider = new WebsocketProvider(url, ROOM, doc, { WebSocketPolyfill: WebSocket as never });
  await new Promise<void>((resolve) => provider.once('sync', () => resolve()));
  let held = 0;
  records.observe((event) => event.changes.keys.forEach((change) => { if (change.action === 'add') held++; }));
  const writeOne = (i: number) => doc.transact(() => {
    const record = new Y.Map<unknown>(Object.entries(makeRecord(i)));
    records.set(recordId(i), record);
  });
  return {
    info: {},
    held: () => held,
    onChange(listener) {
      const observer = () => listener();
      records.observe(observer);
      return () => records.unobserve(observer);
    },
    write: (from, count) => paced(from, count, WINDOW, writeOne),
    writeBatch: (from, count) => doc.transact(() => {
      for (let i = from; i < from + count; i++) records.set(recordId(i), new Y.Map<unknown>(Object.entries(wideRecord(i))));
    }),
    async close() {
      provider.destroy();
      doc.destroy();
    },
  };
});
