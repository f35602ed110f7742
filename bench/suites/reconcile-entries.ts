import { createHash } from 'node:crypto';
import type { Entry, Field, Stamp } from '../../libs/syncom/src';
import { entryItem, type ReconcileItem } from '../../libs/syncom/src/reconcile';
import { makeRecord } from '../lib/record';

/*
 * The records of the set-level reconciliation figures (reconcile.ts), as the
 * engine holds them once inserted: built directly, not written, since real
 * storages of 1M signed records take many minutes to build.
 */

/** Stamps of the base set: 8 writes a millisecond from T0 (about the rate the bench hubs are built at). */
export const T0 = 1_796_000_000_000;
export const PER_MS = 8;
/** Node ids as the engine has them: base64url SHA-256 (43 characters), a hub and a writer. */
const nodeId = (name: string) => createHash('sha256').update(name).digest('base64url');
const HUB = nodeId('bench-hub');
const WRITER = nodeId('bench-writer');

/** murmur3's 32-bit finalizer: a bijection, so distinct inputs give distinct words. */
function mix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const hex8 = (x: number) => x.toString(16).padStart(8, '0');

/** Record i's id, shaped like the randomUUID() an insert gets; distinct for every i below 2^30 (its first word is). */
function idOf(i: number): string {
  const [a, b, c, d] = [mix32(4 * i), mix32(4 * i + 1), mix32(4 * i + 2), mix32(4 * i + 3)].map(hex8);
  return `${a}-${b.slice(0, 4)}-4${b.slice(5)}-a${c.slice(1, 4)}-${c.slice(4)}${d}`;
}

/** Record i as the engine holds it once inserted at the hub (at `ts`): three register fields, all stamped by its insert. */
export function baseEntry(i: number, ts = T0 + Math.floor(i / PER_MS)): Entry {
  const s: Stamp = [ts, HUB];
  const fields: Record<string, Field> = {};
  for (const [name, val] of Object.entries(makeRecord(i))) fields[name] = { k: 'r', s, val };
  return { id: idOf(i), latest: s, fields, reset: s };
}

/** Record i after an update of its `n` at another node, stamped `ts`. */
export function updatedEntry(i: number, ts: number): Entry {
  const e = baseEntry(i);
  const s: Stamp = [ts, WRITER];
  return { ...e, latest: s, fields: { ...(e.fields as Record<string, Field>), n: { k: 'r', s, val: -i } } };
}

/** The base set of n records, as items in key order. */
export function baseItems(n: number): ReconcileItem[] {
  const out: ReconcileItem[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = entryItem(baseEntry(i));
  return out;
}
