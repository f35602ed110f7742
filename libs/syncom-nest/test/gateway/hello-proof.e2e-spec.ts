import { generateKeyPairSync, sign } from 'node:crypto';
import { helloProofText } from 'syncom';
import { rawSocket, socketDialer } from '../helpers/dialer';
import { type TestHub } from '../helpers/hub';
import { gatewayFixture } from '../helpers/fixture';
import { until } from '../helpers/until';

/** A node key pair: its id (the raw public key, base64url) and its private key. */
function nodeKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { node: publicKey.export({ format: 'jwk' }).x as string, privateKey };
}

describe('a signed hello challenge at the socket.io gateway (proveNodes)', () => {
  let hub: TestHub | undefined;
  const { storages, startHub } = gatewayFixture();

  it('SIG-26: authorize sees only proven node ids; a dialer proves itself and replicates', async () => {
    const judged: string[] = [];
    hub = await startHub({ options: { proveNodes: true, authorize: (_ctx, hello) => (judged.push(hello.node), hello.token === 't') } });
    const h = hub;
    const d = await socketDialer();
    storages.push(d.storage);
    await d.storage.sync.addNode({ url: h.url, token: 't' });
    const id = await d.storage.insert({ ok: true });
    await until(async () => (await h.storage.get(id)) !== undefined, [d.storage, h.storage], 'the write at the hub');
    expect(judged).toEqual([d.storage.id]);
  });

  it('SIG-26: over the wire a hello without proof is answered 401 UNPROVEN with a challenge; signed by the node key it greets, signed by another it is refused again', async () => {
    hub = await startHub({ options: { proveNodes: true, authorize: (_ctx, hello) => hello.token === 't' } });
    const me = nodeKey();
    const other = nodeKey();
    const socket = await rawSocket(hub.url);
    const hello = (extra: Record<string, unknown> = {}) => socket.timeout(5000).emitWithAck('hello', { node: me.node, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't', ...extra });
    const first = await hello();
    expect(first).toMatchObject({ ok: false, error: { code: 'UNPROVEN', status: 401, challenge: expect.any(String) } });
    const challenge = (first as { error: { challenge: string } }).error.challenge;
    const by = (key: typeof me) => sign(null, Buffer.from(helloProofText(challenge, me.node)), key.privateKey).toString('base64url');
    const forged = await hello({ proof: by(other) });
    expect(forged).toMatchObject({ ok: false, error: { code: 'UNPROVEN', status: 401 } });
    const next = (forged as { error: { challenge: string } }).error.challenge;
    await expect(hello({ proof: sign(null, Buffer.from(helloProofText(next, me.node)), me.privateKey).toString('base64url') })).resolves.toMatchObject({ ok: true });
    socket.disconnect();
  });
});
