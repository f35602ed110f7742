import { clockMs, serve } from '../lib/child-server';
import { processCpuUs } from '../lib/cpu';
import { type OpenArgs, type PeerInfo, RECORDS_PER_TX, type Written } from './protocol';

/** One system's client, as the generic client child (serveClient) drives it. */
export interface PeerClient {
  /** What the other client needs to know (PeerInfo). */
  readonly info: PeerInfo;
  /** Starts syncing, once both clients are open (TinyBase's startSync); absent when open() did it. */
  start?(): Promise<void>;
  /** Records this client holds (O(1): it is asked at every change). */
  held(): number;
  /** Calls `listener` after each local or remote change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Writes records `from` .. `from + count - 1`, each its own change; resolves once the last is done locally. */
  write(from: number, count: number): Promise<void>;
  /**
   * The batched workload: records `from` .. `from + count - 1` of wideRecord(),
   * all in one transaction of the system's own (syncom has none: one call per
   * record, awaited together); a promise when the system's writes are.
   */
  writeBatch(from: number, count: number): Promise<unknown> | void;
  close(): Promise<void>;
}

/** Opens one system's client on a fresh, empty store. */
export type Connect = (args: OpenArgs) => Promise<PeerClient>;

/**
 * The client child of every system: open, start, arm (wait for `target`
 * records held, stamped at the change that got there), write (N changes,
 * stamped first and last), reached, cpu (the process's CPU so far, every
 * thread, µs), close. Stamps are on the machine's monotonic clock, so no
 * IPC hop is inside a figure.
 */
export function serveClient(connect: Connect): void {
  let client: PeerClient | undefined;
  let armed: Promise<number> | undefined;
  const the = (): PeerClient => {
    if (!client) throw new Error('no client open: send open first');
    return client;
  };
  const close = async () => {
    const c = client;
    client = undefined;
    armed = undefined;
    await c?.close();
  };
  serve({
    async open(args) {
      await close();
      client = await connect(args as unknown as OpenArgs);
      return client.info;
    },
    start: () => the().start?.(),
    arm(args) {
      armed = arm(the(), (args as { target: number }).target);
      armed.catch(() => undefined);
    },
    async write(args): Promise<Written> {
      const { from, count, batched } = args as { from: number; count: number; batched?: boolean };
      const startedAt = clockMs();
      await (batched ? inBatches(the(), from, count) : the().write(from, count));
      return { startedAt, endedAt: clockMs() };
    },
    async reached() {
      if (!armed) throw new Error('nothing armed');
      return { reachedAt: await armed };
    },
    held: () => the().held(),
    cpu: () => ({ us: processCpuUs() }),
    close,
  }, close);
}

/** Resolves with the clockMs() of the change at which `client` holds `target` records. */
function arm(client: PeerClient, target: number): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      if (client.held() < target) return;
      const at = clockMs();
      off();
      resolve(at);
    };
    const off = client.onChange(check);
    check();
  });
}

/**
 * Calls `op(i)` for i = from .. from + count - 1, yielding to the event loop
 * after every `window` calls: a synchronous write API would otherwise hold
 * the loop until the last write, and nothing would be sent meanwhile.
 */
export async function paced(from: number, count: number, window: number, op: (i: number) => void): Promise<void> {
  for (let i = 0; i < count; i++) {
    op(from + i);
    if ((i + 1) % window === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The batched workload's writer: one transaction of RECORDS_PER_TX records
 * after another, each awaited when it is a promise (syncom), else followed by
 * a yield to the event loop so that the system can send meanwhile.
 */
async function inBatches(client: PeerClient, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i += RECORDS_PER_TX) {
    const done = client.writeBatch(i, Math.min(RECORDS_PER_TX, from + count - i));
    await (done ?? new Promise((resolve) => setImmediate(resolve)));
  }
}
