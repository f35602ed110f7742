import { isScopeName, MAX_SCOPE_NAME, MAX_SCOPE_NAMES } from 'syncom';
import { bool, envelope, type EnvelopeOf, type Field, nested, optional, Refused, str } from './envelope-schema';

/**
 * Why `s` is no scope name, or null: the engine's isScopeName, 1-128
 * characters without '<' (a stream key's '<' starts its `<from` part, so a
 * name holding one would read back as a shorter name, docs/replication.md).
 */
function scopeFault(s: unknown, n: string): string | null {
  return isScopeName(s) ? null : `${n} must be a string of 1..${MAX_SCOPE_NAME} characters without '<' or control characters`;
}

/** A scope name (a reconcile or records label). */
export function scopeName(): Field<string> & { optional: false } {
  return { optional: false, read: (v, n) => { const why = scopeFault(v, n); return why === null ? (v as string) : new Refused(why); } };
}

/** A list of scope names (changes, snapshot), held to hello's rule: at most MAX_SCOPE_NAMES, each a scopeName. */
export function scopeNames(): Field<string[]> & { optional: false } {
  const read = (v: unknown, n: string): string[] | Refused => {
    if (!Array.isArray(v)) return new Refused(`${n} must be an array`);
    if (v.length > MAX_SCOPE_NAMES) return new Refused(`${n} must contain no more than ${MAX_SCOPE_NAMES} elements`);
    for (let i = 0; i < v.length; i++) {
      const why = scopeFault(v[i], `each value in ${n}`);
      if (why !== null) return new Refused(why);
    }
    return v as string[];
  };
  return { optional: false, read };
}

const argsShape = { scopes: optional(scopeNames()) };

/** The arguments of a changes subscription: the scopes asked for (none: all granted). */
export const ChangesArgsDto = envelope('changes args', argsShape);
/** The arguments of a changes subscription. */
export type ChangesArgsDto = EnvelopeOf<typeof ChangesArgsDto>;

/** The `changes` envelope: the client's sub id for this opening, its args, and where to resume (PROTO-6). */
export const ChangesDto = envelope('changes', {
  sub: str(64, 1),
  args: optional(nested(argsShape)),
  lastEventId: optional(str(64)),
});
/** The `changes` envelope. */
export type ChangesDto = EnvelopeOf<typeof ChangesDto>;

/** The `unsubscribe` envelope: the sub id to end. */
export const UnsubscribeDto = envelope('unsubscribe', { sub: str(64, 1) });
/** The `unsubscribe` envelope. */
export type UnsubscribeDto = EnvelopeOf<typeof UnsubscribeDto>;

/** The `chunk` envelope: pull the next chunk of a snapshot stream, or (cancel) drop it. */
export const ChunkDto = envelope('chunk', { stream: str(64, 1), cancel: optional(bool()) });
/** The `chunk` envelope. */
export type ChunkDto = EnvelopeOf<typeof ChunkDto>;
