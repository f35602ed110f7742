import { platform } from '../../platform';

/** How long the feeds may work before they let the event loop in, by default (ms). */
export const DEFAULT_SLICE_MS = 4;

/** The first number of waiting feeds a new slice lets take one step each; it adapts to the time a step takes. */
const FIRST_BATCH = 16;
const MAX_BATCH = 4096;

/** What a slicer needs: its budget, a clock (ms), and how it yields (a macrotask). */
export interface SliceOptions {
  budgetMs?: number;
  now?: () => number;
  macrotask?: (fn: () => void) => void;
}

/**
 * Bounded slices of the host's feed work. A feed asks for a turn before each
 * page it reads and sends: while the current slice has time and nobody
 * waits, it goes on at once; past the budget it waits for a later macrotask,
 * so acks, pings and new connections are served between slices. Waiters are
 * served in order, each one step per slice and then to the back of the line
 * (round-robin: no subscriber starves however many there are). A slice lets
 * in as many waiters as last took under the budget, doubling or halving.
 */
export class Slices {
  private readonly budget: number;
  private readonly now: () => number;
  private readonly macrotask: (fn: () => void) => void;
  private readonly queue: Array<() => void> = [];
  /** Whether a slice is running: it ends at the next macrotask. */
  private active = false;
  private start = 0;
  private scheduled = false;
  private batch = FIRST_BATCH;

  constructor(o: SliceOptions = {}) {
    this.budget = o.budgetMs ?? DEFAULT_SLICE_MS;
    this.now = o.now ?? (() => performance.now());
    this.macrotask = o.macrotask ?? ((fn) => platform().macrotask(fn));
  }

  /** Feeds waiting for a turn now (for tests). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Undefined when the caller may go on now; else a promise of its turn in a later slice. */
  turn(): Promise<void> | undefined {
    if (this.queue.length === 0 && this.hasTime()) return undefined;
    return new Promise((resolve) => {
      this.queue.push(resolve);
      this.schedule();
    });
  }

  private hasTime(): boolean {
    const t = this.now();
    if (this.active) return t - this.start < this.budget;
    this.active = true;
    this.start = t;
    this.schedule();
    return true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.macrotask(() => this.next());
  }

  /** A macrotask: the slice before ended; the next waiters in line get a step each. */
  private next(): void {
    this.scheduled = false;
    const t = this.now();
    if (this.active) this.adapt(t - this.start);
    this.active = false;
    if (this.queue.length === 0) return;
    this.active = true;
    this.start = t;
    this.schedule();
    for (const resolve of this.queue.splice(0, this.batch)) resolve();
  }

  /** The slice took `ms`: let in fewer waiters next time if it ran over, more if it had time to spare. */
  private adapt(ms: number): void {
    if (ms > this.budget) this.batch = Math.max(1, this.batch >> 1);
    else if (ms < this.budget / 2) this.batch = Math.min(MAX_BATCH, this.batch * 2);
  }
}

/** The slicer every host feed of this process shares unless given its own: one event loop, one budget. */
export const hostSlices = new Slices();
