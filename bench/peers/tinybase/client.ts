import { createMergeableStore } from 'tinybase';
import { createWsSynchronizer } from 'tinybase/synchronizers/synchronizer-ws-client';
import { WebSocket } from 'ws';
import { makeRecord } from '../../lib/record';
import { paced, serveClient } from '../client-side';
import { recordId, TABLE, WINDOW, wideRecord } from '../protocol';

/**
 * A TinyBase client: a MergeableStore synchronized with the server's path by
 * a WsSynchronizer over a `ws` WebSocket. A record is a row of the table,
 * its fields cells; one setRow() is one change (a transaction of its own).
 */
serveClient(async ({ url }) => {
  const store = createMergeableStore();
  const socket = new WebSocket(url);
  const synchronizer = await createWsSynchronizer(store, socket);
  return {
    info: {},
    // startSync asks the path's other clients for their content and waits up to its request timeout (1 s) for one.
    start: async () => void (await synchronizer.startSync()),
    held: () => store.getRowCount(TABLE),
    onChange(listener) {
      const id = store.addRowCountListener(TABLE, () => listener());
      return () => void store.delListener(id);
    },
    write: (from, count) => paced(from, count, WINDOW, (i) => void store.setRow(TABLE, recordId(i), makeRecord(i))),
    writeBatch: (from, count) => void store.transaction(() => {
      for (let i = from; i < from + count; i++) store.setRow(TABLE, recordId(i), wideRecord(i));
    }),
    async close() {
      await synchronizer.destroy();
    },
  };
});
