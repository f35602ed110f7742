import type { HostUnit, LinkEvent } from './contract';
import { invoke, linkDown, safely, wireError, type LinkStats } from './link-wire';

const noop = () => undefined;

/** How a pending call ended: its answer, or the error it rejects with. */
export type CallResult<T> = { value: T } | { error: unknown };

/** A call waiting on a connection for its answer; settle() is a no-op once it settled or the connection died. */
export interface PendingCall<T> {
  readonly promise: Promise<T>;
  /** Settles the call; false when it had already settled (a late or duplicated answer). */
  settle(result: CallResult<T>): boolean;
}

/**
 * One connection of a link: its context (where the host keeps the session,
 * one object per connection) and the calls waiting on it, which fail with
 * LINK_DOWN when it ends.
 */
export class LinkConnection {
  alive = true;
  private readonly onCut = new Set<(reason: unknown) => void>();

  constructor(readonly context: object) {}

  /** A connection that is already gone (a stream asked for while the link is cut). */
  static dead(): LinkConnection {
    const conn = new LinkConnection({});
    conn.alive = false;
    return conn;
  }

  /** A call whose answer a transport delivers later through settle(); LINK_DOWN if the connection ends first. */
  pending<T>(): PendingCall<T> {
    let settle: (r: CallResult<T>) => boolean = () => false;
    const promise = new Promise<T>((resolve, reject) => {
      if (!this.alive) return reject(linkDown());
      const hook = (reason: unknown) => void settle({ error: reason });
      this.onCut.add(hook);
      settle = (r) => {
        if (!this.onCut.delete(hook)) return false;
        if ('error' in r) reject(r.error);
        else resolve(r.value);
        return true;
      };
    });
    return { promise, settle: (r) => settle(r) };
  }

  /** `work`, unless the connection is cut first: then LINK_DOWN (or the reason it was cut), and a late answer is ignored. */
  guard<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.alive) return reject(linkDown());
      const hook = (reason: unknown) => reject(reason);
      this.onCut.add(hook);
      work.then(resolve, reject).finally(() => this.onCut.delete(hook));
    });
  }

  /**
   * The connection is gone: everything waiting on it fails, in the order it
   * began, with LINK_DOWN or the reason the host gave for closing it.
   */
  end(reason: unknown = linkDown()): void {
    this.alive = false;
    for (const hook of [...this.onCut]) hook(reason);
    this.onCut.clear();
  }
}

/** What pullStream needs of its link. */
export interface StreamLink {
  readonly stats: LinkStats;
  track<T>(work: Promise<T>): Promise<T>;
}

/**
 * The chunks of a host stream, pulled one at a time at the consumer's pace
 * (backpressure), each a copy. A cut mid-stream throws LINK_DOWN.
 */
export async function* pullStream(unit: HostUnit, conn: LinkConnection, id: string, link: StreamLink): AsyncGenerator<Uint8Array> {
  if (!conn.alive) throw linkDown();
  const source = unit.stream(id, conn.context)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const pulled = invoke(() => source.next()).catch((error: unknown) => Promise.reject(wireError(error)));
      const next = await link.track(conn.guard(pulled));
      if (next.done) return;
      const chunk = new Uint8Array(next.value);
      link.stats.bytesIn += chunk.byteLength;
      yield chunk;
      if (!conn.alive) throw linkDown();
    }
  } finally {
    // Not awaited: after a cut the source may still be busy with a next() that never ends.
    void invoke(() => source.return?.()).catch(noop);
  }
}

type Listener = (...args: unknown[]) => void;

/**
 * The open/close/reconnect listeners of a link, for any SyncLink
 * implementation: one that throws or rejects cannot break the link or the
 * listeners after it (the contract has no channel to report it on).
 */
export class LinkListeners {
  private readonly byEvent = new Map<LinkEvent, Set<Listener>>();

  on(event: LinkEvent, listener: Listener): void {
    const set = this.byEvent.get(event) ?? new Set<Listener>();
    set.add(listener);
    this.byEvent.set(event, set);
  }

  off(event: LinkEvent, listener: Listener): void {
    this.byEvent.get(event)?.delete(listener);
  }

  emit(event: LinkEvent, ...args: unknown[]): void {
    for (const listener of [...(this.byEvent.get(event) ?? [])]) safely(() => listener(...args));
  }
}
