import type { LogEntry } from '../../log/op-log';
import { packOp } from '../../op';
import type { PackedOp } from '../../op/pack';
import { frameEnds } from '../protocol/frames';
import type { Page, Read } from './shared-pages';

/**
 * The key of a page's JSON made in advance: a function returning exactly
 * JSON.stringify(page). A transport that finds it sends that text instead
 * of stringifying the page (syncom-nest's page-message.ts reads the same
 * Symbol.for key). Non-enumerable, so the page's shape, equality and JSON are
 * what they were.
 */
export const PAGE_JSON: unique symbol = Symbol.for('syncom.pageJson') as never;

/** A page `{ ops, prev }` carrying its JSON, made on first use from `body`, the ops' texts joined by commas. */
export function textPage(ops: PackedOp[], prev: string, body: () => string): Page {
  const page: Page = { ops, prev };
  let json: string | undefined;
  Object.defineProperty(page, PAGE_JSON, { value: () => (json ??= `{"ops":[${body()}],"prev":${JSON.stringify(prev)}}`) });
  return page;
}

/** The packed ops of a read and their JSON texts, each made once and only when a page needs it. */
export class OpTexts {
  private readonly packed: PackedOp[] = [];
  private readonly texts: string[] = [];

  constructor(private readonly relevant: readonly LogEntry[]) {}

  op(i: number): PackedOp {
    return (this.packed[i] ??= packOp(this.relevant[i].op));
  }

  /** Op i's JSON, exactly what JSON.stringify writes for it inside a page's array. */
  text(i: number): string {
    return (this.texts[i] ??= JSON.stringify(this.op(i)));
  }

  /** The texts of the ops at `at` (indices into the read), joined as in a page's array. */
  join(at: readonly number[]): string {
    return at.map((i) => this.text(i)).join(',');
  }

  /** A page of the ops at `at`, after `prev`; `body` when their joined texts are kept elsewhere. */
  page(at: readonly number[], prev: string, body = () => this.join(at)): Page {
    return textPage(at.map((i) => this.op(i)), prev, body);
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

/** What a spliced read is cut from: a shared read's entries, the ops it sends, their sizes and texts, its page bounds. */
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
 * them, each page spliced from the shared ops' packed forms and JSON texts
 * (no op packed or stringified again for it).
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
