import { WireTransport } from './wire-transport';

/** An answer of the gateway to an acknowledged call. */
export type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; status: number } };

/** What a WireSocket hands its owner. */
export interface WireHandlers {
  /**
   * An event of the server: `name`, the ack id it asked for (if any), and the
   * frame with the offset where its first argument starts (`{…}]` follows):
   * the owner parses only what it needs.
   */
  event(name: string, ackId: number | undefined, frame: Buffer, at: number): void;
  /** The connection ended; `reason` as socket.io-client names it ('io client disconnect' when closed here). */
  closed(reason: string): void;
}

interface Pending {
  resolve: (a: Answer) => void;
  reject: (e: Error) => void;
  deadline: number;
}

/** How long the WebSocket's handshake and the namespace's connect may take together (socket.io-client's default timeout). */
const CONNECT_MS = 20_000;

const CH = { open: 0x30, close: 0x31, ping: 0x32, message: 0x34, slash: 0x2f, comma: 0x2c, zero: 0x30, nine: 0x39 };
/** socket.io packet types (socket.io-parser): the second character of an Engine.IO message. */
const PACKET = { connect: 0, disconnect: 1, event: 2, ack: 3, connectError: 4 };

/** Every live socket, swept by one timer for calls past their deadline and servers that stopped pinging. */
const live = new Set<WireSocket>();
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const s of live) s.expire(now);
}

/**
 * The client side of socket.io 4 (Engine.IO 4) over one WebSocket, by hand:
 * only what a load peer needs (connect to a namespace with auth, events with
 * acks both ways, pings). socket.io-client decodes every frame with
 * JSON.parse and keeps timers per socket and per call; with thousands of
 * peers in one process that decoding, not the hub, bounded the figures. Here
 * an event's frame is handed over undecoded, and one timer per process
 * sweeps every socket's deadlines. The WebSocket under it is WireTransport
 * (wire-transport.ts), whose reads allocate nothing.
 */
export class WireSocket {
  private ws?: WireTransport;
  private prefix = '';
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private pingDeadline = Infinity;
  private pingBound = 45_000;
  private ended = false;
  private connected = false;

  constructor(private readonly handlers: WireHandlers) {}

  /** Opens the WebSocket to `url` (`http://host:port/namespace`) and connects to the namespace with `auth`. */
  connect(url: string, auth: object): Promise<void> {
    const u = new URL(url);
    const nsp = u.pathname === '/' ? '' : u.pathname;
    this.prefix = nsp ? `${nsp},` : '';
    // Swept from the start: a hub that never answers the handshake fails the connect (then the peer dials again).
    this.pingDeadline = performance.now() + CONNECT_MS;
    live.add(this);
    sweeper ??= setInterval(sweep, 1000);
    return new Promise((resolve, reject) => {
      const ws = new WireTransport(u.hostname.replace(/^\[(.*)\]$/, '$1'), Number(u.port || 80), '/socket.io/?EIO=4&transport=websocket', {
        opened: () => undefined,
        // A close before the namespace answered fails the connect.
        closed: () => { reject(new Error('transport close')); this.close('transport close'); },
        message: (data) => {
          const kind = data[0];
          if (kind === CH.ping) return this.pinged();
          if (kind === CH.open) return this.opened(data, auth);
          if (kind === CH.close) return this.close('transport close');
          if (kind !== CH.message) return;
          const type = data[1] - CH.zero;
          if (type === PACKET.connect) {
            this.connected = true;
            this.pinged(false);
            return resolve();
          }
          if (type !== PACKET.connectError) return this.packet(type, data);
          reject(new Error(String((this.json(data, this.start(data).at) as { message?: string } | undefined)?.message ?? 'connect_error')));
          this.close('connect error');
        },
      });
      this.ws = ws;
    });
  }

  /** Sends `event` with `payload` and waits (at most `ms`) for the answer. */
  call(event: string, payload: unknown, ms: number): Promise<Answer> {
    if (this.ended) return Promise.reject(new Error('socket closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, deadline: performance.now() + ms });
      this.ws!.send(`42${this.prefix}${id}${JSON.stringify([event, payload])}`);
    });
  }

  /** Answers the server's event `id` with `json` (the answer's JSON text). */
  ack(id: number, json: string): void {
    if (!this.ended && this.ws?.open) this.ws.send(`43${this.prefix}${id}[${json}]`);
  }

  /** Closes the connection (once); pending calls fail. */
  close(reason = 'io client disconnect'): void {
    if (this.ended) return;
    this.ended = true;
    live.delete(this);
    if (live.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
    if (reason === 'io client disconnect' && this.ws?.open) this.ws.send(`41${this.prefix}`);
    this.ws?.terminate();
    for (const p of this.pending.values()) p.reject(new Error(`socket closed (${reason})`));
    this.pending.clear();
    this.handlers.closed(reason);
  }

  /** Fails calls past their deadline; closes when the server stopped pinging. */
  expire(now: number): void {
    if (now > this.pingDeadline) return this.close(this.connected ? 'ping timeout' : 'connect timeout');
    for (const [id, p] of this.pending) {
      if (p.deadline > now) continue;
      this.pending.delete(id);
      p.reject(new Error('operation has timed out'));
    }
  }

  private opened(data: Buffer, auth: object): void {
    const o = JSON.parse(data.toString('utf8', 1)) as { pingInterval: number; pingTimeout: number };
    this.pingBound = o.pingInterval + o.pingTimeout;
    this.ws!.send(`40${this.prefix}${JSON.stringify(auth)}`);
  }

  private pinged(answer = true): void {
    this.pingDeadline = performance.now() + this.pingBound;
    if (answer) this.ws?.send('3');
  }

  private packet(type: number, data: Buffer): void {
    const { id, at } = this.start(data);
    if (type === PACKET.disconnect) return this.close('io server disconnect');
    if (type === PACKET.ack && id !== undefined) {
      const p = this.pending.get(id);
      this.pending.delete(id);
      const answer = (this.json(data, at) as Answer[] | undefined)?.[0];
      return answer ? p?.resolve(answer) : p?.reject(new Error('an answer that is no JSON'));
    }
    if (type !== PACKET.event || data[at + 1] !== 0x22) return;
    const end = data.indexOf(0x22, at + 2);
    this.handlers.event(data.toString('latin1', at + 2, end), id, data, end + 2);
  }

  /** Where a packet's JSON starts (after the namespace and the ack id), and the ack id. */
  private start(data: Buffer): { id?: number; at: number } {
    let at = 2;
    if (data[at] === CH.slash) at = data.indexOf(CH.comma, at) + 1;
    let id: number | undefined;
    while (data[at] >= CH.zero && data[at] <= CH.nine) id = (id ?? 0) * 10 + data[at++] - CH.zero;
    return { id, at };
  }

  private json(data: Buffer, at: number): unknown {
    try {
      return JSON.parse(data.toString('utf8', at)) as unknown;
    } catch {
      return undefined;
    }
  }
}
