import type { Socket as ClientSocket } from 'socket.io-client';
import * as frameSize from '../../src/gateway/frame-size';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';

// The spied module as a plain copy every importer shares: jest's transform (swc)
// exports a module's functions as getters that jest.spyOn cannot replace.
jest.mock('../../src/gateway/frame-size', () => ({ __esModule: true, ...jest.requireActual<object>('../../src/gateway/frame-size') }));

/**
 * The limits guard skips stringifying a push whose packet text bounds its
 * bytes (frame-size.ts). The bound is not the text's length: a number can be
 * written in 4 characters and stringified in 21, so a frame under
 * bytesPerPush can still be over it, and must still be refused.
 */

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/** Emit raw socket.io text on the engine connection; resolves the ack's payload. */
function rawEmit(socket: ClientSocket, json: string): Promise<unknown> {
  const id = 900_001;
  const engine = socket.io.engine;
  return new Promise((resolve) => {
    const onPacket = (packet: { type: string; data?: unknown }) => {
      const prefix = `3/syncom,${id}`;
      if (packet.type !== 'message' || typeof packet.data !== 'string' || !packet.data.startsWith(prefix)) return;
      engine.off('packet', onPacket);
      resolve((JSON.parse(packet.data.slice(prefix.length)) as unknown[])[0]);
    };
    engine.on('packet', onPacket);
    engine.write(`2/syncom,${id}${json}`);
  });
}

describe('hostile: a push whose JSON grows when stringified', () => {
  const f = gatewayFixture();

  it('HOST-11 GUAR-3: ops written as 1e20 (4 characters, 21 when stringified) in a frame under bytesPerPush are over it: 413 BYTES_PER_PUSH', async () => {
    const bytesPerPush = 2000;
    const hub = await f.startHub({ options: { limits: { bytesPerPush } } });
    const socket = await rawSocket(hub.url);
    f.sockets.push(socket);
    expect(await socket.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
    const ops = `[${Array(100).fill('1e20').join(',')}]`;
    const frame = `["push",{"ops":${ops}}]`;
    expect(frame.length).toBeLessThan(bytesPerPush);
    expect(Buffer.byteLength(JSON.stringify(JSON.parse(ops)))).toBeGreaterThan(bytesPerPush);
    expect(await rawEmit(socket, frame)).toMatchObject({ ok: false, error: { code: 'BYTES_PER_PUSH', status: 413 } });
    expect(socket.connected).toBe(true);
  });

  it('HOST-11: a push well under bytesPerPush is bounded by its packet, not stringified, and applied', async () => {
    const within = jest.spyOn(frameSize, 'surelyWithin');
    try {
      const hub = await f.startHub({ options: { limits: { bytesPerPush: 1 << 20 } } });
      const socket = await rawSocket(hub.url);
      f.sockets.push(socket);
      expect(await socket.timeout(5000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
      expect(await socket.timeout(5000).emitWithAck('push', { ops: [] })).toMatchObject({ ok: true });
      expect(within.mock.results.map((r) => r.value)).toEqual([true]);
    } finally {
      within.mockRestore();
    }
  });
});
