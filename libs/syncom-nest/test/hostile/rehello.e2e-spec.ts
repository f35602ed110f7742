import type { Socket as ClientSocket } from 'socket.io-client';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';

/**
 * A socket that greeted once and then sends a hello that is refused must not
 * keep its earlier session: a revoked token, a forged or malformed hello
 * would otherwise go on pushing and reading under the old grant. Every hello
 * ends the socket's session first, whatever its own outcome.
 */

const HELLO = { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 'right' };
type Answer = { ok: boolean; error?: { code: string; status: number } };

describe('hostile: a refused re-hello leaves the socket without a session', () => {
  const f = gatewayFixture();
  let hub: TestHub;

  beforeEach(async () => {
    hub = await f.startHub({ options: { authorize: (_ctx, hello) => hello.token === 'right' } });
  });

  async function greeted(): Promise<ClientSocket> {
    const socket = await rawSocket(hub.url);
    f.sockets.push(socket);
    expect(await ask(socket, 'hello', HELLO)).toMatchObject({ ok: true });
    expect(await ask(socket, 'push', { ops: [] })).toMatchObject({ ok: true });
    return socket;
  }

  const ask = (socket: ClientSocket, event: string, body: unknown) => socket.timeout(10_000).emitWithAck(event, body) as Promise<Answer>;
  const noSession = { ok: false, error: { code: 'HELLO_REQUIRED', status: 428 } };

  const refusals: [string, unknown, Answer][] = [
    ['a wrong token (401)', { ...HELLO, token: 'revoked' }, { ok: false, error: { code: 'UNAUTHORIZED', status: 401 } }],
    ['a malformed hello (400)', { ...HELLO, vector: { k: -1 } }, { ok: false, error: { code: 'BAD_REQUEST', status: 400 } }],
    ['no shared wire version (426)', { ...HELLO, versions: [999] }, { ok: false, error: { code: 'INCOMPATIBLE', status: 426 } }],
  ];
  for (const [why, hello, answer] of refusals) {
    it(`HOST-3 HOST-21: after a re-hello refused for ${why}, a push, a snapshot and a changes feed get 428`, async () => {
      const socket = await greeted();
      expect(await ask(socket, 'hello', hello)).toMatchObject(answer);
      expect(await ask(socket, 'push', { ops: [] })).toMatchObject(noSession);
      expect(await ask(socket, 'snapshot', {})).toMatchObject(noSession);
      expect(await ask(socket, 'changes', { sub: 's1' })).toMatchObject(noSession);
      expect(await ask(socket, 'chunk', { stream: 'abcdefgh' })).toMatchObject(noSession);
      // A right hello greets again.
      expect(await ask(socket, 'hello', HELLO)).toMatchObject({ ok: true });
      expect(await ask(socket, 'push', { ops: [] })).toMatchObject({ ok: true });
    });
  }

  it('HOST-21: reconcile and records get 428 before a hello and after a refused re-hello, as push, snapshot and changes do', async () => {
    const socket = await rawSocket(hub.url);
    f.sockets.push(socket);
    const calls: [string, unknown][] = [['reconcile', { scope: '*', msg: {}, start: true }], ['records', { scope: '*', ids: ['a'] }]];
    const refusedAll = async () => {
      for (const [event, body] of calls) expect([event, await ask(socket, event, body)]).toMatchObject([event, noSession]);
    };
    await refusedAll();
    expect(await ask(socket, 'hello', HELLO)).toMatchObject({ ok: true });
    expect(await ask(socket, 'records', { scope: '*', ids: ['a'] })).toMatchObject({ ok: true });
    expect(await ask(socket, 'hello', { ...HELLO, token: 'revoked' })).toMatchObject({ ok: false, error: { status: 401 } });
    await refusedAll();
  });

  it('HOST-21 PROTO-6: an open changes feed ends with 428 on the refused re-hello, and the room is left', async () => {
    const socket = await greeted();
    // From the log's head: a live feed (one without an event id ends at its bootstrap notice).
    const head = hub.storage.replica.eventId(hub.storage.replica.head);
    expect(await ask(socket, 'changes', { sub: 's1', lastEventId: head })).toMatchObject({ ok: true });
    expect((await hub.namespace().in('syncom:*').fetchSockets()).length).toBe(1);
    const ended = new Promise<unknown>((resolve) => socket.once('changes:error', resolve));
    expect(await ask(socket, 'hello', { ...HELLO, token: 'revoked' })).toMatchObject({ ok: false, error: { status: 401 } });
    expect(await ended).toMatchObject({ sub: 's1', error: { code: 'HELLO_REQUIRED', status: 428 } });
    expect((await hub.namespace().in('syncom:*').fetchSockets()).length).toBe(0);
    expect(await ask(socket, 'push', { ops: [] })).toMatchObject(noSession);
  });
});
