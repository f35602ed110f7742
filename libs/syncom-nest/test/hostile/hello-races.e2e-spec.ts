import type { Socket as ClientSocket } from 'socket.io-client';
import { formatEventId, type SyncUnit } from 'syncom';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';
import { Signal } from '../helpers/until';

/**
 * A client controls when its hellos arrive and when its socket leaves; the
 * host's `authorize` may take its time. Whatever the order, a socket holds
 * the session (and the rooms) of its latest hello only, and a hello judged
 * after its socket left grants nothing (docs/nest.md, Rooms; docs/hub-security.md).
 */

type Answer = { ok: boolean; value?: unknown; error?: { code: string; status: number } };

const hello = (token: string, scopes: string[]) => ({ node: `n-${token}`, vector: {}, epoch: 'e', schema: null, scopes, token });

/** An authorize whose verdicts the test gives, one per token, in the order it chooses. */
function heldAuthorize() {
  const verdicts = new Map<string, (ok: boolean) => void>();
  const asked = new Signal();
  return {
    authorize: (_ctx: object, h: { token?: string }) => new Promise<boolean>((resolve) => {
      verdicts.set(h.token ?? '', resolve);
      asked.notify();
    }),
    judged: (token: string) => asked.until(() => verdicts.has(token), `authorize to be asked about ${token}`),
    give: (token: string, ok: boolean) => verdicts.get(token)?.(ok),
  };
}

describe('hostile: hellos raced against each other and against the socket\'s end', () => {
  const f = gatewayFixture();

  const ask = (socket: ClientSocket, event: string, body: unknown) => socket.timeout(10_000).emitWithAck(event, body) as Promise<Answer>;

  async function raw(hub: TestHub): Promise<ClientSocket> {
    const socket = await rawSocket(hub.url);
    f.sockets.push(socket);
    return socket;
  }

  const inRoom = async (hub: TestHub, scope: string) => (await hub.namespace().in(`syncom:${scope}`).fetchSockets()).length;

  it('HOST-21: of two hellos in flight, one judged after the later one was answered grants nothing (428) and leaves the later session whole', async () => {
    const held = heldAuthorize();
    const hub = await f.startHub({ options: { authorize: held.authorize } });
    const socket = await raw(hub);
    const first = ask(socket, 'hello', hello('slow', ['A']));
    await held.judged('slow');
    const second = ask(socket, 'hello', hello('fast', ['B']));
    await held.judged('fast');
    held.give('fast', true);
    const answer = await second;
    expect(answer).toMatchObject({ ok: true });
    // From the log's start (no bootstrap notice): a live feed.
    const from = formatEventId((answer.value as { epoch: string }).epoch, 0);
    expect(await ask(socket, 'changes', { sub: 's1', lastEventId: from })).toMatchObject({ ok: true });
    held.give('slow', true);
    expect(await first).toMatchObject({ ok: false, error: { code: 'HELLO_REQUIRED', status: 428 } });
    // The later hello's session, feed and room stand; the earlier one's scope was never joined.
    expect(await inRoom(hub, 'B')).toBe(1);
    expect(await inRoom(hub, 'A')).toBe(0);
    const [server] = hub.namespace().sockets.values();
    expect(server.data.syncom).toEqual({ node: 'n-fast', scopes: ['B'] });
    expect(await ask(socket, 'push', { ops: [] })).toMatchObject({ ok: true });
    expect((hub.gateway.unit as SyncUnit).hosted()).toMatchObject([{ node: 'n-fast', scopes: ['B'] }]);
  });

  it('HOST-21: a hello whose authorize admits it after its socket left keeps no session and emits no hello event', async () => {
    const held = heldAuthorize();
    const hub = await f.startHub({ options: { authorize: held.authorize } });
    const greeted: string[] = [];
    hub.storage.sync.on('hello', (e) => greeted.push(String((e as { node?: unknown }).node)));
    const unit = hub.gateway.unit as SyncUnit;
    const calls: Promise<unknown>[] = [];
    const call = unit.call.bind(unit);
    jest.spyOn(unit, 'call').mockImplementation((method, args, context) => {
      const p = call(method, args, context);
      calls.push(p);
      return p;
    });
    const socket = await raw(hub);
    void ask(socket, 'hello', hello('late', ['*'])).catch(() => undefined);
    await held.judged('late');
    const left = new Signal();
    let gone = false;
    for (const s of hub.namespace().sockets.values()) s.once('disconnect', () => ((gone = true), left.notify()));
    socket.disconnect();
    await left.until(() => gone, 'the socket to leave');
    held.give('late', true);
    await expect(calls[0]).rejects.toMatchObject({ code: 'HELLO_REQUIRED' });
    expect(greeted).toEqual([]);
    expect(unit.usage()).toMatchObject({ feeds: 0, pagings: 0, streams: 0 });
  });

  it('HOST-21 LINK-5: a chunk pull waiting for a window slot when a re-hello ends the session is answered 428, never with a chunk read after', async () => {
    const hub = await f.startHub({ options: { authorize: (_ctx, h) => h.token === 'right', pageBytes: 64, maxInFlightFrames: 1 } });
    // Two records each above pageBytes: each page goes alone, as a stream.
    for (let i = 0; i < 2; i++) await hub.storage.insert({ i, text: 'x'.repeat(200) });
    const socket = await raw(hub);
    expect(await ask(socket, 'hello', hello('right', ['*']))).toMatchObject({ ok: true });
    const first = (await ask(socket, 'snapshot', { stream: true })).value as { token: string; next: number; stream: string };
    const second = (await ask(socket, 'snapshot', { token: first.token, offset: first.next, stream: true })).value as { stream: string };
    // The second stream's chunk holds the one slot of the send window until its next pull; the first stream's waits for it.
    expect(await ask(socket, 'chunk', { stream: second.stream })).toMatchObject({ ok: true, value: { done: false } });
    const unit = hub.gateway.unit as SyncUnit;
    const started = new Signal();
    let opened = 0;
    const stream = unit.stream.bind(unit);
    jest.spyOn(unit, 'stream').mockImplementation((id, context) => {
      const chunks = stream(id, context);
      opened++;
      // The gateway asks for the first chunk as soon as it has the stream.
      queueMicrotask(() => started.notify());
      return chunks;
    });
    const pulled = ask(socket, 'chunk', { stream: first.stream });
    await started.until(() => opened === 1 && unit.usage().streams === 0, 'the first stream\'s pull to wait for a window slot');
    // The re-hello is refused: nothing more is read for the session it ended.
    expect(await ask(socket, 'hello', hello('revoked', ['*']))).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect(await pulled).toMatchObject({ ok: false, error: { code: 'HELLO_REQUIRED', status: 428 } });
  });
});
