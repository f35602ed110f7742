import { sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { helloProofText, SyncomError, type Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { internals } from '../../src/testing/internals';
import { closeAll, dialer, hub, Net, node, until } from './helpers';
import { helloOf, push, record } from './scenario-helpers';

const URL = 'memory://h';

/** The hello call's refusal, as the dialer sees it. */
async function refusal(p: Promise<unknown>): Promise<SyncomError & { challenge?: string }> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(SyncomError);
  return e as SyncomError & { challenge?: string };
}

/** A proof of `challenge` for node id `as`, signed by `by`'s key (its own when `as` is its id). */
function proofOf(challenge: string, as: string, by: Storage): string {
  return sign(null, Buffer.from(helloProofText(challenge, as)), internals(by).keys.signPrivate as KeyObject).toString('base64url');
}

describe('a signed hello challenge (proveNodes)', () => {
  it('SIG-26: a dialer of a host with proveNodes signs its challenge and syncs both ways; the host greets it once, as itself', async () => {
    const net = new Net();
    const h = await hub({ proveNodes: true });
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const hellos = record(h.s, 'hello');
    const errors = record(d, 'error');
    await d.sync.addNode({ url: URL, token: 't' });
    await d.set('a', { from: 'dialer' });
    await h.s.set('b', { from: 'host' });
    await until(async () => (await d.has('b')) && (await h.s.has('a')), [d, h.s]);
    expect(hellos).toEqual([expect.objectContaining({ node: d.id })]);
    expect(errors).toEqual([]);
    await closeAll(d, h.s);
  });

  it('SIG-26: a hello in another node\'s name is refused 401 UNPROVEN with a challenge, and so is its proof signed by any other key; nothing is greeted', async () => {
    const h = await hub({ proveNodes: true });
    const impostor = await node();
    const victim = await node();
    const hellos = record(h.s, 'hello');
    const ctx = {};
    const as = (extra: Record<string, unknown>) => h.unit.call('hello', helloOf(impostor, ['*'], { token: 't', node: victim.id, ...extra }), ctx);
    const first = await refusal(as({}));
    expect(first).toMatchObject({ code: 'UNPROVEN', status: 401, challenge: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) });
    const second = await refusal(as({ proof: proofOf(first.challenge!, victim.id, impostor) }));
    expect(second).toMatchObject({ code: 'UNPROVEN', status: 401 });
    expect(second.challenge).not.toBe(first.challenge);
    // Not a signature at all, or one of another text, fares no better.
    expect(await refusal(as({ proof: 'x'.repeat(86) }))).toMatchObject({ code: 'UNPROVEN' });
    expect(hellos).toEqual([]);
    await expect(push(h.unit, ctx, [])).rejects.toMatchObject({ status: 428 });
    await closeAll(h.s, impostor, victim);
  });

  it('SIG-26: a challenge proves a hello once, on the connection it was sent to: not on another, not twice', async () => {
    const h = await hub({ proveNodes: true });
    const p = await node();
    const hello = (ctx: object, extra: Record<string, unknown> = {}) => h.unit.call('hello', helloOf(p, ['*'], { token: 't', ...extra }), ctx);
    const [a, b] = [{}, {}];
    const { challenge } = await refusal(hello(a));
    const proof = proofOf(challenge!, p.id, p);
    // Relayed to another connection (one that was never challenged), the proof proves nothing.
    expect(await refusal(hello(b, { proof }))).toMatchObject({ code: 'UNPROVEN' });
    await expect(hello(a, { proof })).resolves.toMatchObject({ node: h.s.id });
    // Used: greeting again on the same connection needs a new challenge.
    expect(await refusal(hello(a, { proof }))).toMatchObject({ code: 'UNPROVEN', challenge: expect.any(String) });
    await closeAll(h.s, p);
  });

  it('SIG-26: under proveNodes a node id that is no key can never prove itself: refused without a challenge', async () => {
    const h = await hub({ proveNodes: true });
    const p = await node();
    const e = await refusal(h.unit.call('hello', helloOf(p, ['*'], { token: 't', node: 'not-a-key' }), {}));
    expect(e).toMatchObject({ code: 'UNPROVEN', status: 401 });
    expect(e.challenge).toBeUndefined();
    await closeAll(h.s, p);
  });

  it('SIG-26: without proveNodes a proof is neither asked nor read: the hello goes through as before', async () => {
    const h = await hub();
    const p = await node();
    await expect(h.unit.call('hello', helloOf(p, ['*'], { token: 't', proof: 'x'.repeat(86) }), {})).resolves.toMatchObject({ node: h.s.id });
    await closeAll(h.s, p);
  });

  it('SIG-26: a dialer signs only a challenge of the documented form: a host that hands it an op\'s header to sign gets no signature', async () => {
    const net = new Net();
    const h = await hub();
    const header = JSON.stringify([1, 'someone', 1, 1, 'write', 'x', null, null, null, null, null]);
    const hellos: unknown[] = [];
    const hostile: HostUnit = {
      access: h.unit.access,
      call: async (method, args, context) => {
        if (method !== 'hello') return h.unit.call(method, args, context);
        hellos.push(args);
        throw new SyncomError('UNPROVEN', 'sign this', { status: 401, challenge: header });
      },
      subscribe: (method, args, context, options) => h.unit.subscribe(method, args, context, options),
      stream: (id, context) => h.unit.stream(id, context),
      disconnect: (context) => h.unit.disconnect(context),
    };
    net.units.set(URL, hostile);
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    const errors = record(d, 'error');
    const proving = jest.spyOn(d.replica, 'proveHello');
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => errors.length > 0, [d]);
    expect(errors[0]).toMatchObject({ code: 'UNPROVEN' });
    expect(proving).not.toHaveBeenCalled();
    expect(hellos.every((x) => (x as { proof?: unknown }).proof === undefined)).toBe(true);
    await closeAll(d, h.s);
  });
});
