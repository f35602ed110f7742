import { streamKey } from 'syncom';

/** What a raw peer needs of one op of a page: its stream and seq, and the write it is (to time its delivery). */
export interface OpRef {
  /** The op's stream key (origin, scope, from), interned: the same string for every peer of the process. */
  stream: string;
  origin: string;
  seq: number;
  /** `origin#seq` for a plain write (no `from`: not a bootstrap's merge); undefined otherwise. */
  write?: string;
}

/** A page as the raw peers read it: the ops' references and the event id to resume from. */
export interface DecodedPage {
  eventId: string;
  ops: OpRef[];
}

interface Entry extends DecodedPage {
  /** The page's bytes, compared whole before an entry is reused. */
  body: Buffer;
}

/** Pages kept: feeds of one hub drift apart by a few pages, so a thousand positions cover the peers of a process. */
const KEPT = 1024;
const EVENT_ID = Buffer.from('"eventId":"');
const END = Buffer.from('"}]');

/**
 * Decodes each distinct page once per process. The gateway sends the same
 * bytes to every socket at the same position (one encoding per page), so
 * peers of one process mostly receive pages already decoded for another: the
 * entry is found by the page's end event id and length and reused only if
 * its bytes are equal (a memcmp), so a page that differs (one that leaves out
 * the receiving peer's own write) is decoded on its own.
 */
export class PageCache {
  private readonly entries = new Map<string, Entry>();
  decoded = 0;
  reused = 0;

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
    const page = decode(body);
    if (!page) return undefined;
    this.decoded++;
    this.entries.delete(key);
    const entry = { ...page, body: Buffer.from(body) };
    this.entries.set(key, entry);
    if (this.entries.size > KEPT) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }
}

/** Stream keys by their parts, so every page names a stream with the same string. */
const streams = new Map<string, string>();

function decode(body: Buffer): DecodedPage | undefined {
  let m: { value?: { ops?: unknown }; eventId?: string };
  try {
    m = JSON.parse(`{${body.toString('utf8', 0, body.length - 1)}`) as typeof m;
  } catch {
    return undefined;
  }
  const ops = m.value?.ops;
  if (!Array.isArray(ops) || typeof m.eventId !== 'string') return undefined;
  const refs: OpRef[] = [];
  for (const p of ops) {
    const [origin, seq, , , , scope, from] = p as [string, number, number, string, string, string | null, string | null];
    const parts = `${origin}|${scope ?? ''}|${from ?? ''}`;
    let stream = streams.get(parts);
    if (stream === undefined) streams.set(parts, (stream = streamKey(origin, scope ?? undefined, from ?? undefined)));
    refs.push({ stream, origin, seq, ...(from == null && { write: `${origin}#${seq}` }) });
  }
  return { eventId: m.eventId, ops: refs };
}
