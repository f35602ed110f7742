import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { formatEventId, packOps, signOp, streamKey, type Vector } from 'syncom';
import { clock, type Delivery } from './delivery';

/** One write a raw peer made, and whether the hub acknowledged it. */
export interface RawWrite {
  id: string;
  seq: number;
  data: Record<string, unknown>;
}

type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; status: number } };

/** How long a raw peer waits for an ack before it counts the call failed. */
const ACK_MS = 120_000;

/** The Ed25519 node id of a key: its raw public key in base64url (SIG-2). */
function nodeIdOf(key: KeyObject): string {
  return String(key.export({ format: 'jwk' }).x);
}

/**
 * A light peer speaking the socket.io wire of PROTOCOL-SOCKETIO.md by hand:
 * hello, a changes feed from the start of the hub's log, and pushes of
 * single write ops signed by syncom's own signOp. It keeps no records: it
 * counts what reaches it per stream (a vector), which is what a full peer
 * would have applied. So a thousand of them fit in one process on two
 * cores, where a thousand full storages would spend minutes verifying
 * every op of every other peer.
 */
export class RawPeer {
  readonly node: string;
  /** Writes the hub acknowledged, in order. */
  readonly acked: RawWrite[] = [];
  /** Highest seq received per stream key, from the hub's feed. */
  readonly seen: Vector = {};
  /** Refusals and failures by code (writes and feed). */
  readonly errors = new Map<string, number>();
  /** Ops received out of order (a hole in a stream): none is expected. */
  holes = 0;
  private readonly key: KeyObject;
  private socket?: Socket;
  private seq = 0;
  /** Writes take turns: a seq is reused after a refusal, so two must never be in flight at once. */
  private turn: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<() => void>();

  /** `delivery`: where acks of this peer's writes and arrivals of others' are timed (none: not measured). */
  constructor(readonly index: number, private readonly delivery?: Delivery) {
    this.key = generateKeyPairSync('ed25519').privateKey;
    this.node = nodeIdOf(this.key);
  }

  /** Connect, greet and open the feed; resolves with the milliseconds it took. */
  async connect(url: string, token: string): Promise<number> {
    const t0 = performance.now();
    // The token at the handshake too: a hub with tokens admits no socket without one (access 'session').
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, auth: { token } });
    this.socket = socket;
    socket.on('changes:data', (m: { value?: { ops?: unknown[] } }, ack?: (a: Answer) => void) => this.page(m, ack));
    socket.on('changes:error', (m: { error?: { code?: string } }) => this.count(`feed ${m?.error?.code ?? '?'}`));
    // A raw peer does not reconnect: a drop (a ping timeout on a starved machine) shows here, by reason.
    socket.on('disconnect', (reason: string) => { if (reason !== 'io client disconnect') this.count(`disconnect ${reason}`); });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const hello = { node: this.node, vector: {}, epoch: `load${this.index}`, schema: null, scopes: ['*'], token };
    const answer = (await this.call('hello', hello)) as { epoch: string; floor: number };
    // The hub's log is retained from its start in a load run: read it all from position 0, no snapshot needed.
    if (answer.floor > 0) throw new Error(`the hub's log starts at ${answer.floor}: a raw peer cannot bootstrap`);
    await this.call('changes', { sub: `load.${this.index}`, lastEventId: formatEventId(answer.epoch, 0) });
    return performance.now() - t0;
  }

  /** One signed write pushed alone, after the ones before it; kept in `acked` once the hub answered it. */
  write(): Promise<void> {
    this.turn = this.turn.then(() => this.push(Date.now()));
    return this.turn;
  }

  /** Whether every stream of `vector` but its own reached this peer. */
  covers(vector: Vector): boolean {
    return Object.entries(vector).every(([k, n]) => k === this.node || (this.seen[k] ?? 0) >= n);
  }

  /** Calls `listener` after every page taken; returns the way to stop. */
  onProgress(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.socket?.disconnect();
    this.socket?.removeAllListeners();
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
    const answer = (await this.socket!.timeout(ACK_MS).emitWithAck(event, payload)) as Answer;
    if (!answer.ok) throw Object.assign(new Error(`${event}: ${answer.error.code}`), answer.error);
    return answer.value;
  }

  private page(m: { value?: { ops?: unknown[] } }, ack?: (a: Answer) => void): void {
    const ops = m?.value?.ops;
    const at = clock();
    if (!Array.isArray(ops)) this.count('page without ops');
    for (const p of ops ?? []) {
      const [origin, seq, , , , scope, from] = p as [string, number, number, string, string, string | null, string | null];
      const k = streamKey(origin, scope ?? undefined, from ?? undefined);
      if (seq !== (this.seen[k] ?? 0) + 1) this.holes++;
      // A plain write of another peer (not a bootstrap's merge, not this peer's own write coming back).
      if (from == null && origin !== this.node && seq > (this.seen[k] ?? 0)) this.delivery?.arrive(`${origin}#${seq}`, at);
      this.seen[k] = Math.max(this.seen[k] ?? 0, seq);
    }
    ack?.({ ok: true, value: null });
    for (const l of [...this.listeners]) l();
  }

  private count(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }
}
