import type { SubscribeOptions } from '../../link/contract';

/**
 * A changes subscription's two ways out through the application's `tracked`:
 * `notice` (a bootstrap signal) and `send` (a page). `tracked` is the
 * application's: one that throws (a wrpc-style tracked() refusing the
 * notice's empty event id) ends the feed with its error told to the
 * subscriber, never an exception in a microtask (the process's end) nor a
 * feed that stops in silence. A notice the link fails to take is let go: the
 * feed is over anyway.
 */
export function trackedFeed(track: (data: unknown, eventId: string) => unknown, options: SubscribeOptions) {
  return {
    notice(reason: string): void {
      try {
        Promise.resolve(options.onData(track({ bootstrap: true, reason }, ''), undefined)).catch(() => undefined);
      } catch (e) {
        options.onError?.(e);
      }
    },
    send(page: unknown, eventId: string, more: boolean): void | Promise<void> {
      let item: unknown;
      try {
        item = track(page, eventId);
      } catch (e) {
        // The feed ends at the throw (as at a send that fails); the subscriber, still there, is told why.
        queueMicrotask(() => options.onError?.(e));
        throw e;
      }
      return options.onData(item, eventId, more);
    },
  };
}
