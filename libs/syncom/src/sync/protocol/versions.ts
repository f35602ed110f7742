import { SyncomError } from '../../errors';

/** The wire versions this build speaks (Protocol: version negotiation). */
export const WIRE_VERSIONS: readonly number[] = [1];

/** The capability a host advertises when it serves `reconcile` and `records` (RECONCILE.md). */
export const RECONCILE_CAP = 'reconcile/1';

/** Capabilities this build advertises in hello and its answer. */
export const CAPABILITIES: readonly string[] = [RECONCILE_CAP];

/** At most this many versions or capabilities are read from a peer: a hello is no place for a long list. */
const MAX_LIST = 64;

/** Whether every item of a list passes: holes too, which Array#every skips (a sparse array is no list of names). */
export function everyItem(x: unknown[], test: (v: unknown) => boolean): boolean {
  for (let i = 0; i < x.length; i++) if (!test(x[i])) return false;
  return true;
}

/**
 * A peer's versions: a list of positive integers. A peer that sends none is an
 * older build, which speaks version 1.
 * @returns null when the value is present but is no such list.
 */
export function readVersions(x: unknown): number[] | null {
  if (x === undefined || x === null) return [1];
  if (!Array.isArray(x) || x.length === 0 || x.length > MAX_LIST) return null;
  return everyItem(x, (v) => Number.isSafeInteger(v) && (v as number) > 0) ? [...(x as number[])] : null;
}

/** A peer's capabilities: strings; an older build sends none. @returns null when present but malformed. */
export function readCaps(x: unknown): string[] | null {
  if (x === undefined || x === null) return [];
  if (!Array.isArray(x) || x.length > MAX_LIST) return null;
  return everyItem(x, (c) => typeof c === 'string' && c.length > 0 && c.length <= 64) ? [...(x as string[])] : null;
}

/** The highest version both sides speak, or undefined when they share none. */
export function chooseVersion(ours: readonly number[], theirs: readonly number[]): number | undefined {
  const shared = theirs.filter((v) => ours.includes(v));
  return shared.length ? Math.max(...shared) : undefined;
}

/**
 * The refusal of a hello with no shared version: 426 INCOMPATIBLE, carrying
 * the versions of the side that refuses (they cross a link beside code and status).
 */
export function incompatible(ours: readonly number[], theirs: readonly number[]): SyncomError {
  return new SyncomError('INCOMPATIBLE', `no shared wire version: ours ${ours.join(', ')}, the peer's ${theirs.join(', ')}`, {
    status: 426, versions: [...ours],
  });
}
