import { SyncomError } from '../errors';

/** Frames a host has out to one peer, unacknowledged, by default (issue 6.3). */
export const DEFAULT_MAX_IN_FLIGHT_FRAMES = 16;

/** The most a page carries by default, in UTF-8 bytes of its JSON (HOST-6): 4 MiB. */
export const DEFAULT_PAGE_BYTES = 4 * 1024 * 1024;

/**
 * UTF-8 bytes of a value's JSON; Infinity for a value JSON.stringify cannot
 * walk (nested thousands deep, as a frame's JSON.parse builds happily): what
 * cannot be measured is over any bound, a refusal rather than a RangeError.
 */
export function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? 'null');
  } catch {
    return Infinity;
  }
}

/**
 * Where to cut a list of records into frames (issue 6.3): consecutive runs of
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
 * A bound that must be a positive integer (pageSize, pageBytes, maxInFlightFrames).
 * @throws SyncomError INVALID_ARGUMENT for anything else.
 */
export function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new SyncomError('INVALID_ARGUMENT', `${name} must be a positive integer`);
  return value;
}

/** A slot of a send window: one frame out; release() is its ack (idempotent). */
export interface FrameSlot {
  release(): void;
}

/**
 * The frames sent to one peer and not yet acknowledged (issue 6.3): at most
 * `size`. A sender that finds the window full waits in acquire() — it stops
 * reading its log or pager — until an ack frees a slot; waiting senders are
 * served in order. close() (the link went) releases everything and answers
 * every waiter `undefined`, so a sender stops instead of waiting forever.
 */
export class SendWindow {
  private used = 0;
  private shut = false;
  private readonly waiting: Array<(slot: FrameSlot | undefined) => void> = [];

  constructor(readonly size: number = DEFAULT_MAX_IN_FLIGHT_FRAMES) {}

  /** Frames out and not acknowledged. */
  get inFlight(): number {
    return this.used;
  }

  /** Whether the link this window belongs to is gone. */
  get closed(): boolean {
    return this.shut;
  }

  /** A slot for one frame: at once while the window has room, else once an ack frees one; undefined once closed. */
  acquire(): Promise<FrameSlot | undefined> {
    if (this.shut) return Promise.resolve(undefined);
    if (this.used < this.size && this.waiting.length === 0) return Promise.resolve(this.take());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** The link closed: nothing is out any more, and nobody waits. */
  close(): void {
    if (this.shut) return;
    this.shut = true;
    this.used = 0;
    for (const resolve of this.waiting.splice(0)) resolve(undefined);
  }

  private take(): FrameSlot {
    this.used++;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        if (this.shut) return;
        this.used--;
        const next = this.waiting.shift();
        if (next) next(this.take());
      },
    };
  }
}
