/** The op types of the spec's table (Operations). */
export type OpType = 'write' | 'set' | 'inc' | 'add' | 'remove' | 'delete' | 'purge' | 'merge' | 'advance';

export const OP_TYPES: readonly OpType[] = ['write', 'set', 'inc', 'add', 'remove', 'delete', 'purge', 'merge', 'advance'];

/** A version vector: highest seq applied per stream; key is origin ('*' scope) or origin@scope. */
export type Vector = Record<string, number>;

/** A stamp: (ts, origin), a total order (ts first, then origin by code units, greater wins). */
export type Stamp = readonly [ts: number, origin: string];

/**
 * The unit that travels between nodes and sits in the log.
 *
 * Payload per type:
 * - write: `data` (the whole record)
 * - set: `data` (the listed fields)
 * - inc: `key` (field), `value` (number to add)
 * - add: `key`, `value` (array of elements)
 * - remove: `key`, `value` (array of `[element, tags[]]`, the add tags this node had seen)
 * - delete, purge: no payload
 * - merge: `data` (a whole entry, see crdt/entry.ts), `meta` unused
 * - advance: `vector` (what the joined state covers); `id` is the host's node id
 */
export interface Op {
  origin: string;
  seq: number;
  ts: number;
  type: OpType;
  id: string;
  scope?: string;
  from?: string;
  data?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  key?: string;
  value?: unknown;
  vector?: Vector;
  v?: number;
  actor?: string;
  sig?: string;
  digest?: string;
  nonce?: string;
}

/** The payload fields, digested with the nonce (Signatures). */
export const PAYLOAD_FIELDS = ['data', 'meta', 'key', 'value', 'vector'] as const;

/** The scope of a record that belongs to no scope: it reaches every peer. */
export const GLOBAL_SCOPE = '*';

/**
 * The vector key of an op's stream: origin for scope '*', else origin@scope
 * (LOG-10). The merge and advance ops a bootstrap joined from node F run in a
 * stream of their own, `<key><F`, because they never travel back to F
 * (BOOT-10): kept in the origin's main stream they would leave F a hole there.
 */
export function streamKey(origin: string, scope: string | undefined, from?: string): string {
  const key = scope === undefined || scope === GLOBAL_SCOPE ? origin : `${origin}@${scope}`;
  return from === undefined ? key : `${key}<${from}`;
}

/** The origin of a vector key, streamKey's first part: node ids hold neither '@' nor '<'. */
export function keyOrigin(key: string): string {
  const end = key.search(/[@<]/);
  return end < 0 ? key : key.slice(0, end);
}

/** The scope of a vector key — origin, origin@scope, either with <from — '*' for a plain origin (LOG-10); a scope name holds no '<'. */
export function keyScope(key: string): string {
  const lt = key.indexOf('<');
  const base = lt < 0 ? key : key.slice(0, lt);
  const at = base.indexOf('@');
  return at < 0 ? GLOBAL_SCOPE : base.slice(at + 1);
}

/**
 * The node a bootstrap op (a merge or an advance) was joined from, which it
 * never travels back to; undefined for any other op, whose `from` is a claim
 * that names its stream and routes nothing: honoured on a write, it would
 * let any peer hide its ops from the node it names.
 */
export function joinedFrom(op: Pick<Op, 'type' | 'from'>): string | undefined {
  return op.type === 'merge' || op.type === 'advance' ? op.from : undefined;
}

/** The vector key of an op (see streamKey). */
export function opStreamKey(op: Pick<Op, 'origin' | 'scope' | 'from'>): string {
  return streamKey(op.origin, op.scope, op.from);
}
