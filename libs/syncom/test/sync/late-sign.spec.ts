import { type Backend, createMemoryBackend, open, type Storage } from '../../src';
import { FLAG_TO_SIGN } from '../../src/log/flags';
import { platform } from '../../src/platform';
import { verifyOps } from '../../src/op/verify';
import { internals } from '../../src/testing/internals';
import { withPlatform } from '../platform/with-platform';
import { closeAll, dialer, hub, Net, records, until } from './helpers';

/** A promise and its release: background signing held until the test lets it go. */
function gate(): { held: Promise<void>; release(): void } {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  return { held, release };
}

/** The installed platform, its own ops' signing failing while `failing` is set (a signer that cannot sign). */
function failingSigner() {
  const real = platform();
  const out = { failing: false, platform: real };
  out.platform = { ...real, ed25519: { ...real.ed25519, signInto: (t, text, key) => (out.failing ? Promise.reject(new Error('no signer')) : real.ed25519.signInto(t, text, key)) } };
  return out;
}

/** This node's own merge and advance entries in its log. */
function ownMerges(s: Storage) {
  return internals(s).log.read(0).filter((e) => e.op.origin === s.id && (e.op.type === 'merge' || e.op.type === 'advance'));
}

async function hubWith(n: number) {
  const h = await hub({ pageSize: 20 });
  await Promise.all(Array.from({ length: n }, (_, i) => h.s.insert({ i })));
  return h;
}

/** Resolves after a few turns of the event loop: what a leaked send would have needed to land. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r));
}

describe('merge ops of a bootstrap are signed after their join', () => {
  it('BOOT-4 SIG-22: the records are readable and listed before any merge op is signed; signed() resolves once every one verifies', async () => {
    const net = new Net();
    const h = await hubWith(50);
    net.units.set('memory://h', h.unit);
    const d = await dialer(net);
    const g = gate();
    internals(d).committer.late.holdUntil(g.held);
    const boots: unknown[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => boots.length === 1, [d]);
    expect(await records(d)).toEqual(await records(h.s));
    const merges = ownMerges(d);
    expect(merges.length).toBe(51);
    expect(merges.every((e) => e.flags & FLAG_TO_SIGN && e.op.sig === undefined)).toBe(true);
    g.release();
    await d.replica.signed();
    expect(ownMerges(d).every((e) => !(e.flags & FLAG_TO_SIGN) && e.op.sig !== undefined)).toBe(true);
    expect(await verifyOps(ownMerges(d).map((e) => e.op))).toEqual(merges.map(() => 'ok'));
    await closeAll(d, h.s);
  });

  it('SIG-1 SIG-14 BOOT-9: a node reading this node\'s feed during background signing gets only signed ops (a \'require\' subscriber refuses none)', async () => {
    const net = new Net();
    const h = await hubWith(50);
    net.units.set('memory://h', h.unit);
    const d = await dialer(net);
    net.units.set('memory://d', d.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' }));
    const t = await dialer(net, { sync: { connect: net.connect, signatures: 'require' } });
    const refused: number[] = [];
    t.sync.on('sync', (e) => refused.push(e.unsigned + e.forged));
    // The third node holds a cursor on the dialer first: the merges reach it on the feed, not in a snapshot.
    await t.sync.addNode({ url: 'memory://d', token: 't' });
    await t.sync.synced('memory://d');
    const g = gate();
    internals(d).committer.late.holdUntil(g.held);
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => (await records(d)).length === 50, [d]);
    await turns();
    expect(await records(t)).toEqual([]);
    g.release();
    await until(async () => (await records(t)).length === 50, [t]);
    expect(await records(t)).toEqual(await records(h.s));
    expect(refused.every((n) => n === 0)).toBe(true);
    await closeAll(t, d, h.s);
  });

  it('SIG-1 SIG-14 BOOT-10: a push to another host during background signing carries only signed ops (a \'require\' host refuses none)', async () => {
    const net = new Net();
    const h = await hubWith(50);
    const other = await hub({}, { sync: { signatures: 'require' } });
    net.units.set('memory://h', h.unit);
    net.units.set('memory://o', other.unit);
    const refused: number[] = [];
    other.s.sync.on('refused', (e) => refused.push(e.count));
    const d = await dialer(net);
    await d.sync.addNode({ url: 'memory://o', token: 't' });
    await d.sync.synced('memory://o');
    const g = gate();
    internals(d).committer.late.holdUntil(g.held);
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(async () => (await records(d)).length === 50, [d]);
    await turns();
    expect(await records(other.s)).toEqual([]);
    g.release();
    await until(async () => (await records(other.s)).length === 50, [other.s, d]);
    expect(await records(other.s)).toEqual(await records(h.s));
    expect(refused).toEqual([]);
    await closeAll(d, other.s, h.s);
  });

  it('GUAR-7 LOG-2: a crash between the join and the signing loses nothing; the reopened node signs every merge op, and seals them signed', async () => {
    const net = new Net();
    const h = await hubWith(50);
    net.units.set('memory://h', h.unit);
    const disk = createMemoryBackend();
    const d = await open({ path: 'crashy', backend: disk, sync: { connect: net.connect } });
    const g = gate();
    internals(d).committer.late.holdUntil(g.held);
    const boots: unknown[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    await d.sync.addNode({ url: 'memory://h', token: 't' });
    await until(() => boots.length === 1, [d]);
    await internals(d).committer.idle();
    const crashed = disk.crash('none');
    g.release();
    await d.close();

    const again = await open({ path: 'crashy', backend: crashed });
    expect(await records(again)).toEqual(await records(h.s));
    const before = ownMerges(again);
    expect(before.length).toBe(51);
    expect(before.some((e) => e.flags & FLAG_TO_SIGN)).toBe(true);
    await again.replica.signed();
    expect(await verifyOps(ownMerges(again).map((e) => e.op))).toEqual(before.map(() => 'ok'));
    await again.close();
    const third = await open({ path: 'crashy', backend: crashed });
    expect(ownMerges(third).every((e) => !(e.flags & FLAG_TO_SIGN) && e.op.sig !== undefined)).toBe(true);
    await closeAll(third, h.s);
  });

  it('SIG-22 BOOT-9 GUAR-7: a signing that fails keeps its batch open and unsent; it is signed again, reaches the subscriber, and is sealed signed', async () => {
    // The failure comes before the batch's records are written: its batch had been sealed then, unsigned,
    // where neither a retry nor the next open signed it, and a feed handed the failure ended for good.
    const signer = failingSigner();
    await withPlatform(signer.platform, async () => {
      const net = new Net();
      const h = await hubWith(50);
      net.units.set('memory://h', h.unit);
      const disk = createMemoryBackend();
      const recordsHeld = gate();
      const backend: Backend = { ...disk, write: async (path, ...rest) => {
        if (path.startsWith('records')) await recordsHeld.held;
        return disk.write(path, ...rest);
      } };
      // Every recorded batch is due for a seal at once.
      const d = await open({ path: 'd', backend, sync: { connect: net.connect, log: { rollAfter: 1 } } });
      net.units.set('memory://d', d.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't' }));
      const t = await dialer(net, { sync: { connect: net.connect, signatures: 'require' } });
      await t.sync.addNode({ url: 'memory://d', token: 't' });
      await t.sync.synced('memory://d');
      const unsigned = new Promise<string>((resolve) => d.on('error', (e) => resolve(e.code)));
      signer.failing = true;
      await d.sync.addNode({ url: 'memory://h', token: 't' });
      expect(await unsigned).toBe('UNSIGNED');
      signer.failing = false;
      recordsHeld.release();
      await internals(d).committer.idle();
      const log = internals(d).log;
      expect(log.segments).toEqual([]);
      expect(log.batches.length).toBeGreaterThan(0);
      await until(async () => (await records(t)).length === 50, [t]);
      expect(await records(t)).toEqual(await records(h.s));
      await d.close();
      const again = await open({ path: 'd', backend: disk });
      const merges = ownMerges(again);
      expect(merges.length).toBe(51);
      expect(merges.every((e) => !(e.flags & FLAG_TO_SIGN))).toBe(true);
      expect(await verifyOps(merges.map((e) => e.op))).toEqual(merges.map(() => 'ok'));
      await closeAll(again, t, h.s);
    });
  });

  it('SIG-22 LIFE-24: while its signer keeps failing a node still takes its hosts\' ops, its pushes fail with SYNC_FAILED, and close() returns', async () => {
    const signer = failingSigner();
    await withPlatform(signer.platform, async () => {
      const net = new Net();
      const h = await hubWith(50);
      const other = await hub();
      net.units.set('memory://h', h.unit);
      net.units.set('memory://o', other.unit);
      const d = await dialer(net);
      // The empty bootstrap from o logs an advance to sign late; its signing fails.
      const unsigned = new Promise<string>((resolve) => d.on('error', (e) => resolve(e.code)));
      signer.failing = true;
      await d.sync.addNode({ url: 'memory://o', token: 't' });
      expect(await unsigned).toBe('UNSIGNED');
      const failed: string[] = [];
      d.sync.on('error', (e) => failed.push(e.code));
      await d.sync.addNode({ url: 'memory://h', token: 't' });
      await until(async () => (await records(d)).length === 50, [d]);
      expect(failed).toContain('SYNC_FAILED');
      await d.close();
      signer.failing = false;
      await closeAll(other.s, h.s);
    });
  });
});
