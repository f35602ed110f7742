import { internals } from '../../src/testing/internals';
import type { Entry } from '../../src/crdt';
import type { MemoryBackend } from '../../src/backend';
import type { Storage } from '../../src';
import type { Dialer } from '../../src/sync/dial/dialer';
import { joinPage } from '../../src/sync/dial/bootstrap';
import { reconcileBootstrap } from '../../src/sync/dial/incremental-bootstrap';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';

/**
 * Purge is final on every path (OPS-9, OPS-10, OPS-11, GUAR-20): however a
 * node learns of a purge — the op, a snapshot page, an incremental
 * bootstrap, a reconciliation — no log entry or record file of that node
 * keeps the id's payload afterwards, and no later merge brings it back.
 * Each case checks every file of the node's memory backend.
 */

const URL = 'memory://h';
const SECRET = 'PURGE-SECRET-4c1d';

/** Files of a storage's backend whose text holds the string. */
function holding(s: Storage, text: string): string[] {
  const b = internals(s).backend as MemoryBackend;
  return [...b.files()].filter(([, content]) => content.includes(text)).map(([path]) => path);
}

/** A hub and a dialer whose beforeApply skips purge ops while `skip.purge` is true: the purge must come another way. */
async function pair(o: { skipPurge?: boolean } = {}) {
  const net = new Net();
  const skip = { purge: !!o.skipPurge };
  const h = await hub();
  net.units.set(URL, h.unit);
  const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0, hooks: { beforeApply: ({ op }) => !(skip.purge && op.type === 'purge') } } });
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected, [d]);
  return { net, h, d, skip };
}

/** The hub writes x with the secret, the dialer takes it; then the hub purges x and the dialer logs the purge op. */
async function purgedAtHub(h: { s: Storage }, d: Storage): Promise<string> {
  const x = await h.s.insert({ title: SECRET, body: `${SECRET}-body` });
  await until(async () => (await d.get(x)) !== undefined, [d]);
  await internals(d).committer.idle();
  expect(holding(d, SECRET).length).toBeGreaterThan(0);
  const purges = internals(h.s).log.vector[h.s.id];
  await h.s.purge(x);
  await until(() => (internals(d).log.vector[h.s.id] ?? 0) > purges, [d]);
  await internals(d).committer.idle();
  return x;
}

/** The dialer's Dialer for the hub (test access to its reconcile run). */
const dialerOf = (d: Storage) => (d.sync as unknown as { dialers: Map<string, Dialer> }).dialers.get(URL) as Dialer;

describe('purge is final on every path', () => {
  it('OPS-11, GUAR-20: a purge op from the feed scrubs every file of the dialer', async () => {
    const { h, d } = await pair();
    const x = await purgedAtHub(h, d);
    expect(await d.get(x)).toBeUndefined();
    expect(holding(d, SECRET)).toEqual([]);
    await closeAll(d, h.s);
  });

  it('OPS-11, GUAR-20: a purge learned by reconciliation (forceSync, as anti-entropy runs it) scrubs the log and the record files; the marker merge stays in the log', async () => {
    const { h, d } = await pair({ skipPurge: true });
    const x = await purgedAtHub(h, d);
    expect(await d.get(x)).toMatchObject({ title: SECRET });
    await d.sync.forceSync();
    await internals(d).committer.idle();
    expect(await d.get(x)).toBeUndefined();
    expect(internals(d).committer.committed.get(x)?.purged).toBeDefined();
    expect(holding(d, SECRET)).toEqual([]);
    // The purge travels on: the merge that joined the marker keeps its data, which holds no payload.
    const markers = internals(d).log.read(internals(d).log.floor).filter((e) => e.op.id === x && e.op.type === 'merge');
    expect(markers.map((e) => (e.op.data as Entry | undefined)?.purged !== undefined)).toEqual([true]);
    await closeAll(d, h.s);
  });

  it('OPS-11, BOOT-4: a purge learned by an incremental bootstrap scrubs the dialer', async () => {
    const { h, d } = await pair({ skipPurge: true });
    const x = await purgedAtHub(h, d);
    await reconcileBootstrap(dialerOf(d).reconcileRun());
    await internals(d).committer.idle();
    expect(await d.get(x)).toBeUndefined();
    expect(holding(d, SECRET)).toEqual([]);
    await closeAll(d, h.s);
  });

  it('OPS-11, BOOT-1: a purge marker in a snapshot page scrubs what the dialer wrote of the id before its first contact', async () => {
    const net = new Net();
    const h = await hub();
    net.units.set(URL, h.unit);
    await h.s.set('x', { title: 'at the hub' });
    await h.s.purge('x');
    const d = await dialer(net, { sync: { connect: net.connect, antiEntropyInterval: 0 } });
    await d.set('x', { title: SECRET });
    await internals(d).committer.idle();
    expect(holding(d, SECRET).length).toBeGreaterThan(0);
    const boots: unknown[] = [];
    d.sync.on('bootstrap', (e) => boots.push(e));
    await d.sync.addNode({ url: URL, token: 't' });
    await until(() => boots.length === 1, [d]);
    await internals(d).committer.idle();
    expect(await d.get('x')).toBeUndefined();
    expect(holding(d, SECRET)).toEqual([]);
    await expect(d.set('x', { title: 'again' })).rejects.toMatchObject({ code: 'PURGED' });
    await closeAll(d, h.s);
  });

  it('OPS-10: a late snapshot or reconciliation entry carrying the purged record\'s payload joins nothing and logs nothing of it', async () => {
    const { h, d } = await pair();
    const x = await purgedAtHub(h, d);
    // A stale copy of x, as a host that never saw the purge would serve it.
    const stale = await hub();
    await stale.s.set(x, { title: `${SECRET}-late` });
    const entry = internals(stale.s).committer.committed.get(x) as Entry;
    const head = internals(d).log.head;
    await Promise.all(joinPage(d.replica, [entry], stale.s.id, { url: 'memory://stale', node: stale.s.id }));
    await internals(d).committer.idle();
    expect(internals(d).log.head).toBe(head);
    expect(await d.get(x)).toBeUndefined();
    expect(holding(d, SECRET)).toEqual([]);
    await closeAll(d, h.s, stale.s);
  });
});
