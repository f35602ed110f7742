import { Test } from '@nestjs/testing';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { AddressInfo } from 'node:net';
import { Storage } from 'syncom';
import { rawSocket } from '../helpers/dialer';
import { memoryStorage, startHub } from '../helpers/hub';
import { createSyncomGateway } from '../../src';
import { SYNCOM_GATEWAY_OPTIONS } from '../../src/syncom.constants';

const HELLO = { node: 'raw-node', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
const unknown = (event: string) => ({
  ok: false, error: { code: 'UNKNOWN_METHOD', status: 404, message: expect.stringContaining(`${JSON.stringify(event)} is no syncom message`) },
});

/**
 * An event the gateway has no handler for, sent with an ack (a misspelt procedure, another client's
 * protocol), was never answered: the client waited out its own timeout for good, at every call.
 */
describe('events the gateway does not serve', () => {
  it('an unknown event with an ack is answered 404 UNKNOWN_METHOD, before a hello and after; the socket goes on serving', async () => {
    const hub = await startHub();
    const socket = await rawSocket(hub.url);
    try {
      for (const event of ['syncom.push', 'changes:data', 'x'.repeat(200)]) {
        expect(await socket.timeout(10_000).emitWithAck(event, {})).toEqual(unknown(event.slice(0, 64)));
      }
      expect(await socket.timeout(10_000).emitWithAck('hello', HELLO)).toMatchObject({ ok: true });
      expect(await socket.timeout(10_000).emitWithAck('pull', { since: 0 })).toEqual(unknown('pull'));
      expect(await socket.timeout(10_000).emitWithAck('push', { ops: [] })).toMatchObject({ ok: true });
    } finally {
      socket.disconnect();
      await hub.close();
    }
  });

  it("an event another gateway of the app handles on the same namespace is that gateway's to answer, under Nest's own adapter too", async () => {
    const storage = await memoryStorage();
    const { WebSocketGateway, SubscribeMessage } = await import('@nestjs/websockets');
    @WebSocketGateway({ namespace: '/syncom', transports: ['websocket'] })
    class Presence {
      @SubscribeMessage('presence') presence() { return { here: true }; }
    }
    const ref = await Test.createTestingModule({
      providers: [{ provide: Storage, useValue: storage }, { provide: SYNCOM_GATEWAY_OPTIONS, useValue: { access: 'public' } }, createSyncomGateway(), Presence],
    }).compile();
    const app = ref.createNestApplication({ logger: false });
    app.useWebSocketAdapter(new IoAdapter(app));
    await app.listen(0, '127.0.0.1');
    const socket = await rawSocket(`http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/syncom`);
    try {
      expect(await socket.timeout(10_000).emitWithAck('presence', {})).toEqual({ here: true });
      expect(await socket.timeout(10_000).emitWithAck('absent', {})).toEqual(unknown('absent'));
    } finally {
      socket.disconnect();
      await app.close();
      await storage.close();
    }
  });
});
