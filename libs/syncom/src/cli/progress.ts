import type { CliStream } from './io';

/** Progress of a long step, reported on stderr. */
export interface Progress {
  /** `done` of `total` finished. */
  update(done: number): void;
  /** The step is over: a bar is completed and its line ended. */
  finish(): void;
}

const WIDTH = 30;

/** Timing of the reports; tests shorten it. */
export interface ProgressTiming {
  now?: () => number;
  /** Least time between two redraws of a bar, ms. */
  redrawMs?: number;
  /** Least time between two lines when stderr is no terminal, ms. */
  lineMs?: number;
}

/**
 * A progress report on `stream`. On a terminal, a bar redrawn in place
 * (`label [#####-----]  50% 500/1000`); otherwise (a log file, CI) a plain
 * line every few seconds, since carriage returns would pile up there.
 */
export function createProgress(stream: CliStream, label: string, total: number, timing: ProgressTiming = {}): Progress {
  const now = timing.now ?? Date.now;
  const tty = stream.isTTY === true;
  const every = tty ? (timing.redrawMs ?? 100) : (timing.lineMs ?? 2000);
  let last = now();
  const pct = (n: number) => (total === 0 ? 100 : Math.floor((n / total) * 100));
  const draw = (n: number) => {
    if (tty) {
      // A host names the total (a snapshot's first page) and may send more than it said: the bar stays within its width.
      const filled = total === 0 ? WIDTH : Math.min(WIDTH, Math.max(0, Math.round((n / total) * WIDTH)));
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(pct(n)).padStart(3)}% ${n}/${total}`);
    } else {
      stream.write(`${label}: ${n}/${total} (${pct(n)}%)\n`);
    }
  };
  return {
    update(done) {
      if (now() - last < every) return;
      last = now();
      draw(done);
    },
    finish() {
      // A plain line is written only after a pause; a bar always ends complete, on a line of its own.
      if (!tty) return;
      draw(total);
      stream.write('\n');
    },
  };
}
