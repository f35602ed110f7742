import { createPublicKey } from 'node:crypto';
import { signOp, verifyOps } from '../../src/op';
import { newSigningKey } from '../../src/testing/signing-key';

describe('newSigningKey (the test and load tools\' Ed25519 keys)', () => {
  it('SIG-2: the node id is the raw public key of the key returned, and an op it signs verifies under that id', async () => {
    const { key, node } = newSigningKey();
    expect(createPublicKey(key).export({ format: 'jwk' }).x).toBe(node);
    const op = signOp({ origin: node, seq: 1, ts: 1_700_000_000_000, type: 'write', id: 'r', data: { a: 1 } }, key);
    const other = newSigningKey();
    expect(other.node).not.toBe(node);
    expect(await verifyOps([op, { ...op, origin: other.node }])).toEqual(['ok', 'forged']);
  });
});
