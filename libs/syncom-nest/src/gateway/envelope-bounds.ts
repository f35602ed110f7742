/**
 * The deepest an envelope nests, opaque arrays aside: a reconcile message,
 * the deepest, uses six levels. A deeper one is refused before anything
 * walks it.
 */
export const MAX_ENVELOPE_DEPTH = 32;

/** What a message may hold, counted before anything else reads it. */
export interface EnvelopeBounds {
  maxDepth: number;
  /** Object keys and array items, all levels together. */
  maxEntries: number;
  /** Top-level fields not walked (a push's ops, which the engine checks op by op). */
  skip?: readonly string[];
}

/** Why a message is beyond its bounds, or null. */
export type BoundsBreach = 'depth' | 'entries' | null;

/** A walk's running count; `over` is set at the first bound passed. */
interface Walk { entries: number; over: BoundsBreach; b: EnvelopeBounds }

/**
 * Walks a message once and stops at the first bound it passes: its cost is
 * linear in what it walked, and a message with a million keys costs no more
 * than its first `maxEntries` (plus listing the keys of the object that
 * passed the bound). Recursive, but never deeper than `maxDepth`.
 */
export function breachOf(value: unknown, b: EnvelopeBounds): BoundsBreach {
  const walk: Walk = { entries: 0, over: null, b };
  if (typeof value === 'object' && value !== null) visit(value, 0, walk);
  return walk.over;
}

function visit(x: object, depth: number, w: Walk): boolean {
  if (depth >= w.b.maxDepth) return stop(w, 'depth');
  // Binary (a socket.io attachment) is in no envelope, and listing its keys costs one per byte.
  if (ArrayBuffer.isView(x) || x instanceof ArrayBuffer) return stop(w, 'entries');
  if (Array.isArray(x)) {
    w.entries += x.length;
    if (w.entries > w.b.maxEntries) return stop(w, 'entries');
    for (let i = 0; i < x.length; i++) {
      const child: unknown = x[i];
      if (typeof child === 'object' && child !== null && !visit(child, depth + 1, w)) return false;
    }
    return true;
  }
  const keys = Object.keys(x);
  w.entries += keys.length;
  if (w.entries > w.b.maxEntries) return stop(w, 'entries');
  const skip = depth === 0 ? w.b.skip : undefined;
  for (const key of keys) {
    const child = (x as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && !skip?.includes(key) && !visit(child, depth + 1, w)) return false;
  }
  return true;
}

function stop(w: Walk, why: BoundsBreach): false {
  w.over = why;
  return false;
}
