import { streamKey } from 'syncom';
import type { Delivery, WriteRef } from './delivery';

/** What a raw peer needs of one op of a page: its stream and seq, and the write it is (to time its delivery). */
export interface OpRef {
  /** The op's stream key (origin, scope, from), interned: the same string for every peer of the process. */
  stream: string;
  /** The stream's number in the process (streamIndex): a peer keeps what it took per stream in an array by it. */
  index: number;
  origin: string;
  seq: number;
  /** `origin#seq` for a plain write (no `from`: not a bootstrap's merge); undefined otherwise. */
  write?: string;
}

/** A page as the raw peers read it: the ops' references and the event id to resume from. */
export interface DecodedPage {
  eventId: string;
  ops: OpRef[];
  /** The writes' refs in `delivery`, op by op, resolved once per page (writesIn). */
  refs?: { delivery: Delivery; list: (WriteRef | undefined)[] };
}

interface Entry extends DecodedPage {
  /** The page's bytes, compared whole before an entry is reused. */
  body: Buffer;
  /** Where the ops list's text lies in `body` (after its `[`, at its `]`) and each op's [start, end), when they checked out. */
  spans?: { open: number; close: number; starts: number[]; ends: number[] };
}

/** Pages kept: feeds of one hub drift apart by a few pages, so a thousand positions cover the peers of a process. */
const KEPT = 1024;
const EVENT_ID = Buffer.from('"eventId":"');
const END = Buffer.from('"}]');
const OPS = Buffer.from('"ops":[');
/** Bytes compared at a time when two pages' common prefix or suffix is measured. */
const CHUNK = 512;

/** The process's streams: each stream key has a number, the same for every peer of the process. */
const streamIds = new Map<string, number>();
const streamKeys: string[] = [];
/** Stream keys by their parts, so every page names a stream with the same string. */
const streams = new Map<string, OpRef['stream']>();

/** The number of stream `key` in this process (a new one for a key not seen yet). */
export function streamIndex(key: string): number {
  let i = streamIds.get(key);
  if (i === undefined) {
    streamIds.set(key, (i = streamKeys.length));
    streamKeys.push(key);
  }
  return i;
}

/** The stream key of number `i`, for reports. */
export function streamOf(i: number): string | undefined {
  return streamKeys[i];
}

/** The refs in `delivery` of a page's writes, op by op (undefined: no plain write): resolved once per page. */
export function writesIn(page: DecodedPage, delivery: Delivery): (WriteRef | undefined)[] {
  if (page.refs?.delivery === delivery) return page.refs.list;
  const list = page.ops.map((op) => (op.write === undefined ? undefined : delivery.ref(op.write)));
  page.refs = { delivery, list };
  return list;
}

/**
 * Decodes each distinct page once per process. The gateway sends the same
 * bytes to every socket at the same position (one encoding per page), so
 * peers of one process mostly receive pages already decoded for another: the
 * entry is found by the page's end event id and length and reused only if
 * its bytes are equal (a memcmp). A page that differs from a kept one at
 * the same event id (a writer's page leaves its own ops out of the shared
 * one) is read as that one with the ops between their common prefix and
 * suffix replaced, only those ops parsed; anything else is decoded whole.
 */
export class PageCache {
  private readonly entries = new Map<string, Entry>();
  /** The latest entry with known op spans per event id: what a page differing from it is spliced from. */
  private readonly latest = new Map<string, Entry>();
  decoded = 0;
  reused = 0;
  spliced = 0;

  /**
   * The page at `frame[at..]` (`"value":{…},"eventId":"…"}]`, the packet's
   * end); undefined when it is not a page of ops with an event id.
   */
  read(frame: Buffer, at: number): DecodedPage | undefined {
    const body = frame.subarray(at);
    const idAt = body.lastIndexOf(EVENT_ID);
    if (idAt < 0 || body.length < END.length || !body.subarray(body.length - END.length).equals(END)) return undefined;
    const eventId = body.toString('latin1', idAt + EVENT_ID.length, body.length - END.length);
    const key = `${eventId}|${body.length}`;
    const kept = this.entries.get(key);
    if (kept && kept.body.equals(body)) {
      this.reused++;
      return kept;
    }
    const base = this.latest.get(eventId);
    let entry = base && splice(base, body);
    if (entry) this.spliced++;
    else {
      entry = decode(body);
      if (!entry) return undefined;
      this.decoded++;
    }
    this.keep(key, eventId, entry);
    return entry;
  }

  private keep(key: string, eventId: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (entry.spans) this.latest.set(eventId, entry);
    if (this.entries.size <= KEPT) return;
    const [oldKey, old] = this.entries.entries().next().value as [string, Entry];
    this.entries.delete(oldKey);
    if (this.latest.get(old.eventId) === old) this.latest.delete(old.eventId);
  }
}

function refOf(p: unknown): OpRef {
  const [origin, seq, , , , scope, from] = p as [string, number, number, string, string, string | null, string | null];
  const parts = `${origin}|${scope ?? ''}|${from ?? ''}`;
  let stream = streams.get(parts);
  if (stream === undefined) streams.set(parts, (stream = streamKey(origin, scope ?? undefined, from ?? undefined)));
  return { stream, index: streamIndex(stream), origin, seq, ...(from == null && { write: `${origin}#${seq}` }) };
}

/** The ops' spans in `body`, the list's text starting at `open`, if each one's JSON is as long as its text there (what lets a page be spliced). */
function spansOf(body: Buffer, open: number, ops: unknown[]): Entry['spans'] {
  const starts: number[] = [];
  const ends: number[] = [];
  let at = open;
  for (const op of ops) {
    starts.push(at);
    at += Buffer.byteLength(JSON.stringify(op));
    ends.push(at);
    at++;
  }
  const spans = { open, close: ops.length === 0 ? open : at - 1, starts, ends };
  return checked(body, spans) ? spans : undefined;
}

function decode(body: Buffer): Entry | undefined {
  let m: { value?: { ops?: unknown }; eventId?: string };
  try {
    m = JSON.parse(`{${body.toString('utf8', 0, body.length - 1)}`) as typeof m;
  } catch {
    return undefined;
  }
  const ops = m.value?.ops;
  if (!Array.isArray(ops) || typeof m.eventId !== 'string') return undefined;
  const copy = Buffer.from(body);
  const open = copy.indexOf(OPS);
  const spans = open < 0 ? undefined : spansOf(copy, open + OPS.length, ops);
  return { eventId: m.eventId, ops: ops.map(refOf), body: copy, ...(spans && { spans }) };
}

/** How many bytes `a` and `b` share from their starts (`back`: from their ends), at most `limit`. */
function common(a: Buffer, b: Buffer, limit: number, back: boolean): number {
  const [al, bl] = [a.length, b.length];
  let n = 0;
  while (n + CHUNK <= limit) {
    const same = back ? a.compare(b, bl - n - CHUNK, bl - n, al - n - CHUNK, al - n) === 0 : a.compare(b, n, n + CHUNK, n, n + CHUNK) === 0;
    if (!same) break;
    n += CHUNK;
  }
  while (n < limit && (back ? a[al - 1 - n] === b[bl - 1 - n] : a[n] === b[n])) n++;
  return n;
}

/** The first index of sorted `xs` whose value is above `v` (xs.length if none). */
function firstAbove(xs: number[], v: number): number {
  let [lo, hi] = [0, xs.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] > v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * `body` read as the kept page `k` with the ops between their common prefix
 * and suffix replaced: only the replacing text is parsed. Undefined where
 * the two differ outside the ops list (another `prev`) or the text between
 * does not parse as ops; the caller then decodes the page whole.
 */
function splice(k: Entry, body: Buffer): Entry | undefined {
  const spans = k.spans;
  if (!spans || spans.starts.length === 0) return undefined;
  const { open, close, starts, ends } = spans;
  const limit = Math.min(k.body.length, body.length);
  const p = common(k.body, body, limit, false);
  const s = common(k.body, body, limit - p, true);
  // Ops of k wholly inside the common prefix (before i) or suffix (after j) are body's too.
  const i = firstAbove(ends, p);
  const j = firstAbove(starts, k.body.length - s - 1) - 1;
  const from = i === 0 ? open : ends[i - 1];
  const to = j === starts.length - 1 ? close : starts[j + 1];
  // The two must differ inside the ops list only: k's text before `from` and after `to` is body's.
  if (from > p || to < k.body.length - s) return undefined;
  const shift = body.length - k.body.length;
  let text = body.toString('utf8', from, to + shift);
  if (text.startsWith(',')) text = text.slice(1);
  if (text.endsWith(',')) text = text.slice(0, -1);
  let middle: unknown;
  try {
    middle = JSON.parse(`[${text}]`);
  } catch {
    return undefined;
  }
  if (!Array.isArray(middle)) return undefined;
  const ops = [...k.ops.slice(0, i), ...middle.map(refOf), ...k.ops.slice(j + 1)];
  const entry: Entry = { eventId: k.eventId, ops, body: Buffer.from(body) };
  const moved = respan(spans, i, j, middle, shift);
  if (checked(entry.body, moved)) entry.spans = moved;
  return entry;
}

/** The spans of a spliced page: k's before op i, the middle's measured, k's after op j moved by `shift`. */
function respan(k: NonNullable<Entry['spans']>, i: number, j: number, middle: unknown[], shift: number): NonNullable<Entry['spans']> {
  const starts = k.starts.slice(0, i);
  const ends = k.ends.slice(0, i);
  let at = i === 0 ? k.open : k.ends[i - 1] + 1;
  for (const op of middle) {
    starts.push(at);
    at += Buffer.byteLength(JSON.stringify(op));
    ends.push(at);
    at++;
  }
  for (let x = j + 1; x < k.starts.length; x++) {
    starts.push(k.starts[x] + shift);
    ends.push(k.ends[x] + shift);
  }
  return { open: k.open, close: k.close + shift, starts, ends };
}

/** Whether spans lie as a page's ops do: each op a `[`…`]` after a comma, the last one ending at the list's `]`. */
function checked(body: Buffer, sp: NonNullable<Entry['spans']>): boolean {
  const n = sp.starts.length;
  if (n === 0) return sp.close === sp.open && body[sp.close] === 0x5d;
  if (sp.starts[0] !== sp.open || sp.ends[n - 1] !== sp.close || body[sp.close] !== 0x5d) return false;
  for (let x = 0; x < n; x++) {
    if (body[sp.starts[x]] !== 0x5b || body[sp.ends[x] - 1] !== 0x5d) return false;
    if (x > 0 && (sp.starts[x] !== sp.ends[x - 1] + 1 || body[sp.starts[x] - 1] !== 0x2c)) return false;
  }
  return true;
}
