import type { Stamp } from '../op/types';

/** Compare two stamps: ts first, then origin by code units (the greater origin wins a tie, CLK-4). */
export function compareStamps(a: Stamp, b: Stamp): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] === b[1]) return 0;
  return a[1] < b[1] ? -1 : 1;
}

/** The greater of two stamps (either may be absent). */
export function maxStamp(a: Stamp | undefined, b: Stamp | undefined): Stamp | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return compareStamps(a, b) >= 0 ? a : b;
}

/** True when `a` is strictly older than `b` (an absent `b` is older than everything). */
export function isOlder(a: Stamp, b: Stamp | undefined): boolean {
  return b !== undefined && compareStamps(a, b) < 0;
}

/** An add tag: the stamp of the add op as one string, `ts:origin`. */
export function tagOf(stamp: Stamp): string {
  return `${stamp[0]}:${stamp[1]}`;
}

const TAG = /^\d{1,16}:[^\s]{1,128}$/;

/** Whether an untrusted value is an add tag as tagOf makes it: what an add stores and a remove names. */
export function isTag(value: unknown): value is string {
  return typeof value === 'string' && TAG.test(value);
}

/** The stamp an add tag names. */
export function stampOfTag(tag: string): Stamp {
  const at = tag.indexOf(':');
  return [Number(tag.slice(0, at)), tag.slice(at + 1)];
}
