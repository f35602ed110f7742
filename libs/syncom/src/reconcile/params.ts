/** The tuning of one side; peers need not agree on it (RECONCILE.md, Bounds). */
export interface Params {
  /** B: how many sub-ranges a differing range is cut into. */
  branching: number;
  /** A differing range holding fewer items than this is listed (tags or items), not cut. */
  listBelow: number;
  /** The most UTF-8 bytes of JSON a message of this side may take. */
  frameLimit: number;
}

/**
 * The smallest frameLimit: room for one range's smallest ask or answer when
 * every id and bound is 512 characters that JSON escapes six-fold (about 3
 * KiB each). The initiator's largest ask is two bounds and 1024 tags (32,000
 * bytes); the responder's smallest answer two bounds, an item, or a diff with
 * one id and 1024 positions.
 */
export const MIN_FRAME_LIMIT = 32 * 1024;
/** The largest frameLimit accepted. */
export const MAX_FRAME_LIMIT = 64 * 1024 * 1024;

/** The defaults of createReconciler. */
export const RECONCILE_DEFAULTS = { branching: 16, frameLimit: 512 * 1024 } as const;

function checkInt(name: string, x: unknown, min: number, max: number): number {
  if (!Number.isSafeInteger(x) || (x as number) < min || (x as number) > max) {
    throw new TypeError(`reconcile: ${name} must be an integer from ${min} to ${max}`);
  }
  return x as number;
}

/**
 * Check a side's tuning, filling defaults (listBelow: 2B, at most 1024, the
 * wire's cap on a list).
 * @throws TypeError on a value out of range.
 */
export function checkParams(o: { branching?: number; listBelow?: number; frameLimit?: number }): Params {
  const branching = checkInt('branching', o.branching ?? RECONCILE_DEFAULTS.branching, 2, 256);
  const listBelow = checkInt('listBelow', o.listBelow ?? Math.min(2 * branching, 1024), 2, 1024);
  const frameLimit = checkInt('frameLimit', o.frameLimit ?? RECONCILE_DEFAULTS.frameLimit, MIN_FRAME_LIMIT, MAX_FRAME_LIMIT);
  return { branching, listBelow, frameLimit };
}
