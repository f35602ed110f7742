import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { WireTransport } from '../../../scripts/load/wire-transport';

/**
 * The load tool's hand-made WebSocket client against the `ws` server that
 * socket.io runs on: the upgrade, masked frames out, frames that span reads
 * (gathered once), fragmented messages, pings, and the ends of a connection.
 */
describe('load tool: WireTransport', () => {
  let http: HttpServer;
  let wss: WebSocketServer;
  let port = 0;
  let server: Promise<WebSocket>;

  beforeEach(async () => {
    http = createServer((_req, res) => res.writeHead(400).end('no'));
    wss = new WebSocketServer({ server: http, path: '/ws' });
    server = new Promise((resolve) => wss.once('connection', resolve));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as AddressInfo).port;
  });
  afterEach(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => http.close(resolve));
  });

  /** A transport to `path`, with what it received. */
  function dial(path = '/ws') {
    const got: string[] = [];
    let closed = 0;
    let onMessage: () => void = () => undefined;
    let onOpen!: () => void;
    let onClose!: () => void;
    const opened = new Promise<void>((resolve) => { onOpen = resolve; });
    const ended = new Promise<void>((resolve) => { onClose = resolve; });
    const transport = new WireTransport('127.0.0.1', port, path, {
      opened: () => onOpen(),
      // Copied at once: the data may lie in the read buffer the next read reuses.
      message: (data) => { got.push(data.toString('utf8')); onMessage(); },
      closed: () => { closed++; onClose(); },
    });
    const messages = (n: number) => new Promise<void>((resolve) => {
      if (got.length >= n) return resolve();
      onMessage = () => { if (got.length >= n) resolve(); };
    });
    return { got, opened, messages, ended, transport, get closed() { return closed; } };
  }

  it('sends masked text frames of every length class and reads short, spanning and fragmented messages whole', async () => {
    const c = dial();
    await c.opened;
    const s = await server;
    const received: string[] = [];
    const three = new Promise<void>((resolve) => s.on('message', (d) => { if (received.push(d.toString()) === 3) resolve(); }));
    const texts = ['hi', 'x'.repeat(300), 'é'.repeat(70_000)];
    for (const t of texts) c.transport.send(t);
    await three;
    expect(received).toEqual(texts);
    // A message far larger than one read, many small ones in one read, and one sent in three fragments.
    const big = 'b'.repeat(600_000);
    s.send(big);
    for (let i = 0; i < 50; i++) s.send(`m${i}`);
    s.send('frag-', { fin: false });
    s.send('ment', { fin: false });
    s.send('ed', { fin: true });
    await c.messages(52);
    expect(c.got[0]).toBe(big);
    expect(c.got.slice(1, 51)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
    expect(c.got[51]).toBe('frag-mented');
  });

  it('answers a ping with a pong carrying its payload', async () => {
    const c = dial();
    await c.opened;
    const s = await server;
    const pong = new Promise<string>((resolve) => s.once('pong', (d) => resolve(d.toString())));
    s.ping('are you there');
    await expect(pong).resolves.toBe('are you there');
  });

  it('ends once when the server closes, and when terminated here; a refused upgrade never opens', async () => {
    const c = dial();
    await c.opened;
    (await server).close(1000, 'bye');
    await c.ended;
    expect(c.transport.open).toBe(false);
    const d = dial();
    await d.opened;
    d.transport.terminate();
    d.transport.terminate();
    await d.ended;
    expect(d.closed).toBe(1);
    const refused = dial('/elsewhere');
    await refused.ended;
    expect(refused.transport.open).toBe(false);
    expect(refused.got).toEqual([]);
  });
});
