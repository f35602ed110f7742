import { digestForSigning, type Op, signOp, verifyOps } from '../../src/op';
import { platform } from '../../src/platform';
import { nodePlatform } from '../../src/platform/node';
import { web, withPlatform } from '../platform/with-platform';
import { forgedBySmallOrder, IDENTITY_SIG, NON_CANONICAL, SMALL_ORDER, withNonCanonicalS } from './weak-keys';

/**
 * The browser's verifier (Web Crypto) holds every rule Node's does. Web Crypto
 * takes a small-order public key as OpenSSL does, and under the identity key
 * "R = identity, S = 0" verifies: the engine's own checks, before Web Crypto
 * is asked, are what refuse such ops in a browser.
 */

/** `n` writes of `origin`, through digestForSigning, unsigned. */
const writes = (origin: string, n: number): Op[] =>
  Array.from({ length: n }, (_, i) => digestForSigning({ origin, seq: i + 1, ts: 1_700_000_000_000 + i, type: 'write', id: `r${i}`, data: { i } }));

async function nodeKeys() {
  const pem = await nodePlatform.ed25519.generate();
  const priv = await nodePlatform.ed25519.importPrivate(pem.privatePem);
  return { priv, id: await nodePlatform.ed25519.idOf(priv) };
}

describe('hostile: the web platform\'s verifier', () => {
  it('SIG-14 SIG-20 SIG-21: the web verifier refuses what Node refuses: a forged op, small-order and non-canonical keys, S >= L, stray bits', async () => {
    const n = await nodeKeys();
    const [good, tampered, stray] = writes(n.id, 3).map((op) => signOp(op, n.priv));
    const last = stray.sig as string;
    const cases: Op[] = [
      good,
      { ...tampered, data: { i: 99 } },
      withNonCanonicalS(good),
      { ...stray, sig: last.slice(0, -1) + String.fromCharCode(last.charCodeAt(85) + 1) },
      ...NON_CANONICAL.map((origin) => ({ ...good, origin, sig: IDENTITY_SIG })),
      { ...good, sig: undefined },
    ];
    const expected = ['ok', 'forged', 'forged', 'forged', ...NON_CANONICAL.map(() => 'forged'), 'unsigned'];
    expect(await withPlatform(nodePlatform, () => verifyOps(cases))).toEqual(expected);
    expect(await withPlatform(web, () => verifyOps(cases))).toEqual(expected);
  });

  it('SIG-20: a small-order forgery that Web Crypto itself accepts is refused by the web verifier before Web Crypto is asked', async () => {
    const origin = SMALL_ORDER[0];
    const forged = forgedBySmallOrder(origin);
    // The platform's own Ed25519 check, given the key, takes it: only the engine's key check stands between.
    const raw = platform().fromBase64url(origin);
    const accepted = await web.ed25519.verify({ key: web.ed25519.publicKey(origin, raw)!, data: JSON.stringify([1, forged.origin, forged.seq, forged.ts, forged.type, forged.id, null, null, null, null, forged.digest]), sig: platform().fromBase64url(IDENTITY_SIG) });
    expect(accepted).toBe(true);
    expect(await withPlatform(web, () => verifyOps([forged]))).toEqual(['forged']);
  });

});
