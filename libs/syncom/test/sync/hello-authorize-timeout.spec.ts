import { closeAll, hub, node } from '../sync/helpers';
import { helloOf, push } from '../sync/scenario-helpers';

/**
 * A unit's `authorize` awaited at every hello with no bound: one waiting on
 * a token store that never answered held the hello, and its connection's
 * context, for good, and the dialer waited with nothing reported. Past
 * `authorizeTimeout` the hello is refused 503 AUTHORIZE_FAILED, which a
 * dialer greets again after, backed off; the late answer grants nothing.
 */
describe('a hello whose authorize does not answer', () => {
  it('HOST-3 HOST-17: is refused 503 AUTHORIZE_FAILED after authorizeTimeout, and its late answer grants no session', async () => {
    let admit: (ok: boolean) => void = () => undefined;
    const h = await hub({ authorize: () => new Promise<boolean>((resolve) => (admit = resolve)), authorizeTimeout: 30 });
    const p = await node();
    const context = {};
    await expect(h.unit.call('hello', helloOf(p), context)).rejects.toMatchObject({ code: 'AUTHORIZE_FAILED', status: 503, message: expect.stringContaining('did not answer this hello within 30 ms') });
    admit(true);
    await expect(push(h.unit, context, [])).rejects.toMatchObject({ status: 428 });
    await closeAll(h.s, p);
  });

  it('HOST-3: an authorize that answers in time, or at once, judges as before', async () => {
    const h = await hub({ authorize: async (_c, hello) => hello.token === 't', authorizeTimeout: 10_000 });
    const p = await node();
    await expect(h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), {})).resolves.toMatchObject({ version: expect.any(Number) });
    await expect(h.unit.call('hello', helloOf(p, ['*'], { token: 'wrong' }), {})).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    await closeAll(h.s, p);
  });

  it.each([0, -1, 1.5, 2 ** 31])('HOST-3: an authorizeTimeout of %s is INVALID_ARGUMENT', async (authorizeTimeout) => {
    const p = await node();
    expect(() => p.sync.unit({ access: 'public', authorizeTimeout })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('authorizeTimeout') }) as Error);
    await closeAll(p);
  });
});
