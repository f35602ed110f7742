import { io } from 'socket.io-client';
import { createSocketIoLink } from 'syncom-nest';
import { open, type Storage } from '../../libs/syncom/src';
import { clockMs, serve } from '../lib/child-server';
import { inFlight } from '../lib/measure';
import { bootstrapFrom, memoryBackend, reached } from '../lib/nodes';
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
  /** A fresh storage registered at the hub, its (empty) bootstrap taken and its commits settled; answers its id. */
  async open(args) {
    await close();
    const { label, url, token } = args as { label: string; url: string; token: string };
    const s = await open({
      path: label, backend: memoryBackend(),
      sync: { connect: (node) => createSocketIoLink(io(node.url, { auth: { token: node.token }, transports: ['websocket'] })) },
    });
    storage = s;
    await bootstrapFrom(s, { url, token });
    await s.parts.committer.idle();
    return { id: s.id };
  },
  /** Insert `count` records, `window` in flight; answers when the first started and the last resolved. */
  async insert(args) {
    const { count, window } = args as { count: number; window: number };
    const s = the();
    const base = written;
    written += count;
    const startedAt = clockMs();
    await inFlight(count, window, (i) => s.insert(makeRecord(base + i)));
    return { startedAt, endedAt: clockMs() };
  },
  /** Start watching for this node to have applied `target` ops of `stream` (an absolute count). */
  arm(args) {
    const { stream, target } = args as { stream: string; target: number };
    const s = the();
    let at = 0;
    // Stamped in the check itself, at the 'change' event that got there, not when a promise settles later.
    const check = () => {
      if ((s.parts.committer.cvec[stream] ?? 0) < target) return false;
      at ||= clockMs();
      return true;
    };
    armed = reached(s, check, `${target} ops of ${stream} applied`).then(() => at);
    armed.catch(() => undefined);
  },
  /** The time the armed target was reached. */
  async reached() {
    if (!armed) throw new Error('nothing armed');
    return { reachedAt: await armed };
  },
  close,
}, close);
