import { createMemoryBackend, createMemoryLink, open, packOps, signOp, type Op } from '../../src';
import { checkShape } from '../../src/op';
import { internals } from '../../src/testing/internals';
import { newSigningKey } from '../../src/testing/signing-key';

/**
 * An op's `from` ends its stream's key (`origin<from`), and a stream's key
 * stays in the vector for good: in index.json, and in every hello answer and
 * snapshot page the node gives, to peers of every scope. Checked only as a
 * string, one push of 500 signed writes with 8,000-character `from`s put 4 MB
 * of keys into the hub's vector, and into the vector of every node that took
 * them from it. `from` is held to an origin's shape now: it names a node.
 */
const write = (from: unknown): Op => ({ origin: 'n1', seq: 1, ts: 1, type: 'write', id: 'a', data: {}, from } as Op);

describe('hostile peer: an op\'s from', () => {
  it.each([['129 characters', 'x'.repeat(129)], ['empty', ''], ['an @', 'h@a'], ['a <', 'h<g'], ['a prototype name', 'constructor'], ['a number', 5]])('GUAR-3 LOG-10: one of %s is malformed', (_what, from) => {
    expect(checkShape(write(from))).toMatchObject({ ok: false, code: 'OP_MALFORMED', reason: expect.stringMatching(/^from: must be a string of 1-128 characters/) });
  });

  it.each(['h', 'x'.repeat(128), newSigningKey().node])('GUAR-3: a node id (%s) passes', (from) => {
    expect(checkShape(write(from))).toMatchObject({ ok: true });
    expect(checkShape({ ...write(from), type: 'merge' })).toMatchObject({ ok: true });
  });

  it('GUAR-3 PROTO-4: a push of long ones is refused as malformed, and the hub\'s vector gains no key', async () => {
    const hub = await open({ path: 'hub', backend: createMemoryBackend(), sync: { signatures: 'require' } });
    const errors: string[] = [];
    hub.on('error', (e) => errors.push(e.code));
    const link = createMemoryLink(hub.sync.unit({ access: 'public', authorize: () => true }));
    const { key, node } = newSigningKey();
    await link.call('hello', { node, vector: {}, epoch: 'e', schema: null, scopes: ['*'] });
    const ops = Array.from({ length: 50 }, (_, i) => signOp({ origin: node, seq: 1, ts: Date.now(), type: 'write', id: `r${i}`, data: {}, from: `${i}`.padEnd(8_000, 'x') } as Op, key));
    await expect(link.call('push', { ops: packOps(ops) })).resolves.toMatchObject({ applied: 0, malformed: 50 });
    expect(errors).toEqual(['OP_MALFORMED']);
    expect(internals(hub).log.vector).toEqual({});
    link.close();
    await hub.close();
  });
});
