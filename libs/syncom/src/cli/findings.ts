/** One thing verify found: a fault fails the run (exit 1), a warning does not. */
export interface Finding {
  level: 'fault' | 'warning';
  /** A file (`log/open/12.json`) or an event id (`<epoch>.12`). */
  where: string;
  message: string;
}

/** What verify collects while it walks the storage. */
export class Findings {
  list: Finding[] = [];

  fault(where: string, message: string): void {
    this.list.push({ level: 'fault', where, message });
  }

  warn(where: string, message: string): void {
    this.list.push({ level: 'warning', where, message });
  }

  /**
   * A file that could not be read at all (the OS refused: a directory in its
   * place, EIO): one fault saying so, instead of what the checks made of it
   * reading as absent ("missing", "torn").
   */
  unreadable(where: string, why: string): void {
    // Marked, and dropped from the list when it is read: a filter of the whole list per unreadable file
    // was quadratic (40,000 of them: 53 s).
    const finding: Finding = { level: 'fault', where, message: `cannot be read (${why})` };
    this.gone.set(where, finding);
    this.list.push(finding);
  }

  /** Places reported unreadable, and that report: what the other checks found there is dropped (see unreadable). */
  private readonly gone = new Map<string, Finding>();

  /** The findings, a place reported unreadable by that one fault only. */
  get kept(): Finding[] {
    if (this.gone.size === 0) return this.list;
    return this.list.filter((x) => { const g = this.gone.get(x.where); return g === undefined || g === x; });
  }

  get faults(): number {
    return this.kept.filter((f) => f.level === 'fault').length;
  }

  get warnings(): number {
    return this.kept.length - this.faults;
  }

  /**
   * The findings as lines, faults first, at most `max` of them: a log whose
   * every op was tampered with must not bury the summary under ten thousand lines.
   */
  lines(max: number): string[] {
    const sorted = [...this.kept].sort((a, b) => (a.level === b.level ? 0 : a.level === 'fault' ? -1 : 1));
    const out = sorted.slice(0, max).map((f) => `${f.level === 'fault' ? 'FAULT  ' : 'warning'} ${f.where}: ${f.message}`);
    if (sorted.length > max) out.push(`… and ${sorted.length - max} more (--json lists them all)`);
    return out;
  }
}
