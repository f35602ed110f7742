import { internals } from '../../src/testing/internals';
import 'reflect-metadata';
import type { Storage } from '../../src';
import { FLAG_HELD } from '../../src/op';
import type { Dialer } from '../../src/sync/dial/dialer';
import { reconcileBootstrap } from '../../src/sync/dial/incremental-bootstrap';
import { buildNoteClass } from '../schema/fixtures';
import { closeAll, dialer, hub, Net, until } from '../sync/helpers';
import { reopen } from '../sync/scenario-helpers';

/**
 * A hold holds on every path (GUAR-26): with ahead 'hold', the
 * state of a newer schema version that arrives by a snapshot page, a
 * reconciliation or an incremental bootstrap waits as a held op does —
 * flagged held in the log, not applied, counted in schemaInfo().held — and
 * lands once the node reopens with the newer schema.
 */

const URL = 'memory://h';
const v1 = { version: 1, ahead: 'hold' as const, types: { Note: buildNoteClass() } };
const v2 = { version: 2, types: { Note: buildNoteClass() } };
const note = (title: string) => ({ $type: 'Note', title, tags: [] });

/** A v2 hub and a v1 dialer (ahead 'hold'),. */
async function pair() {
  const net = new Net();
  const h = await hub({}, { schema: v2 });
  net.units.set(URL, h.unit);
  const d = await dialer(net, { schema: v1, sync: { connect: net.connect, antiEntropyInterval: 0 } });
  return { net, h, d };
}

async function greet(d: Storage): Promise<void> {
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && d.sync.peers()[0].connected && !d.sync.peers()[0].bootstrapping, [d]);
}

/** The held merge ops of an id in a storage's log. */
const heldMerges = (s: Storage, id: string) => internals(s).log.read(internals(s).log.floor).filter((e) => e.op.id === id && e.op.type === 'merge' && e.flags & FLAG_HELD);

/** The dialer's Dialer for the hub (test access to its reconcile run). */
const dialerOf = (d: Storage) => (d.sync as unknown as { dialers: Map<string, Dialer> }).dialers.get(URL) as Dialer;

/** Close a held dialer and reopen it with the newer schema: the held state lands. */
async function upgraded(d: Storage, id: string): Promise<Storage> {
  await d.close();
  const up = await reopen(d, { schema: v2 });
  expect(await up.get(id)).toMatchObject({ title: 'from v2' });
  return up;
}

describe('ahead: hold holds on every path', () => {
  it('GUAR-26, BOOT-4: a v2 record in a snapshot page is logged as a held merge, not applied, and lands after the upgrade', async () => {
    const { h, d } = await pair();
    const x = await h.s.insert(note('from v2'));
    await greet(d);
    await internals(d).committer.idle();
    expect(await d.has(x)).toBe(false);
    expect(heldMerges(d, x).map((e) => e.op.v)).toEqual([2]);
    expect(d.sync.schemaInfo()?.held.count).toBeGreaterThanOrEqual(1);
    const up = await upgraded(d, x);
    await closeAll(up, h.s);
  });

  it('GUAR-26: a v2 record fetched by reconciliation waits held; a second run does not log it again', async () => {
    const { h, d } = await pair();
    await greet(d);
    const x = await h.s.insert(note('from v2'));
    await until(() => d.sync.schemaInfo()?.held.count === 1, [d]);
    await d.sync.forceSync();
    await d.sync.forceSync();
    await internals(d).committer.idle();
    expect(await d.has(x)).toBe(false);
    expect(internals(d).committer.committed.get(x)).toBeUndefined();
    expect(heldMerges(d, x)).toHaveLength(1);
    expect(d.sync.schemaInfo()?.held.count).toBe(2);
    const up = await upgraded(d, x);
    await closeAll(up, h.s);
  });

  it('GUAR-26, BOOT-1: a v2 record joined by an incremental bootstrap waits held', async () => {
    const { h, d } = await pair();
    await greet(d);
    await d.insert(note('mine'));
    const x = await h.s.insert(note('from v2'));
    await until(() => d.sync.schemaInfo()?.held.count === 1, [d]);
    await reconcileBootstrap(dialerOf(d).reconcileRun());
    await internals(d).committer.idle();
    expect(await d.has(x)).toBe(false);
    expect(heldMerges(d, x)).toHaveLength(1);
    const up = await upgraded(d, x);
    await closeAll(up, h.s);
  });

  it('GUAR-26: a v1 record whose v2 update is held here stays held when reconciliation brings the host\'s state; later runs log no merge of it', async () => {
    const { h, d } = await pair();
    await greet(d);
    const x = await d.insert(note('from v1'));
    await until(async () => h.s.has(x), [d, h.s]);
    await h.s.update(x, { title: 'from v2' });
    await until(() => d.sync.schemaInfo()?.held.count === 1, [d]);
    const before = internals(d).log.head;
    for (let i = 0; i < 3; i++) await d.sync.forceSync();
    await internals(d).committer.idle();
    expect(await d.get(x)).toMatchObject({ title: 'from v1' });
    const logged = internals(d).log.read(before).filter((e) => e.op.id === x);
    expect(logged.map((e) => [e.op.type, !!(e.flags & FLAG_HELD), e.op.v])).toEqual([['merge', true, 2]]);
    const up = await upgraded(d, x);
    await closeAll(up, h.s);
  });
});
