import { platform } from '../platform';
import { type Key, MIN_KEY } from './keys';
import { type Message, MODE, type Range, RECONCILE_VERSION } from './types';

/** UTF-8 bytes of a range's JSON, with the comma that separates it from the next. */
export function rangeBytes(r: Range): number {
  return platform().byteLength(JSON.stringify(r)) + 1;
}

/** Bytes of the ranges together, as costed by rangeBytes. */
export function rangesBytes(rs: readonly Range[]): number {
  let n = 0;
  for (const r of rs) n += rangeBytes(r);
  return n;
}

/** What a closing range costs: [null, 0] or [null, 4]. */
// ASCII, so counted without the platform: this runs as the module loads, before any entry could install one.
export const CLOSE_BYTES = JSON.stringify([null, MODE.defer]).length + 1;

/**
 * A message under construction, counting its UTF-8 bytes as it grows so that
 * it never passes `limit`. Consecutive skips fold into one: a skip says only
 * where the next range starts.
 */
export class Frame {
  readonly ranges: Range[] = [];
  private readonly sizes: number[] = [];
  /** Bytes of the message so far, envelope included. */
  size = platform().byteLength(JSON.stringify({ v: RECONCILE_VERSION, ranges: [] }));
  /** True once a range other than a skip is in. */
  busy = false;

  constructor(readonly limit: number) {}

  /** Whether ranges costing `bytes` go in and still leave `reserve` bytes for what must follow. */
  fits(bytes: number, reserve: number): boolean {
    return this.size + bytes + reserve <= this.limit;
  }

  /** Append ranges (the caller checked that they fit). */
  add(rs: readonly Range[]): void {
    for (const r of rs) {
      const n = rangeBytes(r);
      const last = this.ranges.length - 1;
      if (r[1] === MODE.skip && last >= 0 && this.ranges[last][1] === MODE.skip) {
        this.size += n - this.sizes[last];
        this.ranges[last] = r;
        this.sizes[last] = n;
        continue;
      }
      this.ranges.push(r);
      this.sizes.push(n);
      this.size += n;
      if (r[1] !== MODE.skip) this.busy = true;
    }
  }

  /** Where the frame's last range ends: (0, '') while it is empty. */
  end(): Key | null {
    const last = this.ranges[this.ranges.length - 1];
    return last ? last[0] : MIN_KEY;
  }

  /** The message: its ranges, which the caller ended at null. */
  message(): Message {
    return { v: RECONCILE_VERSION, ranges: this.ranges };
  }
}
