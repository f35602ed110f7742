import { createMemoryBackend, IO_POINTS, type MemoryBackend, type MemorySnapshot } from '../../src/backend';
import { open, type OpenOptions, type Storage } from '../../src';
import type { HostUnit } from '../../src/link';
import { internals } from '../../src/testing/internals';
import { streamKey } from '../../src/op';
import { nodeKeys, T0 } from '../log/helpers';
import { closeAll, Net, records, seeded } from '../sync/helpers';
import { distinctCrashes } from './harness';

/**
 * The registry's saves, swept: a dialer registers a hub (addNode: its file
 * under remote/), bootstraps in 3 pages (merge ops signed late, then the
 * cursor saved), takes pages (cursor saved after
 * each), pushes its own writes (acks saved), is disabled and enabled again
 * (enableNode), removed (removeNode: its file goes) and added again. The
 * dialer's process dies at each I/O point of its disk in turn; reopened from
 * each distinct disk a crash can leave, against the hub as the crash left it,
 * it must open, hold every write it resolved, give its next op a seq above
 * every one the hub holds from it (a seq signed twice is a fork there), and
 * converge with the hub.
 */
const URL = 'memory://hub';

/** A disk whose failed operations (a crash) call `failed`: waits end at the crash, not at their bound. */
function watched(disk: MemoryBackend, failed: () => void): MemoryBackend {
  const wrap = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A) => f(...a).catch((e: unknown) => {
    failed();
    throw e;
  });
  return { ...disk, write: wrap(disk.write), overwrite: wrap(disk.overwrite), remove: wrap(disk.remove), mkdir: wrap(disk.mkdir), append: disk.append && wrap(disk.append) };
}

/** Resolve once `check` holds (or `dead` says the disk died), re-checking at the storages' events; bounded. */
function settle(check: () => Promise<boolean>, ss: Storage[], wake: Set<() => void>, dead = () => false): Promise<void> {
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(t);
      offs.forEach((o) => o());
      resolve();
    };
    const t = setTimeout(finish, 4_000);
    const test = () => void check().then((ok) => (ok || dead()) && finish(), finish);
    wake.add(test);
    offs.push(() => wake.delete(test));
    for (const s of ss) {
      offs.push(s.on('change', test), s.on('error', test));
      for (const ev of ['sync', 'bootstrap', 'peer', 'error', 'node'] as const) offs.push(s.sync.on(ev, test));
    }
    test();
  });
}

const has = (s: Storage, id: string) => async () => (await s.get(id)) !== undefined;
const same = (a: Storage, b: Storage) => async () => JSON.stringify(await records(a)) === JSON.stringify(await records(b));

/** What the dialer's run saw: its writes that resolved, and the highest seq of each own stream announced. */
interface RegistryRun {
  resolved: string[];
  /** removeNode() resolved, and no addNode() of the url began after it. */
  removed: boolean;
  announced: Map<string, number>;
}

/** A hub on `disk`, its unit on the net. */
async function openHub(net: Net, disk: MemoryBackend): Promise<{ h: Storage; unit: HostUnit }> {
  const h = await open({ path: 'h', backend: disk, now: () => T0 });
  // Pages of 2: the bootstrap joins 3 pages, its merge ops signed after their join (late signing).
  const unit = h.sync.unit({ access: 'public', authorize: (_c, hello) => hello.token === 't', pageSize: 2 });
  net.units.set(URL, unit);
  return { h, unit };
}

/** The dialer's steps, each awaited in turn; stops at the first call the dead disk fails. */
async function dialerRun(d: Storage, h: Storage, disk: MemoryBackend, wake: Set<() => void>): Promise<RegistryRun> {
  const run: RegistryRun = { resolved: [], removed: false, announced: new Map() };
  d.on('change', (op) => {
    const k = streamKey(op.origin, op.scope, op.from);
    if (op.origin === d.id) run.announced.set(k, Math.max(op.seq, run.announced.get(k) ?? 0));
  });
  const write = async (id: string) => {
    await d.set(id, { title: id });
    run.resolved.push(id);
  };
  const wait = (check: () => Promise<boolean>) => settle(check, [d, h], wake, () => disk.isCrashed());
  try {
    await d.sync.addNode({ url: URL, token: 't' });
    await wait(has(d, 'h5'));
    await write('d1');
    await h.set('h1', { title: 'h1' });
    await wait(async () => (await has(d, 'h1')()) && has(h, 'd1')());
    await write('d2');
    await wait(has(h, 'd2'));
    await d.sync.enableNode(URL, false);
    await write('d3');
    await h.set('h2', { title: 'h2' });
    await d.sync.enableNode(URL, true);
    await wait(same(d, h));
    await d.sync.removeNode(URL);
    run.removed = true;
    await write('d4');
    run.removed = false;
    await d.sync.addNode({ url: URL, token: 't' });
    await wait(same(d, h));
  } catch {
    // The disk died under a registry call or a write: the run ends here.
  }
  return run;
}

/** The dialer's options: its clock, its durability, the net to dial over. */
const dialerOptions = (net: Net, durable: boolean): Partial<OpenOptions> => ({ now: () => T0, durable, sync: { connect: net.connect, antiEntropyInterval: 0, log: { rollAfter: 2 } } });

/** One run, the dialer's disk dying at its k-th I/O point (none: a clean run); the hub closed, its disk kept. */
async function scene(k: number | undefined, durable: boolean): Promise<{ hub: MemorySnapshot; disk: MemoryBackend; run: RegistryRun; points: number }> {
  const net = new Net();
  const hubDisk = await seeded();
  const { h } = await openHub(net, hubDisk);
  for (let i = 0; i < 6; i++) await h.set(`h${i}`, { title: `h${i}` });
  const disk = createMemoryBackend({ files: await nodeKeys() });
  const wake = new Set<() => void>();
  const d = await open({ path: 'd', backend: watched(disk, () => wake.forEach((w) => w())), ...dialerOptions(net, durable) });
  d.on('error', () => undefined);
  d.sync.on('error', () => undefined);
  const base = disk.opCount(IO_POINTS);
  if (k !== undefined) disk.crashAt(k, { ops: IO_POINTS });
  const run = await dialerRun(d, h, disk, wake);
  await closeAll(d, h);
  return { hub: hubDisk.snapshot(), disk, run, points: disk.opCount(IO_POINTS) - base };
}

/** Reopen the dialer on a crashed disk, and the hub as the crash left it; the first problem, or undefined. */
async function check(disk: MemoryBackend, hub: MemorySnapshot, run: RegistryRun, durable: boolean, label: string): Promise<string | undefined> {
  const net = new Net();
  const { h } = await openHub(net, createMemoryBackend({ from: hub }));
  let d: Storage | undefined;
  try {
    d = await open({ path: 'd', backend: disk, ...dialerOptions(net, durable) });
    d.on('error', () => undefined);
    d.sync.on('error', () => undefined);
    for (const id of run.resolved) if ((await d.get(id)) === undefined) return `${label}: resolved write ${id} lost`;
    const held = internals(h).log.vector[d.id] ?? 0;
    await d.set('after-crash', { title: label });
    const op = internals(d).log.at(internals(d).log.head)?.op;
    const announced = op ? run.announced.get(streamKey(op.origin, op.scope, op.from)) ?? 0 : 0;
    if (!op || op.seq <= held || op.seq <= announced) return `${label}: next seq ${op?.seq} is not above the hub's ${held} and the announced ${announced}`;
    // Registered as the crash left it: added again if its file never landed (or its removal did), enabled if disabled.
    const rec = d.sync.listNodes().find((n) => n.url === URL);
    // A removal the app was told of stays, as a durable write does (a power cut undid it: the node was dialed again).
    if (rec && run.removed && durable) return `${label}: removeNode() resolved, yet the node is registered again`;
    if (!rec) await d.sync.addNode({ url: URL, token: 't' });
    else if (!rec.enabled) await d.sync.enableNode(URL, true);
    const dd = d;
    await settle(async () => (await has(h, 'after-crash')()) && same(dd, h)(), [d, h], new Set());
    if (!(await same(d, h)())) return `${label}: the dialer and the hub did not converge\n${JSON.stringify({ d: await records(d), h: await records(h) }).slice(0, 1500)}`;
    return undefined;
  } catch (e) {
    return `${label}: ${d ? 'the reopened dialer failed' : 'open failed'}: ${(e as Error).message}`;
  } finally {
    await closeAll(...(d ? [d] : []), h);
  }
}

describe('the registry on a durable store', () => {
  it('REG-4, GUAR-17: a node removeNode() let go of stays removed after a power cut, as the write after it stays written', async () => {
    const disk = createMemoryBackend({ files: await nodeKeys() });
    const d = await open({ path: 'd', backend: disk, durable: true, now: () => T0 });
    await d.sync.addNode({ url: URL, token: 't' });
    await d.sync.removeNode(URL);
    await d.set('a', { title: 'after the removal' });
    await d.close();
    const again = await open({ path: 'd', backend: disk.crash('lost'), durable: true, now: () => T0 });
    expect(await again.get('a')).toEqual({ title: 'after the removal' });
    expect(again.sync.listNodes()).toEqual([]);
    await again.close();
  });
});

describe('crash recovery: a crash at every I/O point of the registry saves (addNode, cursors, acks, enableNode, removeNode)', () => {
  it.each([
    ['durable, every damage', true],
    ['not durable, a process crash', false],
  ])('REG-4, REG-7, GUAR-6, GUAR-7 (%s): the dialer opens, keeps its resolved writes, signs no seq the hub holds again, and converges', async (_how, durable) => {
    const clean = await scene(undefined, durable);
    expect(clean.run.resolved).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(clean.points).toBeGreaterThan(30);
    const problems: string[] = [];
    for (let k = 1; k <= clean.points; k++) {
      const { hub, disk, run } = await scene(k, durable);
      const disks = durable ? distinctCrashes(disk, k) : [{ damage: 'none', disk: disk.crash('none') }];
      for (const { damage, disk: after } of disks) {
        const p = await check(after, hub, run, durable, `crash at ${k}/${clean.points} ('${damage}')`);
        if (p) problems.push(p);
      }
    }
    expect(problems.slice(0, 3)).toEqual([]);
  }, 400_000);
});
