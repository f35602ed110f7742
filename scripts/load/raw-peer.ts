import type { KeyObject } from 'node:crypto';
import { formatEventId, packOps, signOp, type Vector } from 'syncom';
import { newSigningKey } from 'syncom/testing';
import { clock, type Delivery } from './delivery';
import { type DecodedPage, PageCache, streamIndex, streamOf, writesIn } from './page-cache';
import { holdLimit, pageAcksOf } from '../../libs/syncom/src/socket.io/held-acks';
import { type Answer, WireSocket } from './wire-socket';

/** One write a raw peer made, and whether the hub acknowledged it. */
export interface RawWrite {
  id: string;
  seq: number;
  data: Record<string, unknown>;
}

/** How long a raw peer waits for an ack before it counts the call failed. */
const ACK_MS = 120_000;
/**
 * A dropped raw peer dials again after REDIAL_MS, doubling at each failed try up to REDIAL_MAX_MS,
 * each delay spread from half to one and a half times (as socket.io-client's backoff): a fleet dropped
 * at once must not come back at once.
 */
const REDIAL_MS = 1000;
const REDIAL_MAX_MS = 30_000;
/** The answer to every page: its JSON text, made once. */
const TAKEN = JSON.stringify({ ok: true, value: null });
/** What the hub writes after a page's sub when it sends the next page without waiting for this one's ack. */
const MORE = Buffer.from('"more":true,');

/** Every raw peer of the process decodes a page through this one cache. */
export const pages = new PageCache();

/** A settle's vector as stream numbers and seqs, key by key, and the sum of its seqs. */
interface Goal {
  vector: Vector;
  keys: string[];
  streams: number[];
  seqs: number[];
  total: number;
}

/** The goal of the last vector asked: every peer of the process is asked the same one. */
let lastGoal: Goal | undefined;

/**
 * `vector` as a Goal, made once per vector for all the process's peers: made
 * per peer, a settle over 5,000 streams cost each process's 1,700 peers
 * 8.5 million map lookups (seconds in which its event loop read no page, and
 * the deliveries it then timed were late by as much).
 */
function goalOf(vector: Vector): Goal {
  if (lastGoal?.vector === vector) return lastGoal;
  const keys = Object.keys(vector);
  const seqs = keys.map((k) => vector[k]);
  return (lastGoal = { vector, keys, streams: keys.map(streamIndex), seqs, total: seqs.reduce((a, b) => a + b, 0) });
}

/**
 * A light peer speaking the socket.io wire of PROTOCOL-SOCKETIO.md by hand
 * (wire-socket.ts): hello, a changes feed from the start of the hub's log,
 * and pushes of single write ops signed by syncom's own signOp. It keeps no
 * records: it counts what reaches it per stream (a vector), which is what a
 * full peer would have applied, and reads of a page only each op's stream
 * and seq (a page is decoded once per process, see page-cache.ts). It acks
 * pages as the shipped link does: each as it takes it, or only the latest
 * where the hub takes acks cumulatively, held past the pages read in one turn
 * while every page since the last ack was marked `more`. Like a syncom dialer, it resubscribes from the last
 * page it took when its feed ends (ACK_TIMEOUT, any changes:error or
 * changes:end) and dials again when its socket drops; both are counted in
 * `errors` (`resubscribed`, `redialed`).
 */
export class RawPeer {
  readonly node: string;
  /** Writes the hub acknowledged, in order. */
  readonly acked: RawWrite[] = [];
  /** Highest seq received per stream, by the stream's number in the process (streamIndex), from the hub's feed. */
  private readonly taken: number[] = [];
  /** Ops taken in all (a stream's op counted once). */
  ops = 0;
  /** What covers() was last asked (shared by the process's peers, see goalOf), and how far into it this peer is known to hold. */
  private goal?: { of: Goal; at: number };
  /** Refusals and failures by code (writes and feed), and the resubscriptions and redials. */
  readonly errors = new Map<string, number>();
  /** Ops received out of order (a hole in a stream): none is expected. */
  holes = 0;
  private readonly key: KeyObject;
  private socket?: WireSocket;
  private seq = 0;
  /** Writes take turns: a seq is reused after a refusal, so two must never be in flight at once. */
  private turn: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();
  /** The feed's current opening (`load.<index>.<generation>`), and the event id of the last page taken. */
  private sub = '';
  /** `{"sub":"<sub>",`: how a page of the current opening starts. */
  private subHead = Buffer.alloc(0);
  private generation = 0;
  private lastEventId?: string;
  private target?: { url: string; token: string; epoch: string };
  private closed = false;
  /** Redials since the feed was last open (the backoff's exponent). */
  private redials = 0;
  /** Pages taken before an ack goes (half the window the hub offers for cumulative acks; 1: each page), and the ack held back. */
  private every = 1;
  /** How long an ack of pages marked `more` may wait (ms, from the first page it answers). */
  private holdMs = 0;
  /** The ack held back: its socket and packet id, the pages it answers, whether one came without `more`, when the first came, its timer. */
  private held?: { socket: WireSocket; id: number; n: number; awaited: boolean; queued: boolean; since: number; timer?: ReturnType<typeof setTimeout> };

  /** `delivery`: where acks of this peer's writes and arrivals of others' are timed (none: not measured). */
  constructor(readonly index: number, private readonly delivery?: Delivery) {
    ({ key: this.key, node: this.node } = newSigningKey());
  }

  /** Connect, greet and open the feed; resolves with the milliseconds it took. */
  async connect(url: string, token: string): Promise<number> {
    const t0 = performance.now();
    const epoch = await this.dial(url, token);
    this.target = { url, token, epoch };
    this.lastEventId = formatEventId(epoch, 0);
    await this.subscribe();
    return performance.now() - t0;
  }

  /** One signed write pushed alone, after the ones before it; kept in `acked` once the hub answered it. */
  write(): Promise<void> {
    this.turn = this.turn.then(() => this.push(Date.now()));
    return this.turn;
  }

  /** Highest seq received per stream key, from the hub's feed. */
  get seen(): Vector {
    const v: Vector = {};
    this.taken.forEach((seq, i) => { if (seq > 0) v[streamOf(i) as string] = seq; });
    return v;
  }

  /**
   * Whether every stream of `vector` but its own reached this peer. Asked
   * after each page while settling: what it held already is not checked again
   * (a peer's streams only move forward).
   */
  covers(vector: Vector): boolean {
    let g = this.goal;
    if (g?.of.vector !== vector) g = this.goal = { of: goalOf(vector), at: 0 };
    const { keys, streams, seqs, total } = g.of;
    // With no hole every op taken counts once in `ops`: fewer than the goal's (its own stream aside) cannot cover it,
    // and the walk over every stream waits (at a settle's start every peer of the process is asked at once).
    if (this.holes === 0 && this.ops < total - (vector[this.node] ?? 0)) return false;
    const taken = this.taken;
    while (g.at < streams.length && (keys[g.at] === this.node || (taken[streams[g.at]] ?? 0) >= seqs[g.at])) g.at++;
    return g.at === streams.length;
  }

  /** Calls `listener` after every page taken; returns the way to stop. */
  onProgress(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.held?.timer) clearTimeout(this.held.timer);
    this.socket?.close();
  }

  /** A socket, greeted: resolves with the hub's epoch. The token goes at the handshake too (access 'session'). */
  private async dial(url: string, token: string): Promise<string> {
    const socket = new WireSocket({ event: (name, id, frame, at) => this.event(socket, name, id, frame, at), closed: (reason) => this.dropped(socket, reason) });
    this.socket = socket;
    await socket.connect(url, { token });
    const hello = { node: this.node, vector: {}, epoch: `load${this.index}`, schema: null, scopes: ['*'], token };
    const greeted = await socket.call('hello', hello, ACK_MS);
    if (!greeted.ok) throw Object.assign(new Error(`hello: ${greeted.error.code}`), greeted.error);
    const answer = greeted.value as { epoch: string; floor: number };
    // Acks as the shipped link does: the latest page taken only, where the hub takes acks cumulatively.
    const offer = pageAcksOf(greeted);
    this.every = Math.max(1, (offer?.window ?? 0) >> 1);
    this.holdMs = offer ? holdLimit(offer) : 0;
    // The hub's log is retained from its start in a load run: read it all from position 0, no snapshot needed.
    if (answer.floor > 0) throw new Error(`the hub's log starts at ${answer.floor}: a raw peer cannot bootstrap`);
    return answer.epoch;
  }

  /** Opens the feed again from the last page taken, under a new sub. */
  private async subscribe(): Promise<void> {
    this.sub = `load.${this.index}.${this.generation++}`;
    this.subHead = Buffer.from(`{"sub":"${this.sub}",`);
    await this.call('changes', { sub: this.sub, lastEventId: this.lastEventId });
  }

  private resubscribe(): void {
    if (this.closed) return;
    this.count('resubscribed');
    this.subscribe().catch((e: unknown) => this.count(`resubscribe ${(e as { code?: string }).code ?? 'failed'}`));
  }

  /** The socket went: counted by reason, and unless closed here, dialed again later from the last page taken. */
  private dropped(socket: WireSocket, reason: string): void {
    if (socket !== this.socket || this.closed) return;
    this.count(`disconnect ${reason}`);
    const t = this.target;
    if (!t) return;
    const delay = Math.min(REDIAL_MAX_MS, REDIAL_MS * 2 ** this.redials++) * (0.5 + Math.random());
    setTimeout(() => {
      if (this.closed) return;
      this.count('redialed');
      this.dial(t.url, t.token).then(() => this.subscribe()).then(() => { this.redials = 0; }, () => this.socket?.close('redial failed'));
    }, delay);
  }

  private async push(now: number): Promise<void> {
    const seq = ++this.seq;
    const id = `${this.node}:${seq}`;
    const data = { peer: this.index, n: seq, at: now };
    const op = signOp({ origin: this.node, seq, ts: now, type: 'write', id, data }, this.key);
    try {
      const answer = (await this.call('push', { ops: packOps([op]) })) as { applied?: number };
      if (answer.applied === 1) {
        this.delivery?.ack(`${this.node}#${seq}`, clock());
        return void this.acked.push({ id, seq, data });
      }
      this.count('NOT_APPLIED');
    } catch (e) {
      this.count((e as { code?: string }).code ?? 'ERROR');
      // The hub answered a refusal, so nothing was applied: the next write reuses the seq. Without
      // an answer the op may be there: the seq stays spent, and the hub will report the hole if not.
      if ((e as { status?: number }).status !== undefined) this.seq--;
    }
  }

  private async call(event: string, payload: unknown): Promise<unknown> {
    if (!this.socket) throw new Error('not connected');
    const answer = await this.socket.call(event, payload, ACK_MS);
    if (!answer.ok) throw Object.assign(new Error(`${event}: ${answer.error.code}`), answer.error);
    return answer.value;
  }

  private event(socket: WireSocket, name: string, id: number | undefined, frame: Buffer, at: number): void {
    if (name === 'changes:data') return this.page(socket, id, frame, at);
    if (name !== 'changes:error' && name !== 'changes:end') return;
    const m = JSON.parse(frame.toString('utf8', at, frame.length - 1)) as { sub?: string; error?: { code?: string } };
    if (name === 'changes:error') this.count(`feed ${m.error?.code ?? '?'}`);
    if (m.sub === this.sub && socket === this.socket) this.resubscribe();
  }

  private page(socket: WireSocket, id: number | undefined, frame: Buffer, at: number): void {
    const t = clock();
    const head = this.subHead;
    // A late page of an earlier opening is acked and dropped: the new opening starts after the last page taken.
    const mine = head.compare(frame, at, at + head.length) === 0;
    const from = at + head.length;
    const more = mine && from + MORE.length <= frame.length && MORE.compare(frame, from, from + MORE.length) === 0;
    const page = mine ? pages.read(frame, from + (more ? MORE.length : 0)) : undefined;
    if (mine && !page) this.count('page without ops');
    if (page) this.take(page, t);
    if (id !== undefined) this.ack(socket, id, mine, more);
    if (page) for (const l of this.listeners) l();
  }

  /**
   * Acks a page: a late page of an earlier opening at once; one of this
   * opening, with cumulative acks, once half the window is taken, or at the
   * end of the frames read in this turn (nothing more to take) unless every
   * page since the last ack was marked `more`: then at the next page without
   * it, or a tenth of the hub's ackTimeout (at most a second) after the first.
   */
  private ack(socket: WireSocket, id: number, mine: boolean, more: boolean): void {
    if (!mine || this.every === 1) return socket.ack(id, TAKEN);
    let held = this.held;
    if (held && held.socket === socket) (held.id = id), held.n++;
    else {
      if (held) this.flush();
      held = this.held = { socket, id, n: 1, awaited: false, queued: false, since: Date.now() };
    }
    if (!more) held.awaited = true;
    if (held.n >= this.every) return this.flush();
    if (held.awaited && !held.queued) {
      held.queued = true;
      queueMicrotask(() => { if (this.held === held) this.flush(); });
    } else if (!held.awaited && !held.timer) {
      held.timer = setTimeout(() => { if (this.held === held) this.flush(); }, Math.max(0, held.since + this.holdMs - Date.now()));
    }
  }

  private flush(): void {
    const held = this.held;
    this.held = undefined;
    if (!held) return;
    if (held.timer) clearTimeout(held.timer);
    held.socket.ack(held.id, TAKEN);
  }

  private take(page: DecodedPage, at: number): void {
    const taken = this.taken;
    const ops = page.ops;
    const delivery = this.delivery;
    const refs = delivery && writesIn(page, delivery);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i];
      const s = op.index;
      while (taken.length <= s) taken.push(0);
      const had = taken[s];
      if (op.seq !== had + 1) this.holes++;
      if (op.seq <= had) continue;
      taken[s] = op.seq;
      this.ops++;
      // A plain write of another peer (not a bootstrap's merge, not this peer's own write coming back).
      const ref = refs?.[i];
      if (ref !== undefined && op.origin !== this.node) delivery?.arriveRef(ref, at);
    }
    this.lastEventId = page.eventId;
  }

  private count(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }
}
