import type { LogEntry } from '../log/op-log';
import { FLAG_SEALED, packOps } from '../op';
import type { Storage } from '../storage/storage';
import { inServed } from './scopes';

/** A live changes feed at the host, for hosted(). */
export interface FeedInfo {
  node: string;
  scopes: string[];
  since: number;
  cursor: string;
}

/** What a feed needs: where to start and where pages go. */
export interface FeedOptions {
  storage: Storage;
  node: string;
  scopes: string[];
  from: number;
  pageSize: number;
  send(page: unknown, eventId: string): void | Promise<void>;
  /** The feed fell below the floor while it was behind: the subscriber must bootstrap. */
  bootstrap(): void;
  /** The feed ended — closed, below the floor, or a page its subscriber failed to take: forget it. */
  ended?(): void;
  now: number;
}

/**
 * A changes feed (PROTO-6): everything that lands in the host's log from the
 * cursor on, live, page by page. Ops of other scopes, a sealed record's, the
 * subscriber's own and those joined from it are stepped over without a page
 * (SCOPE-24, BOOT-10); each op is looked at once (SCOPE-25).
 */
export class Feed {
  pos: number;
  /** The event id of the last page sent (at first, the cursor resumed from): the next page's `prev`. */
  private sent: string;
  private ended = false;
  private pumping = false;
  private again = false;
  private readonly onAppend = () => void this.pump();
  readonly info: FeedInfo;

  constructor(private readonly o: FeedOptions) {
    this.pos = o.from;
    this.sent = o.storage.parts.log.eventId(o.from);
    this.info = { node: o.node, scopes: o.scopes, since: o.now, cursor: o.storage.parts.log.eventId(o.from) };
    o.storage.parts.log.appended.add(this.onAppend);
    void this.pump();
  }

  /** Whether the feed ended. */
  get closed(): boolean {
    return this.ended;
  }

  /** End the feed: no more pages; the host forgets it (hosted()). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.o.storage.parts.log.appended.delete(this.onAppend);
    this.o.ended?.();
  }

  private relevant(e: LogEntry): boolean {
    const op = e.op;
    if (e.flags & FLAG_SEALED || op.origin === this.o.node || op.from === this.o.node) return false;
    return inServed(op.scope, this.o.scopes);
  }

  private async pump(): Promise<void> {
    if (this.pumping) { this.again = true; return; }
    this.pumping = true;
    try {
      do {
        this.again = false;
        await this.drain();
      } while (this.again && !this.closed);
    } catch {
      // The subscriber failed to take a page (its connection is gone): it resumes from its last event id.
      this.close();
    } finally {
      this.pumping = false;
    }
  }

  private async drain(): Promise<void> {
    const log = this.o.storage.parts.log;
    while (!this.closed && this.pos < log.head) {
      if (this.pos < log.floor) { this.close(); this.o.bootstrap(); return; }
      const entries = log.read(this.pos, this.o.pageSize);
      if (entries.length === 0) return;
      const last = entries[entries.length - 1].pos;
      const page = entries.filter((e) => this.relevant(e)).map((e) => e.op);
      if (page.length) {
        const prev = this.sent;
        this.sent = log.eventId(last);
        await this.o.send({ ops: packOps(page), prev }, this.sent);
      }
      this.pos = last;
      this.info.cursor = log.eventId(last);
    }
  }
}
