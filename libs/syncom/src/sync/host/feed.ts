import type { LogEntry } from '../../log/op-log';
import { FLAG_SEALED } from '../../op';
import { joinedFrom } from '../../op/types';
import type { Replica } from '../../storage/replica';
import type { FrameSlot, SendWindow } from '../protocol/frames';
import { inServed } from '../protocol/scopes';
import { ownRead, type Page, type Read, type SharedReads } from './shared-pages';
import { hostSlices, type Slices } from './slices';

/** A live changes feed at the host, for hosted(). */
export interface FeedInfo {
  node: string;
  scopes: string[];
  since: number;
  cursor: string;
}

/** What a feed needs: where to start and where pages go. */
export interface FeedOptions {
  replica: Replica;
  node: string;
  scopes: string[];
  from: number;
  /** The event id the subscriber resumed from, the first page's `prev`: one of an earlier epoch names `from` too (LOG-8). */
  cursor?: string;
  pageSize: number;
  /** The most a page's ops weigh, UTF-8 bytes of their JSON (a larger op goes alone). */
  pageBytes: number;
  /** The unit's shared reads: feeds at the same position of the same scopes send the same pages (the fan-out encoded once). */
  shared?: SharedReads;
  /** The frames out to this peer: a full window pauses the feed until an ack (bounded frames). */
  window: SendWindow;
  /** The slices the feed's work is cut into, so a fan-out over many subscribers yields to the event loop (default: the process's). */
  slices?: Slices;
  /**
   * Sends a page; the returned promise is its ack (the subscriber took it).
   * `more`: the feed sends its next page without waiting for this ack (a
   * hint the link may pass on, so the subscriber can hold its ack a little).
   */
  send(page: unknown, eventId: string, more: boolean): void | Promise<void>;
  /** The feed fell below the floor while it was behind: the subscriber must bootstrap. */
  bootstrap(): void;
  /** The feed ended — closed, below the floor, or a page its subscriber failed to take: forget it. */
  ended?(): void;
  /**
   * The feed failed on this side (its log's read, the signing of what it
   * serves) and ended: the subscriber is told, so it subscribes again.
   */
  failed?(e: unknown): void;
  now: number;
}

/**
 * A changes feed (PROTO-6): everything that lands in the host's log from the
 * cursor on, live, page by page. Ops of other scopes, a sealed record's, the
 * subscriber's own and those joined from it are stepped over without a page
 * (SCOPE-24, BOOT-10); each op is looked at once (SCOPE-25). A page holds
 * at most pageSize ops and pageBytes bytes; up to the window's size of pages
 * are out unacknowledged at once, in order, and a full window stops the feed
 * reading the log until an ack comes (bounded frames). Less than a page
 * to send while a page is out waits for that ack: at the head of a busy
 * stream a subscriber gets a page per round trip, holding what came
 * meanwhile, not a message per op. Each page waits its
 * turn in the host's slices, so one append fanned out to thousands of
 * subscribers never holds the event loop for longer than a slice.
 */
export class Feed {
  pos: number;
  /** The event id of the last page sent (at first, the cursor resumed from): the next page's `prev`. */
  private sent: string;
  private ended = false;
  private pumping = false;
  /** pump() was called while a drain ran (an ack, a wake): drain again. */
  private again = false;
  /** The head as the last drain returned: an append since makes pump() drain again. */
  private seen = 0;
  /** This feed's frames out: released by their acks, or all at once when the feed ends. */
  private readonly out = new Set<FrameSlot>();
  /** The log position hosted()'s cursor shows: what the subscriber acknowledged, and what was stepped over since. */
  private shown: number;
  /**
   * The feed is called at every append only while idle with no page out
   * (`listening`). While a drain runs it is called at none: the drain reads
   * the head after each of its waits, and pump() drains again when the head
   * moved past what the last drain saw. With a page out and less than a page
   * to send it waits for the ack, or for the head a page further on
   * (`parkedAt`). At a busy head one append called thousands of feeds, nearly
   * all of them draining, waiting for a turn or for an ack.
   */
  private listening = false;
  private parkedAt: number | undefined;
  private readonly onAppend = () => {
    if (!this.waitsForAck()) void this.pump();
  };
  private readonly onWake = () => {
    this.parkedAt = undefined;
    if (!this.closed) void this.pump();
  };
  private readonly keep = (e: LogEntry) => this.relevant(e);
  readonly info: FeedInfo;

  constructor(private readonly o: FeedOptions) {
    this.pos = o.from;
    this.shown = o.from;
    this.sent = o.cursor ?? o.replica.eventId(o.from);
    this.info = { node: o.node, scopes: o.scopes, since: o.now, cursor: o.replica.eventId(o.from) };
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
    this.unhook();
    for (const slot of this.out) slot.release();
    this.out.clear();
    this.o.ended?.();
  }

  private relevant(e: LogEntry): boolean {
    const op = e.op;
    if (e.flags & FLAG_SEALED || op.origin === this.o.node || joinedFrom(op) === this.o.node) return false;
    return inServed(op.scope, this.o.scopes);
  }

  /** This feed's next read: shared with the unit's other feeds at its position where it can be. */
  private read(): Read {
    const o = this.o;
    if (!o.shared) return ownRead(o.replica.readOut(this.pos, o.pageSize), this.keep, o.pageSize, o.pageBytes);
    return o.shared.read({ log: o.replica, pos: this.pos, scopes: o.scopes, pageSize: o.pageSize, pageBytes: o.pageBytes }, o.node, this.keep);
  }

  private async pump(): Promise<void> {
    if (this.pumping) { this.again = true; return; }
    this.pumping = true;
    this.unhook();
    try {
      do {
        this.again = false;
        await this.drain();
      } while (!this.closed && (this.again || this.o.replica.head > this.seen));
    } catch (e) {
      // A failed send ends the feed in post(); what throws here failed on this side. Ended silently, it left a
      // subscriber whose connection stays up waiting for pages that never came; told, it resumes from its last event id.
      this.close();
      this.o.failed?.(e);
    } finally {
      this.pumping = false;
      this.settle();
    }
  }

  /** Called at no append and waiting for no position: while a drain runs, and once closed. */
  private unhook(): void {
    if (this.listening) this.o.replica.offAppend(this.onAppend);
    if (this.parkedAt !== undefined) this.o.replica.cancelWake(this.parkedAt, this.onWake);
    this.listening = false;
    this.parkedAt = undefined;
  }

  /**
   * With no drain running: waiting for an ack with less than a page to send,
   * wait for the head a page further on (or the ack); else take every
   * append, as the listener's check did (a drain that stopped for another
   * reason, a closed window, must not be woken again until the log moves).
   */
  private settle(): void {
    if (this.closed || this.pumping) return;
    if (!this.waitsForAck()) {
      if (this.listening) return;
      this.unhook();
      this.listening = true;
      this.o.replica.onAppend(this.onAppend);
      return;
    }
    const at = this.pos + this.o.pageSize;
    if (this.parkedAt === at) return;
    this.unhook();
    this.parkedAt = at;
    this.o.replica.wakeAt(at, this.onWake);
  }

  private async drain(): Promise<void> {
    const log = this.o.replica;
    try {
      while (!this.closed && this.pos < log.head) {
        if (this.pos < log.floor) { this.close(); this.o.bootstrap(); return; }
        if (this.waitsForAck()) return;
        // The slot first: a full window stops the feed before it reads the log (taken without a wait when there is room).
        let slot = this.o.window.tryAcquire() ?? (await this.o.window.acquire());
        if (!slot || this.closed) return slot?.release();
        // Then a turn, right before the work it admits: past the slice's budget the feed waits for a later macrotask.
        const turn = (this.o.slices ?? hostSlices).turn();
        if (turn) await turn;
        if (this.closed) return slot.release();
        if (this.pos < log.floor) { slot.release(); continue; }
        // A run of other scopes' ops is stepped over unread: a feed of some scopes costs the ops it may serve, not the log.
        const next = log.nextInScopes(this.pos, this.o.scopes);
        if (next > this.pos + 1) {
          slot.release();
          this.step(Math.min(next - 1, log.head));
          continue;
        }
        // A snapshot's merges are signed after their join, own ops logged unsigned on their way out: the feed reads none before its sig.
        const signing = log.whenSendable(this.pos, this.o.pageSize);
        if (signing) { slot.release(); await signing; continue; }
        const read = this.read();
        if (read.entries.length === 0) return slot.release();
        const sent = await this.frames(read, slot);
        if (sent === 'stop') return;
        if (sent === 'sent') this.step(read.entries[read.entries.length - 1].pos);
      }
    } finally {
      // The head as this drain returns (a finally runs at the return, not a microtask later): pump() drains
      // again for an append it did not see.
      this.seen = log.head;
    }
  }

  /**
   * Sends the frames of one read, the first in `first`: 'sent' when all went
   * (the feed steps past the read), 'stop' when the feed ended or its window
   * closed, 'again' when a purge scrubbed the log while a frame waited for
   * its slot: the read's ops, packed and encoded once for all its frames,
   * still hold the purged payload, so the rest is read again from the frame
   * sent last (test/hostile/purge-feed-race.spec.ts).
   */
  private async frames(read: Read, first: FrameSlot): Promise<'sent' | 'stop' | 'again'> {
    const { entries, relevant, ends } = read;
    const scrubs = this.o.replica.scrubs;
    let slot: FrameSlot | undefined = first;
    for (let k = 0; k < ends.length; k++) {
      slot ??= this.o.window.tryAcquire() ?? (await this.o.window.acquire());
      if (!slot || this.closed) { slot?.release(); return 'stop'; }
      if (this.o.replica.scrubs !== scrubs) { slot.release(); return 'again'; }
      // The last frame also covers the entries stepped over after its last op.
      const last = k === ends.length - 1 ? entries[entries.length - 1].pos : relevant[ends[k] - 1].pos;
      // A page counts fully in this connection's window; in the unit's budget, a page shared by several feeds counts once.
      const page = read.page(k, this.sent);
      slot.charge(read.bytes(k), page);
      this.post(slot, page, last, this.more(k < ends.length - 1, last));
      slot = undefined;
    }
    slot?.release();
    return 'sent';
  }

  /** Less than a page to send while a page is out: the ack brings the feed back, and what came meanwhile goes in one page. */
  private waitsForAck(): boolean {
    return this.out.size > 0 && this.o.replica.head - this.pos < this.o.pageSize;
  }

  /**
   * Whether the page ending at `last` is followed by another without waiting
   * for its ack: more frames of this read, or a page's worth of log left
   * beyond it (drain() waits for the ack when less is), and room in the
   * window such that the frames sent on that promise never fill a bound
   * alone (SendWindow.mayPromise). At the head of the log it is false: the
   * feed waits for this ack before it sends what came meanwhile.
   */
  private more(within: boolean, last: number): boolean {
    return (within || this.o.replica.head - last >= this.o.pageSize) && this.o.window.mayPromise;
  }

  /** Sends one page in `slot`; its ack frees the slot, a failed send ends the feed (the subscriber is gone). */
  private post(slot: FrameSlot, page: Page, last: number, more: boolean): void {
    this.sent = this.o.replica.eventId(last);
    this.pos = last;
    this.out.add(slot);
    const acked = () => {
      this.out.delete(slot);
      slot.release();
      this.show(this.out.size === 0 ? this.pos : last);
      if (this.out.size > 0 || this.closed) return;
      if (this.pos < this.o.replica.head) void this.pump();
      else this.settle();
    };
    let sent: void | Promise<void>;
    try {
      sent = this.o.send(page, this.sent, more);
    } catch {
      acked();
      return this.close();
    }
    Promise.resolve(sent).then(acked, () => (acked(), this.close()));
  }

  /** The feed read up to `pos`; with nothing out unacknowledged, the cursor follows. */
  private step(pos: number): void {
    this.pos = pos;
    if (this.out.size === 0) this.show(pos);
  }

  private show(pos: number): void {
    if (pos <= this.shown || this.closed) return;
    this.shown = pos;
    this.info.cursor = this.o.replica.eventId(pos);
  }
}
