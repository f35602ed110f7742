import { createPublicKey } from 'node:crypto';
import { createMemoryBackend } from '../../src/backend/memory-backend';
import { digestForSigning, type Op, signOp, signOpAsync, verifyOps } from '../../src/op';
import { nodePlatform } from '../../src/platform/node';
import { loadKeys } from '../../src/storage/keys';
import { web, withPlatform } from './with-platform';

/** `n` writes of `origin`, through digestForSigning, unsigned. */
const writes = (origin: string, n: number): Op[] =>
  Array.from({ length: n }, (_, i) =>
    digestForSigning({ origin, seq: i + 1, ts: 1_700_000_000_000 + i, type: 'write', id: `r${i}`, data: { i, text: `é${i}\u{1f600}` }, actor: 'ann' }));

/** A key pair made by `p`, parsed by `p`, with its node id. */
async function keysOn(p: typeof web) {
  const pem = await p.ed25519.generate();
  const priv = await p.ed25519.importPrivate(pem.privatePem);
  return { pem, priv, id: await p.ed25519.idOf(priv) };
}

describe('the platform seam: Node and the browser sign and verify for each other', () => {
  it('SIG-2 SIG-5: ops signed by the web platform verify on Node, and ops signed on Node verify on the web platform', async () => {
    const w = await keysOn(web);
    const fromWeb = writes(w.id, 5);
    await withPlatform(web, () => Promise.all(fromWeb.map((op) => signOpAsync(op, w.priv))));
    expect(await withPlatform(nodePlatform, () => verifyOps(fromWeb))).toEqual(fromWeb.map(() => 'ok'));

    const n = await keysOn(nodePlatform);
    const fromNode = writes(n.id, 5).map((op) => signOp(op, n.priv));
    expect(await withPlatform(web, () => verifyOps(fromNode))).toEqual(fromNode.map(() => 'ok'));
    // Ed25519 is deterministic: the same key signs the same header to the same bytes on both.
    const again = await withPlatform(web, async () => {
      const key = await web.ed25519.importPrivate(n.pem.privatePem);
      const op = digestForSigning({ ...fromNode[0], sig: undefined });
      Object.assign(op, { nonce: fromNode[0].nonce, digest: fromNode[0].digest });
      await signOpAsync(op, key);
      return op.sig;
    });
    expect(again).toBe(fromNode[0].sig);
  });

  it('SIG-4: a keys folder written by one platform is read by the other, with the same node id and the same PEM layout', async () => {
    const backend = createMemoryBackend();
    const made = await withPlatform(web, () => loadKeys(backend));
    const files = await backend.list('keys');
    expect(files.sort()).toEqual(['seal-private.pem', 'seal-public.pem', 'sign-private.pem', 'sign-public.pem']);
    const signPub = (await backend.read('keys/sign-public.pem')) as string;
    expect(signPub).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]{60}\n-----END PUBLIC KEY-----\n$/);
    expect(createPublicKey(signPub).asymmetricKeyType).toBe('ed25519');
    expect(createPublicKey((await backend.read('keys/seal-public.pem')) as string).asymmetricKeyDetails?.modulusLength).toBe(2048);
    const read = await withPlatform(nodePlatform, () => loadKeys(backend));
    expect(read.id).toBe(made.id);

    const nodeBackend = createMemoryBackend();
    const byNode = await withPlatform(nodePlatform, () => loadKeys(nodeBackend));
    const byWeb = await withPlatform(web, () => loadKeys(nodeBackend));
    expect(byWeb.id).toBe(byNode.id);
    // The web platform signs with the key it read from Node's file, and Node verifies it.
    const ops = writes(byWeb.id, 2);
    await withPlatform(web, () => Promise.all(ops.map((op) => signOpAsync(op, byWeb.signPrivate))));
    expect(await withPlatform(nodePlatform, () => verifyOps(ops))).toEqual(['ok', 'ok']);
  });

  it('SIG-28: the web verifier keeps at most 64 Web Crypto verifications in flight, started in page order', async () => {
    const n = await keysOn(nodePlatform);
    const ops = writes(n.id, 200).map((op) => signOp(op, n.priv));
    // A wrapped subtle.verify counts the checks in flight and the order they start in.
    const subtle = globalThis.crypto.subtle as unknown as { verify: (...args: unknown[]) => Promise<boolean> };
    const original = subtle.verify;
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    subtle.verify = async function (this: unknown, ...args: unknown[]) {
      inFlight++;
      most = Math.max(most, inFlight);
      order.push(new TextDecoder().decode(args[3] as Uint8Array));
      try {
        return await original.apply(this, args);
      } finally {
        inFlight--;
      }
    };
    try {
      expect(await withPlatform(web, () => verifyOps(ops))).toEqual(ops.map(() => 'ok'));
    } finally {
      subtle.verify = original;
    }
    expect(most).toBe(64);
    expect(order.map((h) => (JSON.parse(h) as unknown[])[2])).toEqual(ops.map((op) => op.seq));
  });

  it('signOp (synchronous) is Node only: the web platform refuses it with UNSUPPORTED; signOpAsync signs there', async () => {
    const w = await keysOn(web);
    await withPlatform(web, async () => {
      expect(() => signOp(writes(w.id, 1)[0], w.priv)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
    });
  });
});

describe('the web platform: a public key Web Crypto failed to import once', () => {
  afterEach(() => jest.restoreAllMocks());

  it('SIG-5: is imported again at the next check, not kept as a failure that reads every later op of its node as forged', async () => {
    const n = await keysOn(nodePlatform);
    const ops = writes(n.id, 2).map((op) => signOp(op, n.priv));
    jest.spyOn(globalThis.crypto.subtle, 'importKey').mockImplementationOnce(() => Promise.reject(new Error('busy')));
    // The first check meets the failure: the op cannot be checked, so it reads forged (never applied).
    expect(await withPlatform(web, () => verifyOps([ops[0]]))).toEqual(['forged']);
    expect(await withPlatform(web, () => verifyOps([ops[1]]))).toEqual(['ok']);
  });
});
