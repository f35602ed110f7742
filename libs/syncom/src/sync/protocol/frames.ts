import { SyncomError } from '../../errors';
import { platform } from '../../platform';

/** Frames a host has out to one peer, unacknowledged, by default (bounded frames). */
export const DEFAULT_MAX_IN_FLIGHT_FRAMES = 16;

/**
 * The most frames a host may have out to one peer: a dialer holds a host to
 * its window and drops one that sends past this many pages unacknowledged
 * (the socket.io link's page bound), so a host set above it would be dropped
 * by every honest dialer, again and again.
 */
export const MAX_IN_FLIGHT_FRAMES = 256;

/** The most a page carries by default, in UTF-8 bytes of its JSON (HOST-6): 4 MiB. */
export const DEFAULT_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * UTF-8 bytes of a value's JSON; Infinity for a value JSON.stringify cannot
 * walk (nested thousands deep, as a frame's JSON.parse builds happily): what
 * cannot be measured is over any bound, a refusal rather than a RangeError.
 */
export function jsonBytes(value: unknown): number {
  try {
    return platform().byteLength(JSON.stringify(value) ?? 'null');
  } catch {
    return Infinity;
  }
}

/**
 * Where to cut a list of records into frames (bounded frames): consecutive runs of
 * at most `maxCount` records whose JSON array (`[a,b]`: the records, a comma
 * between, the brackets) is at most `maxBytes`. A record above `maxBytes`
 * goes alone in its frame; a record is never split. Returns each frame's end
 * index (exclusive), in order.
 *
 * @example frameEnds([10, 10, 10], 2, 100) // [2, 3]
 */
export function frameEnds(sizes: readonly number[], maxCount: number, maxBytes: number): number[] {
  const ends: number[] = [];
  let count = 0;
  let bytes = 2;
  for (let i = 0; i < sizes.length; i++) {
    if (count > 0 && (count >= maxCount || bytes + 1 + sizes[i] > maxBytes)) {
      ends.push(i);
      count = 0;
      bytes = 2;
    }
    bytes += sizes[i] + (count > 0 ? 1 : 0);
    count++;
  }
  if (count > 0) ends.push(sizes.length);
  return ends;
}

/**
 * A bound that must be a positive integer (pageSize, pageBytes, maxInFlightFrames), at most `max`.
 * @throws SyncomError INVALID_ARGUMENT for anything else.
 */
export function positiveInt(value: number | undefined, fallback: number, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new SyncomError('INVALID_ARGUMENT', `${name} must be a positive integer`);
  if (value > max) throw new SyncomError('INVALID_ARGUMENT', `${name} must be at most ${max}`);
  return value;
}

/**
 * A slot of a send window: one frame out; charge() adds its bytes once
 * known, release() is its ack (idempotent). `shared`: the object whose bytes
 * the frame is (a page several connections are sent), which the unit's
 * budget counts once however many connections hold it.
 */
export interface FrameSlot {
  charge(bytes: number, shared?: object): void;
  release(): void;
}

/** What one slot charged: its bytes, those of no shared object, and the shared objects the rest are. */
interface Charge {
  bytes: number;
  own: number;
  shared?: object[];
}

/** The bytes in flight a unit allows over all its connections by default: 64 MiB. */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/** The bytes in flight one connection may hold by default: 16 MiB. */
export const DEFAULT_CONNECTION_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

/**
 * The bytes a unit has out over every connection, unacknowledged. A frame
 * shared by several connections (one page the fan-out encodes once: its
 * bytes are held once, whatever number of sockets still has it to write or
 * waits for its ack) counts once, from the first connection it goes out on
 * until the last one acks it. A window that waits for room here is woken, in
 * order, when any frame's bytes come back, so idle subscribers cannot hold
 * honest ones back for good.
 */
export class ByteBudget {
  private bytes = 0;
  private readonly blocked = new Set<SendWindow>();
  /** Shared frames out: their bytes, and how many slots hold each. */
  private readonly shared = new Map<object, { bytes: number; holders: number }>();

  constructor(readonly max: number = DEFAULT_MAX_IN_FLIGHT_BYTES) {}

  /** Bytes out now. */
  get inFlight(): number {
    return this.bytes;
  }

  /** Whether a further frame may go out. */
  get open(): boolean {
    return this.bytes < this.max;
  }

  /** `n` bytes went out; `shared`: they are that object's, counted once while any slot holds it. */
  add(n: number, shared?: object): void {
    if (shared) {
      const held = this.shared.get(shared);
      if (held) return void held.holders++;
      this.shared.set(shared, { bytes: n, holders: 1 });
    }
    this.bytes += n;
  }

  /** Bytes came back (`shared`: one holder of that object let go): windows that waited for room try again, oldest first. */
  remove(n: number, shared?: object): void {
    if (shared) {
      const held = this.shared.get(shared);
      if (!held || --held.holders > 0) return;
      this.shared.delete(shared);
      n = held.bytes;
    }
    this.bytes -= n;
    // Those blocked now, once each: a window woken that still finds no room of its own joins the back again.
    let left = this.blocked.size;
    for (const w of this.blocked) {
      if (left-- === 0 || !this.open) return;
      this.blocked.delete(w);
      w.wake();
    }
  }

  wait(w: SendWindow): void {
    this.blocked.add(w);
  }

  leave(w: SendWindow): void {
    this.blocked.delete(w);
  }
}

/** The byte bounds of one send window: its own, and the unit's shared budget. */
export interface WindowBytes {
  maxBytes?: number;
  budget?: ByteBudget;
}

/**
 * The frames sent to one peer and not yet acknowledged (bounded frames): at most
 * `size` frames and, while more than one is out, at most `maxBytes` of them
 * and no more than the unit's byte budget lets out. A connection with nothing
 * out always gets one frame, so an acknowledging peer is never starved by
 * idle ones: the unit's worst case is its budget plus one frame per
 * connection. A sender that finds the window full waits in acquire() — it
 * stops reading its log or pager — until an ack frees room; waiting senders
 * are served in order. close() (the link went) releases everything and
 * answers every waiter `undefined`, so a sender stops instead of waiting forever.
 */
export class SendWindow {
  private used = 0;
  private bytes = 0;
  private shut = false;
  /** What the slots out charged: close() gives it back to the budget. */
  private readonly charges = new Set<Charge>();
  private readonly waiting: Array<(slot: FrameSlot | undefined) => void> = [];
  private readonly maxBytes: number;
  private readonly budget?: ByteBudget;

  constructor(readonly size: number = DEFAULT_MAX_IN_FLIGHT_FRAMES, o: WindowBytes = {}) {
    this.maxBytes = o.maxBytes ?? Infinity;
    this.budget = o.budget;
  }

  /** Frames out and not acknowledged. */
  get inFlight(): number {
    return this.used;
  }

  /** Bytes of the frames out, as their senders charged them. */
  get inFlightBytes(): number {
    return this.bytes;
  }

  /** Whether the link this window belongs to is gone. */
  get closed(): boolean {
    return this.shut;
  }

  /**
   * Whether a further frame could go at once with at most half of this
   * window, its bytes and the unit's byte budget taken:
   * what a sender may promise its peer (a changes page's `more`), so frames
   * whose acks peers hold on that promise never fill a bound alone, and
   * whatever fills one has acks its peer sends at once.
   */
  get mayPromise(): boolean {
    if (this.shut || this.waiting.length > 0 || this.used * 2 > this.size || this.bytes * 2 > this.maxBytes) return false;
    return !this.budget || this.budget.inFlight * 2 <= this.budget.max;
  }

  /** A slot for one frame now, if the window has room and nobody waits for one; else undefined (acquire() waits). */
  tryAcquire(): FrameSlot | undefined {
    return !this.shut && this.waiting.length === 0 && this.room() ? this.take() : undefined;
  }

  /** A slot for one frame: at once while the window has room, else once an ack frees some; undefined once closed. */
  acquire(): Promise<FrameSlot | undefined> {
    if (this.shut) return Promise.resolve(undefined);
    if (this.waiting.length === 0 && this.room()) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.used < this.size) this.budget?.wait(this);
    });
  }

  /** The link closed: nothing is out any more, and nobody waits. */
  close(): void {
    if (this.shut) return;
    this.shut = true;
    this.used = 0;
    this.budget?.leave(this);
    this.bytes = 0;
    for (const c of this.charges) this.refund(c);
    this.charges.clear();
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
  }

  /** Serves waiters while there is room (an ack here, or bytes back in the unit's budget). */
  wake(): void {
    while (!this.shut && this.waiting.length > 0 && this.room()) (this.waiting.shift() as (s: FrameSlot) => void)(this.take());
    if (!this.shut && this.waiting.length > 0 && this.used < this.size) this.budget?.wait(this);
  }

  private room(): boolean {
    if (this.used >= this.size) return false;
    if (this.used === 0) return true;
    return this.bytes < this.maxBytes && (this.budget?.open ?? true);
  }

  private take(): FrameSlot {
    this.used++;
    let held = true;
    const charged: Charge = { bytes: 0, own: 0 };
    return {
      charge: (n, shared) => {
        if (!held || this.shut || !(n > 0)) return;
        this.charges.add(charged);
        charged.bytes += n;
        this.bytes += n;
        if (shared) (charged.shared ??= []).push(shared);
        else charged.own += n;
        this.budget?.add(n, shared);
      },
      release: () => {
        if (!held) return;
        held = false;
        if (this.shut) return;
        this.used--;
        this.bytes -= charged.bytes;
        this.charges.delete(charged);
        this.refund(charged);
        this.wake();
      },
    };
  }

  /** Gives a slot's bytes back to the unit's budget: each shared object's hold, and the rest. */
  private refund(c: Charge): void {
    for (const o of c.shared ?? []) this.budget?.remove(0, o);
    if (c.own > 0) this.budget?.remove(c.own);
  }
}
