import type { LogEntry } from '../../log/op-log';
import { FLAG_SEALED, packedBytes } from '../../op';
import { joinedFrom } from '../../op/types';
import type { Replica } from '../../storage/replica';
import { frameEnds } from '../protocol/frames';
import { inServed } from '../protocol/scopes';
import { frameBytes, OpTexts, range, splicedRead } from './page-text';

export { frameBytes } from './page-text';

/** One changes page as a feed sends it: its packed ops and the event id of the page before. */
export interface Page {
  ops: unknown[];
  prev: string;
}

/** What a feed pages from one read of the log: the entries read, the ops it sends, where its frames end. */
export interface Read {
  entries: LogEntry[];
  /** The ops sent, as entries: the read's minus other scopes', sealed ones and the subscriber's own. */
  relevant: LogEntry[];
  sizes: number[];
  ends: number[];
  /** Frame k's page after `prev`; the same object for every feed sharing the read (one encoding at the transport). */
  page(k: number, prev: string): Page;
  /** Frame k's UTF-8 bytes, as frameBytes() counts them. */
  bytes(k: number): number;
}

/** How a feed reads: the log, where, its scopes and page bounds. */
export interface ReadSpec {
  log: Replica;
  pos: number;
  scopes: string[];
  pageSize: number;
  pageBytes: number;
}

/** Whether an op of this entry goes to subscribers of `scopes` at all (the subscriber's own aside). */
function served(e: LogEntry, scopes: string[]): boolean {
  return !(e.flags & FLAG_SEALED) && inServed(e.op.scope, scopes);
}

/** A read of the feed's own: every op looked at once, for this subscriber alone (its ops the whole source of a splice). */
export function ownRead(entries: LogEntry[], keep: (e: LogEntry) => boolean, pageSize: number, pageBytes: number): Read {
  const relevant = entries.filter(keep);
  const sizes = relevant.map((e) => packedBytes(e.op));
  return splicedRead({ entries, relevant, sizes, texts: new OpTexts(relevant), pageSize, pageBytes }, () => true);
}

/** A read shared by the feeds of one scope set at one position. */
class SharedRead {
  readonly relevant: LogEntry[];
  readonly sizes: number[];
  readonly ends: number[];
  /** The nodes whose ops (as origin or as the peer they came from) the read holds: their own feeds cannot share it. */
  readonly nodes = new Set<string>();
  readonly bytes: number;
  /** The log's scrub count at the read: a purge scrub replaces entries' ops, and a read that saw the old ones is not shared again. */
  private readonly scrubs: number;
  /** The ops' packed forms and JSON bytes: the shared pages and every writer's own pages are cut from them. */
  private readonly texts: OpTexts;
  private readonly pages: Map<string, Page>[] = [];
  private readonly frames: number[] = [];
  /** What every feed sharing the read sees: made once, since every feed of the fan-out asks for it. */
  private readonly shared: Read;

  constructor(readonly entries: LogEntry[], scopes: string[], private readonly log: Replica, private readonly pageSize: number, private readonly pageBytes: number) {
    this.scrubs = log.scrubs;
    this.relevant = entries.filter((e) => served(e, scopes));
    this.texts = new OpTexts(this.relevant);
    for (const e of this.relevant) {
      this.nodes.add(e.op.origin);
      const from = joinedFrom(e.op);
      if (from) this.nodes.add(from);
    }
    this.sizes = this.relevant.map((e) => packedBytes(e.op));
    this.ends = frameEnds(this.sizes, pageSize, pageBytes);
    this.bytes = frameBytes(this.sizes, 0, this.sizes.length);
    this.shared = { entries, relevant: this.relevant, sizes: this.sizes, ends: this.ends, page: (k, prev) => this.page(k, prev), bytes: (k) => this.frameBytes(k) };
  }

  /**
   * Whether the log still holds what this read saw: no scrub since. Every
   * feed of a fan-out asks at every page, so it is one comparison rather
   * than a look at each entry read (a scrub of any id drops every kept read:
   * purges are rare, reads cheap to take again).
   */
  current(): boolean {
    return this.log.scrubs === this.scrubs;
  }

  /** The read as a feed that may share it sees it. */
  view(): Read {
    return this.shared;
  }

  /** The read as a feed whose own ops are in it sees it (`keep` its filter): its pages cut from the shared ops' bytes. */
  spliced(keep: (e: LogEntry) => boolean): Read {
    const { entries, relevant, sizes, texts, pageSize, pageBytes } = this;
    return splicedRead({ entries, relevant, sizes, texts, pageSize, pageBytes }, keep);
  }

  private frameBytes(k: number): number {
    return (this.frames[k] ??= frameBytes(this.sizes, k === 0 ? 0 : this.ends[k - 1], this.ends[k]));
  }

  private page(k: number, prev: string): Page {
    const byPrev = (this.pages[k] ??= new Map());
    let page = byPrev.get(prev);
    if (!page) {
      const at = range(k === 0 ? 0 : this.ends[k - 1], this.ends[k]);
      byPrev.set(prev, (page = this.texts.page(at, prev)));
    }
    return page;
  }
}

/**
 * Whether a kept read is worth sharing still: a full page, or one at least
 * half of what the log now holds from its position. A short read is shared
 * though the log grew since (feeds that drifted apart then step on the same
 * page bounds, each page encoded once), but a feed far behind reads a larger
 * page rather than trailing a string of small ones (a message and an ack each).
 */
function wide(kept: SharedRead, spec: ReadSpec): boolean {
  const n = kept.entries.length;
  return n > 0 && (n >= spec.pageSize || n * 2 >= Math.min(spec.pageSize, spec.log.head - spec.pos));
}

/** Reads kept at most. */
const MAX_READS = 4096;
/** The bytes kept reads hold at most: their frames, keys and scope lists' text (the newest is kept whatever it weighs). */
export const MAX_READ_BYTES = 16 * 1024 * 1024;

/** What a string holds in memory at most: two bytes a UTF-16 code unit. */
const textBytes = (s: string): number => 2 * s.length;

const listTexts = new WeakMap<readonly string[], string>();

/** A scope list as text, kept per list object (a feed's list is one array for its life): JSON, so no two lists read as one. */
function listText(scopes: readonly string[]): string {
  let text = listTexts.get(scopes);
  if (text === undefined) listTexts.set(scopes, (text = JSON.stringify(scopes)));
  return text;
}

/** A distinct scope list of the kept reads: its short id, which keys them, and how many use it. */
type ScopeList = { readonly id: number; readonly text: string; reads: number };
/** A kept read, with the scope list it was made for. */
type Kept = { readonly read: SharedRead; readonly list: ScopeList };

/**
 * The log reads of a unit's changes feeds, shared: feeds of the same scopes
 * at the same position read the log once, look at each op once, and send the
 * same page objects, which a transport encodes once for all of them (the
 * fan-out at the head of a stream). A feed whose own ops are in a read gets
 * pages of its own, cut from the read's packed ops and their UTF-8 JSON
 * (page-text.ts: each op packed, stringified and encoded once per read, so a
 * writer's page costs a copy of its bytes). Reads are kept
 * newest first up to MAX_READS and MAX_READ_BYTES (the encodings a transport
 * keeps by page object go with them); a read shorter than a page is shared while
 * it holds at least half of what the log has from there (wide()), and one
 * whose entries were scrubbed since is dropped. A read is keyed by its
 * position and a short id of its scope list, and each distinct list's text
 * is kept once and counted in MAX_READ_BYTES: the names are a peer's (a
 * feed granted '*' serves any list it asks), and a key holding them, which
 * nothing counted, let a peer subscribing again and again with long made-up
 * names pin 4,096 of them.
 */
export class SharedReads {
  private readonly reads = new Map<string, Kept>();
  private readonly lists = new Map<string, ScopeList>();
  private nextList = 0;
  private weight = 0;

  /** What a feed of `node` pages at spec.pos; `keep` is its own filter, used when its own ops are in the read. */
  read(spec: ReadSpec, node: string, keep: (e: LogEntry) => boolean): Read {
    const shared = this.shared(spec);
    if (shared.nodes.has(node)) return shared.spliced(keep);
    return shared.view();
  }

  /**
   * Let go of every read a scrub made stale: it holds the purged ops' payloads,
   * which no feed is sent again, but which stayed in memory until a feed asked
   * for the same position again (on a quiet hub, never).
   */
  dropStale(): void {
    for (const [key, kept] of this.reads) if (!kept.read.current()) this.drop(key, kept);
  }

  /** Reads kept now (for tests). */
  get size(): number {
    return this.reads.size;
  }

  /** The bytes the kept reads hold, as MAX_READ_BYTES counts them (for tests). */
  get bytes(): number {
    return this.weight;
  }

  private shared(spec: ReadSpec): SharedRead {
    const text = listText(spec.scopes);
    const known = this.lists.get(text);
    const key = known && `${spec.pos}:${known.id}`;
    const kept = key === undefined ? undefined : this.reads.get(key);
    if (kept && kept.read.current() && wide(kept.read, spec)) return kept.read;
    if (kept) this.drop(key as string, kept);
    const { log } = spec;
    const read = new SharedRead(log.readOut(spec.pos, spec.pageSize), spec.scopes, log, spec.pageSize, spec.pageBytes);
    this.keep(read, spec.pos, text);
    this.trim();
    return read;
  }

  private keep(read: SharedRead, pos: number, text: string): void {
    let list = this.lists.get(text);
    if (!list) {
      this.lists.set(text, (list = { id: this.nextList++, text, reads: 0 }));
      this.weight += textBytes(text);
    }
    list.reads++;
    const key = `${pos}:${list.id}`;
    this.reads.set(key, { read, list });
    this.weight += read.bytes + textBytes(key);
  }

  private trim(): void {
    for (const [key, kept] of this.reads) {
      if (this.reads.size <= 1 || (this.reads.size <= MAX_READS && this.weight <= MAX_READ_BYTES)) return;
      this.drop(key, kept);
    }
  }

  private drop(key: string, { read, list }: Kept): void {
    this.reads.delete(key);
    this.weight -= read.bytes + textBytes(key);
    if (--list.reads > 0) return;
    this.lists.delete(list.text);
    this.weight -= textBytes(list.text);
  }
}

/**
 * A unit's `tracked` shaping, once per shared page: every feed sending the
 * same page sends the same item, so the transport encodes it once. Without
 * `tracked` the page is sent as it is.
 */
export function sharedTrack(tracked?: (data: unknown, eventId: string) => unknown): (data: unknown, eventId: string) => unknown {
  if (!tracked) return (d) => d;
  const shaped = new WeakMap<object, { eventId: string; item: unknown }>();
  return (data, eventId) => {
    if (typeof data !== 'object' || data === null) return tracked(data, eventId);
    const kept = shaped.get(data);
    if (kept && kept.eventId === eventId) return kept.item;
    const item = tracked(data, eventId);
    shaped.set(data, { eventId, item });
    return item;
  };
}
