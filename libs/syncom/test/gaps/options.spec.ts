import { internals } from '../../src/testing/internals';
import { applyPeerOps, open, type HostUnit, type NodeRecord } from '../../src';
import { closeAll, dialer, hub, Net, node, until } from '../sync/helpers';
import { craft, gate, record, waitFor, wrapUnit } from '../sync/scenario-helpers';

const URL = 'memory://h';

/** A hub whose unit is wrapped: `sizes` holds the op count of every push it answered. */
async function countingHub(unitOptions: Parameters<typeof hub>[0] = {}, hold?: { armed: boolean; wait: Promise<void> }) {
  const h = await hub(unitOptions);
  const sizes: number[] = [];
  const unit: HostUnit = wrapUnit(h.unit, async (method, args, _c, next) => {
    if (method !== 'push') return next();
    if (hold?.armed) { hold.armed = false; await hold.wait; }
    sizes.push((args as { ops: unknown[] }).ops.length);
    return next();
  });
  return { ...h, unit, sizes };
}

/** A dialer (maxOutbox 2) added to a counting hub, bootstrapped; the hub will hold its next push until g.open(). */
async function heldPush() {
  const g = gate();
  const hold = { armed: false, wait: g.wait };
  const h = await countingHub({}, hold);
  const net = new Net();
  net.units.set(URL, h.unit);
  const d = await dialer(net, { sync: { maxOutbox: 2 } });
  const boots = record(d, 'bootstrap');
  await d.sync.addNode({ url: URL, token: 't' });
  await waitFor(() => boots.length === 1, [d]);
  hold.armed = true;
  return { h, d, g };
}

describe('sync options', () => {
  it('OPT-9 OPT-10: ops queued for a peer beyond maxOutbox are dropped and the peer is marked behind; the recovery pushes everything', async () => {
    // The host sits on the first push: what follows queues in the outbox.
    const { h, d, g } = await heldPush();
    await d.insert({ n: 1 });
    await d.insert({ n: 2 });
    await d.insert({ n: 3 });
    expect(d.sync.peers()[0]).toMatchObject({ pending: 2, behind: false });
    await d.insert({ n: 4 });
    expect(d.sync.peers()[0]).toMatchObject({ pending: 0, behind: true });
    await d.insert({ n: 5 });
    g.open();
    await waitFor(() => internals(h.s).log.vector[d.id] === 5 && !d.sync.peers()[0].behind, [d, h.s]);
    // The held push carried op 1; the recovery pushed 2..5 from the host's vector, none twice.
    expect(h.sizes).toEqual([1, 4]);
    expect(d.sync.peers()[0]).toMatchObject({ pending: 0, behind: false, lastError: null });
    await closeAll(d, h.s);
  });

  it('OPT-10 HOST-17: while a peer is behind, the commits meanwhile share one queued recovery: the log is scanned once, not once per commit', async () => {
    const { h, d, g } = await heldPush();
    for (let n = 1; n <= 4; n++) await d.insert({ n });
    expect(d.sync.peers()[0]).toMatchObject({ behind: true });
    // Count the whole-log reads of a recovery (read(floor), no count) from here on.
    const log = internals(d).log;
    const read = log.read.bind(log);
    let scans = 0;
    log.read = ((from: number, count?: number) => {
      if (count === undefined) scans++;
      return read(from, count);
    }) as typeof log.read;
    for (let n = 5; n <= 24; n++) await d.insert({ n });
    g.open();
    await waitFor(() => internals(h.s).log.vector[d.id] === 24 && !d.sync.peers()[0].behind, [d, h.s]);
    expect(scans).toBeLessThanOrEqual(2);
    expect(h.sizes.reduce((a, b) => a + b, 0)).toBe(24);
    await closeAll(d, h.s);
  });

  it('OPT-12: the dialer\'s pageSize sizes its pushes; the host unit\'s pageSize sizes snapshot pages', async () => {
    const h = await countingHub({ pageSize: 4 });
    const net = new Net();
    net.units.set(URL, h.unit);
    for (let i = 0; i < 10; i++) await h.s.insert({ at: 'host', i });
    const d = await dialer(net, { sync: { pageSize: 3, autoStart: false } });
    for (let i = 0; i < 7; i++) await d.insert({ at: 'dialer', i });
    const progress = record(d, 'progress');
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.start();
    await waitFor(() => boots.length === 1 && internals(h.s).log.vector[d.id] === 7, [d, h.s]);
    expect(h.sizes).toEqual([3, 3, 1]);
    // The handshake pushed before the subscription asked for a snapshot: the host pages 17 records, 4 a page.
    expect(progress.map((p, i) => p.received - (progress[i - 1]?.received ?? 0))).toEqual([4, 4, 4, 4, 1]);
    expect(boots).toEqual([{ url: URL, records: 17 }]);
    await closeAll(d, h.s);
  });

  it('OPT-12: without a pageSize option a dialer pushes 500 ops a page', async () => {
    const h = await countingHub();
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net, { sync: { autoStart: false } });
    for (let i = 0; i < 1001; i++) await d.insert({ i });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.start();
    await waitFor(() => internals(h.s).log.vector[d.id] === 1001, [d, h.s]);
    expect(h.sizes).toEqual([500, 500, 1]);
    await closeAll(d, h.s);
  });

  it('OPT-9: without a maxOutbox option 10,000 ops wait for a peer; the 10,001st drops them and marks it behind', async () => {
    const g = gate();
    const hold = { armed: false, wait: g.wait };
    const h = await countingHub({}, hold);
    const net = new Net();
    net.units.set(URL, h.unit);
    const d = await dialer(net);
    const boots = record(d, 'bootstrap');
    await d.sync.addNode({ url: URL, token: 't' });
    await waitFor(() => boots.length === 1, [d]);
    hold.armed = true;
    // The first write's push is held at the host: the next ones queue.
    for (let n = 0; n <= 10_000; n++) await d.insert({ n });
    expect(d.sync.peers()[0]).toMatchObject({ pending: 10_000, behind: false });
    await d.insert({ n: 10_001 });
    expect(d.sync.peers()[0]).toMatchObject({ pending: 0, behind: true });
    g.open();
    await waitFor(() => internals(h.s).log.vector[d.id] === 10_002 && !d.sync.peers()[0].behind, [d, h.s]);
    await closeAll(d, h.s);
  });

  it('OPT-13: beforeConnect false declines to dial a node — connect() is never called for it', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set('memory://yes', h.unit);
    net.units.set('memory://no', h.unit);
    const asked: string[] = [];
    const connected: string[] = [];
    const d = await node({
      sync: {
        connect: (n) => (connected.push(n.url), net.connect(n)),
        hooks: { beforeConnect: async (n) => (asked.push(n.url), n.url !== 'memory://no') },
      },
    });
    const peers = record(d, 'peer');
    await d.sync.addNode({ url: 'memory://no', token: 't' });
    await d.sync.addNode({ url: 'memory://yes', token: 't' });
    await waitFor(() => peers.length === 1, [d]);
    expect(asked).toEqual(['memory://no', 'memory://yes']);
    expect(connected).toEqual(['memory://yes']);
    expect(peers[0]).toMatchObject({ url: 'memory://yes', connected: true });
    expect(d.sync.peers().find((p) => p.url === 'memory://no')).toMatchObject({ connected: false, subscribed: false });
    await closeAll(d, h.s);
  });

  it('OPT-15: sync.signatures takes \'verify\' (the default), \'require\' or false, each with its effect; open() refuses anything else with INVALID_ARGUMENT', async () => {
    const modes = [undefined, 'verify', 'require', false] as const;
    const opened = await Promise.all(modes.map((signatures) => node(signatures === undefined ? {} : { sync: { signatures } })));
    expect(opened.map((s) => s.sync.signatures)).toEqual(['verify', 'verify', 'require', false]);
    // The effects (SIG-13..15): what each takes of an unsigned and a forged op from a peer; whether it signs its own.
    const p = await node();
    const unsigned = { origin: p.id, seq: 1, ts: Date.now(), type: 'write', id: 'u', scope: '*', data: { u: 1 } };
    const forged = { ...craft(p, { type: 'write', id: 'f', data: { f: 1 } }, '*', 2), data: { f: 2 } };
    const taken: [number, number, boolean][] = [];
    for (const s of opened) {
      const via = { url: 'memory://p', node: p.id };
      const a = await applyPeerOps(s, [unsigned], { via });
      const b = await applyPeerOps(s, [forged], { via });
      await s.insert({ own: 1 });
      taken.push([a.applied, b.applied, typeof internals(s).log.read(0).at(-1)!.op.sig === 'string']);
    }
    expect(taken).toEqual([[1, 0, true], [1, 0, true], [0, 0, true], [1, 1, false]]);
    for (const bad of ['strict', true, 'Require', 0, null, 'none']) {
      await expect(open({ path: 'x', backend: 'memory', sync: { signatures: bad as never } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    await closeAll(...opened, p);
  });

  it('PROTO-2: a node dials the nodes in its registry through connect(node), which gets the registry record; the far end hosts the unit', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    const given: NodeRecord[] = [];
    const d = await node({ sync: { connect: (n) => (given.push(n), net.connect(n)) } });
    const hellos = record(h.s, 'hello');
    await d.sync.addNode({ url: URL, token: 't', scopes: ['Doc', '*'] });
    await waitFor(() => hellos.length === 1, [h.s]);
    expect(given).toHaveLength(1);
    expect(given[0]).toMatchObject({ url: URL, token: 't', scopes: ['Doc', '*'], enabled: true, cursor: null });
    expect(given[0]).toEqual(expect.objectContaining({ remote: expect.any(Object), acked: expect.any(Object) }));
    expect(hellos[0]).toMatchObject({ node: d.id, scopes: ['Doc', '*'] });
    const id = await d.insert({ x: 1 });
    await until(() => h.s.has(id), [h.s]);
    await closeAll(d, h.s);
  });
});
