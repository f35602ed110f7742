/**
 * Which record files are merged, and when (RecordStore.compact): size
 * classes of FAN, merges capped by MERGE_CAP, and files more stale than live
 * rewritten alone.
 */

import type { UnopenedElement } from './record-file';

/**
 * Files merged at a time. Each entry is rewritten once per level, log_FAN of
 * (records / batch): 16 rather than 8 took 12% off a peer page's apply at
 * 100k records (pages of 500, signatures off); 32 gained nothing more.
 */
export const FAN = 16;

/** A record file as the store keeps it. */
export interface RecordFile {
  n: number;
  ids: string[];
  /** How many of its ids a newer file holds: with none, its text holds each id's latest written state. */
  stale: number;
  /** Its size class's measure (weightOf): its entries, or its text in KB when that is more. */
  weight: number;
  /** The file a merge moved it into (its ids' newest file is that one's). */
  into?: RecordFile;
  /** Its text as written, when small (records.ts, KEEP_TEXT_MAX): a merge need not read it back. */
  text?: string;
  /**
   * The ids it holds a part of (entryDelta), not a whole entry, each with the
   * number of the file the part was written in: a part later than its id's
   * last whole write is needed beside it (see RecordStore.wholeAt).
   */
  parts?: Map<string, number>;
  /** Sealed elements it holds that this process could not open, as read (UnopenedElement): not in `ids`, carried on by every rewrite. */
  unopened?: UnopenedElement[];
}

/**
 * What files are sized by for merges: their entries, or their text's KB when
 * that is more. By entries alone, the file holding a set of 100,000 elements
 * whole counts one and is merged with the next 15 small files (the parts of
 * the next batches), rewritten every 15 batches; by its weight it waits for
 * files of its own size, as each entry waits for files of as many entries.
 */
export const weightOf = (entries: number, chars: number) => Math.max(entries, Math.ceil(chars / 1024));

const levelOf = (weight: number) => Math.floor(Math.log(Math.max(1, weight)) / Math.log(FAN));

/**
 * The weight (weightOf: 1,024 entries, or 1 MB of text) a merge never takes
 * past: files of a size class are merged as many at a time as fit under it,
 * and files that cannot pair under it stay as they are. A purge rewrites the
 * files holding its record, so a file's size is what a purge costs: merged
 * without a cap, one file held the store (at 200,000 records a purge of one
 * rewrote 4.6 MB; test/hostile/purge-cost.spec.ts).
 */
export const MERGE_CAP = 1024;

/** The weight from which a file with more stale ids than live ones is rewritten alone (what no count-merge takes any more). */
const REWRITE_FROM = FAN * FAN;

/**
 * The files to merge next, or undefined when none are due: a large file more
 * stale than live alone (so what the cap leaves unmerged does not carry old
 * states for ever), else, in a size class holding FAN files, its smallest,
 * as many as fit under MERGE_CAP together (two at least; a class none of
 * whose pairs fit waits).
 */
export function nextMerge(files: readonly RecordFile[]): RecordFile[] | undefined {
  const rotten = files.find((f) => f.weight >= REWRITE_FROM && f.stale * 2 > f.ids.length);
  if (rotten) return [rotten];
  const byLevel = new Map<number, RecordFile[]>();
  for (const f of files) {
    const l = levelOf(f.weight);
    const level = byLevel.get(l);
    if (level) level.push(f);
    else byLevel.set(l, [f]);
  }
  for (const fs of byLevel.values()) {
    if (fs.length < FAN) continue;
    const pick: RecordFile[] = [];
    let weight = 0;
    for (const f of [...fs].sort((a, b) => a.weight - b.weight)) {
      if (weight + f.weight > MERGE_CAP && pick.length > 0) break;
      pick.push(f);
      weight += f.weight;
    }
    if (pick.length >= 2 && weight <= MERGE_CAP) return pick;
  }
  return undefined;
}
