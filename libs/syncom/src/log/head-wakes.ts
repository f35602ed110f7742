/**
 * Listeners waiting for the log's head to reach a position, each called once
 * when an append first brings the head there. A changes feed with a page out
 * and less than a page to send waits for that page's ack, unless the log
 * grows by a page: it waits here for that position instead of being called
 * at every append (with thousands of feeds at the head of a busy log, most
 * of them wait so, and calling each at each append was most of an append's
 * cost). A listener is kept once per position (a Set), and cancel() takes it
 * back, so a feed holds at most one wait.
 */
export class HeadWakes {
  private readonly waiting = new Map<number, Set<() => void>>();
  /** The positions waited for, ascending. */
  private positions: number[] = [];

  /** Call `listener` once the head is at `pos` or past it; at once (in a microtask) when `head` is there already. */
  add(pos: number, listener: () => void, head: number): void {
    if (head >= pos) return void queueMicrotask(listener);
    let set = this.waiting.get(pos);
    if (!set) {
      this.waiting.set(pos, (set = new Set()));
      const at = this.indexAbove(pos);
      if (at === this.positions.length) this.positions.push(pos);
      else this.positions.splice(at, 0, pos);
    }
    set.add(listener);
  }

  /** Take back a listener add() left waiting at `pos` (nothing when it was called or never added). */
  cancel(pos: number, listener: () => void): void {
    const set = this.waiting.get(pos);
    if (!set?.delete(listener) || set.size > 0) return;
    this.waiting.delete(pos);
    const at = this.indexAbove(pos) - 1;
    if (this.positions[at] === pos) this.positions.splice(at, 1);
  }

  /** The head moved to `head`: call (once) every listener waiting at or below it; `onError` gets what one throws. */
  reached(head: number, onError: (e: Error) => void): void {
    let n = 0;
    while (n < this.positions.length && this.positions[n] <= head) n++;
    if (n === 0) return;
    const due = this.positions.splice(0, n);
    for (const pos of due) {
      const set = this.waiting.get(pos);
      this.waiting.delete(pos);
      for (const l of set ?? []) {
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

  /** The first index whose position is above `pos`. */
  private indexAbove(pos: number): number {
    let [lo, hi] = [0, this.positions.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.positions[mid] > pos) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
