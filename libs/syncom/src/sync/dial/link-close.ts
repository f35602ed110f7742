import { SyncomError } from '../../errors';
import { isSyncLink, type LinkEvent, type SyncLink } from '../../link/contract';
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
 * @throws SyncomError INVALID_ARGUMENT when connect(node) gave something that is no SyncLink (OPT-1).
 */
export function stoppable(link: SyncLink): SyncLink {
  if (!isSyncLink(link)) throw new SyncomError('INVALID_ARGUMENT', 'connect(node) gave no SyncLink (see isSyncLink)');
  // One rejecter per call in flight, let go as the call settles: a race with one shared promise kept a
  // reaction per call on it for the link's life (about 0.5 KB a call, the dialer's whole life).
  const pending = new Set<(e: Error) => void>();
  let closed: Error | undefined;
  const call = (method: string, args: unknown): Promise<unknown> => {
    if (closed) return Promise.reject(closed);
    let answer: Promise<unknown>;
    try {
      answer = link.call(method, args);
    } catch (e) {
      return Promise.reject(e);
    }
    // close() ran inside that call (a link reporting its socket gone at once): nothing would end it now.
    // The inner call's own end (a built-in link rejects its calls at close) is taken here, not left unhandled.
    if (closed) {
      answer.catch(() => undefined);
      return Promise.reject(closed);
    }
    // One reaction that lets go and settles (a then and a finally made four promises a call, each a cost
    // wherever async hooks run, as under jest: test/sync/link-close.spec.ts).
    return new Promise((resolve, reject) => {
      pending.add(reject);
      answer.then(
        (value) => void (pending.delete(reject), resolve(value)),
        (e: unknown) => void (pending.delete(reject), reject(e)),
      );
    });
  };
  return new Proxy(link, {
    get: (t, key) => {
      if (key === 'call') return call;
      if (key === 'close') {
        return () => {
          closed = new SyncomError('LINK_DOWN', 'the link was closed: the dialer stopped');
          for (const reject of [...pending]) reject(closed);
          pending.clear();
          t.close();
        };
      }
      const value = Reflect.get(t, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}
