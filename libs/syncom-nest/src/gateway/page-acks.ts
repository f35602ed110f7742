/** A page out on a feed, until its ack. */
interface Pending {
  resolve(): void;
  done: boolean;
}

/** A count of pages out, shared by the feeds of one socket (what the gateway holds for it). */
export interface AwaitedCount {
  pages: number;
}

/** Entries already settled at the front of the queue before it is compacted. */
const COMPACT_AT = 64;

/**
 * The acks awaited for one changes feed's pages. The client takes pages one
 * by one, in order, so only the oldest page still out is on the clock: its
 * `ms` start when it was sent or when the page before it was acked, whichever
 * is later. One timer per feed, armed at most once per `ms` while pages flow
 * (a fire before the deadline re-arms for what is left), rather than a timer
 * and a promise chain per page. When the oldest page runs out of time,
 * `timedOut` is told once and every page out is let go, as they are when the
 * feed closes: a feed never waits on a page whose subscriber is gone.
 */
export class PageAcks {
  private queue: Pending[] = [];
  private head = 0;
  private out = 0;
  /** When the oldest page out went on the clock (ms, Date.now()). */
  private since = 0;
  private timer?: ReturnType<typeof setTimeout>;
  private shut = false;
  private readonly check = () => this.expire();

  constructor(private readonly ms: number, private readonly timedOut: () => void, private readonly count: AwaitedCount = { pages: 0 }) {}

  /** Pages out, not acknowledged (for tests). */
  get size(): number {
    return this.out;
  }

  /**
   * Sends a page with `send`, handing it the ack callback; the promise
   * resolves at the ack, the timeout or close(), and never rejects (a send
   * that throws counts as answered: the feed ends by the socket's close).
   */
  page(send: (ack: () => void) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.shut) return resolve();
      const p: Pending = { resolve, done: false };
      if (this.size === 0) this.clock();
      this.queue.push(p);
      this.out++;
      this.count.pages++;
      try {
        send(() => this.acked(p));
      } catch {
        this.acked(p);
      }
    });
  }

  /** The feed ended: every page out is let go, the timer stops. */
  close(): void {
    if (this.shut) return;
    this.shut = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rest = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    for (const p of rest) if (!p.done) this.settle(p);
  }

  private settle(p: Pending): void {
    p.done = true;
    this.out--;
    this.count.pages--;
    p.resolve();
  }

  private acked(p: Pending): void {
    if (p.done) return;
    this.settle(p);
    const q = this.queue;
    if (q[this.head] !== p) return;
    while (this.head < q.length && q[this.head].done) this.head++;
    if (this.head === q.length) {
      this.queue = [];
      this.head = 0;
    } else {
      if (this.head >= COMPACT_AT) this.queue = q.slice(this.head), this.head = 0;
      this.clock();
    }
  }

  /** The oldest page out goes on the clock now; the timer is armed unless it already runs (it re-arms itself). */
  private clock(): void {
    this.since = Date.now();
    if (!this.timer) this.arm(this.ms);
  }

  private arm(delay: number): void {
    this.timer = setTimeout(this.check, delay);
    this.timer.unref?.();
  }

  private expire(): void {
    this.timer = undefined;
    if (this.shut || this.size === 0) return;
    const left = this.since + this.ms - Date.now();
    if (left > 0) return this.arm(left);
    this.timedOut();
    this.close();
  }
}
