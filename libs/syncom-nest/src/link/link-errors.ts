import { SyncomError, type LinkEvent } from 'syncom';

type Listener = (...args: unknown[]) => void;

/**
 * The open/close/reconnect listeners of a link. A listener that throws or
 * rejects is its own problem: the contract has no channel to report it on,
 * and it must not stop the listeners after it or the link.
 */
export class LinkListenerSet {
  private readonly byEvent = new Map<LinkEvent, Set<Listener>>();

  /** Adds a listener (once per event, like a Set). */
  on(event: LinkEvent, listener: Listener): void {
    const set = this.byEvent.get(event) ?? new Set<Listener>();
    set.add(listener);
    this.byEvent.set(event, set);
  }

  /** Removes a listener; unknown ones are ignored. */
  off(event: LinkEvent, listener: Listener): void {
    this.byEvent.get(event)?.delete(listener);
  }

  /** Calls the event's listeners in the order they were added. */
  emit(event: LinkEvent): void {
    for (const listener of [...(this.byEvent.get(event) ?? [])]) swallow(() => listener());
  }
}

/** Runs `fn`; a throw or a rejected promise is dropped (see LinkListenerSet). */
export function swallow(fn: () => unknown): void {
  try {
    const result = fn();
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // Deliberately dropped: the caller has nowhere to report it.
  }
}

/** The link is down (never came up, went down, or was closed): nothing was sent. */
export function linkDown(): SyncomError {
  return new SyncomError('LINK_DOWN', 'The socket.io link is down; calls fail until it reconnects, subscriptions resume then');
}

/** No answer came back in time; the host may or may not have run the call. */
export function linkTimeout(ms: number): SyncomError {
  return new SyncomError('LINK_TIMEOUT', `No answer within ${ms} ms; the host may or may not have run the call — retry`);
}
