import { internals } from '../../src/testing/internals';
import { newSigningKey } from '../../src/testing/signing-key';
import type { KeyObject } from 'node:crypto';
import { createMemoryBackend, createMemoryLink, open, packOps, signOp, type Op, type Storage } from '../../src';
import type { HostUnit, MemoryLink } from '../../src/link';
import { applyPeerOps } from '../../src/storage/peer';
import { closeAll, node, until } from '../sync/helpers';

/**
 * A node signs only ops it made. A peer pushing an op in the host's own name
 * (its origin, the next seq of its stream) without the host's signature is
 * refused, under 'verify' as under 'require': before, the commit pipeline
 * signed it with the host's key, so any token holder wrote as the hub, and
 * the hub's own stream had a hole at peers for good.
 */

type Mode = 'verify' | 'require';

/** A token holder speaking the protocol by hand, with a real key of its own. */
class Intruder {
  private readonly signing = newSigningKey();
  readonly key: KeyObject = this.signing.key;
  readonly id = this.signing.node;
  hello() {
    return { node: this.id, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' };
  }
}

interface Rig {
  hub: Storage;
  unit: HostUnit;
  reader: Storage;
  links: MemoryLink[];
  refused: { node: string; reason: string; count: number }[];
}

async function rig(signatures: Mode): Promise<Rig> {
  const hub = await node({ sync: { signatures } });
  const unit = hub.sync.unit({ access: 'public', authorize: (_c, h) => h.token === 't' });
  const links: MemoryLink[] = [];
  const connect = () => { const l = createMemoryLink(unit); links.push(l); return l; };
  const reader = await node({ sync: { connect, signatures } });
  await reader.sync.addNode({ url: 'memory://hub', token: 't' });
  const refused: Rig['refused'] = [];
  hub.sync.on('refused', (r) => refused.push(r));
  return { hub, unit, reader, links, refused };
}

/** The next op of the hub's own stream, as an intruder makes it: unsigned, or signed with its own key. */
function inHubsName(r: Rig, how: 'unsigned' | 'forged' | 'no digest', intruder: Intruder): Op {
  const seq = (internals(r.hub).log.vector[r.hub.id] ?? 0) + 1;
  const op: Op = { origin: r.hub.id, seq, ts: Date.now(), type: 'write', id: 'stolen', data: { owner: 'intruder' } };
  if (how === 'unsigned') return op;
  const signed = signOp(op, intruder.key);
  if (how === 'no digest') { delete signed.digest; delete signed.nonce; }
  return signed;
}

async function pushAs(r: Rig, intruder: Intruder, ops: Op[]) {
  const link = createMemoryLink(r.unit);
  r.links.push(link);
  await link.call('hello', intruder.hello());
  return link.call('push', { ops: packOps(ops) }) as Promise<Record<string, number>>;
}

/** The hub's next local write replicates to the reader, signed and verified: its own stream is whole. */
async function hubStreamWhole(r: Rig): Promise<void> {
  const id = await r.hub.insert({ after: 'intrusion' });
  await until(async () => r.reader.has(id), [r.reader]);
  expect(await r.reader.get(id)).toEqual({ after: 'intrusion' });
  const logged = internals(r.hub).log.read(0).map((e) => e.op).filter((op) => op.origin === r.hub.id);
  expect(logged.map((op) => op.seq)).toEqual(logged.map((_op, i) => i + 1));
  expect(logged.every((op) => typeof op.sig === 'string')).toBe(true);
}

async function teardown(r: Rig): Promise<void> {
  for (const l of r.links) l.close();
  await closeAll(r.reader, r.hub);
}

describe.each<Mode>(['verify', 'require'])('an op in the host\'s own name, signatures %s', (mode) => {
  it.each([
    ['unsigned', 'unsigned'],
    ['forged', 'forged'],
    ['no digest', 'forged'],
  ] as const)('SIG-13 SIG-14 SIG-16 SIG-18 SIG-19: pushed %s, it is refused as %s, never logged nor signed, and the hub\'s next write still reaches a third node', async (how, reason) => {
    const r = await rig(mode);
    try {
      await r.hub.insert({ before: 1 });
      const intruder = new Intruder();
      const before = internals(r.hub).log.read(0).length;
      const answer = await pushAs(r, intruder, [inHubsName(r, how, intruder)]);
      expect(answer).toMatchObject({ applied: 0, [reason]: 1 });
      expect(r.refused).toEqual([{ node: intruder.id, reason, count: 1 }]);
      expect(internals(r.hub).log.read(0)).toHaveLength(before);
      expect(await r.hub.has('stolen')).toBe(false);
      await hubStreamWhole(r);
      expect(await r.reader.has('stolen')).toBe(false);
    } finally {
      await teardown(r);
    }
  });
});

describe('the signing step signs only ops this node made', () => {
  it('SIG-13 SIG-15: an own-origin peer op that reaches the pipeline unverified is logged as it came, never signed with this node\'s key', async () => {
    const s = await node({ sync: { signatures: 'verify' } });
    try {
      const op: Op = { origin: s.id, seq: 1, ts: Date.now(), type: 'write', id: 'r', data: { a: 1 } };
      // signatures: false for this page only: the op passes unverified, as on a node that verifies nothing.
      const res = await applyPeerOps(s, [op], { via: { url: 'memory://peer', node: 'peer' }, signatures: false });
      expect(res).toMatchObject({ applied: 1, unsigned: 0 });
      const logged = internals(s).log.read(0).map((e) => e.op);
      expect(logged).toHaveLength(1);
      expect(logged[0].sig).toBeUndefined();
      await s.insert({ b: 2 });
      expect(internals(s).log.read(0).map((e) => typeof e.op.sig)).toEqual(['undefined', 'string']);
    } finally {
      await s.close();
    }
  });

  it('LOG-22 LOG-23 SIG-15: a node restored from an older copy takes its own ops back from a peer as it signed them, and goes on from there; the same ops unsigned are refused (taken unverified, never signed, under signatures false)', async () => {
    const disk = createMemoryBackend();
    await (await open({ path: 'r', backend: disk })).close();
    const older = disk.snapshot();
    const before = await open({ path: 'r', backend: disk });
    const id = await before.insert({ n: 1 });
    const mine = internals(before).log.read(0).map((e) => e.op);
    await before.close();
    const via = { url: 'memory://hub', node: 'hub' };
    for (const signatures of ['verify', 'require'] as const) {
      const restored = await open({ path: 'r', backend: createMemoryBackend({ from: older }), sync: { signatures } });
      try {
        const stripped = mine.map(({ sig: _s, ...op }) => op as Op);
        expect(await applyPeerOps(restored, stripped, { via })).toMatchObject({ applied: 0, unsigned: 1 });
        expect(await applyPeerOps(restored, mine, { via })).toMatchObject({ applied: 1, unsigned: 0, forged: 0 });
        expect(await restored.get(id)).toEqual({ n: 1 });
        await restored.insert({ n: 2 });
        expect(internals(restored).log.read(0).map((e) => [e.op.origin === restored.id, e.op.seq, typeof e.op.sig])).toEqual([[true, 1, 'string'], [true, 2, 'string']]);
      } finally {
        await restored.close();
      }
    }
    // signatures false verifies nothing: its own ops come back unverified, and are logged as they came, unsigned.
    const trusting = await open({ path: 'r', backend: createMemoryBackend({ from: older }), sync: { signatures: false } });
    try {
      const stripped = mine.map(({ sig: _s, ...op }) => op as Op);
      expect(await applyPeerOps(trusting, stripped, { via })).toMatchObject({ applied: 1, unsigned: 0 });
      expect(internals(trusting).log.read(0).map((e) => e.op.sig)).toEqual([undefined]);
    } finally {
      await trusting.close();
    }
  });

  it('SIG-13 SIG-17: under verify, an own-origin op from a peer without a signature is refused with UNSIGNED, and the page\'s other ops are taken', async () => {
    const s = await node();
    try {
      const intruder = new Intruder();
      const own: Op = { origin: s.id, seq: 1, ts: Date.now(), type: 'write', id: 'mine', data: { a: 1 } };
      const theirs: Op = { origin: intruder.id, seq: 1, ts: Date.now(), type: 'write', id: 'theirs', data: { b: 1 } };
      const res = await applyPeerOps(s, [own, theirs], { via: { url: 'memory://peer', node: intruder.id } });
      expect(res).toMatchObject({ applied: 1, unsigned: 1 });
      expect(res.errors.map((e) => [e.code, e.count])).toEqual([['UNSIGNED', 1]]);
      expect(res.errors[0].message).toContain("in this node's own name: memory://peer sent ops as this node without its signature");
      expect([await s.has('mine'), await s.has('theirs')]).toEqual([false, true]);
      expect(internals(s).log.vector[s.id]).toBeUndefined();
    } finally {
      await s.close();
    }
  });
});
