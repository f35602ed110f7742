import { checkSlots, OpCheck, Refusal } from './check';
import { isCount, valueShape } from './shape';
import { Op, OpType, Vector } from './types';
import { platform } from '../platform';

/** Log flag: an op from a newer schema version, kept in the log and not applied (ahead: 'hold'). */
export const FLAG_HELD = 1;
/** Log flag: logged and relayed but not applied here (a validator or beforeApply said no). */
export const FLAG_SKIPPED = 2;
/** Log flag: a sealed record's op; it never leaves the node (GUAR-19). */
export const FLAG_SEALED = 4;
/**
 * Log flag of an op this node made while `signatures` was false, logged
 * unsigned. Once signatures are on it is signed on its way out (Replica's
 * outgoing): a host that requires signatures takes it. Only this flag says
 * the node made it: an unsigned op of its origin that a peer pushed while
 * signatures were off carries none, and is never signed in its name.
 */
export const FLAG_UNSIGNED_OWN = 32;

/**
 * An op as a positional array, on the wire and in the log (SIG-12). An absent
 * field is null; unpacking turns null back into an absent property, so a
 * `value` of null does not survive (no op type gives it a meaning).
 *
 * | slot | field  | slot | field  | slot | field                                |
 * |------|--------|------|--------|------|--------------------------------------|
 * | 0    | origin | 6    | from   | 12   | value                                |
 * | 1    | seq    | 7    | v      | 13   | vector                               |
 * | 2    | ts     | 8    | actor  | 14   | flags (the log's; null on the wire)  |
 * | 3    | type   | 9    | data   | 15   | sig                                  |
 * | 4    | id     | 10   | meta   | 16   | digest                               |
 * | 5    | scope  | 11   | key    | 17   | nonce                                |
 */
export type PackedOp = [
  origin: string, seq: number, ts: number, type: OpType, id: string,
  scope: string | null, from: string | null, v: number | null, actor: string | null,
  data: Record<string, unknown> | null, meta: Record<string, unknown> | null,
  key: string | null, value: unknown, vector: Vector | null, flags: number | null,
  sig: string | null, digest: string | null, nonce: string | null,
];

// The field of each slot; slot 14 (flags) is no op field.
const SLOT_FIELDS: readonly (keyof Op | undefined)[] = [
  'origin', 'seq', 'ts', 'type', 'id', 'scope', 'from', 'v', 'actor',
  'data', 'meta', 'key', 'value', 'vector', undefined, 'sig', 'digest', 'nonce',
];
/** Slots of a packed op read by name elsewhere: the id (in clear in a sealed entry too), the log's flags, and how many there are. */
export const ID_SLOT = 4;
export const FLAGS_SLOT = 14;
export const PACKED_LENGTH = SLOT_FIELDS.length;

/** An unpacked log entry: the op and its log flags (FLAG_HELD, FLAG_SKIPPED, FLAG_SEALED). */
export interface UnpackedEntry {
  op: Op;
  flags: number;
}

type EntryCheck = ({ ok: true } & UnpackedEntry) | Refusal;

/** What {@link unpackOps} made of a page: the well-formed ops, and how many entries were not. */
export interface UnpackedOps {
  ops: Op[];
  malformed: number;
  /** Why the first malformed entry was refused, when there was one. */
  reason?: string;
}

/**
 * Pack an op into its 18 slots; `flags` (the log's bits, default 0) goes to slot 14, null when 0.
 *
 * @example
 * log.append(JSON.stringify(packOp(op, FLAG_SEALED)));
 */
export function packOp(op: Op, flags = 0): PackedOp {
  return [
    op.origin, op.seq, op.ts, op.type, op.id,
    op.scope ?? null, op.from ?? null, op.v ?? null, op.actor ?? null,
    op.data ?? null, op.meta ?? null, op.key ?? null, op.value ?? null, op.vector ?? null,
    flags === 0 ? null : flags,
    op.sig ?? null, op.digest ?? null, op.nonce ?? null,
  ];
}

const packedSizes = new WeakMap<Op, number>();

/**
 * The JSON of packed entries as one array, exactly JSON.stringify's: each
 * unflagged op's UTF-8 size on the way is kept for packedBytes (the wire form
 * of an op is its unflagged packed form), so a push or a feed page that
 * measures ops appended in this process pays no second stringify.
 */
export function packedJson(entries: readonly ({ op: Op; flags?: number } | undefined)[]): string {
  // A batch whose every op is flagged (a joined snapshot page's merges, to sign) has no size to keep:
  // one stringify of the whole batch costs about half of one per op.
  // FLAG_UNSIGNED_OWN changes only slot 14's text: such an op's wire size is kept too (its digits in the place of null).
  const sized = (flags = 0) => (flags & ~FLAG_UNSIGNED_OWN) === 0;
  if (entries.every((e) => !e || !sized(e.flags))) return JSON.stringify(entries.map((e) => (e ? packOp(e.op, e.flags) : null)));
  const parts = entries.map((e) => {
    if (!e) return 'null';
    const text = JSON.stringify(packOp(e.op, e.flags ?? 0));
    if (sized(e.flags)) packedSizes.set(e.op, platform().byteLength(text) + (e.flags ? 4 - String(e.flags).length : 0));
    return text;
  });
  return `[${parts.join(',')}]`;
}

/** UTF-8 bytes of an op's packed JSON as the wire carries it (slot 14 null); cached per op object. */
export function packedBytes(op: Op): number {
  let n = packedSizes.get(op);
  if (n === undefined) packedSizes.set(op, (n = platform().byteLength(JSON.stringify(packOp(op)))));
  return n;
}

/** Pack ops for the wire: slot 14 is null. */
export function packOps(ops: readonly Op[]): PackedOp[] {
  return ops.map((op) => packOp(op));
}

/**
 * Unpack a log entry: the op and its flags, or undefined when the entry is
 * damaged (not 18 slots, an op that fails checkShape, flags that are not a
 * non-negative integer). Never throws.
 */
export function unpackEntry(packed: unknown): UnpackedEntry | undefined {
  const entry = readEntry(packed);
  if (!entry.ok || tooDeep(entry.op)) return undefined;
  return { op: entry.op, flags: entry.flags };
}

/**
 * The levels a logged op's payload may nest. A log file edited or rotted
 * with its JSON still valid (a segment is not re-hashed at load) may hold one
 * nested thousands deep, which JSON.parse builds happily and every reader
 * after it (the digest's canonical JSON, a join, a record file's text) meets
 * with a RangeError: open() rejected with it, or opened and get() threw it,
 * and `syncom verify` and `log` ended on it. Past this the entry is damage
 * (OP_UNREADABLE, a hole). Ten times what any write makes (MAX_VALUE_DEPTH),
 * for a log of a version before that limit.
 */
export const MAX_LOGGED_DEPTH = 1000;
const LOGGED_PAYLOAD = ['data', 'meta', 'value', 'vector'] as const;

/** Whether a payload of the op nests past MAX_LOGGED_DEPTH; one whose walk throws (a getter, never in parsed JSON) is refused as well. */
function tooDeep(op: Op): boolean {
  try {
    return LOGGED_PAYLOAD.some((f) => valueShape(op[f], MAX_LOGGED_DEPTH) === 'deep');
  } catch {
    return true;
  }
}

function readEntry(packed: unknown): EntryCheck {
  if (!Array.isArray(packed) || packed.length !== SLOT_FIELDS.length) {
    return { ok: false, code: 'OP_MALFORMED', reason: `pack: not an array of ${SLOT_FIELDS.length} slots` };
  }
  const flags: unknown = packed[FLAGS_SLOT] ?? 0;
  if (!isCount(flags, 0)) return { ok: false, code: 'OP_MALFORMED', reason: 'flags: a non-negative integer' };
  const checked = checkSlots(packed, FLAGS_SLOT);
  return checked.ok ? { ok: true, op: checked.op, flags } : checked;
}

/**
 * Unpack one op from the wire, shape-checked (GUAR-3); its flags are ignored.
 * The clock check (SKEW) is the caller's: see checkSkew. Never throws.
 */
export function unpackOp(packed: unknown): OpCheck {
  const entry = readEntry(packed);
  return entry.ok ? { ok: true, op: entry.op } : entry;
}

/**
 * Unpack a page of ops from a peer. Entries that are not well-formed packs are
 * counted in `malformed`; a value that is not an array counts as one. Never throws.
 *
 * @example
 * const { ops, malformed } = unpackOps(message.ops);
 */
export function unpackOps(value: unknown): UnpackedOps {
  if (!Array.isArray(value)) return { ops: [], malformed: 1, reason: 'page: not an array' };
  const result: UnpackedOps = { ops: [], malformed: 0 };
  for (let i = 0; i < value.length; i++) {
    const checked = unpackOp(value[i]);
    if (checked.ok) result.ops.push(checked.op);
    else if (result.malformed++ === 0) result.reason = checked.reason;
  }
  return result;
}
