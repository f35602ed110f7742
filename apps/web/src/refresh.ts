/** What a Refresher reads and where it puts it. */
export interface RefreshOptions<T> {
  read(): Promise<T>;
  show(value: T): void;
  /** A read (or showing it) failed: the page says so; the Refresher tries again. */
  failed(e: unknown): void;
  /** A read worked after one or more failed. */
  recovered(): void;
  /** Waits `ms` (a test gives its own clock). */
  pause?(ms: number): Promise<void>;
}

/** Between reads during a burst of changes. */
export const BURST_PAUSE = 200;
/** After a failed read, doubled at each failure in a row up to RETRY_MAX. */
export const RETRY_FIRST = 1_000;
export const RETRY_MAX = 30_000;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Re-reads after a change; never two reads at once, and during a burst at
 * most five a second. A failed read is reported and tried again after a
 * pause, or at once when another change comes: the list had stayed as it
 * was until some change came, which on a quiet store may be never.
 */
export class Refresher<T> {
  private running = false;
  private dirty = false;
  private failures = 0;
  /** Ends the pause after a failure early (a change came). */
  private wake?: () => void;

  constructor(private readonly o: RefreshOptions<T>) {}

  /** Something changed: read again, now or once the read under way ends. */
  request(): void {
    this.dirty = true;
    this.wake?.();
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    const pause = this.o.pause ?? wait;
    while (this.dirty) {
      this.dirty = false;
      try {
        this.o.show(await this.o.read());
      } catch (e) {
        this.failures++;
        this.o.failed(e);
        this.dirty = true;
        const ms = Math.min(RETRY_FIRST * 2 ** (this.failures - 1), RETRY_MAX);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          void pause(ms).then(resolve);
        });
        this.wake = undefined;
        continue;
      }
      if (this.failures > 0) {
        this.failures = 0;
        this.o.recovered();
      }
      // A bootstrap applies records by the thousand, each a change event: a full re-read per event would starve the page.
      if (this.dirty) await pause(BURST_PAUSE);
    }
    this.running = false;
  }
}
