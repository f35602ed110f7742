import type { Socket } from 'socket.io';
import { io } from 'socket.io-client';
import type { Storage, SyncomError } from 'syncom';
import { createSocketIoLink, type SocketIoLink } from '../../src/link';
import { memoryStorage, startHub, type TestHub } from '../helpers/hub';
import { Signal, until } from '../helpers/until';

// A host that answers hello and drops the connection right after, dialed by a
// node whose connect is the socket.io link with socket.io's defaults (a
// second's reconnection delay, no jitter so the waits read exactly). The
// clock is jest's: the test moves it in steps of 100 ms and, between steps,
// lets the real sockets finish what they started (settled()), so each dial
// lands at the fake instant its timer fired.
type Drop = 'namespace' | 'transport';

const STEP_MS = 100;
const frames = { websocket: { maxPayload: 16 * 2 ** 20 } };

/** A gateway that, while `flapping`, drops each connection once its hello's answer went out. */
class FlappingHub {
  flapping = true;
  /** When each connection came (jest's clock). */
  readonly arrivals: number[] = [];
  private readonly sockets: Socket[] = [];

  constructor(readonly hub: TestHub, private readonly drop: Drop, private readonly signal: Signal) {
    hub.namespace().on('connection', (socket: Socket) => {
      this.arrivals.push(Date.now());
      this.sockets.push(socket);
      signal.notify();
      socket.use((packet, next) => {
        const ack = packet[packet.length - 1] as unknown;
        if (packet[0] === 'hello' && this.flapping && typeof ack === 'function') {
          packet[packet.length - 1] = (answer: unknown) => {
            (ack as (a: unknown) => void)(answer);
            this.cut(socket);
          };
        }
        next();
      });
    });
  }

  /** Drops `socket` (the newest by default): its namespace socket ('io server disconnect') or its whole connection ('transport close'). */
  cut(socket = this.sockets[this.sockets.length - 1]): void {
    if (this.drop === 'namespace') socket.disconnect();
    else socket.conn.close();
  }

  /** The waits between dials, in whole seconds. */
  gaps(from = 0): number[] {
    const at = this.arrivals.slice(from);
    return at.slice(1).map((t, i) => Math.round((t - at[i]) / 1000));
  }
}

describe.each<Drop>(['namespace', 'transport'])('a host that drops each connection right after hello (%s)', (drop) => {
  let hub: TestHub | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    jest.useRealTimers();
    await storage?.close();
    await hub?.close();
  });

  it('PROTO-12 LIFE-4 is dialed backed off, 1, 2, 4 ... 32 s apart over a minute, not every second; once it stays up it is dialed at the wait\'s end and syncs, and the wait starts over', async () => {
    const signal = new Signal();
    hub = await startHub();
    const host = new FlappingHub(hub, drop, signal);
    const links: SocketIoLink[] = [];
    let opens = 0;
    let closes = 0;
    // A dial under way: the link's own (socket.connect()) or socket.io's (a reconnect attempt), until it connects.
    let dialing = false;
    const connect = (node: { url: string }) => {
      const socket = io(node.url, { transports: ['websocket'], forceNew: true, autoConnect: false, randomizationFactor: 0, transportOptions: frames });
      const dial = socket.connect.bind(socket);
      socket.connect = () => ((dialing ||= !socket.connected), dial());
      socket.io.on('reconnect_attempt', () => void (dialing = true));
      socket.on('connect', () => void ((dialing = false), signal.notify()));
      const link = createSocketIoLink(socket);
      link.on('open', () => void (opens++, signal.notify()));
      link.on('close', () => void (closes++, signal.notify()));
      links.push(link);
      return link;
    };
    storage = await memoryStorage({ sync: { connect } });
    const errors: SyncomError[] = [];
    storage.sync.on('error', (e) => void errors.push(e));
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });

    // What the sockets started is done: no dial half made, and every connection the host took seen by the
    // link, and (while the host drops them) seen closing.
    const quiet = () => {
      const link = links[0];
      if (!link || dialing || host.arrivals.length !== opens) return false;
      return closes === opens || (!host.flapping && link.connected);
    };
    const settled = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await signal.until(quiet, 'the sockets to settle');
    };
    const run = async (ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        await settled();
        await jest.advanceTimersByTimeAsync(Math.min(STEP_MS, end - Date.now()));
      }
      await settled();
    };

    await storage.sync.addNode({ url: hub.url });
    await signal.until(() => host.arrivals.length === 1, 'the first dial');
    await run(60_000);
    // About 60 dials before (socket.io's backoff starts over at each connect); now the waits double from a second.
    expect(host.gaps()).toEqual([1, 2, 4, 8, 16]);
    const peer = storage.sync.peers()[0];
    expect(peer.lastError).toMatchObject({ code: 'LINK_DOWN', flaps: 6, redialIn: 32_000 });
    expect(peer.lastError?.message).toMatch(/dropped 6 connections in a row within 30 s of connecting; dialing again in 32 s$/);
    // A link that is down is lastError, never an error event (docs/replication.md, Events).
    expect(errors).toEqual([]);

    // The host stays up from now on: the next dial comes as the wait ends, and the node catches up.
    host.flapping = false;
    const id = await hub.storage.insert({ $type: 'Note', title: 'after the flaps' });
    await run(32_000 - (Date.now() - host.arrivals[5]));
    expect(host.gaps()).toEqual([1, 2, 4, 8, 16, 32]);
    const dialer = storage;
    await until(async () => (await dialer.get(id)) !== undefined, [dialer, hub.storage], 'the note');
    expect(storage.sync.peers()[0]).toMatchObject({ connected: true });
    // Greeted on a connection not yet 30 s old: still reported as flapping, not in step.
    expect(storage.sync.peers()[0].lastError).toMatchObject({ code: 'LINK_DOWN', flaps: 6 });
    await run(30_000);
    expect(storage.sync.peers()[0]).toMatchObject({ connected: true, lastError: null });
    await storage.sync.synced(hub.url);
    expect(host.arrivals).toHaveLength(7);

    // A connection that lasted: its drop is redialed after a second again, not after a minute.
    const cutAt = Date.now();
    host.cut();
    await signal.until(() => closes === opens, 'the drop');
    await run(2_000);
    expect(host.arrivals.map((t) => t - cutAt).slice(7)).toEqual([1_000]);
    expect(errors).toEqual([]);
  }, 60_000);
});
