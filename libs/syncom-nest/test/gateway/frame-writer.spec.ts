import { type EngineSocket, writeFrame } from '../../src/gateway/frame-writer';

/** A fake Engine.IO socket over a ws WebSocket that records the frames written. */
function connection() {
  const net = { writes: [] as Buffer[][], destroyed: false };
  const sender = { _state: 0, _queue: [] as unknown[], sendFrame: (list: Buffer[]) => net.writes.push(list) };
  const ws = { readyState: 1, _socket: net, _sender: sender };
  const conn: EngineSocket & { writeBuffer: unknown[]; transport: { name: string; socket: typeof ws } } = {
    readyState: 'open', upgrading: false, writeBuffer: [], transport: { name: 'websocket', opts: {}, socket: ws },
  };
  return { conn, net, sender, ws };
}

const frame = () => [Buffer.from('head'), Buffer.from('body')];

describe('writeFrame: a pre-encoded page straight to the ws sender', () => {
  it('PROTO-6 writes each frame at once, in order, as its two Buffers', () => {
    const { conn, net } = connection();
    const [a, b] = [frame(), frame()];
    expect([writeFrame(conn, a), writeFrame(conn, b)]).toEqual([true, true]);
    expect(net.writes).toEqual([a, b]);
    expect(net.writes[0]).toBe(a);
  });

  it('PROTO-6 writes a frame of more than two parts to the socket corked, part by part, as one write', () => {
    const { conn, ws } = connection();
    const calls: string[] = [];
    Object.assign(ws._socket, {
      cork: () => calls.push('cork'),
      write: (b: Uint8Array) => calls.push(Buffer.from(b).toString()),
      uncork: () => calls.push('uncork'),
    });
    const parts = [Buffer.from('head'), Buffer.from('"value":'), new TextEncoder().encode('{"ops":[]}'), Buffer.from('}]')];
    expect(writeFrame(conn, parts)).toBe(true);
    expect(calls).toEqual(['cork', 'head', '"value":', '{"ops":[]}', '}]', 'uncork']);
  });

  it('PROTO-6 a frame of more than two parts is refused where the socket cannot be corked (the caller joins it)', () => {
    const { conn, net } = connection();
    expect(writeFrame(conn, [...frame(), Buffer.from('more')])).toBe(false);
    expect(net.writes).toEqual([]);
  });

  it('PROTO-6 never overtakes what Engine.IO or ws still hold, nor writes past an upgrade, another transport or a closed socket', () => {
    const cases: Array<(c: ReturnType<typeof connection>) => void> = [
      (c) => c.conn.writeBuffer.push('a packet Engine.IO waits to flush'),
      (c) => (c.conn.upgrading = true),
      (c) => (c.conn.readyState = 'closing'),
      (c) => (c.conn.transport.name = 'polling'),
      (c) => (c.conn.transport.opts = { perMessageDeflate: { threshold: 1024 } }),
      (c) => (c.ws.readyState = 2),
      (c) => c.sender._queue.push('a frame ws is deflating'),
      (c) => (c.sender._state = 1),
      (c) => (c.net.destroyed = true),
    ];
    for (const change of cases) {
      const c = connection();
      change(c);
      expect(writeFrame(c.conn, frame())).toBe(false);
      expect(c.net.writes).toEqual([]);
    }
    expect(writeFrame(undefined, frame())).toBe(false);
  });
});
