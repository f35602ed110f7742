import { SyncomError } from '../../errors';
import type { SyncLink } from '../../link/contract';
import type { LogEntry } from '../../log/op-log';
import { raiseVector } from '../../log/vector';
import { FLAG_SEALED, packedBytes, packOps } from '../../op';
import { isPrototypeOrigin } from '../../op/shape';
import { joinedFrom, type Op, opStreamKey, type Vector } from '../../op/types';
import type { PeerApplyResult } from '../../storage/peer';
import { ATTRS, type SyncTelemetry, urlLabel } from '../../telemetry';
import type { SyncEvents } from '../events';
import { DEFAULT_PAGE_BYTES, frameEnds } from '../protocol/frames';

/** What a host answers to push: its apply counts and the stream keys the page touched. */
export type PushAnswer = Partial<PeerApplyResult> & { vector?: Vector };

/**
 * Whether an op should go to a host, and the host lacks it by its vector:
 * never sealed ops, ops joined from it, or scopes the node was not
 * registered with (OPT-10, GUAR-19). The host's own ops go only where its
 * vector lacks them: a host restored from a copy older than ops it made
 * and served, whose next writes would take seqs its peers hold (and drop
 * as duplicates); taking them back, signed by its key, it writes past them,
 * as a dialer does with REWOUND (test/sync/host-restored-own-ops.spec.ts).
 * Only with `ownBack` (a push from the vector: after hello, a recovery): a
 * live relay of an op of the host's that another host served first would
 * only send it back where it came from.
 */
export function hostLacks(e: LogEntry, host: string | null, allowed: Set<string> | 'all', hv: Vector, ownBack = true): boolean {
  const op = e.op;
  if (e.flags & FLAG_SEALED || joinedFrom(op) === host || (!ownBack && op.origin === host)) return false;
  if (allowed !== 'all' && !allowed.has(op.scope ?? '*')) return false;
  return (hv[opStreamKey(op)] ?? 0) < op.seq;
}

/** How big a push may be: the dialer's pageSize and pageBytes, and the host's pushBytes from hello when it said. */
export interface PushBounds {
  pageSize: number;
  pageBytes?: number;
  pushBytes?: number;
}

/**
 * The pushes of `entries`, in log order: pages of pageSize entries, each
 * filtered by `lacks` when its turn comes (the host's vector moves with each
 * answer), cut into pushes of at most pageSize ops and min(pageBytes,
 * pushBytes) bytes of their JSON. An op above that goes alone (bounded frames).
 */
export function* pushFrames(entries: LogEntry[], lacks: (e: LogEntry) => boolean, b: PushBounds): Generator<LogEntry[]> {
  const maxBytes = Math.min(b.pageBytes ?? DEFAULT_PAGE_BYTES, b.pushBytes ?? Infinity);
  for (let i = 0; i < entries.length; i += b.pageSize) {
    const page = entries.slice(i, i + b.pageSize).filter(lacks);
    const ends = frameEnds(page.map((e) => packedBytes(e.op)), b.pageSize, maxBytes);
    for (let k = 0; k < ends.length; k++) yield page.slice(k === 0 ? 0 : ends[k - 1], ends[k]);
  }
}

/** One push call, in a push span. */
export function pushPage(link: SyncLink, telemetry: SyncTelemetry, url: string, page: LogEntry[]): Promise<PushAnswer> {
  return telemetry.push('dialer', url, page.length, async (span) => {
    const a = (await link.call('push', { ops: packOps(page.map((e) => e.op)) })) as PushAnswer;
    span.setAttribute(ATTRS.applied, a?.applied ?? 0);
    return a;
  });
}

/** The sync event of a pushed page. */
export function pushedEvent(url: string, pushed: number, ans: PushAnswer | undefined): SyncEvents['sync'][0] {
  const { applied = 0, skipped = 0, duplicates = 0, gaps = 0, malformed = 0, unsigned = 0, forged = 0 } = ans ?? {};
  return { url, pushed, received: 0, applied, skipped, duplicates, gaps, malformed, unsigned, forged };
}

/**
 * What a host refused of a push that stops a stream there: ops outside this
 * node's scopes (SCOPE-12), reported once per position (OUT_OF_SCOPE, 403),
 * not at every recovery that pushes them again; and ops refused for their
 * signatures (SignatureRefusals).
 */
export class PushRefusals {
  private readonly seen = new Reported();
  private readonly signatures = new SignatureRefusals();

  /** Whether the answer stopped a stream (out of scope, or refused for its signature), and the errors to report that are news. */
  judge(frame: readonly LogEntry[], hv: Vector, ans: PushAnswer | undefined, url: string): { stopped: boolean; errors: SyncomError[] } {
    const signature = this.signatures.judge(frame, ans, url);
    // Stopped whether or not the refusal is news: a recovery pushing the same ops again is refused again.
    const out = { stopped: (ans?.unsigned ?? 0) + (ans?.forged ?? 0) > 0, errors: signature ? [signature] : [] };
    const count = ans?.outOfScope ?? 0;
    if (count === 0) return out;
    const streams = stalledStreams(frame, hv);
    const news = streams.filter((k) => this.seen.first(`${k}:${hv[k] ?? 0}`));
    const message = `the host refused ${count} op(s) as out of scope (a record outside the scopes this node was granted, or one its scope rule places in another scope than the op declared: give this node the host's rule, sync.scope); later ops of ${news.join(', ')} stop there`;
    if (news.length) out.errors.unshift(new SyncomError('OUT_OF_SCOPE', message, { status: 403, url, count, streams: news }));
    return { stopped: out.stopped || streams.length > 0, errors: out.errors };
  }
}

/**
 * Ops a host cannot take for their size: alone in a push and over the host's
 * `pushBytes` (BYTES_PER_PUSH, 413), such as a merge joined from another
 * host's snapshot. Pushes go in log order and such an op came back at every
 * retry, so it held back every later op to that host, the node's own writes
 * included. Its stream stops there for that host (its later ops would be
 * gaps there) and the other streams go on; it is reported once per op.
 */
export class SizeStalls {
  /** Stream key -> the seq of the op the host cannot take. */
  private readonly at = new Map<string, number>();
  private readonly seen = new Set<string>();

  constructor(private readonly d: SizeOwner) {}

  /**
   * Push `frame`, less the ops held back here, handing each answer to
   * `take`. A lone op the host cannot take for its size is not pushed: over
   * the pushBytes its hello named (then it is not sent), or refused 413
   * BYTES_PER_PUSH; its stream stops there. A host that named no pushBytes
   * refuses a frame holding such an op whole: the frame is pushed again in
   * halves until the op is alone.
   */
  async push(frame: LogEntry[], take: (frame: LogEntry[], answer: PushAnswer) => void): Promise<void> {
    const sent = this.any ? frame.filter((e) => !this.holds(e, this.d.hv())) : frame;
    if (sent.length === 0) return;
    const alone = sent.length === 1 ? sent[0] : undefined;
    const limit = this.d.limit();
    if (alone && limit !== undefined && aloneBytes(alone) > limit) return this.tooBig(alone);
    let answer: PushAnswer;
    try {
      answer = await this.d.send(sent);
    } catch (e) {
      if (!refusedForSize(e)) throw e;
      this.d.refused();
      if (alone) return this.tooBig(alone);
      const half = Math.ceil(sent.length / 2);
      await this.push(sent.slice(0, half), take);
      return this.push(sent.slice(half), take);
    }
    take(sent, answer);
  }

  /** Stop the stream of an op the host cannot take, reported once (BYTES_PER_PUSH with its stream and seq). */
  private tooBig(e: LogEntry): void {
    const error = this.stop(e, { bytes: aloneBytes(e), limit: this.d.limit(), url: this.d.url() });
    if (error) this.d.report(error);
  }

  /** Whether any stream is stopped here. */
  get any(): boolean {
    return this.at.size > 0;
  }

  /** Whether `e` waits behind an op of its stream the host cannot take and still lacks. */
  holds(e: LogEntry, hv: Vector): boolean {
    if (!this.any) return false;
    const k = opStreamKey(e.op);
    const seq = this.at.get(k);
    return seq !== undefined && e.op.seq >= seq && (hv[k] ?? 0) < seq;
  }

  /** Whether the host lacks an op held back here (peers() shows it behind: the op is not delivered there). */
  lagging(hv: Vector): boolean {
    for (const [k, seq] of this.at) if ((hv[k] ?? 0) < seq) return true;
    return false;
  }

  /** The host cannot take `e`: stop its stream there; the error to report when it is news. */
  private stop(e: LogEntry, o: { bytes: number; limit?: number; url: string }): SyncomError | undefined {
    const stream = opStreamKey(e.op);
    const seq = e.op.seq;
    const was = this.at.get(stream);
    if (was === undefined || seq < was) this.at.set(stream, seq);
    if (this.seen.has(`${stream}:${seq}`)) return undefined;
    this.seen.add(`${stream}:${seq}`);
    const limit = o.limit === undefined ? 'its push limit' : `its push limit of ${o.limit} bytes`;
    const message = `op ${seq} of ${stream} (${o.bytes} bytes) is over ${limit}: it and the later ops of ${stream} are not pushed to ${urlLabel(o.url)}`;
    return new SyncomError('BYTES_PER_PUSH', message, { status: 413, url: o.url, stream, seq, bytes: o.bytes, limit: o.limit });
  }

  /** A new hello: the host may take more now; an op still over its limit stops its stream again, unreported. */
  clear(): void {
    this.at.clear();
  }
}

/** What SizeStalls needs of its dialer: the push call, the host's pushBytes from hello, where refusals go. */
export interface SizeOwner {
  send(frame: LogEntry[]): Promise<PushAnswer>;
  /** The host's vector (raised by each answer). */
  hv(): Vector;
  limit(): number | undefined;
  url(): string;
  /** A refusal by the host (the limited metric). */
  refused(): void;
  report(e: SyncomError): void;
}

/** The host's word that a push of one op was over its byte limit. */
function refusedForSize(e: unknown): boolean {
  const x = e as { status?: unknown; code?: unknown } | null;
  return x?.status === 413 && x.code === 'BYTES_PER_PUSH';
}

/** The bytes a push of `e` alone weighs as the host counts them: its op's JSON in an array. */
function aloneBytes(e: LogEntry): number {
  return packedBytes(e.op) + 2;
}

/** Whether the host's vector, after its answer to `frame`, holds some op of it: the push got somewhere. */
export function gained(frame: readonly LogEntry[], hv: Vector): boolean {
  return frame.some((e) => (hv[opStreamKey(e.op)] ?? 0) >= e.op.seq);
}

/** The stream keys of a pushed frame the host still lacks an op of after its answer: where a refusal stopped them. */
export function stalledStreams(frame: readonly LogEntry[], hv: Vector): string[] {
  const out = new Set<string>();
  for (const e of frame) {
    const k = opStreamKey(e.op);
    if ((hv[k] ?? 0) < e.op.seq) out.add(k);
  }
  return [...out];
}

/** This node as a host's answers are read against: its id, and its log's vector (the streams it wrote). */
export interface Mine {
  id: string;
  vector: Readonly<Vector>;
}

/**
 * Own ops the host holds, per own stream, into the record's acked (LOG-17):
 * only streams this node wrote, the merges it joined from other nodes
 * (`<id><from>`) included, which retention keeps for the hosts that lack
 * them (SyncManager.pinned). A host may name any key `<id>@<anything>`,
 * and acked is kept for good and written with the registry after every page
 * and push: new names at each answer had grown it without bound
 * (test/hostile/acked-junk.spec.ts).
 */
export function ackOwn(mine: Mine, hv: Vector, acked: Vector, keys: Vector = hv): void {
  const { id, vector } = mine;
  for (const k in keys) if ((k === id || k.startsWith(`${id}@`) || k.startsWith(`${id}<`)) && Object.hasOwn(vector, k)) acked[k] = hv[k];
}

/**
 * ackOwn at hello, whose vector is the host's whole (of the dialed scopes): a
 * stream acked before that it does not name, it holds none of. Kept, the
 * mark of the host before (a url now answered by another node, or the hub
 * restored from a copy older than this node's first op there) let retention
 * drop ops this host never had (test/sync/acked-host-changed.spec.ts).
 */
export function ackHello(mine: Mine, hv: Vector, acked: Vector): void {
  for (const k of Object.keys(acked)) if (!Object.hasOwn(hv, k)) acked[k] = 0;
  ackOwn(mine, hv, acked);
}

/**
 * Raise `hv` (in place) to a push answer's entries, and note the own ones as
 * acked: what the page touched, not the whole vector, which holds an entry
 * per origin the host has seen (a copy of it per page cost a dialer of a host
 * of 90,000 origins milliseconds a page). Returns the entries taken.
 */
export function takePushAnswer(mine: Mine, hv: Vector, acked: Vector, touched: unknown): Vector {
  const taken: Vector = {};
  if (typeof touched !== 'object' || touched === null) return taken;
  for (const [k, n] of Object.entries(touched)) {
    // The host's word: a count, under a key of a stream an op can run in (none is an Object.prototype member's name).
    if (!isPrototypeOrigin(k) && Number.isSafeInteger(n) && n >= 0) taken[k] = n;
  }
  raiseVector(hv, taken);
  ackOwn(mine, hv, acked, taken);
  return taken;
}

/**
 * The host holds every op its feed sends: note them in its vector before they
 * are applied, so relaying them (which starts at their append) does not push
 * them straight back to it, to be verified a second time and dropped as duplicates.
 * So it does the streams of a vector this node adopted from it (a snapshot's).
 * Returns the keys noted.
 */
export function markHeld(hv: Vector, ops: readonly Op[], vector: Readonly<Vector> = {}): string[] {
  const keys: string[] = [];
  const note = (k: string, seq: number) => {
    keys.push(k);
    if ((hv[k] ?? 0) < seq) hv[k] = seq;
  };
  for (const op of ops) note(opStreamKey(op), op.seq);
  for (const k of Object.keys(vector)) note(k, vector[k]);
  return keys;
}

/**
 * Keys of refusals reported already, the oldest let go past `max`: a host
 * names what it refuses (its counts, its vector) as it likes, and a key per
 * answer kept for good grew with every push.
 */
export class Reported {
  private readonly keys = new Set<string>();

  constructor(private readonly max = 1024) {}

  /** Whether `key` is news (then noted). */
  first(key: string): boolean {
    if (this.keys.has(key)) return false;
    if (this.keys.size >= this.max) this.keys.delete(this.keys.values().next().value as string);
    this.keys.add(key);
    return true;
  }
}

/**
 * A host refused pushed ops for their signatures (it requires them, or one
 * did not check): the streams stop there, each later op a gap, so it is an
 * error of the dialer's, not counts in a sync event alone. Reported once per
 * frame start and counts, not at every recovery that pushes them again: a
 * recovery of more than one frame (over pageSize ops) reported every frame
 * again at every push while only the last frame's key was kept.
 */
export class SignatureRefusals {
  private readonly seen = new Reported();

  judge(frame: readonly LogEntry[], ans: PushAnswer | undefined, url: string): SyncomError | undefined {
    const { unsigned = 0, forged = 0 } = ans ?? {};
    if (unsigned + forged === 0 || frame.length === 0) return undefined;
    if (!this.seen.first(`${opStreamKey(frame[0].op)}:${frame[0].op.seq}:${unsigned}:${forged}`)) return undefined;
    const message = `the host refused ${unsigned} op(s) as unsigned and ${forged} as forged; the later ops of their streams are gaps there until it takes them`;
    return new SyncomError(unsigned > 0 ? 'UNSIGNED' : 'BAD_SIGNATURE', message, { url, count: unsigned + forged });
  }
}
