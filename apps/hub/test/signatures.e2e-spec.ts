import { http, until } from '../../example-api/test/apps';
import { hubConfigFromEnv } from '../src/hub.config';
import { RawClient } from './raw-client';
import { TestHubs } from './test-hubs';

/**
 * One token, many nodes: under 'verify' a token holder could push an
 * unsigned op in any other node's name, at that node's next seq (both were
 * public on GET /health), and squat the seq. The hub now runs 'require'.
 */
describe('apps/hub: signatures (hostile, e2e)', () => {
  const hubs = new TestHubs();
  afterAll(() => hubs.stopAll());

  it('SIG-14, OPT-15: SYNCOM_SIGNATURES defaults to require; verify and false only when named; anything else is refused', () => {
    expect(hubConfigFromEnv({}).signatures).toBe('require');
    expect(hubConfigFromEnv({ SYNCOM_SIGNATURES: 'verify' }).signatures).toBe('verify');
    expect(hubConfigFromEnv({ SYNCOM_SIGNATURES: 'false' }).signatures).toBe(false);
    expect(() => hubConfigFromEnv({ SYNCOM_SIGNATURES: 'off' })).toThrow(/^SYNCOM_SIGNATURES="off": expected one of require, verify, false$/);
  });

  /** A victim node writes through the hub; a raw client holding the same token then pushes an unsigned op as the victim's next seq. */
  async function impersonate(name: string, signatures?: 'verify') {
    const hub = await hubs.start(name, signatures ? { signatures } : {});
    const victim = await hubs.apps.api(`${name}-victim`, hub.syncomUrl);
    const first = (await http(`${victim.url}/notes`, 'POST', { title: 'mine' })).body.id;
    await until(() => hub.storage.has(first), [hub.storage, victim.storage]);
    const attacker = await RawClient.connect(hub.syncomUrl, 't');
    expect(await attacker.hello(['*'], 't')).toMatchObject({ ok: true });
    // The victim places its notes in scope Note (the hub's rule): its stream there is `<id>@Note`, and seq 2 is its next.
    const forged = { origin: victim.storage.id, seq: 2, ts: Date.now(), type: 'write' as const, id: 'squatted', scope: 'Note', data: { $type: 'Note', title: 'not mine' } };
    const answer = await attacker.push([forged]);
    attacker.close();
    return { hub, victim, answer };
  }

  it('SIG-14: under the default, an unsigned op pushed in another node\'s name is refused; that node\'s own next write still lands', async () => {
    const { hub, victim, answer } = await impersonate('require');
    expect(answer).toMatchObject({ ok: true, value: { applied: 0, unsigned: 1 } });
    expect(await hub.storage.has('squatted')).toBe(false);
    expect(hub.storage.replica.vector[`${victim.storage.id}@Note`]).toBe(1);
    const second = (await http(`${victim.url}/notes`, 'POST', { title: 'mine too' })).body.id;
    await until(() => hub.storage.has(second), [hub.storage, victim.storage]);
    expect(hub.storage.replica.vector[`${victim.storage.id}@Note`]).toBe(2);
  });

  it('SIG-13: with SYNCOM_SIGNATURES=verify named, the same push is taken (what the default now prevents)', async () => {
    const { hub, answer } = await impersonate('verify', 'verify');
    expect(answer).toMatchObject({ ok: true, value: { applied: 1, unsigned: 0 } });
    expect(await hub.storage.has('squatted')).toBe(true);
  });

  it('SIG-26: SYNCOM_PROVE_NODES=1 makes every hello prove its node id: the app\'s dialer signs the challenge and syncs; a raw client greeting in its name is refused 401 UNPROVEN', async () => {
    expect(hubConfigFromEnv({}).proveNodes).toBeUndefined();
    expect(hubConfigFromEnv({ SYNCOM_PROVE_NODES: '1' }).proveNodes).toBe(true);
    expect(() => hubConfigFromEnv({ SYNCOM_PROVE_NODES: 'yes' })).toThrow(/^SYNCOM_PROVE_NODES="yes": expected 1 or true, 0 or false$/);
    const hub = await hubs.start('prove', { proveNodes: true });
    const app = await hubs.apps.api('prove-app', hub.syncomUrl);
    const id = (await http(`${app.url}/notes`, 'POST', { title: 'proven' })).body.id;
    await until(() => hub.storage.has(id), [hub.storage, app.storage]);
    const attacker = await RawClient.connect(hub.syncomUrl, 't');
    const answer = await attacker.call('hello', { node: app.storage.id, vector: {}, epoch: 'raw', schema: null, scopes: ['*'], token: 't' });
    attacker.close();
    expect(answer).toMatchObject({ ok: false, error: { code: 'UNPROVEN', status: 401, challenge: expect.any(String) } });
  });
});
