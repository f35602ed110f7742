import { internals } from '../../src/testing/internals';
import { newSigningKey } from '../../src/testing/signing-key';
import type { KeyObject } from 'node:crypto';
import { packOps, signOp, type Op, type Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import * as digest from '../../src/reconcile/digest';
import * as fingerprint from '../../src/reconcile/fingerprint';
import { platform } from '../../src/platform';
import { createReconciler, type Message } from '../../src/reconcile';
import { closeAll, hub } from '../sync/helpers';

// The spied modules as plain copies every importer shares: jest's transform (swc)
// exports a module's functions as getters that jest.spyOn cannot replace.
jest.mock('../../src/reconcile/digest', () => ({ __esModule: true, ...jest.requireActual<object>('../../src/reconcile/digest') }));
jest.mock('../../src/reconcile/fingerprint', () => ({ __esModule: true, ...jest.requireActual<object>('../../src/reconcile/fingerprint') }));

/**
 * Hostile catalogue, reconciliation's cost at the host. Before, any write
 * dropped the host's reconcile responder and the next reconcile digested
 * every record on the main thread (30k records: 600-850 ms), so a token
 * holder alternating a one-op push and a reconcile start kept the hub
 * stalled. Now the digests are kept up to date at commit time: the
 * reconcile after a push digests the records the push touched, not the
 * store. Counted through spies on entryDigest (a record's digest) and
 * hashItem (an item of the set rebuilt), never by the clock.
 */

const RECORDS = 30_000;
const ROUNDS = 4;

/** A peer speaking the protocol by hand: a real Ed25519 key, ops signed with signOp. */
class Peer {
  private readonly signing = newSigningKey();
  readonly key: KeyObject = this.signing.key;
  readonly id = this.signing.node;
  seq = 0;
  op(id: string, data: Record<string, unknown>): Op {
    return signOp({ origin: this.id, seq: ++this.seq, ts: Date.now(), type: 'write', id, data } as Op, this.key);
  }
  add(id: string, key: string, value: string[]): Op {
    return signOp({ origin: this.id, seq: ++this.seq, ts: Date.now(), type: 'add', id, key, value } as Op, this.key);
  }
  hello() {
    return { node: this.id, vector: {}, epoch: 'e', schema: null, scopes: ['*'], token: 't' };
  }
}

describe('hostile: a peer alternating pushes and reconcile starts does not make the host digest every record', () => {
  let host: { s: Storage; unit: HostUnit };

  beforeAll(async () => {
    host = await hub({}, { durable: false, sync: { signatures: false } });
    for (let i = 0; i < RECORDS; i += 1000) {
      await Promise.all(Array.from({ length: 1000 }, (_, k) => host.s.set(`rec-${i + k}`, { n: i + k, title: `note ${i + k}` })));
    }
  }, 120_000);
  afterAll(() => closeAll(host.s));

  it(`${RECORDS} records, ${ROUNDS} rounds of (push one op, reconcile start): each reconcile digests and hashes only what the push touched`, async () => {
    const peer = new Peer();
    const ctx = {};
    await host.unit.call('hello', peer.hello(), ctx);
    // A one-item initiator message: the host answers with fingerprints over its whole set.
    const msg: Message = createReconciler({ items: [{ ts: 1, id: 'x', digest: 'd' }] }).initiate();
    await host.unit.call('reconcile', { scope: '*', msg, start: true }, ctx);
    const digests = jest.spyOn(digest, 'entryDigest');
    const hashes = jest.spyOn(fingerprint, 'hashItem');
    try {
      for (let r = 0; r < ROUNDS; r++) {
        const pushed = (await host.unit.call('push', { ops: packOps([peer.op(`rec-${r * 7}`, { n: -r })]) }, ctx)) as { applied: number };
        expect(pushed.applied).toBe(1);
        await internals(host.s).committer.idle();
        digests.mockClear();
        hashes.mockClear();
        const answer = (await host.unit.call('reconcile', { scope: '*', msg, start: true }, ctx)) as { msg: Message };
        expect(answer.msg.ranges.length).toBeGreaterThan(1);
        expect(digests.mock.calls.length).toBeLessThanOrEqual(1);
        expect(hashes.mock.calls.length).toBeLessThanOrEqual(1);
      }
    } finally {
      digests.mockRestore();
      hashes.mockRestore();
    }
  }, 120_000);
});

describe('hostile: a peer alternating one add to a large set and a reconcile start does not make the host hash the set', () => {
  it('GUAR-3 KIND-5: a set of 100,000 elements, 100 rounds of (push one add, reconcile start): each round hashes a few KB, not the set', async () => {
    const host = await hub({}, { durable: false, sync: { signatures: false } });
    const peer = new Peer();
    const ctx = {};
    await host.unit.call('hello', peer.hello(), ctx);
    const big = Array.from({ length: 100_000 }, (_, i) => `element-${i}`);
    expect(await host.unit.call('push', { ops: packOps([peer.add('big', 'tags', big)]) }, ctx)).toMatchObject({ applied: 1 });
    await internals(host.s).committer.idle();
    const msg: Message = createReconciler({ items: [{ ts: 1, id: 'x', digest: 'd' }] }).initiate();
    await host.unit.call('reconcile', { scope: '*', msg, start: true }, ctx);
    // Every byte the host hashes with SHA-256 in a round, whatever it hashes for.
    const p = platform();
    let hashed = 0;
    const bytesOf = p.sha256Bytes.bind(p);
    const partsOf = p.sha256Parts.bind(p);
    const bytes = jest.spyOn(p, 'sha256Bytes').mockImplementation((data) => { hashed += data.length; return bytesOf(data); });
    const parts = jest.spyOn(p, 'sha256Parts');
    parts.mockImplementation((list) => { hashed += list.reduce((n, x) => n + x.length, 0); return partsOf(list); });
    try {
      for (let r = 0; r < 100; r++) {
        expect(await host.unit.call('push', { ops: packOps([peer.add('big', 'tags', [`x${r}`])]) }, ctx)).toMatchObject({ applied: 1 });
        await internals(host.s).committer.idle();
        hashed = 0;
        await host.unit.call('reconcile', { scope: '*', msg, start: true }, ctx);
        // The set's text is about 2.7 MB; before, each round hashed all of it.
        expect(hashed).toBeLessThan(16_384);
      }
    } finally {
      bytes.mockRestore();
      parts.mockRestore();
      await closeAll(host.s);
    }
  }, 120_000);
});
