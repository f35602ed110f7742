import { type Storage, SyncomError } from 'syncom';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { until } from '../helpers/until';

describe("access 'session' at the socket.io gateway", () => {
  let hub: TestHub | undefined;
  const { storages, startHub } = gatewayFixture();

  /** A socket dialer that registered `url` with `token`, and its errors once the first (its refused handshake) came. */
  async function refusedDialer(url: string, token: string) {
    const d = await socketDialer();
    storages.push(d.storage);
    const errors: SyncomError[] = [];
    d.storage.sync.on('error', (e) => errors.push(e));
    await d.storage.sync.addNode({ url, token });
    await until(() => errors.length > 0, [d.storage], 'the refusal');
    return { d, errors };
  }

  it('HOST-2 the handshake runs authorize with auth.token: a wrong one is refused with 401 data, a right one greets', async () => {
    const seen: Array<{ node: string; token?: string; session: unknown }> = [];
    hub = await startHub({
      options: { access: 'session', authorize: (ctx, hello) => (seen.push({ node: hello.node, token: hello.token, session: ctx.session }), hello.token === 't') },
    });
    const refused = await rawSocket(hub.url, { auth: { token: 'wrong' } }).catch((e: Error & { data?: unknown }) => e);
    expect(refused).toMatchObject({ message: expect.stringContaining('authorize'), data: { code: 'UNAUTHORIZED', status: 401 } });
    const socket = await rawSocket(hub.url, { auth: { token: 't' } });
    const hello = { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' };
    await expect(socket.timeout(5000).emitWithAck('hello', hello)).resolves.toMatchObject({ ok: true });
    socket.disconnect();
    expect(seen.map((s) => [s.node, s.token])).toEqual([['', 'wrong'], ['', 't'], ['n', 't']]);
    expect(seen[2].session).toEqual({ token: 't' });
  });

  it('HOST-2 HOST-3 a dialer with a wrong token reports the refused handshake (401); one with the right token replicates', async () => {
    hub = await startHub({ options: { access: 'session', authorize: (_ctx, hello) => hello.token === 't' } });
    const h = hub;
    const { errors } = await refusedDialer(h.url, 'nope');
    expect(errors[0]).toMatchObject({ code: 'UNAUTHORIZED', status: 401, url: h.url });
    const right = await socketDialer();
    storages.push(right.storage);
    await right.storage.sync.addNode({ url: h.url, token: 't' });
    const id = await right.storage.insert({ ok: true });
    await until(async () => (await h.storage.get(id)) !== undefined, [right.storage, h.storage], 'the write at the hub');
  });

  it('HOST-2 HOST-12 at the handshake an answer other than true or a non-empty string refuses (401); a string is the session\'s identity, which keys the bucket across tokens', async () => {
    const users: Record<string, unknown> = { t1: 'alice', t2: 'alice', none: undefined, empty: '' };
    const seen: unknown[] = [];
    hub = await startHub({
      options: { access: 'session', limits: { opsPerSecond: 3 }, authorize: ((ctx: { session?: unknown }, hello: { token?: string; node: string }) => (hello.node && seen.push(ctx.session), users[hello.token ?? ''])) as never },
    });
    for (const token of ['none', 'empty']) await expect(rawSocket(hub.url, { auth: { token } })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED', status: 401 } });
    const hello = { node: 'n', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };
    const first = await rawSocket(hub.url, { auth: { token: 't1' } });
    const second = await rawSocket(hub.url, { auth: { token: 't2' } });
    try {
      await expect(first.timeout(5000).emitWithAck('hello', { ...hello, token: 't1' })).resolves.toMatchObject({ ok: true });
      await expect(second.timeout(5000).emitWithAck('hello', { ...hello, node: 'n2', token: 't2' })).resolves.toMatchObject({ ok: true });
      expect(seen).toEqual([{ token: 't1', identity: 'alice' }, { token: 't2', identity: 'alice' }]);
      await expect(first.timeout(5000).emitWithAck('push', { ops: [1, 2] })).resolves.toMatchObject({ ok: true });
      await expect(second.timeout(5000).emitWithAck('push', { ops: [1, 2] })).resolves.toMatchObject({ ok: false, error: { code: 'OPS_PER_SECOND', status: 429 } });
    } finally {
      first.disconnect();
      second.disconnect();
    }
  });

  it('HOST-2 an authorize that throws at the handshake refuses the connection 401 (503 AUTHORIZE_FAILED when it throws that: it could not judge) and the gateway stays up', async () => {
    hub = await startHub({ options: { access: 'session', authorize: (_ctx, hello) => {
      if (hello.token === 'boom') throw new Error('down');
      if (hello.token === 'store') throw new SyncomError('AUTHORIZE_FAILED', 'token store down');
      return true;
    } } });
    await expect(rawSocket(hub.url, { auth: { token: 'boom' } })).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED', status: 401 } });
    await expect(rawSocket(hub.url, { auth: { token: 'store' } })).rejects.toMatchObject({ data: { code: 'AUTHORIZE_FAILED', status: 503 } });
    const fine = await rawSocket(hub.url, { auth: { token: 'x' } });
    await expect(fine.timeout(5000).emitWithAck('hello', { node: 'n', vector: {}, epoch: 'e', schema: null })).resolves.toMatchObject({ ok: true });
    fine.disconnect();
  });

  it('HOST-2 an authorize that does not answer within authorizeTimeout is refused 503 AUTHORIZE_FAILED: the dialer reports it, dials again, and greets once authorize answers', async () => {
    // Unbounded, the handshake waited for good: socket.io sets no bound on joining a namespace, and the
    // dialer's first hello waited with it, nothing reported.
    let answers = false;
    hub = await startHub({ options: { access: 'session', authorizeTimeout: 200, authorize: () => (answers ? true : new Promise<boolean>(() => undefined)) } });
    const h = hub;
    const { d, errors } = await refusedDialer(h.url, 't');
    expect(errors[0]).toMatchObject({ code: 'AUTHORIZE_FAILED', status: 503, url: h.url });
    answers = true;
    const id = await d.storage.insert({ ok: true });
    await until(async () => (await h.storage.get(id)) !== undefined, [d.storage, h.storage], 'the write at the hub');
  });
});
