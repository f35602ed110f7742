import { createPublicKey, sign } from 'node:crypto';
import { digestForSigning, Op, sigHeader, verifyOps } from '../../src/op';
import { signOff } from '../../src/op/signer';
import { makeSigner, opsOfEachType } from './fixtures';

const a = makeSigner();
const b = makeSigner();

/** `n` unsigned writes from `origin`, through digestForSigning. */
const writes = (origin: string, n: number, from = 1): Op[] =>
  Array.from({ length: n }, (_, i) => digestForSigning({ origin, seq: from + i, ts: 1_700_000_000_000 + i, type: 'write', id: `r${i}`, data: { i } }));

describe('signOff (own ops signed off the main thread, in chunks)', () => {
  it('gives every op of a burst the sig of its header (Ed25519 is deterministic), in bursts larger than a chunk', async () => {
    const ops = writes(a.origin, 70);
    await Promise.all(ops.map((op) => signOff(op, a.privateKey)));
    for (const op of ops) expect(op.sig).toBe(sign(null, Buffer.from(sigHeader(op), 'utf8'), a.privateKey).toString('base64url'));
    expect(await verifyOps(ops)).toEqual(ops.map(() => 'ok'));
  });

  it('signs each op with its own key when two nodes sign in one burst, in runs (threads) or alternating (pool)', async () => {
    const keyOf = (op: Op) => (op.origin === a.origin ? a.privateKey : b.privateKey);
    const runs = [...writes(a.origin, 5), ...writes(b.origin, 5)];
    const alternating = [...writes(a.origin, 5, 20), ...writes(b.origin, 5, 20)].sort((x, y) => x.seq - y.seq);
    for (const ops of [runs, alternating]) {
      await Promise.all(ops.map((op) => signOff(op, keyOf(op))));
      expect(await verifyOps(ops)).toEqual(ops.map(() => 'ok'));
    }
  });

  it('signs a lone op (an awaited write, sent to the pool) as well', async () => {
    const [op] = writes(a.origin, 1, 50);
    await signOff(op, a.privateKey);
    expect(await verifyOps([op])).toEqual(['ok']);
  });

  it('signs ops of every type over their header (SIG-5), a delete and a purge without payload', async () => {
    const ops = opsOfEachType(a.origin).map(digestForSigning);
    await Promise.all(ops.map((op) => signOff(op, a.privateKey)));
    expect(await verifyOps(ops)).toEqual(ops.map(() => 'ok'));
    expect(ops.every((op) => typeof op.sig === 'string' && sigHeader(op).length > 0)).toBe(true);
  });

  it('rejects the ops of a key that cannot sign, and signs the next ones of a good key', async () => {
    const bad = writes(a.origin, 6);
    const publicOnly = createPublicKey(a.privateKey);
    const refused = Promise.all(bad.map((op) => signOff(op, publicOnly)));
    await expect(refused).rejects.toThrow(/signing failed/);
    const good = writes(a.origin, 3, 10);
    await Promise.all(good.map((op) => signOff(op, a.privateKey)));
    expect(await verifyOps(good)).toEqual(['ok', 'ok', 'ok']);
  });
});
