/** How often the changes feed is opened again after what brings no op: a failed bootstrap, a break, a refusal that passes. */

/** The longest wait before a failed bootstrap is asked again. */
export const MAX_RETRY_MS = 60_000;

/**
 * The pace of restarts of the feed that a host asks for and that bring no op:
 * a bootstrap, a page refused for a gap or its `prev`. The first in a while
 * goes at once (a host may well ask one); the next ones wait 1 s, doubling to
 * a minute. The count starts over only after two quiet minutes, or when
 * reset(): a hostile host answering every subscription with a bootstrap, a
 * gap or a foreign `prev` restarted the feed thousands of times a second
 * (an advance op logged at each bootstrap), and an empty page between two of
 * them had been enough to start the count over.
 */
export class FeedPace {
  private count = 0;
  private last = -Infinity;

  constructor(private readonly now: () => number) {}

  /** How long to wait before this restart, in ms: 0 for the first in a while. */
  next(): number {
    const t = this.now();
    // Longer than the longest wait: a host asking at every retry never gets quiet enough.
    if (!(t - this.last <= 2 * MAX_RETRY_MS)) this.count = 0;
    this.last = t;
    const k = this.count++;
    return k === 0 ? 0 : Math.min(MAX_RETRY_MS, 1000 * 2 ** (k - 1));
  }

  /** Something only an honest exchange brings happened (a new session, new ops): the next restart goes at once. */
  reset(): void {
    this.count = 0;
  }
}

/**
 * Pages in a row that could not land at one cursor (a gap, or a `prev` that
 * is not the cursor) before the peer is stuck: about five minutes of a host
 * sending nothing else, paced (FeedPace). A lost page is an ordinary break,
 * mended by the next subscription, but a lossy link loses the page after one
 * cursor several times in a row: over 300 seeds of the simulator, whose links
 * drop up to 30% of pages, 5 in a row at most, each one more about 6.5 times
 * rarer (11,000 first ones): such a link reaches 12 about once in 80,000 such runs.
 */
export const MAX_BREAKS = 12;

/** A host's refusal that passes with time: 429, or 5xx (it failed to handle the call). */
export function passes(e: unknown): boolean {
  const status = (e as { status?: unknown })?.status;
  return typeof status === 'number' && (status === 429 || status >= 500);
}

/**
 * A failure on a link that stays up worth trying again after a wait: a
 * refusal that passes, or a failure with no status but a dropped link's
 * (its reconnect greets again): a call lost (LINK_TIMEOUT), a host's own
 * failure carried without a status (its disk's IO_ERROR over the memory
 * link or an app's link), this node's own (a signing). Only a refusal that
 * stands (any other 4xx) is left to the next write, hello or reconnect: a
 * quiet node whose push was lost so stayed behind, and a dialer whose feed
 * a host's own failure ended stayed deaf to that host, for as long as the
 * link stayed up.
 */
export function mayPass(e: unknown): boolean {
  const status = (e as { status?: unknown })?.status;
  if (typeof status === 'number') return status === 429 || status >= 500;
  return (e as { code?: unknown })?.code !== 'LINK_DOWN';
}
