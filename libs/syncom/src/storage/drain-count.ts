/**
 * The commit pipeline's ops queued and ops ended (logged, or refused by a
 * failed append), counted, and who waits for the second to reach a count of
 * the first (Committer.drained).
 */
export class DrainCount {
  private queued = 0;
  private ended = 0;
  private waits: { at: number; resolve: () => void }[] = [];

  queue(): void {
    this.queued++;
  }

  end(n: number): void {
    this.ended += n;
    if (this.waits.length === 0) return;
    this.waits = this.waits.filter((w) => (w.at <= this.ended ? void w.resolve() : true));
  }

  /** Resolves once every op queued before the call has ended. */
  drained(): Promise<void> {
    if (this.ended >= this.queued) return Promise.resolve();
    return new Promise((resolve) => this.waits.push({ at: this.queued, resolve }));
  }
}
