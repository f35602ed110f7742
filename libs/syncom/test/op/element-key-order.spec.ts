import { canonicalJson, createMemoryLink, packOps, verifyOps, type Op } from '../../src';
import { digestMatch, sigHeader } from '../../src/op';
import { digestFault } from '../../src/cli/verify-signatures';
import { platform } from '../../src/platform';
import { applyPeerOps } from '../../src/storage/peer';
import { internals } from '../../src/testing/internals';
import { newSigningKey } from '../../src/testing/signing-key';
import { closeAll, node } from '../sync/helpers';

// A set tells its elements apart by their JSON text, key order included (KIND-19),
// while the digest's canonical JSON sorts keys. Sorted there too, an add's or remove's
// elements could be reordered by a relay under a valid signature: another element
// added, or removed, than the writer's. Their digest keeps the elements as written.
const via = { url: 'memory://relay', node: 'relay' };

/** Every object's keys in reverse order, at every depth. */
function reorder(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(reorder);
  if (typeof x === 'object' && x !== null) return Object.fromEntries(Object.keys(x).reverse().map((k) => [k, reorder((x as Record<string, unknown>)[k])]));
  return x;
}

async function ownOps(s: Awaited<ReturnType<typeof node>>): Promise<Op[]> {
  const out = await s.replica.outgoing(internals(s).log.read(0));
  return out.map((e) => e.op).filter((op) => op.origin === s.id);
}

/** The op as a peer reads it off the wire. */
const wire = (op: Op): unknown[] => [JSON.parse(JSON.stringify(op))];
const tags = async (s: Awaited<ReturnType<typeof node>>, id: string) => JSON.stringify(((await s.get(id)) as { tags: unknown[] }).tags);

describe('SIG-6, KIND-19: a relay cannot reorder the keys of a set element under a valid signature', () => {
  it('an add whose element keys the writer gave out of order is forged once reordered', async () => {
    const writer = await node({ sync: { signatures: 'require' } });
    const id = await writer.insert({ title: 't' });
    await writer.add(id, 'tags', [{ b: 2, a: 1 }]);
    const [, add] = await ownOps(writer);
    expect(await verifyOps([JSON.parse(JSON.stringify(add))])).toEqual(['ok']);
    expect(await verifyOps([{ ...add, value: reorder(add.value) }])).toEqual(['forged']);
    await closeAll(writer);
  });

  it('an element whose keys were in order lands as written, whatever order a relay gives it; the remove then finds it', async () => {
    const writer = await node({ sync: { signatures: 'require' } });
    const receiver = await node({ sync: { signatures: 'require' } });
    const id = await writer.insert({ title: 't' });
    await writer.add(id, 'tags', [{ a: 1, b: 2 }]);
    await writer.remove(id, 'tags', [{ a: 1, b: 2 }]);
    const [ins, add, rem] = await ownOps(writer);
    for (const op of [ins, { ...add, value: reorder(add.value) }, rem]) {
      const r = await applyPeerOps(receiver, wire(op), { via });
      expect([r.forged, r.unsigned, r.malformed, r.applied]).toEqual([0, 0, 0, 1]);
    }
    expect(await tags(receiver, id)).toBe(await tags(writer, id));
    expect(await tags(receiver, id)).toBe('[]');
    await closeAll(writer, receiver);
  });

  it('a remove cannot be turned to the other of two elements added in one op', async () => {
    const writer = await node({ sync: { signatures: 'require' } });
    const receiver = await node({ sync: { signatures: 'require' } });
    const id = await writer.insert({ title: 't' });
    await writer.add(id, 'tags', [{ a: 1, b: 2 }, { b: 2, a: 1 }]);
    await writer.remove(id, 'tags', [{ a: 1, b: 2 }]);
    const [ins, add, rem] = await ownOps(writer);
    for (const op of [ins, add, { ...rem, value: (rem.value as [unknown, string[]][]).map(([x, t]) => [reorder(x), t]) }]) {
      await applyPeerOps(receiver, wire(op), { via });
    }
    expect(await tags(writer, id)).toBe('[{"b":2,"a":1}]');
    expect(await tags(receiver, id)).toBe(await tags(writer, id));
    await closeAll(writer, receiver);
  });

  it('a hub under require takes a reordered add as the writer wrote it, or refuses it', async () => {
    const writer = await node({ sync: { signatures: 'require' } });
    const hub = await node({ sync: { signatures: 'require' } });
    const unit = hub.sync.unit({ access: 'public', authorize: (_c, h) => h.token === 't' });
    const id = await writer.insert({ title: 't' });
    await writer.add(id, 'tags', [{ a: 1, b: 2 }]);
    await writer.add(id, 'tags', [{ d: 1, c: 2 }]);
    const [ins, sorted, unsorted] = await ownOps(writer);
    const link = createMemoryLink(unit);
    await link.call('hello', { node: newSigningKey().node, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' });
    await link.call('push', { ops: packOps([ins, { ...sorted, value: reorder(sorted.value) }, { ...unsorted, value: reorder(unsorted.value) }]) });
    // The second add is refused (forged): it and what follows it in the stream wait for it intact.
    expect(await tags(hub, id)).toBe('[{"a":1,"b":2}]');
    link.close();
    await closeAll(writer, hub);
  });
});

describe('SIG-6: an add or remove an earlier version signed, its elements\' keys sorted in the digest', () => {
  /** An add signed as versions before this one did: the digest over canonical JSON, keys sorted at every depth. */
  function legacyAdd(value: unknown[]): Op {
    const { key, node: origin } = newSigningKey();
    const op: Op = { origin, seq: 1, ts: 1_700_000_000_000, type: 'add', id: 'r', key: 'tags', value, nonce: 'AAAAAAAAAAAAAAAAAAAAAA' };
    op.digest = platform().sha256(`${op.nonce}\n${canonicalJson({ key: op.key, value })}`);
    op.sig = platform().ed25519.sync!.sign(key, sigHeader(op));
    return op;
  }

  it('still verifies (log checks and `syncom verify` too), and its elements are taken with their keys sorted', async () => {
    const op = legacyAdd([{ b: 2, a: { d: 1, c: 2 } }]);
    expect(digestMatch(op, op.nonce!, op.digest!)).toBe('sorted');
    expect(digestFault(op)).toBeUndefined();
    const [verdict] = await verifyOps([op]);
    expect(verdict).toBe('ok');
    expect(JSON.stringify(op.value)).toBe('[{"a":{"c":2,"d":1},"b":2}]');
    // Taken so, it reads the same after any reorder: a relay chooses nothing.
    const again = { ...op, value: reorder(op.value) };
    expect(await verifyOps([again])).toEqual(['ok']);
    expect(JSON.stringify(again.value)).toBe(JSON.stringify(op.value));
  });

  it('one whose elements had their keys in order is intact, unchanged from before', () => {
    const op = legacyAdd([{ a: 1, b: 2 }, 'x']);
    expect(digestMatch(op, op.nonce!, op.digest!)).toBe('intact');
  });
});
