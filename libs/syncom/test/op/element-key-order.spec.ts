import { verifyOps, type Op } from '../../src';
import { applyPeerOps } from '../../src/storage/peer';
import { internals } from '../../src/testing/internals';
import { closeAll, node } from '../sync/helpers';

// The digest's canonical JSON sorts keys at every depth (SIG-6), while a set tells its
// elements apart by their JSON text, key order included (KIND-19): a relay that reorders
// an element's keys keeps the signature valid. A documented limit (docs/security.md,
// What stays open); elements that are strings or numbers have no keys to reorder.
const via = { url: 'memory://relay', node: 'relay' };
const reversed = (x: Record<string, unknown>) => Object.fromEntries(Object.keys(x).reverse().map((k) => [k, x[k]]));

async function addOf(writer: Awaited<ReturnType<typeof node>>): Promise<Op> {
  const out = await writer.replica.outgoing(internals(writer).log.read(0));
  return out.map((e) => e.op).find((op) => op.type === 'add') as Op;
}

describe('SIG-6, KIND-19: the limit of a relay reordering a set element\'s keys', () => {
  it('a reordered object element still verifies and lands as another element', async () => {
    const writer = await node({ sync: { signatures: 'require' } });
    const receiver = await node({ sync: { signatures: 'require' } });
    const id = await writer.insert({ title: 't' });
    await writer.add(id, 'tags', [{ a: 1, b: 2 }]);
    const add = await addOf(writer);
    const tampered = { ...add, value: (add.value as Record<string, unknown>[]).map(reversed) };
    expect(await verifyOps([tampered])).toEqual(['ok']);
    const [ins] = (await writer.replica.outgoing(internals(writer).log.read(0))).map((e) => e.op);
    for (const op of [ins, tampered]) await applyPeerOps(receiver, [JSON.parse(JSON.stringify(op))], { via });
    expect(JSON.stringify(((await receiver.get(id)) as { tags: unknown[] }).tags)).toBe('[{"b":2,"a":1}]');
    await closeAll(writer, receiver);
  });

  it('a string element has no such reorder: any change is forged', async () => {
    const writer = await node({ sync: { signatures: 'require' } });
    const id = await writer.insert({ title: 't' });
    await writer.add(id, 'tags', [JSON.stringify({ a: 1, b: 2 })]);
    const add = await addOf(writer);
    expect(await verifyOps([{ ...add, value: [JSON.stringify({ b: 2, a: 1 })] }])).toEqual(['forged']);
    await closeAll(writer);
  });
});
