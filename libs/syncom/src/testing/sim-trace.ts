import { createHash } from 'node:crypto';

/** Every scheduling decision of a run, folded into one SHA-256 (the run's fingerprint). */
export interface SimTrace {
  /** Fold one decision in: its parts joined by spaces, one line. */
  record(...parts: (string | number | boolean)[]): void;
  /** The hex SHA-256 of every line recorded so far. */
  hash(): string;
  /** Decisions recorded so far. */
  readonly count: number;
  /** The last lines recorded (at most the `keep` of createTrace), for a failure report. */
  tail(n?: number): string[];
}

/**
 * A trace: two runs of one seed must record the same lines, so their hashes
 * are equal; lines name decisions (which node, which message, which fault),
 * never bytes that carry randomness of their own (nonces, signatures).
 *
 * @example
 * const trace = createTrace();
 * trace.record('op', 2, 'update', 'r1');
 * trace.hash() // 64 hex characters
 */
export function createTrace(keep = 400): SimTrace {
  const sha = createHash('sha256');
  const last: string[] = [];
  let count = 0;
  return {
    record(...parts) {
      const line = parts.join(' ');
      sha.update(line).update('\n');
      count++;
      last.push(line);
      if (last.length > keep) last.shift();
    },
    hash: () => sha.copy().digest('hex'),
    get count() {
      return count;
    },
    tail: (n = keep) => last.slice(-n),
  };
}
