import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import type { SyncomError } from '../../src/errors';
import { createSocketIoLink, type SocketIoLink } from '../../src/socket.io';
import { DEFAULT_MAX_PAYLOAD, resetFrameWarning } from '../../src/socket.io/frame-bound';

// The dialer's socket.io link against a host that breaks the protocol: one
// socket.io server per test, on 127.0.0.1 port 0, whose handlers the test writes.
type Ack = (answer: unknown) => void;
type Handler = (socket: Socket, payload: unknown, ack: Ack) => void;

const ok = (value: unknown) => ({ ok: true, value });
const frames = { websocket: { maxPayload: 1 << 20 } };

class HostileHost {
  readonly sockets: Socket[] = [];
  private readonly http: HttpServer = createServer();
  private readonly server = new Server(this.http, { transports: ['websocket'], maxHttpBufferSize: 1 << 20 });
  private readonly arrivals: Array<() => void> = [];

  constructor(handlers: Record<string, Handler>) {
    this.server.of('/syncom').on('connection', (socket) => {
      this.sockets.push(socket);
      this.poke();
      for (const [event, handler] of Object.entries(handlers)) socket.on(event, (payload: unknown, ack: Ack) => handler(socket, payload, ack));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/syncom`;
  }

  /** Resolves once `n` connections came. */
  connections(n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (this.sockets.length >= n ? resolve() : this.arrivals.push(check));
      check();
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private poke(): void {
    for (const f of this.arrivals.splice(0)) f();
  }
}

/** Emits a page on a sub the dialer never opened, with an ack: the link answers it at once, so it resolves once every earlier message was handled. */
function sentinel(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.emit('changes:data', { sub: 'none', value: null }, () => resolve()));
}

const event = (link: SocketIoLink, name: 'open' | 'close' | 'reconnect') => new Promise<void>((resolve) => link.on(name, () => resolve()));

describe('socket.io link against a hostile host', () => {
  let host: HostileHost;
  let link: SocketIoLink | undefined;
  afterEach(async () => {
    link?.close();
    link = undefined;
    await host?.close();
  });

  async function dial(handlers: Record<string, Handler>, options: { timeout?: number; io?: object } = {}): Promise<ClientSocket> {
    host = new HostileHost(handlers);
    const url = await host.start();
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false, transportOptions: frames, ...options.io });
    link = createSocketIoLink(socket, { timeout: options.timeout });
    await host.connections(1);
    return socket;
  }

  it('LINK-4 a host that sends changes pages past its window (16, and a little slack) is dropped with BAD_ANSWER and redialed', async () => {
    let sub = '';
    await dial({ changes: (_s, p, ack) => void ((sub = (p as { sub: string }).sub), ack(ok(null))) });
    const taken: unknown[] = [];
    const errors: SyncomError[] = [];
    let answered: () => void = () => undefined;
    const subscribed = new Promise<void>((resolve) => (answered = resolve));
    const origin = host;
    origin.sockets[0].on('changes', () => setImmediate(answered));
    link!.subscribe('changes', {}, {
      onData: (v) => {
        taken.push(v);
        // The subscriber never finishes its first page: every later one waits behind it.
        return new Promise<void>(() => undefined);
      },
      onError: (e) => void errors.push(e as SyncomError),
    });
    await subscribed;
    const server = origin.sockets[0];
    for (let i = 0; i < 20; i++) server.emit('changes:data', { sub, value: i, eventId: `e${i}` }, () => undefined);
    await sentinel(server);
    expect([taken, errors, link!.connected]).toEqual([[0], [], true]);
    const closed = event(link!, 'close');
    const reconnected = event(link!, 'reconnect');
    server.emit('changes:data', { sub, value: 20, eventId: 'e20' }, () => undefined);
    await closed;
    expect(errors.map((e) => e.code)).toEqual(['BAD_ANSWER']);
    expect(taken).toEqual([0]);
    await reconnected;
    expect(host.sockets).toHaveLength(2);
  }, 10_000);

  it('LINK-3 a call that times out on a connected socket cycles it, so a fresh hello follows on a new connection', async () => {
    const hellos: number[] = [];
    await dial({ hello: (s, _p, ack) => void (hellos.push(host.sockets.indexOf(s)), hellos.length > 1 && ack(ok({ node: 'h' }))) }, { timeout: 200 });
    const reconnected = event(link!, 'reconnect');
    await expect(link!.call('hello', {})).rejects.toMatchObject({ code: 'LINK_TIMEOUT' });
    await reconnected;
    await expect(link!.call('hello', {})).resolves.toEqual({ node: 'h' });
    expect(hellos).toEqual([0, 1]);
  }, 10_000);

  it('LINK-3 a call made while the engine\'s ping has expired (connected, the transport dead) holds no timer once the link is closed', async () => {
    // The link's own timeout, unique here: every timer armed with it must be cleared by close(), or it holds the process open.
    const ms = 98_765;
    const armed: unknown[] = [];
    const cleared = new Set<unknown>();
    const [set, clear] = [globalThis.setTimeout, globalThis.clearTimeout];
    const setSpy = jest.spyOn(globalThis, 'setTimeout').mockImplementation(((f: () => void, delay?: number) => {
      const t = set(f, delay);
      if (delay === ms) armed.push(t);
      return t;
    }) as typeof setTimeout);
    const clearSpy = jest.spyOn(globalThis, 'clearTimeout').mockImplementation(((t?: ReturnType<typeof setTimeout>) => {
      cleared.add(t);
      clear(t);
    }) as typeof clearTimeout);
    try {
      const socket = await dial({}, { timeout: ms });
      if (!link!.connected) await event(link!, 'open');
      // socket.io-client buffers an emit while its engine's ping has expired, though the socket still says connected.
      (socket.io.engine as unknown as { _hasPingExpired(): boolean })._hasPingExpired = () => true;
      const call = link!.call('hello', {}).catch((e: SyncomError) => e);
      await new Promise((resolve) => setImmediate(resolve));
      expect(armed).toHaveLength(1);
      link!.close();
      await expect(call).resolves.toMatchObject({ code: 'LINK_DOWN' });
      expect(armed.filter((t) => !cleared.has(t)).length).toBe(0);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
    }
  });

  it('LINK-4 a feed whose changes timed out resumes on the new connection, never half-alive', async () => {
    const subs: string[] = [];
    await dial({
      changes: (s, p, ack) => {
        const { sub } = p as { sub: string };
        subs.push(sub);
        if (subs.length === 1) return;
        ack(ok(null));
        s.emit('changes:data', { sub, value: 'page', eventId: 'e1' }, () => undefined);
      },
    }, { timeout: 200 });
    const errors: unknown[] = [];
    const page = new Promise<unknown>((resolve) => link!.subscribe('changes', {}, { onData: resolve, onError: (e) => void errors.push(e) }));
    await expect(page).resolves.toBe('page');
    expect([subs.length, new Set(subs).size, errors]).toEqual([2, 2, []]);
  }, 10_000);

  it('LINK-4 a refused feed is detached before its subscriber hears it: a page the host sends on it after does not land', async () => {
    let sub = '';
    await dial({ changes: (_s, p, ack) => void ((sub = (p as { sub: string }).sub), ack({ ok: false, error: { code: 'SCOPES', status: 403, message: 'no' } })) });
    const taken: unknown[] = [];
    const refused = new Promise<unknown>((resolve) => link!.subscribe('changes', {}, { onData: (v) => void taken.push(v), onError: resolve }));
    await expect(refused).resolves.toMatchObject({ status: 403 });
    host.sockets[0].emit('changes:data', { sub, value: 'stray' }, () => undefined);
    await sentinel(host.sockets[0]);
    expect(taken).toEqual([]);
  });

  it('PROTO-12 a page still with the subscriber when the host drops the socket is taken once: the redialed feed resumes after it', async () => {
    const log: Array<[string, number]> = [['e1', 1], ['e2', 2]];
    const resumedFrom: Array<string | undefined> = [];
    await dial({
      changes: (s, p, ack) => {
        const { sub, lastEventId } = p as { sub: string; lastEventId?: string };
        resumedFrom.push(lastEventId);
        ack(ok(null));
        const at = lastEventId === undefined ? 0 : log.findIndex(([id]) => id === lastEventId) + 1;
        for (const [id, value] of log.slice(at)) s.emit('changes:data', { sub, value, eventId: id }, () => undefined);
      },
    }, { io: { reconnectionDelay: 10 } });
    const taken: string[] = [];
    let release: () => void = () => undefined;
    let first: () => void = () => undefined;
    let last: () => void = () => undefined;
    const withSubscriber = new Promise<void>((resolve) => (first = resolve));
    const tookE2 = new Promise<void>((resolve) => (last = resolve));
    link!.subscribe('changes', {}, {
      onData: (_v, id) => {
        taken.push(id as string);
        if (id === 'e2') last();
        if (taken.length > 1) return;
        first();
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    await withSubscriber;
    const reconnected = event(link!, 'reconnect');
    host.sockets[0].disconnect(true);
    await reconnected;
    release();
    await tookE2;
    expect(taken).toEqual(['e1', 'e2']);
    expect(resumedFrom).toEqual([undefined, 'e1']);
  }, 10_000);

  it('LINK-6 a CONNECT_ERROR packet on a live socket is a drop: the link reports close and redials', async () => {
    const hellos: number[] = [];
    await dial({ hello: (s, _p, ack) => void (hellos.push(host.sockets.indexOf(s)), ack(ok({ node: 'h' }))) });
    await link!.call('hello', {});
    const closed = event(link!, 'close');
    const reconnected = event(link!, 'reconnect');
    (host.sockets[0] as unknown as { packet(p: object): void }).packet({ type: 4, data: { message: 'injected' } });
    await closed;
    expect(link!.connected).toBe(false);
    await reconnected;
    await expect(link!.call('hello', {})).resolves.toEqual({ node: 'h' });
    expect(hellos).toEqual([0, 1]);
  }, 10_000);

  it('LINK-2 a socket the link opens without maxPayload is bounded to 16 MiB frames; one already connecting gets a warning', async () => {
    const big = Buffer.alloc(DEFAULT_MAX_PAYLOAD + 1);
    host = new HostileHost({ push: (_s, _p, ack) => ack(ok(big)) });
    const url = await host.start();
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      resetFrameWarning();
      link = createSocketIoLink(io(url, { transports: ['websocket'], forceNew: true, reconnection: false, autoConnect: false }));
      const closed = event(link, 'close');
      // The frame past the bound closes the connection; the call fails with why (it failed LINK_DOWN before the link read ws's reason).
      await expect(link.call('push', {})).rejects.toMatchObject({ code: 'FRAME_TOO_LARGE', message: expect.stringContaining(`${DEFAULT_MAX_PAYLOAD} bytes`) });
      await closed;
      link.close();
      expect(warn).not.toHaveBeenCalled();
      const bounded = createSocketIoLink(io(url, { transports: ['websocket'], forceNew: true, reconnection: false, transportOptions: frames }));
      bounded.close();
      expect(warn).not.toHaveBeenCalled();
      for (let i = 0; i < 2; i++) createSocketIoLink(io(url, { transports: ['websocket'], forceNew: true, reconnection: false })).close();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/maxPayload/);
    } finally {
      warn.mockRestore();
    }
  }, 10_000);

  it('LINK-2 a frame over the bound is refused before socket.io decodes it where the WebSocket takes any size (a browser\'s; here a socket made without maxPayload, ws\'s 100 MiB): FRAME_TOO_LARGE, the connection closed', async () => {
    const big = 'x'.repeat(DEFAULT_MAX_PAYLOAD + 1);
    host = new HostileHost({ push: (_s, _p, ack) => ack(ok(big)), hello: (_s, _p, ack) => ack(ok({ node: 'h' })) });
    const url = await host.start();
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      resetFrameWarning();
      // Connecting already when the link gets it: ws keeps its own 100 MiB bound, as a browser keeps none.
      link = createSocketIoLink(io(url, { transports: ['websocket'], forceNew: true, reconnection: false }));
      await expect(link.call('hello', {})).resolves.toEqual({ node: 'h' });
      const closed = event(link, 'close');
      await expect(link.call('push', {})).rejects.toMatchObject({ code: 'FRAME_TOO_LARGE', message: expect.stringContaining('it was not decoded') });
      await closed;
      expect(link.connected).toBe(false);
    } finally {
      warn.mockRestore();
    }
  }, 10_000);
});
