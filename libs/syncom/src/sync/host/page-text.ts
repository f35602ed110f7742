import type { LogEntry } from '../../log/op-log';
import { packOp } from '../../op';
import type { PackedOp } from '../../op/pack';
import { platform } from '../../platform';
import { frameEnds } from '../protocol/frames';
import type { Page, Read } from './shared-pages';

/**
 * The key of a page's JSON made in advance: a function returning the UTF-8
 * bytes of exactly JSON.stringify(page), in parts to concatenate. A
 * transport that finds it sends those bytes instead of stringifying and
 * encoding the page (syncom-nest's page-message.ts reads the same
 * Symbol.for key). Non-enumerable, so the page's shape, equality and JSON are
 * what they were. Attached where the platform has encodePage (Node's:
 * page-bytes.ts); no browser transport reads it.
 */
export const PAGE_BYTES: unique symbol = Symbol.for('syncom.pageBytes') as never;

/**
 * The packed ops of a read, each packed once and only when a page needs it;
 * the platform's encodePage keeps their JSON bytes by this object, so a
 * page's ops' bytes are cut from one encoding per read.
 */
export class OpTexts {
  private readonly packed: PackedOp[] = [];

  constructor(readonly relevant: readonly LogEntry[]) {}

  op(i: number): PackedOp {
    return (this.packed[i] ??= packOp(this.relevant[i].op));
  }

  /** A page of the ops at `at` (ascending indices into the read), after `prev`. */
  page(at: readonly number[], prev: string): Page {
    const page: Page = { ops: at.map((i) => this.op(i)), prev };
    platform().encodePage?.(page, this, at);
    return page;
  }
}

/** The UTF-8 bytes of a frame of records `start..end`: theirs, a comma between, the brackets (as frameEnds counts). */
export function frameBytes(sizes: readonly number[], start: number, end: number): number {
  let n = 2 + Math.max(0, end - start - 1);
  for (let i = start; i < end; i++) n += sizes[i];
  return n;
}

/** The indices `start..end-1`. */
export function range(start: number, end: number): number[] {
  const out = new Array<number>(end - start);
  for (let j = 0; j < out.length; j++) out[j] = start + j;
  return out;
}

/** What a spliced read is cut from: a shared read's entries, the ops it sends, their sizes and bytes, its page bounds. */
export interface SpliceSource {
  entries: LogEntry[];
  relevant: readonly LogEntry[];
  sizes: readonly number[];
  texts: OpTexts;
  pageSize: number;
  pageBytes: number;
}

/**
 * A subscriber's own view of a shared read (its own ops are in it): the
 * read's relevant ops minus those `keep` refuses, paged as ownRead would page
 * them, each page spliced from the shared ops' packed forms and JSON bytes
 * (no op packed, stringified or encoded again for it).
 */
export function splicedRead(o: SpliceSource, keep: (e: LogEntry) => boolean): Read {
  const at: number[] = [];
  for (let i = 0; i < o.relevant.length; i++) if (keep(o.relevant[i])) at.push(i);
  const relevant = at.map((i) => o.relevant[i]);
  const sizes = at.map((i) => o.sizes[i]);
  const ends = frameEnds(sizes, o.pageSize, o.pageBytes);
  const start = (k: number) => (k === 0 ? 0 : ends[k - 1]);
  return {
    entries: o.entries, relevant, sizes, ends,
    page: (k, prev) => o.texts.page(at.slice(start(k), ends[k]), prev),
    bytes: (k) => frameBytes(sizes, start(k), ends[k]),
  };
}
