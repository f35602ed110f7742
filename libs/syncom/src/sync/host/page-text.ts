import type { LogEntry } from '../../log/op-log';
import { packOp } from '../../op';
import type { PackedOp } from '../../op/pack';
import { frameEnds } from '../protocol/frames';
import type { Page, Read } from './shared-pages';

/**
 * The key of a page's JSON made in advance: a function returning the UTF-8
 * bytes of exactly JSON.stringify(page), in parts to concatenate. A
 * transport that finds it sends those bytes instead of stringifying and
 * encoding the page (syncom-nest's page-message.ts reads the same
 * Symbol.for key). Non-enumerable, so the page's shape, equality and JSON are
 * what they were.
 */
export const PAGE_BYTES: unique symbol = Symbol.for('syncom.pageBytes') as never;

const utf8 = new TextEncoder();
const OPEN = utf8.encode('{"ops":[');
const COMMA = utf8.encode(',');

/** A page `{ ops, prev }` carrying its JSON's bytes, made when asked from `body`, the ops' bytes joined by commas (not kept: the transport keeps its encoding). */
export function bytePage(ops: PackedOp[], prev: string, body: () => Uint8Array[]): Page {
  const page: Page = { ops, prev };
  Object.defineProperty(page, PAGE_BYTES, { value: () => [OPEN, ...body(), utf8.encode(`],"prev":${JSON.stringify(prev)}}`)] });
  return page;
}

/**
 * The packed ops of a read and their JSON as one run of UTF-8 bytes, made
 * once and only when a page needs it: every op stringified and encoded
 * once, joined by commas, with where each op starts. A page's ops' bytes are
 * cut from it: one view per run of consecutive ops (a writer's page leaves
 * out only its own ops), copied once, by the transport, into its frame.
 */
export class OpTexts {
  private readonly packed: PackedOp[] = [];
  private bytes?: Uint8Array;
  /** Where op i's bytes start; starts[n] is one past the end (as if a comma followed). */
  private readonly starts: number[] = [];

  constructor(private readonly relevant: readonly LogEntry[]) {}

  op(i: number): PackedOp {
    return (this.packed[i] ??= packOp(this.relevant[i].op));
  }

  /** The bytes of the ops at `at` (ascending indices into the read) joined as in a page's array, in parts. */
  parts(at: readonly number[]): Uint8Array[] {
    const bytes = (this.bytes ??= this.encode());
    const out: Uint8Array[] = [];
    for (let j = 0; j < at.length;) {
      let k = j;
      while (k + 1 < at.length && at[k + 1] === at[k] + 1) k++;
      if (j > 0) out.push(COMMA);
      out.push(bytes.subarray(this.starts[at[j]], this.starts[at[k] + 1] - 1));
      j = k + 1;
    }
    return out;
  }

  /** A page of the ops at `at`, after `prev`. */
  page(at: readonly number[], prev: string): Page {
    return bytePage(at.map((i) => this.op(i)), prev, () => this.parts(at));
  }

  private encode(): Uint8Array {
    const texts = this.relevant.map((_, i) => utf8.encode(JSON.stringify(this.op(i))));
    let at = 0;
    for (const t of texts) {
      this.starts.push(at);
      at += t.length + 1;
    }
    this.starts.push(at);
    const out = new Uint8Array(Math.max(0, at - 1));
    for (let i = 0; i < texts.length; i++) {
      out.set(texts[i], this.starts[i]);
      if (i + 1 < texts.length) out[this.starts[i + 1] - 1] = COMMA[0];
    }
    return out;
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
