import { io, type Socket as ClientSocket } from 'socket.io-client';
import type { Storage, SyncomError } from 'syncom';
import { internals, mainVector } from 'syncom/testing';
import { plainEntry } from '../../../syncom/src/crdt';
import { canonicalJson } from '../../../syncom/src/op';
import { createSocketIoLink } from '../../src/link';
import { memoryStorage, startHub, type TestHub } from '../helpers/hub';
import { until, waitFor } from '../helpers/until';

/** How long a connection must stay up for the dialer to count the host as steady again after early drops (syncom's link/early-drops.ts). */
const STEADY_MS = 30_000;

/**
 * A small world on real sockets (127.0.0.1), driven one command at a time by
 * a model-based test (wire-model.e2e-spec.ts): nodes 0 and 1 are hubs (Nest
 * apps with the syncom gateway), node 1 also dials hub 0 as a peer (as
 * apps/hub does with SYNCOM_PEERS); nodes 2, 3 and 4 are dialers on the
 * socket.io link: 2 dials hub 0, 3 dials hub 1, 4 joins later, and any
 * dialer may register the other hub mid-run (a bootstrap streamed from a
 * second host). Faults are socket-level: a hub drops a socket, a dialer's
 * transport closes, a hub app stops and starts again on its storage and
 * port, a dialer stops reading so the hub's send window fills.
 */

export const NODES = 5;
export const HUBS = [0, 1] as const;
export const DIALERS = [1, 2, 3, 4] as const;

/** One write a command asks of a node: a, b registers, s a set, n a counter of c0 only. */
export interface Write {
  kind: 'set' | 'update' | 'delete' | 'add' | 'remove' | 'inc' | 'purge';
  id: 'r0' | 'r1';
  field: 'a' | 'b';
  value: number;
}

export type Command =
  | { t: 'write'; node: number; w: Write }
  /** Writes started together, none awaited before the next starts (more ops than a page and a window hold). */
  | { t: 'burst'; node: number; ws: Write[] }
  | { t: 'tick'; ms: number }
  /** The hub drops the dialer's socket (socket.disconnect(true)). */
  | { t: 'kick'; node: number }
  /** The dialer's transport closes under it (socket.io-client redials). */
  | { t: 'drop'; node: number }
  /** The hub's app stops; again, it starts on the same storage and port. */
  | { t: 'restart'; hub: number }
  /** The dialer stops reading its sockets; again, it reads on. */
  | { t: 'pause'; node: number }
  /**
   * Short timeouts only: the dialer stops reading, it and its hubs write, and
   * the world awaits its link dropping the connection whose answer never
   * came (LINK_TIMEOUT; the hub's feed has ended on its unacked page by
   * then), then its redial; it reads on meanwhile, on the new connection.
   */
  | { t: 'stall'; node: number }
  | { t: 'join'; node: number; host: number }
  | { t: 'reconcile'; node: number }
  | { t: 'synced'; node: number };

/** Codes no run of this world may report: a healthy network on a shared clock meets none of them. */
const NEVER = new Set([
  'OP_REFUSED', 'OP_INVALID', 'OP_MALFORMED', 'SKEW', 'BAD_SIGNATURE', 'UNSIGNED', 'PAGE_FAILED', 'STUCK', 'UNDELIVERABLE',
  'KIND_CLASH', 'OP_UNREADABLE', 'UNPERSISTED', 'HANDSHAKE_LOOP', 'REWOUND', 'MESSAGE_TOO_LARGE',
]);

/** Pages of two ops, two frames out at most: a few writes fill a feed's send window, or a paused reader's. */
const PAGING = { pageSize: 2, maxInFlightFrames: 2 };

type TcpSocket = { pause(): void; resume(): void };

interface Node {
  index: number;
  storage: Storage;
  /** Hosts it dials, by index. */
  dials: Set<number>;
  hub?: TestHub;
  /** The port its hub listens on (kept across a restart). */
  port?: number;
  /** Its hub app is stopped. */
  stopped?: boolean;
  /** Its sockets do not read. */
  paused?: TcpSocket[];
}

export class WireWorld {
  readonly nodes: Node[] = [];
  readonly problems: string[] = [];
  /** Every code emitted on an `error` event, with its count (a lost link is not one: peers() shows it). */
  readonly codes = new Map<string, number>();
  /** The newest socket of each dialer>host edge. */
  private readonly sockets = new Map<string, ClientSocket>();
  private t = 1_000_000;
  /** How the stalls ended: the link redialed, or nothing timed out within the bound. */
  readonly stalls = { cycled: 0, bounded: 0 };

  /** `short`: hubs end a feed whose page waits 300 ms for its ack (408) and a call waits 500 ms for its answer (LINK_TIMEOUT), so a dialer that stops reading loses its feed and redials. */
  constructor(readonly short = false) {}

  now = (): number => this.t;

  static async create(short = false): Promise<WireWorld> {
    const w = new WireWorld(short);
    for (let i = 0; i < NODES; i++) w.nodes.push(await w.open(i));
    // c0 holds the counter every node increments: made once, never reset, before any link.
    await w.nodes[0].storage.set('c0', { n0: 0 });
    for (const i of HUBS) await w.startHub(i);
    for (const [node, host] of [[1, 0], [2, 0], [3, 1]] as const) await w.join(node, host);
    return w;
  }

  private async open(i: number): Promise<Node> {
    const connect = (n: { url: string; token?: string }) => {
      const host = this.nodes.findIndex((m) => m.hub && n.url === m.hub.url);
      const socket = io(n.url, { auth: { token: n.token }, transports: ['websocket'], forceNew: true, reconnectionDelay: 20, reconnectionDelayMax: 100,
        transportOptions: { websocket: { maxPayload: 16 * 2 ** 20 } },
      });
      this.sockets.set(`${i}>${host}`, socket);
      return createSocketIoLink(socket, { timeout: this.short ? 500 : 10_000 });
    };
    const storage = await memoryStorage({ now: this.now, sync: { connect, antiEntropyInterval: 0 } });
    const report = (where: string) => (e: SyncomError) => {
      this.codes.set(e.code, (this.codes.get(e.code) ?? 0) + 1);
      if (NEVER.has(e.code)) this.problems.push(`node ${i} ${where}: ${e.code} ${e.message}`);
    };
    storage.on('error', report('storage'));
    storage.sync.on('error', report('sync'));
    return { index: i, storage, dials: new Set() };
  }

  private async startHub(i: number): Promise<void> {
    const n = this.nodes[i];
    n.hub = await startHub({ storage: n.storage, options: { ...PAGING, ...(this.short && { ackTimeout: 300 }) }, ...(n.port !== undefined && { port: n.port }) });
    n.port = n.hub.port;
    n.stopped = false;
  }

  /** A hub's url (kept while its app is stopped). */
  urlOf(host: number): string {
    return (this.nodes[host].hub as TestHub).url;
  }

  async join(node: number, host: number): Promise<void> {
    const n = this.nodes[node];
    // Hub 0 dials no one: hub 1 dials it, and a link from 0 to 1 would add no path.
    if (node === 0 || node === host || n.dials.has(host)) return;
    n.dials.add(host);
    await n.storage.sync.addNode({ url: this.urlOf(host), token: 't' });
  }

  async run(c: Command): Promise<void> {
    switch (c.t) {
      case 'write': return this.write(c.node, c.w);
      case 'burst': return void (await Promise.all(c.ws.map((w) => this.write(c.node, w))));
      case 'tick': this.t += c.ms; return;
      case 'kick': return this.kick(c.node);
      case 'drop': return this.drop(c.node);
      case 'restart': return this.restart(c.hub);
      case 'pause': return this.pause(c.node);
      case 'stall': return this.stall(c.node);
      case 'join': return this.join(c.node, c.host);
      case 'reconcile': return this.nodes[c.node].storage.sync.forceSync().catch(() => undefined);
      case 'synced': return this.synced(c.node);
    }
  }

  private async write(node: number, w: Write): Promise<void> {
    const s = this.nodes[node].storage;
    const live = (await s.get(w.id)) !== undefined;
    const fields = { [w.field]: w.value };
    const expected = (e: unknown) => {
      const code = (e as SyncomError).code;
      if (code !== 'PURGED' && code !== 'NOT_FOUND') this.problems.push(`node ${node} ${w.kind} ${w.id}: ${code} ${(e as Error).message}`);
    };
    let p: Promise<unknown>;
    if (w.kind === 'inc') {
      if ((await s.get('c0')) === undefined) return;
      p = s.inc('c0', 'n', w.value + 1);
    } else if (w.kind === 'purge') p = s.purge(w.id);
    else if (w.kind === 'delete') p = live ? s.delete(w.id) : Promise.resolve();
    else if (w.kind === 'set' || !live) p = s.set(w.id, w.value % 2 ? fields : { a: w.value, b: -w.value });
    else if (w.kind === 'update') p = s.update(w.id, fields);
    else if (w.kind === 'add') p = s.add(w.id, 's', [w.value % 3]);
    else p = s.remove(w.id, 's', [w.value % 3]);
    await p.catch(expected);
  }

  private socketsOf(node: number): ClientSocket[] {
    return [...this.sockets].filter(([k]) => k.startsWith(`${node}>`)).map(([, s]) => s);
  }

  /**
   * The node's connected transports close under it, as a cut network's do;
   * socket.io-client redials. One still opening is left alone: closed by
   * hand then, its manager neither opens nor redials until its own connect
   * timeout (20 s), where a cut network's transport reports an error.
   */
  private drop(node: number): void {
    for (const s of this.socketsOf(node)) if (s.connected) s.io.engine.close();
  }

  /** Each hub up drops the node's sockets from its side. */
  private kick(node: number): void {
    for (const [k, s] of this.sockets) {
      if (!k.startsWith(`${node}>`) || s.id === undefined) continue;
      const hub = this.nodes[Number(k.split('>')[1])].hub;
      if (this.nodes[Number(k.split('>')[1])].stopped) continue;
      hub?.namespace().sockets.get(s.id)?.disconnect(true);
    }
  }

  private async restart(i: number): Promise<void> {
    const n = this.nodes[i];
    if (!n.stopped) {
      await n.hub?.close();
      n.stopped = true;
    } else await this.startHub(i);
  }

  /** The TCP sockets under the node's socket.io sockets stop reading; if they already do, they read on. */
  private pause(node: number): void {
    const n = this.nodes[node];
    if (n.paused) return this.resume(n);
    n.paused = [];
    for (const s of this.socketsOf(node)) {
      const tcp = (s.io.engine?.transport as unknown as { ws?: { _socket?: TcpSocket } } | undefined)?.ws?._socket;
      if (!tcp) continue;
      tcp.pause();
      n.paused.push(tcp);
    }
  }

  private async stall(node: number): Promise<void> {
    const n = this.nodes[node];
    if (!this.short || n.paused || n.dials.size === 0 || [...n.dials].some((h) => this.nodes[h].stopped)) return;
    // A link still connecting has no call in the air to time out: the stall starts once every link is up.
    const up = () => n.storage.sync.peers().every((p) => p.connected);
    if (!(await waitFor(up, (retest) => n.storage.sync.on('peer', retest), 'links up', 3_000).then(() => true, () => false))) return;
    const cycled = new Promise<void>((resolve) => {
      let dropped = false;
      const end = (how: 'cycled' | 'bounded') => {
        this.stalls[how]++;
        off();
        clearTimeout(timer);
        resolve();
      };
      const off = n.storage.sync.on('peer', (e) => {
        dropped ||= !e.connected;
        if (dropped && e.connected) end('cycled');
      });
      // Bounded: a link with no call in the air has nothing to time out.
      const timer = setTimeout(() => end('bounded'), 3_000);
    });
    this.pause(node);
    const bump: Write = { kind: 'inc', id: 'r0', field: 'a', value: 0 };
    await this.write(node, bump);
    for (const h of n.dials) await this.write(h, bump);
    await cycled;
    this.resume(n);
  }

  private resume(n: Node): void {
    for (const tcp of n.paused ?? []) tcp.resume();
    n.paused = undefined;
  }

  /**
   * The node awaited in sync with each hub it dials, while every hub is up
   * and every node reads: a dialer of both hubs holds one hub's ops as
   * records from its bootstrap, which it cannot push to the other, so it
   * waits for the hubs' own link (docs/replication.md, Two hosts).
   */
  private async synced(node: number): Promise<void> {
    const n = this.nodes[node];
    if (this.nodes.some((m) => m.paused || m.stopped)) return;
    const peerOf = (h: number) => n.storage.sync.peers().find((p) => p.url === this.urlOf(h));
    // A node whose connections the hub dropped twice within 30 s of their connect (its reads paused twice) is in
    // step once one has stayed up 30 s (docs/replication.md, The link contract): waited for so long, not a problem.
    const steady = (h: number) => (e: SyncomError) => {
      const flaps = peerOf(h)?.lastError as { redialIn?: number } | null | undefined;
      if (typeof flaps?.redialIn !== 'number') throw e;
      return n.storage.sync.synced(this.urlOf(h), { timeout: STEADY_MS + flaps.redialIn + 10_000 });
    };
    await Promise.all([...n.dials].map((h) => n.storage.sync.synced(this.urlOf(h), { timeout: 10_000 }).catch(steady(h)).catch((e: SyncomError) => {
      const peer = peerOf(h);
      const socket = this.sockets.get(`${node}>${h}`);
      const wire = { connected: socket?.connected, manager: (socket?.io as unknown as { _readyState?: string })?._readyState };
      this.problems.push(`node ${node} never in sync with hub ${h}: ${e.message}; ${JSON.stringify({ peer, wire })}`);
    })));
  }

  /**
   * The network healed: every socket reading, every hub up, node 4 joined;
   * then each dialer in sync with each hub it dials, and every node holding
   * the same state (re-checked at each change or sync event).
   */
  async heal(): Promise<void> {
    for (const n of this.nodes) this.resume(n);
    for (const i of HUBS) if (this.nodes[i].stopped) await this.startHub(i);
    await this.join(4, 1);
    for (const d of DIALERS) await this.synced(d);
    await this.agree('healed');
  }

  /** Every node holding the same records, merge states and vector, awaited; the problem if they never do. */
  async agree(when: string): Promise<string | undefined> {
    let states: string[] = [];
    const same = async () => {
      states = await Promise.all(this.nodes.map((n) => stateOf(n.storage)));
      return new Set(states).size === 1;
    };
    const ok = await until(same, this.nodes.map((n) => n.storage), `${when}: every node the same`).then(() => true, () => false);
    if (ok) return states[0];
    states.forEach((st, i) => st !== states[0] && this.problems.push(`${when}: node ${i} differs from node 0\n${st}\n${states[0]}`));
    return undefined;
  }

  async close(): Promise<void> {
    for (const n of this.nodes) this.resume(n);
    for (const n of this.nodes) await n.storage.sync.stop().catch(() => undefined);
    for (const s of this.sockets.values()) s.disconnect();
    for (const i of HUBS) if (!this.nodes[i].stopped) await this.nodes[i].hub?.close();
    for (const n of this.nodes) await n.storage.close().catch(() => undefined);
  }
}

/** What must be equal across nodes: listed records (data and meta), merge states and main vector. */
export async function stateOf(s: Storage): Promise<string> {
  const records = await s.list();
  const entries = [...internals(s).committer.committed].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, e]) => [id, plainEntry(e)]);
  return canonicalJson({ records, entries, vector: mainVector(s) });
}
