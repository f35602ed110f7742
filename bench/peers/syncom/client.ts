import { io } from 'socket.io-client';
import { open } from '../../../libs/syncom/src';
import { createSocketIoLink } from '../../../libs/syncom-nest/src/link';
import { inFlight } from '../../lib/measure';
import { bootstrapFrom, memoryBackend } from '../../lib/nodes';
import { makeRecord } from '../../lib/record';
import { serveClient } from '../client-side';
import { WINDOW, wideRecord } from '../protocol';

/**
 * A syncom client: a storage on the memory backend dialing the server over
 * socket.io as syncom-nest's socketIoConnect() does (the link module alone:
 * the client process need not load Nest), registered with addNode and
 * bootstrapped from it before the run, its frames bounded to 16 MiB
 * (maxPayload) as the link's documentation asks of every dialer. One insert
 * is one change (one op); 100 are kept in flight. The reader counts the writer's ops it has applied
 * (its committed vector at the writer's stream).
 */
const frames = { websocket: { maxPayload: 16 * 2 ** 20 } };
const connect = (node: { url: string; token?: string }) =>
  createSocketIoLink(io(node.url, { transports: ['websocket'], auth: { token: node.token }, transportOptions: frames }));

serveClient(async ({ url, token, role, writer, signatures }) => {
  const s = await open({ path: role, backend: memoryBackend(), sync: { connect, signatures } });
  await bootstrapFrom(s, { url, token });
  await s.replica.idle();
  // BENCH_PEERS_DEBUG=1: say when a client is caught up by a bootstrap rather than by its feed, and by how much.
  if (process.env.BENCH_PEERS_DEBUG) s.sync.on('bootstrap', (e) => process.stderr.write(`syncom ${role}: bootstrap of ${e.records} records\n`));
  const stream = writer?.id ?? s.id;
  return {
    info: { id: s.id },
    held: () => s.replica.committedVector[stream] ?? 0,
    onChange(listener) {
      // Not 'change' alone: a reader whose feed fell behind the server's log is caught up by a bootstrap
      // (reconciled records, then a vector granted), which moves the vector without a 'change' at the end.
      const check = () => listener();
      const offs = [s.on('change', check), s.on('apply', check), s.sync.on('sync', check), s.sync.on('bootstrap', check)];
      return () => offs.forEach((off) => off());
    },
    write: (from, count) => inFlight(count, WINDOW, (i) => s.insert(makeRecord(from + i))),
    // No transactions: one insert per record, carrying its fields, awaited together as a REST handler would.
    writeBatch: (from, count) => Promise.all(Array.from({ length: count }, (_, k) => s.insert(wideRecord(from + k)))),
    close: () => s.close(),
  };
});
