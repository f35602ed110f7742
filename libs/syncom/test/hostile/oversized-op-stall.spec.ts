import type { Storage, SyncomError } from '../../src';
import { opStreamKey } from '../../src/op/types';
import { internals } from '../../src/testing/internals';
import type { Dialer } from '../../src/sync/dial/dialer';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { wrapUnit } from '../sync/scenario-helpers';

/**
 * A merge joined from one host's snapshot can be larger than what another
 * host takes in a push (its bytesPerPush). Pushes go in log order: the op
 * was refused 413 at every retry and held back every later op to that host,
 * the node's own writes included. It now stops only its own stream there.
 */

const HONEST = 'memory://honest';
const OTHER = 'memory://other';

/**
 * An honest hub taking pushes of 100 KB at most, another hub holding a
 * record of 150 KB, and a dialer that reaches both (the honest one first);
 * `announce: false` strips pushBytes from the honest hub's hello answers.
 */
async function setup(announce: boolean) {
  const honest = await hub({ limits: { bytesPerPush: 100_000 } });
  const refused: unknown[] = [];
  const unit = wrapUnit(honest.unit, async (method, _args, _context, next) => {
    const ans = await next().catch((e: unknown) => { if (method === 'push') refused.push(e); throw e; });
    if (method === 'hello' && !announce) delete (ans as { pushBytes?: number }).pushBytes;
    return ans;
  });
  const other = await hub();
  const big = await other.s.insert({ blob: 'x'.repeat(150_000) });
  const net = new Net();
  net.units.set(HONEST, unit);
  net.units.set(OTHER, other.unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
  const errors: SyncomError[] = [];
  d.sync.on('error', (e) => errors.push(e));
  await d.sync.addNode({ url: HONEST, token: 't' });
  const a = await d.insert({ a: 1 });
  await until(async () => honest.s.has(a), [d, honest.s]);
  await d.sync.addNode({ url: OTHER, token: 't' });
  await until(async () => d.has(big), [d]);
  const merge = internals(d).log.read(0).find((e) => e.op.type === 'merge' && e.op.id === big)!.op;
  return { honest, other, d, net, big, errors, refused, stream: opStreamKey(merge), seq: merge.seq };
}

const dialerOf = (s: Storage, url: string) => (s.sync as unknown as { dialers: Map<string, Dialer> }).dialers.get(url) as Dialer;
const sizeErrors = (errors: SyncomError[]) => errors.filter((e) => e.code === 'BYTES_PER_PUSH');

describe('hostile: an op over an honest host\'s push limit', () => {
  it('HOST-11 HOST-15 BOOT-9: an op over the pushBytes the host named is not sent, reported once with its stream and seq (BYTES_PER_PUSH), and stops only its stream: own writes after it reach the host, the peer shows behind', async () => {
    const { honest, other, d, big, errors, refused, stream, seq } = await setup(true);
    const b = await d.insert({ b: 2 });
    await until(async () => honest.s.has(b), [d, honest.s], 10_000);
    const c = await d.insert({ c: 3 });
    await until(async () => honest.s.has(c), [d, honest.s], 10_000);
    expect(sizeErrors(errors)).toHaveLength(1);
    expect(sizeErrors(errors)[0]).toMatchObject({ status: 413, url: HONEST, stream, seq, limit: 100_000 });
    expect(refused).toEqual([]);
    expect(await honest.s.has(big)).toBe(false);
    // Not delivered there: behind, and synced() does not take the host as holding this node's ops.
    expect(d.sync.peers().find((p) => p.url === HONEST)).toMatchObject({ behind: true, pending: 0, lastError: expect.objectContaining({ code: 'BYTES_PER_PUSH' }) });
    expect(dialerOf(d, HONEST).inSync()).toBe(false);
    await closeAll(d, honest.s, other.s);
  });

  it('HOST-11 HOST-15: a host that does not name pushBytes refuses the frame holding the op 413: it is pushed again in halves, the op alone is reported once and not pushed again in that session, and later own writes go on', async () => {
    const { honest, other, d, net, errors, refused, stream, seq } = await setup(false);
    const b = await d.insert({ b: 2 });
    await until(async () => honest.s.has(b), [d, honest.s], 10_000);
    const once = refused.length;
    expect(refused.every((e) => (e as SyncomError).code === 'BYTES_PER_PUSH')).toBe(true);
    const c = await d.insert({ c: 3 });
    await until(async () => honest.s.has(c), [d, honest.s], 10_000);
    expect(refused).toHaveLength(once);
    // A new session (the host may take more now) tries it again; it is not reported again.
    const link = net.links[0];
    link.cut();
    link.restore();
    const e = await d.insert({ e: 4 });
    // The push that takes e comes after the big op's, in log order.
    await until(async () => honest.s.has(e), [d, honest.s], 10_000);
    expect(refused.length).toBeGreaterThan(once);
    expect(sizeErrors(errors)).toHaveLength(1);
    expect(sizeErrors(errors)[0]).toMatchObject({ status: 413, url: HONEST, stream, seq });
    expect(d.sync.peers().find((p) => p.url === HONEST)).toMatchObject({ behind: true });
    await closeAll(d, honest.s, other.s);
  });
});
