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
