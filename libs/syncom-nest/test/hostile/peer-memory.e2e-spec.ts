import type { Socket as ClientSocket } from 'socket.io-client';
import { formatEventId, type SyncUnit } from 'syncom';
import { rawSocket } from '../helpers/dialer';
import { gatewayFixture } from '../helpers/fixture';
import type { TestHub } from '../helpers/hub';
import { Signal } from '../helpers/until';

type Answer = { ok: boolean; value?: unknown; error?: { code: string; status: number } };

const hello = (node: string, token?: string) => ({ node, vector: {}, epoch: 'e', schema: null, scopes: ['*'], ...(token && { token }) });

describe('hostile: what a socket can make the hub hold, and whose limits it spends', () => {
  const { sockets, startHub } = gatewayFixture();

  async function raw(h: TestHub): Promise<ClientSocket> {
    const socket = await rawSocket(h.url);
    sockets.push(socket);
    return socket;
  }

  const ask = async (socket: ClientSocket, event: string, body: unknown) => (await socket.timeout(10_000).emitWithAck(event, body)) as Answer;

  /** A socket greeted as `node` with `token`, and the event id a feed replays the whole log from. */
  async function greeted(h: TestHub, node: string, token?: string): Promise<{ socket: ClientSocket; from: string }> {
    const socket = await raw(h);
    const answer = await ask(socket, 'hello', hello(node, token));
    expect(answer).toMatchObject({ ok: true });
    return { socket, from: formatEventId((answer.value as { epoch: string }).epoch, 0) };
  }

  it('HOST-7 HOST-12: a token holder greeting with a victim\'s node id drains its own bucket, never the victim\'s', async () => {
    const h = await startHub({
      options: { limits: { opsPerSecond: 3 }, authorize: (_c, x) => x.token === 'victim' || x.token === 'mallory' },
    });
    const victim = await greeted(h, 'victim-node', 'victim');
    const mallory = await greeted(h, 'victim-node', 'mallory');
    expect(await ask(mallory.socket, 'push', { ops: [1, 2, 3] })).toMatchObject({ ok: true });
    expect(await ask(mallory.socket, 'push', { ops: [1] })).toMatchObject({ ok: false, error: { code: 'OPS_PER_SECOND', status: 429 } });
    expect(await ask(victim.socket, 'push', { ops: [1, 2, 3] })).toMatchObject({ ok: true });
  });

  it('PROTO-7: a snapshot paging token is refused on another socket (404 SNAPSHOT_NOT_FOUND) and still pages on its own', async () => {
    const h = await startHub({ options: { pageSize: 1 } });
    for (let i = 0; i < 3; i++) await h.storage.insert({ i });
    const owner = await greeted(h, 'owner');
    const thief = await greeted(h, 'thief');
    const first = (await ask(owner.socket, 'snapshot', {})).value as { token: string; next: number };
    expect(await ask(thief.socket, 'snapshot', { token: first.token, offset: first.next }))
      .toMatchObject({ ok: false, error: { code: 'SNAPSHOT_NOT_FOUND', status: 404 } });
    expect(await ask(owner.socket, 'snapshot', { token: first.token, offset: first.next })).toMatchObject({ ok: true, value: { token: first.token } });
    const unit = h.gateway.unit as SyncUnit;
    expect(unit.usage().pagings).toBe(1);
    const gone = new Signal();
    for (const s of h.namespace().sockets.values()) s.once('disconnect', () => gone.notify());
    owner.socket.disconnect();
    await gone.until(() => unit.usage().pagings === 0, 'the paging to go with its socket');
  });

  it('issue 6.3: sockets that never acknowledge a page hold the hub under maxInFlightBytes; one that acknowledges gets every page', async () => {
    const budget = 32 * 1024;
    const pageBytes = 2048;
    const h = await startHub({ options: { pageSize: 10, pageBytes, maxInFlightBytes: budget } });
    const unit = h.gateway.unit as SyncUnit;
    const idle = await Promise.all(Array.from({ length: 40 }, (_, i) => greeted(h, `idle-${i}`)));
    // Pages to the idle sockets go unanswered: no listener, no ack.
    for (const [i, p] of idle.entries()) expect(await ask(p.socket, 'changes', { sub: `s${i}`, lastEventId: p.from })).toMatchObject({ ok: true });
    const honest = await greeted(h, 'honest');
    const got: unknown[] = [];
    const page = new Signal();
    honest.socket.on('changes:data', (m: { value: { ops: unknown[] } }, ack: (a: Answer) => void) => {
      got.push(...m.value.ops);
      ack({ ok: true, value: null });
      page.notify();
    });
    expect(await ask(honest.socket, 'changes', { sub: 'h', lastEventId: honest.from })).toMatchObject({ ok: true });
    for (let i = 0; i < 200; i++) await h.storage.insert({ i, pad: 'x'.repeat(100) });
    await page.until(() => got.length === 200, 'the honest socket to get every op');
    expect(unit.usage().inFlightBytes).toBeLessThanOrEqual(budget + 41 * pageBytes);
  });

  it('HOST-3 HOST-21: a re-hello that authorize refuses ends the socket\'s earlier session: its feed ends 428, its pushes are 428, its paging is gone', async () => {
    const h = await startHub({ options: { pageSize: 1, authorize: (_c, x) => x.token === 'good' } });
    for (let i = 0; i < 2; i++) await h.storage.insert({ i });
    const p = await greeted(h, 'regreeter', 'good');
    const ended = new Signal();
    const errors: { sub: string; error: { code: string; status: number } }[] = [];
    p.socket.on('changes:error', (m: (typeof errors)[number]) => (errors.push(m), ended.notify()));
    p.socket.on('changes:data', (_m: unknown, ack: (a: Answer) => void) => ack({ ok: true, value: null }));
    expect(await ask(p.socket, 'changes', { sub: 'f', lastEventId: p.from })).toMatchObject({ ok: true });
    expect(await ask(p.socket, 'snapshot', {})).toMatchObject({ ok: true });
    const unit = h.gateway.unit as SyncUnit;
    expect(unit.usage()).toMatchObject({ feeds: 1, pagings: 1 });
    expect(await ask(p.socket, 'hello', hello('regreeter', 'bad'))).toMatchObject({ ok: false, error: { status: 401 } });
    await ended.until(() => errors.length > 0, 'the feed to end');
    expect(errors[0]).toMatchObject({ sub: 'f', error: { code: 'HELLO_REQUIRED', status: 428 } });
    expect(await ask(p.socket, 'push', { ops: [1] })).toMatchObject({ ok: false, error: { status: 428 } });
    expect(unit.usage()).toMatchObject({ feeds: 0, pagings: 0 });
  });

  it('issue 6.3: a socket holds at most maxFeedsPerConnection feeds; one more is refused 429 TOO_MANY_FEEDS', async () => {
    const h = await startHub({ options: { maxFeedsPerConnection: 2 } });
    const p = await greeted(h, 'many-feeds');
    expect(await ask(p.socket, 'changes', { sub: 'a', lastEventId: p.from })).toMatchObject({ ok: true });
    expect(await ask(p.socket, 'changes', { sub: 'b', lastEventId: p.from })).toMatchObject({ ok: true });
    expect(await ask(p.socket, 'changes', { sub: 'c', lastEventId: p.from })).toMatchObject({ ok: false, error: { code: 'TOO_MANY_FEEDS', status: 429 } });
    // The same sub replaces its feed rather than adding one.
    expect(await ask(p.socket, 'changes', { sub: 'a', lastEventId: p.from })).toMatchObject({ ok: true });
  });

  it('a maxFeedsPerConnection above 16 holds as given: 20 feeds on one socket, the 21st refused 429 TOO_MANY_FEEDS', async () => {
    const h = await startHub({ options: { maxFeedsPerConnection: 20 } });
    const p = await greeted(h, 'twenty-feeds');
    for (let i = 0; i < 20; i++) expect([i, await ask(p.socket, 'changes', { sub: `f${i}`, lastEventId: p.from })]).toMatchObject([i, { ok: true }]);
    expect(await ask(p.socket, 'changes', { sub: 'f20', lastEventId: p.from })).toMatchObject({ ok: false, error: { code: 'TOO_MANY_FEEDS', status: 429 } });
  });
});
