import { FLAG_GRANTED, type LogEntry } from '../log/op-log';
import { FLAG_HELD, FLAG_SEALED, FLAG_SKIPPED, FLAG_UNSIGNED_OWN } from '../op/pack';
import { isScrubbed } from '../op/payload';
import type { Op } from '../op/types';
import { clip, iso, shortId } from './format';

const FLAG_NAMES: [number, string][] = [[FLAG_HELD, 'held'], [FLAG_SKIPPED, 'skipped'], [FLAG_SEALED, 'sealed'], [FLAG_GRANTED, 'granted'], [FLAG_UNSIGNED_OWN, 'unsigned-own']];

/** The names of an entry's log flags. */
export function flagNames(flags: number): string[] {
  return FLAG_NAMES.filter(([bit]) => flags & bit).map(([, name]) => name);
}

/** The payload of an op in a few words: `title="Draft" n=2`, `views+=1`, `tags-=["ui"]`. */
export function payloadText(op: Op): string {
  switch (op.type) {
    case 'write':
    case 'set':
      return Object.entries(op.data ?? {}).map(([k, v]) => `${k}=${clip(v)}`).join(' ');
    case 'inc':
    case 'add':
      return `${op.key}+=${clip(op.value)}`;
    case 'remove': {
      // A remove names [element, tags seen]: the elements are what a reader wants.
      const elements = Array.isArray(op.value) ? op.value.map((x: unknown) => (Array.isArray(x) ? x[0] : x)) : op.value;
      return `${op.key}-=${clip(elements)}`;
    }
    case 'merge':
      return `entry(${Object.keys((op.data?.fields as object | undefined) ?? {}).length} fields)`;
    case 'advance':
      return `vector=${clip(op.vector, 120)}`;
    default:
      return '';
  }
}

/**
 * One op on one line: `<eventId> <origin:8>.. <seq> <ts> <type> <id> [@scope]
 * [fields] [by actor] [flags]`. A sealed op shows its header only: the log
 * command never prints what a sealed record holds.
 */
export function opLine(eventId: string, e: LogEntry): string {
  const { op } = e;
  const sealed = (e.flags & FLAG_SEALED) !== 0;
  const parts = [eventId, shortId(op.origin), String(op.seq), iso(op.ts), op.type, op.id];
  if (op.scope !== undefined && op.scope !== '*') parts.push(`@${op.scope}`);
  if (op.from !== undefined) parts.push(`<${shortId(op.from)}`);
  const payload = sealed ? '' : isScrubbed(op) ? '(scrubbed)' : payloadText(op);
  if (payload) parts.push(payload);
  if (op.actor !== undefined && !sealed) parts.push(`by ${clip(op.actor, 30)}`);
  const flags = flagNames(e.flags);
  if (flags.length) parts.push(`[${flags.join(',')}]`);
  return parts.join(' ');
}

/** The op as `log --json` prints it: a sealed op without payload, digest, nonce, sig or actor. */
export function opJson(eventId: string, e: LogEntry): { eventId: string; pos: number; flags: string[]; op: Partial<Op> } {
  let op: Partial<Op> = e.op;
  if (e.flags & FLAG_SEALED) {
    const { origin, seq, ts, type, id, scope, from, v } = e.op;
    op = { origin, seq, ts, type, id, scope, from, v };
  }
  return { eventId, pos: e.pos, flags: flagNames(e.flags), op };
}
