/**
 * Listeners waiting for the log's head to reach a position, each called once
 * when an append first brings the head there. A changes feed with a page out
 * and less than a page to send waits for that page's ack, unless the log
 * grows by a page: it waits here for that position instead of being called
 * at every append. A listener is kept once per position (a Set), and
 * cancel() takes it back, so a feed holds at most one wait. Feeds wait at a
 * few positions (a page past where they stand), so an append looks at each.
 */
export class HeadWakes {
  private readonly waiting = new Map<number, Set<() => void>>();
  /** No position waited for is below this (it may lag behind after a cancel). */
  private low = Infinity;

  /** Call `listener` once the head is at `pos` or past it; at once (in a microtask) when `head` is there already. */
  add(pos: number, listener: () => void, head: number): void {
    if (head >= pos) return void queueMicrotask(listener);
    const set = this.waiting.get(pos) ?? new Set();
    this.waiting.set(pos, set.add(listener));
    this.low = Math.min(this.low, pos);
  }

  /** Take back a listener add() left waiting at `pos` (nothing when it was called or never added). */
  cancel(pos: number, listener: () => void): void {
    const set = this.waiting.get(pos);
    if (set?.delete(listener) && set.size === 0) this.waiting.delete(pos);
  }

  /** The head moved to `head`: call (once) every listener waiting at or below it; `onError` gets what one throws. */
  reached(head: number, onError: (e: Error) => void): void {
    if (head < this.low) return;
    this.low = Infinity;
    for (const [pos, set] of this.waiting) {
      if (pos > head) {
        this.low = Math.min(this.low, pos);
        continue;
      }
      this.waiting.delete(pos);
      for (const l of set) {
        try {
          l();
        } catch (e) {
          onError(e as Error);
        }
      }
    }
  }

  /** Listeners waiting, for tests. */
  get size(): number {
    let n = 0;
    for (const s of this.waiting.values()) n += s.size;
    return n;
  }
}
