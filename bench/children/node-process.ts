import { io } from 'socket.io-client';
import { createSocketIoLink } from 'syncom-nest';
import { open, type Storage } from '../../libs/syncom/src';
import { clockMs, serve } from '../lib/child-server';
import { processCpuUs } from '../lib/cpu';
import { inFlight } from '../lib/measure';
import { armReached, bootstrapFrom, memoryBackend } from '../lib/nodes';
import { makeRecord } from '../lib/record';

/**
 * A node of the socket.io replication bench, in a process of its own: A (the
 * writer) or B (the watcher), as the bench's requests make it. Each run
 * opens a fresh storage (memory backend, signatures 'verify') that dials the
 * hub over socket.io, as DESIGN shows a dialer. Times are stamped on the
 * machine's monotonic clock (clockMs), so the bench can subtract A's and
 * B's stamps without an IPC hop in the figure.
 */
let storage: Storage | undefined;
let written = 0;
/** The scope this node writes and subscribes to, when open was given one (the four-peer ingest: no peer is fed another's ops). */
let scope: string | undefined;
let armed: Promise<number> | undefined;

const the = (): Storage => {
  if (!storage) throw new Error('no storage open: send open first');
  return storage;
};

async function close(): Promise<void> {
  const s = storage;
  storage = undefined;
  armed = undefined;
  await s?.close();
}

serve({
  /**
   * A fresh storage; with a `url`, registered at that hub, its (empty)
   * bootstrap taken and its commits settled. Answers its id.
   */
  async open(args) {
    await close();
    const { label, url, token } = args as { label: string; url?: string; token?: string; scope?: string };
    scope = (args as { scope?: string }).scope;
    const s = await open({
      path: label, backend: memoryBackend(),
      // Unregistered, it writes a backlog for the ingest figure: retention must keep it all (ops written
      // before any addNode() age out like any other, and a hub would then never get them).
      sync: {
        connect: (node) => createSocketIoLink(io(node.url, { auth: { token: node.token }, transports: ['websocket'], transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } } })),
        retention: url ? undefined : { ops: Number.MAX_SAFE_INTEGER },
      },
    });
    storage = s;
    if (url) {
      await bootstrapFrom(s, { url, token });
      await s.replica.idle();
    }
    return { id: s.id };
  },
  /** CPU µs this process has spent so far, every thread. */
  cpu: () => ({ us: processCpuUs() }),
  /** Register a hub now (the ops written before are pushed to it); answers when the call was made. */
  async register(args) {
    const { url, token } = args as { url: string; token: string };
    const s = the();
    await s.replica.idle();
    const startedAt = clockMs();
    await s.sync.addNode({ url, token, ...(scope && { scopes: [scope] }) });
    return { startedAt };
  },
  /** Insert `count` records, `window` in flight; answers when the first started and the last resolved. */
  async insert(args) {
    const { count, window } = args as { count: number; window: number };
    const s = the();
    const base = written;
    written += count;
    const startedAt = clockMs();
    // '$type' is the hub's default scope field.
    await inFlight(count, window, (i) => s.insert(scope ? { ...makeRecord(base + i), $type: scope } : makeRecord(base + i)));
    return { startedAt, endedAt: clockMs() };
  },
  /** Start watching for this node to have applied `target` ops of `stream` (an absolute count). */
  arm(args) {
    const { stream, target } = args as { stream: string; target: number };
    armed = armReached(the(), stream, target);
  },
  /** The time the armed target was reached. */
  async reached() {
    if (!armed) throw new Error('nothing armed');
    return { reachedAt: await armed };
  },
  close,
}, close);
