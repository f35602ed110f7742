import type { Logger } from '@nestjs/common';

/**
 * A warning of one kind at most once per interval, the next one saying how
 * many of its kind were left out meanwhile: a client can provoke refusals as
 * fast as it sends packets (one line per refused handshake made 63 MB of log
 * in 12 s). Kinds are the caller's few fixed names, never a peer's words.
 */
export class SampledLog {
  private readonly last = new Map<string, { at: number; left: number }>();

  constructor(private readonly logger: Pick<Logger, 'log' | 'warn' | 'error'>, private readonly ms = 10_000, private readonly now: () => number = Date.now) {}

  warn(kind: string, line: string): void {
    this.write('warn', kind, line);
  }

  /** A line at `level`, unless one of its kind was written less than the interval ago. */
  write(level: 'log' | 'warn' | 'error', kind: string, line: string): void {
    const t = this.now();
    const seen = this.last.get(kind);
    if (seen && t - seen.at < this.ms) {
      seen.left++;
      return;
    }
    this.logger[level](seen?.left ? `${line} (and ${seen.left} more like it since the last such line)` : line);
    this.last.set(kind, { at: t, left: 0 });
  }
}
