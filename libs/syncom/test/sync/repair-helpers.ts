import { committedField } from '../../src/testing/internals';
import type { Op, Storage } from '../../src';

/**
 * A beforeApply that skips, once, the first peer op whose data carries
 * `mark`: the hole anti-entropy must repair (the op is logged, not applied).
 */
export function skipOnce(mark: string) {
  const state = { skipped: false };
  const beforeApply = ({ op }: { op: Op }) => {
    if (state.skipped || !JSON.stringify(op.data ?? null).includes(mark)) return true;
    state.skipped = true;
    return false;
  };
  return { state, beforeApply };
}

/** A register's committed value, read straight from the entry (a skipped op leaves it as it was). */
export const field = (s: Storage, id: string, name: string) =>
  (committedField(s, id, name) as { val?: unknown } | undefined)?.val;
