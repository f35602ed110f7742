import { SyncomError } from '../../errors';
import type { LinkEvent, SyncLink } from '../../link/contract';
import { urlLabel } from '../../telemetry/url-label';

/**
 * Take the dialer's listeners off its link and close it. What an app's link
 * throws there (or a value that is no link) is reported (SYNC_FAILED), never
 * thrown: a stop must go on, since storage.close() drains the writes after
 * it and only then lets the lock go.
 */
export function closeLink(link: SyncLink, listeners: readonly [LinkEvent, () => void][], url: string, report: (e: SyncomError) => void): void {
  try {
    for (const [ev, l] of listeners) link.off(ev, l);
    link.close();
  } catch (cause) {
    report(new SyncomError('SYNC_FAILED', `the link to ${urlLabel(url)} failed to close: ${String((cause as Error)?.message ?? cause)}`, { url, cause }));
  }
}

/**
 * The link as the dialer holds it: close() also ends every call still
 * waiting (LINK_DOWN), as the built-in links do. An app's link whose call
 * never answered had kept the dialer's stop, and with it removeNode() and
 * storage.close() (the lock held), waiting for good.
 */
export function stoppable(link: SyncLink): SyncLink {
  let end!: (e: Error) => void;
  const ended = new Promise<never>((_, reject) => (end = reject));
  ended.catch(() => undefined);
  return new Proxy(link, {
    get: (target, key) => {
      if (key === 'call') return (method: string, args: unknown) => Promise.race([target.call(method, args), ended]);
      if (key === 'close') return () => { end(new SyncomError('LINK_DOWN', 'the link was closed: the dialer stopped')); target.close(); };
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
