import { Logger } from '@nestjs/common';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';

/**
 * HOST-21: a call without a current hello gets 428 HELLO_REQUIRED, and the
 * dialer greets again. A dialer whose host restarted reopens its feeds
 * before it has greeted the new process, so every restart met one such 428
 * per client: it is the protocol's way back, logged as an event, not as a
 * warning an operator's alerting would take for a fault.
 */
describe('gateway: 428 HELLO_REQUIRED is logged, not warned', () => {
  const f = gatewayFixture();

  it('a changes call before any hello is answered 428 and written at log level; a 401 is still a warning', async () => {
    const hub = await f.startHub({ options: { authorize: (_ctx, hello) => hello.token === 'right' } });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const log = jest.spyOn(Logger.prototype, 'log');
    try {
      const socket = await rawSocket(hub.url);
      f.sockets.push(socket);
      const ask = (event: string, body: unknown) => socket.timeout(10_000).emitWithAck(event, body) as Promise<{ ok: boolean; error?: { code: string } }>;
      expect(await ask('changes', { sub: 's1' })).toMatchObject({ ok: false, error: { code: 'HELLO_REQUIRED' } });
      const lines = (spy: jest.SpyInstance) => spy.mock.calls.map((c) => String(c[0]));
      expect(lines(warn).filter((l) => l.includes('428'))).toEqual([]);
      expect(lines(log).filter((l) => l.includes('428 HELLO_REQUIRED'))).toHaveLength(1);
      expect(await ask('hello', { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 'wrong' })).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      expect(lines(warn).filter((l) => l.includes('401 UNAUTHORIZED'))).toHaveLength(1);
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });
});
