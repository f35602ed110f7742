import crypto from 'node:crypto';
import { generateSigningKeys, loadPrivateKey, nodeIdOf, Op, scrubOp, signOp, Verdict, verifyOps } from '../../src/op';
import { isBelowL } from '../../src/op/verify';
import { fullySignedOp, makeSigner, opsOfEachType } from './fixtures';

const signer = makeSigner();
const other = makeSigner();
const signedOfEachType = opsOfEachType(signer.origin).map((op) => signOp(op, signer.privateKey));

describe('verifyOps', () => {
  afterEach(() => jest.restoreAllMocks());

  it('SIG-21: an intact op of every type verifies', async () => {
    expect(await verifyOps(signedOfEachType)).toEqual(signedOfEachType.map(() => 'ok'));
    expect(await verifyOps([])).toEqual([]);
  });

  const signed = fullySignedOp(signer);
  const mutations: [string, Partial<Op>][] = [
    ['origin', { origin: other.origin }],
    ['seq', { seq: signed.seq + 1 }],
    ['ts', { ts: signed.ts + 1 }],
    ['type', { type: 'write' }],
    ['id', { id: 'rec-10' }],
    ['scope', { scope: 'other' }],
    ['from', { from: 'elsewhere' }],
    ['v', { v: 4 }],
    ['actor', { actor: 'mallory' }],
    ['data', { data: { a: 2, b: { c: [1, 2] } } }],
    ['meta', { meta: { v: 4 } }],
    ['key', { key: 'k2' }],
    ['value', { value: [1, 2, 3] }],
    ['vector', { vector: { x: 2 } }],
    ['nonce', { nonce: crypto.randomBytes(16).toString('base64url') }],
    ['digest', { digest: crypto.randomBytes(32).toString('base64url') }],
    ['sig', { sig: signOp(signed, other.privateKey).sig }],
  ];

  it.each(mutations)('SIG-21: changing %s makes the op forged', async (_field, change) => {
    expect(await verifyOps([{ ...signed, ...change }])).toEqual(['forged']);
  });

  it('SIG-21: adding or removing a field is a change too', async () => {
    const del = signedOfEachType.find((op) => op.type === 'delete')!;
    const { scope: _scope, ...unscoped } = signed;
    const { meta: _meta, ...withoutMeta } = signed;
    const cases: Op[] = [{ ...del, scope: 'team' }, { ...del, actor: 'x' }, unscoped, withoutMeta, { ...del, nonce: signed.nonce }];
    expect(await verifyOps(cases)).toEqual(cases.map(() => 'forged'));
  });

  it('OPS-24: an op whose actor was changed in transit fails verification', async () => {
    const write = signedOfEachType[0];
    expect(write.actor).toBe('alice');
    const { actor: _actor, ...anonymous } = write;
    expect(await verifyOps([{ ...write, actor: 'bob' }, anonymous, write])).toEqual(['forged', 'forged', 'ok']);
  });

  it('SIG-11: a scrubbed op verifies on its header alone (and SIG-25: stripping payload and nonce is no forgery)', async () => {
    const scrubbed = signedOfEachType.map(scrubOp);
    expect(await verifyOps(scrubbed)).toEqual(scrubbed.map(() => 'ok'));
    expect(await verifyOps([{ ...scrubOp(signed), seq: 43 }])).toEqual(['forged']);
  });

  it('SIG-24: an op whose sig was stripped is unsigned', async () => {
    const { sig: _sig, ...stripped } = signed;
    const unsigned: Op = { origin: 'not-a-key', seq: 1, ts: 0, type: 'delete', id: 'x' };
    expect(await verifyOps([stripped, unsigned])).toEqual(['unsigned', 'unsigned']);
  });

  it('an origin that is no key, or a payload without digest or nonce, is forged', async () => {
    const { digest: _d, ...noDigest } = signed;
    const { nonce: _n, ...noNonce } = signed;
    const cases: Op[] = [{ ...signed, origin: 'node-a' }, noDigest, noNonce, { ...signed, sig: 'A'.repeat(10) }];
    expect(await verifyOps(cases)).toEqual(cases.map(() => 'forged'));
  });

  it('SIG-27: verifies 200 ops in order, off the main thread through the callback form', async () => {
    const spy = jest.spyOn(crypto, 'verify');
    const ops = Array.from({ length: 200 }, (_, i) => {
      const op = signOp({ ...signedOfEachType[i % 9], seq: i + 1 }, signer.privateKey);
      return i % 3 === 0 ? { ...op, ts: op.ts + 1 } : op;
    });
    const verdicts = await verifyOps(ops);
    expect(verdicts).toEqual(ops.map((_, i): Verdict => (i % 3 === 0 ? 'forged' : 'ok')));
    expect(spy).toHaveBeenCalledTimes(200);
    for (const call of spy.mock.calls) expect(typeof call[4]).toBe('function');
  });

  it.each([
    [64, undefined],
    [5, 5],
  ])('SIG-27: at most %d signatures are in flight at a time', async (limit, concurrency) => {
    const real = crypto.verify;
    let inFlight = 0;
    let peak = 0;
    type Callback = (error: Error | null, ok: boolean) => void;
    jest.spyOn(crypto, 'verify').mockImplementation(((...args: unknown[]) => {
      const done = args[4] as Callback;
      inFlight++;
      peak = Math.max(peak, inFlight);
      const wrapped: Callback = (error, ok) => {
        inFlight--;
        done(error, ok);
      };
      return (real as (...a: unknown[]) => void)(...args.slice(0, 4), wrapped);
    }) as typeof crypto.verify);
    const ops = Array.from({ length: 200 }, (_, i) => signOp({ ...signedOfEachType[0], seq: i + 1 }, signer.privateKey));
    expect(await verifyOps(ops, { concurrency })).toEqual(ops.map(() => 'ok'));
    expect(peak).toBe(limit);
    expect(inFlight).toBe(0);
  });

  it('SIG-3: verifies against the origin alone, for ops of many nodes', async () => {
    const keys = Array.from({ length: 3 }, () => loadPrivateKey(generateSigningKeys().privatePem));
    const ops = keys.map((key, i) => signOp({ ...signedOfEachType[0], origin: nodeIdOf(key), seq: i + 1 }, key));
    expect(await verifyOps(ops)).toEqual(['ok', 'ok', 'ok']);
  });
});

describe('isBelowL', () => {
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  const le = (n: bigint): Uint8Array => {
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
    return out;
  };

  it('SIG-21: S < L decides a signature\'s one encoding, at both sides of L and of its top byte 0x10', () => {
    const cases: [bigint, boolean][] = [
      [0n, true], [2n ** 252n - 1n, true], [2n ** 252n, true], [L - 1n, true],
      [L, false], [L + 1n, false], [2n ** 252n + 2n ** 248n, false], [2n ** 253n, false], [2n ** 256n - 1n, false],
    ];
    for (const [s, below] of cases) expect([s, isBelowL(le(s))]).toEqual([s, below]);
  });
});
