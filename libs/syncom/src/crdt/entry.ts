import type { Stamp } from '../op/types';
import type { Keyed } from './keyed';
import type { Tags } from './tags';
import { compareStamps } from './stamp';

/** A last-writer-wins register: the value and the stamp that wrote it. */
export interface RegisterField {
  k: 'r';
  s: Stamp;
  val: unknown;
}

/**
 * A counter: one running total per stream (an origin, or `origin@scope` for its incs in a
 * scope), with the ts of that stream's latest inc; the value is their sum.
 */
export interface CounterField {
  k: 'c';
  by: Keyed<[total: number, ts: number]>;
}

/** One element of an observed-remove set: the add tags seen and the tags removed. */
export interface SetElement {
  add: Tags;
  rem: Tags;
}

/** An observed-remove set, keyed by the element's JSON text. */
export interface SetField {
  k: 's';
  el: Keyed<SetElement>;
}

export type Field = RegisterField | CounterField | SetField;
export type FieldKind = Field['k'];

/**
 * The merge state of one record: what a snapshot page carries and a merge op
 * joins. Immutable: apply and merge return new entries.
 */
export interface Entry {
  id: string;
  /** The stamp of the latest whole-record write or delete: older field content is gone. */
  reset?: Stamp;
  /** The latest reset was a delete. */
  del?: boolean;
  /** The newest stamp of any op applied to the entry. */
  latest: Stamp;
  /** Schema version of the latest whole-record write (meta.v). */
  v?: number;
  /** Purged: nothing about the record is kept but this marker. */
  purged?: Stamp;
  fields: Keyed<Field>;
}

/**
 * A map's own member, or undefined: field names, origins and element texts
 * come from peers, and `fields.toString` must read as no field, not as
 * Object.prototype's function.
 */
export function own<T>(map: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** The name the API uses for each kind, and the call that moves it. */
export const KIND_NAMES: Record<FieldKind, { name: string; use: string }> = {
  r: { name: 'a register', use: 'update()' },
  c: { name: 'a counter', use: 'inc()' },
  s: { name: 'a set', use: 'add() or remove()' },
};

/** The message a kind clash throws: "views is a counter; use inc()". */
export function kindClashMessage(field: string, kind: FieldKind): string {
  const k = KIND_NAMES[kind];
  return `${field} is ${k.name}; use ${k.use}`;
}

/** The members of an entry besides id, latest and fields (each absent when unset). */
export type EntryMarks = Pick<Entry, 'reset' | 'del' | 'v' | 'purged'>;

/**
 * An entry built as one literal, with only the marks that are set. Not by
 * spreading: a spread copy grown by a member reads several times slower in
 * every later step (apply, isHidden, JSON of the record files).
 */
export function makeEntry(id: string, latest: Stamp, fields: Keyed<Field>, marks: EntryMarks): Entry {
  const out: Entry = { id, latest, fields };
  if (marks.reset) out.reset = marks.reset;
  if (marks.del) out.del = true;
  if (marks.v !== undefined) out.v = marks.v;
  if (marks.purged) out.purged = marks.purged;
  return out;
}

/** A fresh entry for an id never seen. */
export function emptyEntry(id: string, stamp: Stamp): Entry {
  return { id, latest: stamp, fields: {} };
}

/**
 * A purged record as every node holds it: the id and the newest purge
 * marker, which is its latest too, and nothing else. A function of the purge
 * stamps alone: a latest kept from the ops before the purge, or the marker
 * of whichever purge came first, differed between nodes holding the same ops
 * (GUAR-1), and their digests never met (see docs/guarantees.md, Purge).
 */
export function purgedEntry(id: string, purged: Stamp): Entry {
  return { id, latest: purged, purged, fields: {} };
}

/** True when reads should not see the entry: purged, or a tombstone nothing newer revived. */
export function isHidden(e: Entry): boolean {
  if (e.purged) return true;
  return e.del === true && e.reset !== undefined && compareStamps(e.reset, e.latest) === 0;
}
