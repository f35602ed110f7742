/** The reconciliation wire version this module speaks (RECONCILE.md). */
export const RECONCILE_VERSION = 1;

/**
 * What a range asks or tells, by its mode number on the wire. The initiator
 * sends skip, fingerprint and tags; the responder skip, fingerprint, items,
 * diff and defer.
 */
export const MODE = { skip: 0, fingerprint: 1, tags: 2, items: 3, diff: 4, defer: 5 } as const;

/**
 * The upper end of a range, exclusive: a key (ts, id prefix), or null for the
 * end of the key space. A range's lower end is the previous range's upper, or
 * (0, '') for the first.
 */
export type Bound = [ts: number, id: string] | null;

/** Nothing to do in this range (it matched, or it is not being worked on this round). */
export type SkipRange = [upper: Bound, mode: 0];
/** The sender's fingerprint over its items in the range. */
export type FingerprintRange = [upper: Bound, mode: 1, fingerprint: string];
/** The initiator's items in the range, by tag only, in key order: the responder answers with a diff. */
export type TagsRange = [upper: Bound, mode: 2, tags: string[]];
/** The responder's items in the range, as [id, tag] in key order: the initiator compares them itself. */
export type ItemsRange = [upper: Bound, mode: 3, items: [id: string, tag: string][]];
/**
 * The responder's answer to tags: `give`, the ids it holds in the range that
 * the tags lack (or hold in another state); `want`, the positions of the
 * tags it lacks.
 */
export type DiffRange = [upper: Bound, mode: 4, give: string[], want: number[]];
/** The responder ran out of frame: nothing from here to the end was answered. */
export type DeferRange = [upper: null, mode: 5];

/** One range of a message. */
export type Range = SkipRange | FingerprintRange | TagsRange | ItemsRange | DiffRange | DeferRange;

/** One reconciliation message: ranges that cover the key space in order. Plain JSON. */
export interface Message {
  v: typeof RECONCILE_VERSION;
  ranges: Range[];
}

/**
 * One record as reconciliation sees it: keyed by (ts, id), where ts is the
 * record's newest stamp's ts, with a digest of its merge state (entryItem).
 */
export interface ReconcileItem {
  ts: number;
  id: string;
  digest: string;
}

/** Why a message was not taken. Never thrown: returned. */
export interface ReconcileRefusal {
  ok: false;
  code: 'RECONCILE_MALFORMED';
  reason: string;
}

/** Wire limits, the same for every peer: the decoder refuses a message past them. */
export const WIRE_LIMITS = {
  /** Characters of an id, and of a bound's id prefix (as OP ids, Operations). */
  id: 512,
  /** Characters of an item's digest. */
  digest: 128,
  /** Ranges in one message. */
  ranges: 1 << 20,
  /** Tags of one tags range, items of one items range, positions of one diff's want. */
  list: 1024,
  /** Ids of one diff's give. */
  give: 2048,
  /** Tags, items, give ids and want positions in one message, all ranges together. */
  ids: 1 << 20,
} as const;

/** Build a refusal. */
export function refuse(reason: string): ReconcileRefusal {
  return { ok: false, code: 'RECONCILE_MALFORMED', reason };
}
