/** A page out on a feed, until its ack. */
interface Pending {
  resolve(): void;
  done: boolean;
  /** The page's socket.io ack id, while the socket holds its callback (undefined: none known). */
  id: number | undefined;
}

/** A count of pages out, shared by the feeds of one socket (what the gateway holds for it). */
export interface AwaitedCount {
  pages: number;
}

/** Sends a page with its ack callback; returns the ack id the socket registered for it, if known (a number; anything else: none). */
export type PageSend = (ack: () => void) => unknown;

/** Entries already settled at the front of the queue before it is compacted. */
const COMPACT_AT = 64;

/**
 * The acks awaited for one changes feed's pages. An ack is cumulative: the
 * client takes pages in order, so the ack of a page answers it and every
 * page of the feed sent before it (a client may ack only its latest page
 * taken; one that acks every page is answered the same). Callbacks the
 * socket still holds for the pages an ack covered are dropped (`forget`), so
 * a later ack of one of them reaches nothing. Only the oldest page still out
 * is on the clock: its `ms` start when it was sent or at the last ack that
 * answered pages, whichever is later. One timer per feed, armed at most once
 * per `ms` while pages flow (a fire before the deadline re-arms for what is
 * left). When the oldest page runs out of time, `timedOut` is told once and
 * every page out is let go, as they are when the feed closes: a feed never
 * waits on a page whose subscriber is gone.
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

  constructor(
    private readonly ms: number,
    private readonly timedOut: () => void,
    private readonly count: AwaitedCount = { pages: 0 },
    private readonly forget: (id: number) => void = () => undefined,
  ) {}

  /** Pages out, not acknowledged (for tests). */
  get size(): number {
    return this.out;
  }

  /**
   * Sends a page with `send`, handing it the ack callback; the promise
   * resolves at the ack (its own or a later page's), the timeout or close(),
   * and never rejects (a send that throws counts as answered, that page
   * alone: the feed ends by the socket's close).
   */
  page(send: PageSend): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.shut) return resolve();
      const p: Pending = { resolve, done: false, id: undefined };
      if (this.size === 0) this.clock();
      this.queue.push(p);
      this.out++;
      this.count.pages++;
      try {
        const id = send(() => this.acked(p));
        if (typeof id === 'number' && !p.done) p.id = id;
      } catch {
        if (p.done) return;
        this.settle(p);
        this.advance();
      }
    });
  }

  /** The feed ended: every page out is let go (the socket forgets their callbacks), the timer stops. */
  close(): void {
    if (this.shut) return;
    this.shut = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rest = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    for (const p of rest) if (!p.done) this.drop(p);
  }

  private settle(p: Pending): void {
    p.done = true;
    this.out--;
    this.count.pages--;
    p.resolve();
  }

  /** Settles a page some other way than its own ack: its callback on the socket goes. */
  private drop(p: Pending): void {
    if (p.id !== undefined) this.forget(p.id);
    this.settle(p);
  }

  /** The ack of `p`: it and every page before it still out are answered; an ack of a page already answered does nothing. */
  private acked(p: Pending): void {
    if (p.done) return;
    const q = this.queue;
    for (let i = this.head; i < q.length; i++) {
      const x = q[i];
      if (x === p) break;
      if (!x.done) this.drop(x);
    }
    this.settle(p);
    this.advance();
  }

  /** Moves past the pages answered at the front; the oldest page still out goes on the clock. */
  private advance(): void {
    const q = this.queue;
    if (this.head >= q.length || !q[this.head].done) return;
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
