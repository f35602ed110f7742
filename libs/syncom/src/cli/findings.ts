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
    this.list = this.list.filter((x) => x.where !== where);
    this.fault(where, `cannot be read (${why})`);
  }

  get faults(): number {
    return this.list.filter((f) => f.level === 'fault').length;
  }

  get warnings(): number {
    return this.list.length - this.faults;
  }

  /**
   * The findings as lines, faults first, at most `max` of them: a log whose
   * every op was tampered with must not bury the summary under ten thousand lines.
   */
  lines(max: number): string[] {
    const sorted = [...this.list].sort((a, b) => (a.level === b.level ? 0 : a.level === 'fault' ? -1 : 1));
    const out = sorted.slice(0, max).map((f) => `${f.level === 'fault' ? 'FAULT  ' : 'warning'} ${f.where}: ${f.message}`);
    if (sorted.length > max) out.push(`… and ${sorted.length - max} more (--json lists them all)`);
    return out;
  }
}
