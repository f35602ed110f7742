import { createMemoryLink, open, type HostUnit, type MemoryLink, type Storage } from '../../libs/syncom/src';
import { createReconciler, entryItem, ItemIndex, type Message, type ReconcileItem, type Reconciler } from '../../libs/syncom/src/reconcile';
import { SharedRuns, timed } from '../lib/measure';
import { baseEntry, baseItems, PER_MS, T0, updatedEntry } from './reconcile-entries';
import { reconcileUnchangedSuite } from './reconcile-unchanged';
import { bootstrapFrom, memoryBackend, reached } from '../lib/nodes';
import { makeRecord, randomIndexes } from '../lib/record';
import type { Benchmark, Profile, Suite } from '../lib/types';

/*
 * Reconciliation, three parts:
 *
 * - Set level: the pure module (createReconciler) on two sets of n items built
 *   as the engine builds them from records (entryItem of an entry shaped like
 *   an inserted makeRecord), differing in k records. Real storages of 1M signed
 *   records would take many minutes to build, and the set figures do not depend
 *   on them: the engine runs exactly this exchange over a link.
 * - Incremental bootstrap: two real storages on memory backends, signatures
 *   off, a dialer away past the host's retention while 100 records change;
 *   bytes on the memory link and time, against a full snapshot of the same
 *   store to the same dialer with a fresh cursor.
 * - Unchanged stores (reconcile-unchanged.ts): anti-entropy between a hub
 *   and a dialer holding the same records, both reading the digest index
 *   kept at commit time; CPU, not wall time.
 */

const SET = 'reconcile/set';
const BOOT = 'reconcile/bootstrap';

/** How the responder's set differs from the initiator's base set in one run. */
interface Drift {
  items: ReconcileItem[];
  /** Ids the initiator must find it holds differently or alone (have), and the responder's (need). */
  have: Set<string>;
  need: Set<string>;
}

/**
 * The host's set: the base with k records different, picked at random (a new
 * seed per run). They take turns: updated at the host (both hold it, in other
 * states and at other keys), inserted at the host (only it holds it), written
 * at the dialer and not yet at the host (only the dialer holds it). So k = 1
 * is one record updated while the dialer was away. The new writes are newer
 * than every base record, in key order at the end.
 */
function drift(base: readonly ReconcileItem[], k: number, seed: number): Drift {
  const n = base.length;
  const picked = new Set<number>();
  const rnd = randomIndexes(4 * k + 16, n, seed);
  for (let r = 0; picked.size < k; r++) {
    if (r >= rnd.length) throw new Error('drift: the generator ran out of fresh indexes');
    picked.add(rnd[r]);
  }
  const order = [...picked];
  const updated = new Set<number>();
  const dropped = new Set<number>();
  const have = new Set<string>();
  const need = new Set<string>();
  const tail: ReconcileItem[] = [];
  const after = T0 + Math.ceil(n / PER_MS) + 1000;
  let inserted = 0;
  order.forEach((i, turn) => {
    if (turn % 3 === 0) updated.add(i);
    else if (turn % 3 === 2) dropped.add(i);
    else {
      const item = entryItem(baseEntry(n + inserted++, after + turn));
      need.add(item.id);
      tail.push(item);
    }
  });
  for (const i of updated) {
    const id = base[i].id;
    have.add(id);
    need.add(id);
  }
  for (const i of dropped) have.add(base[i].id);
  const items: ReconcileItem[] = [];
  for (let i = 0; i < n; i++) if (!updated.has(i) && !dropped.has(i)) items.push(base[i]);
  // A base record's index is its key order: updates go at the end, at their new ts.
  [...updated].forEach((i, j) => tail.push(entryItem(updatedEntry(i, after + order.length + j))));
  tail.sort((x, y) => x.ts - y.ts);
  for (const it of tail) items.push(it);
  return { items, have, need };
}

/** One exchange: the figures of a run, and what it found. */
interface Exchange {
  rounds: number;
  /** UTF-8 bytes of the messages' JSON, initiator to responder and back. */
  sent: number;
  answered: number;
  ms: number;
  /** createReconciler over the responder's set, ms. */
  buildMs: number;
}

/**
 * Run the protocol from `a` (the dialer, initiator) to `b` (the host,
 * responder) to its end; every message crosses as JSON text, as a link
 * carries it. Checks what it found against `want`.
 */
function exchange(a: Reconciler, b: Reconciler, want: Drift, buildMs: number): Exchange {
  const have = new Set<string>();
  const need = new Set<string>();
  let rounds = 0;
  let sent = 0;
  let answered = 0;
  const start = performance.now();
  let msg: Message | null = a.initiate();
  while (msg) {
    if (++rounds > 64) throw new Error(`${SET}: no end after 64 round trips`);
    const out = JSON.stringify(msg);
    sent += Buffer.byteLength(out);
    const answer = b.reconcile(JSON.parse(out));
    if (!answer.ok || !answer.next) throw new Error(`${SET}: the responder refused: ${answer.ok ? 'no answer' : answer.reason}`);
    const back = JSON.stringify(answer.next);
    answered += Buffer.byteLength(back);
    const step = a.reconcile(JSON.parse(back));
    if (!step.ok) throw new Error(`${SET}: the initiator refused: ${step.reason}`);
    for (const id of step.have) have.add(id);
    for (const id of step.need) need.add(id);
    msg = step.next;
  }
  const ms = performance.now() - start;
  const same = (x: Set<string>, y: Set<string>) => x.size === y.size && [...x].every((id) => y.has(id));
  if (!same(have, want.have) || !same(need, want.need)) {
    throw new Error(`${SET}: found have ${have.size} / need ${need.size}, not ${want.have.size} / ${want.need.size}`);
  }
  return { rounds, sent, answered, ms, buildMs };
}

const sizeName = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);

/**
 * The set size whose suite also measures entryItem's rate (one item per
 * record, as a dialer builds its side every run): over that many records a
 * run, 20k with --quick.
 */
const ITEM_RATE_OF = 100_000;

/** Differences per run at each size. */
const DIFFS = [0, 1, 100, 10_000];

/**
 * Set reconciliation at n items: for each k of DIFFS, round trips, bytes
 * each way and time of one exchange, plus the time to build the host's side.
 * The dialer's side (the base set) is built once; the host's per run, with k
 * records picked anew.
 */
export function reconcileSetSuite(n: number, profile: Profile): Suite {
  const size = sizeName(n);
  const list = `${SET}/${size}/list-bytes`;
  let base: ReconcileItem[] = [];
  let dialer: Reconciler | undefined;
  let listBytes = 0;
  let seed = 0;
  const benchmarks: Benchmark[] = [
    { name: list, unit: 'bytes', baseline: null, ops: n, run: async () => listBytes },
  ];
  if (n === ITEM_RATE_OF) {
    const records = profile.quick ? 20_000 : n;
    benchmarks.unshift({
      name: `${SET}/entryItem`, unit: 'ops/s', baseline: null, ops: records,
      run: async () => {
        const entries = Array.from({ length: records }, (_, i) => baseEntry(i));
        return timed(() => { for (const e of entries) entryItem(e); });
      },
    });
  }
  benchmarks.push(indexedUnchanged(n, () => base));
  for (const k of DIFFS) {
    const at = `${SET}/${size}/diff=${k}`;
    const names = { rounds: `${at}/round-trips`, sent: `${at}/bytes-sent`, answered: `${at}/bytes-answered`, ms: `${at}/time`, build: `${at}/build-host-set` };
    const runs = new SharedRuns(Object.values(names), async () => {
      const d = drift(base, k, ++seed);
      let host: Reconciler | undefined;
      const buildMs = await timed(() => { host = createReconciler({ items: d.items }); });
      return exchange(dialer as Reconciler, host as Reconciler, d, buildMs);
    });
    benchmarks.push(
      { name: names.rounds, unit: 'round trips', baseline: null, ops: 1, run: async () => (await runs.take(names.rounds)).rounds },
      { name: names.sent, unit: 'bytes', baseline: list, ops: 1, run: async () => (await runs.take(names.sent)).sent },
      { name: names.answered, unit: 'bytes', baseline: list, ops: 1, run: async () => (await runs.take(names.answered)).answered },
      { name: names.ms, unit: 'ms', baseline: null, ops: 1, run: async () => (await runs.take(names.ms)).ms },
      { name: names.build, unit: 'ms', baseline: null, ops: n, run: async () => (await runs.take(names.build)).buildMs },
    );
  }
  return {
    benchmarks,
    async setup() {
      const ms = await timed(() => { base = baseItems(n); });
      const built = await timed(() => { dialer = createReconciler({ items: base }); });
      listBytes = listingBytes(base);
      process.stderr.write(`  built the ${size} base set: entryItem ${(ms / 1000).toFixed(1)} s, createReconciler ${(built / 1000).toFixed(1)} s\n`);
    },
    async teardown() {
      base = [];
      dialer = undefined;
    },
  };
}

/**
 * `reconcile/set/<n>/indexed-unchanged-cpu`: both sides keep their set in an
 * ItemIndex (as a storage's digest index does); per run one record changes
 * the same way on both (one put each), then a whole reconciliation runs
 * between fresh snapshots and finds nothing. CPU ms of the process: both
 * sides' snapshot, reconciler and messages. The indexes are built at the
 * first (warm-up) run.
 */
function indexedUnchanged(n: number, base: () => readonly ReconcileItem[]): Benchmark {
  let sides: [ItemIndex, ItemIndex] | undefined;
  let turn = 0;
  return {
    name: `${SET}/${sizeName(n)}/indexed-unchanged-cpu`, unit: 'ms', baseline: null, ops: n,
    run: async () => {
      sides ??= [new ItemIndex(base()), new ItemIndex(base())];
      const changed = entryItem(updatedEntry(turn % n, T0 + Math.ceil(n / PER_MS) + 10 * ++turn));
      for (const side of sides) side.put(changed);
      const before = process.cpuUsage();
      const a = createReconciler({ set: sides[0].snapshot() });
      const b = createReconciler({ set: sides[1].snapshot() });
      let rounds = 0;
      for (let msg: Message | null = a.initiate(); msg; rounds++) {
        const answer = b.reconcile(JSON.parse(JSON.stringify(msg)));
        if (!answer.ok || !answer.next) throw new Error(`${SET}: the responder refused`);
        const step = a.reconcile(JSON.parse(JSON.stringify(answer.next)));
        if (!step.ok || step.have.length + step.need.length > 0 || rounds > 0) throw new Error(`${SET}: equal indexed sets did not match in one round`);
        msg = step.next;
      }
      const d = process.cpuUsage(before);
      return (d.user + d.system) / 1000;
    },
  };
}

/**
 * Bytes of the set listed in full, one [id, tag] per item in one JSON
 * message, as an items range lists them: the naive exchange that
 * reconciliation replaces. A tag is 22 characters (RECONCILE.md, The set).
 */
function listingBytes(items: readonly ReconcileItem[]): number {
  const tag = 'A'.repeat(22);
  let bytes = Buffer.byteLength(JSON.stringify({ v: 1, ranges: [[null, 3, []]] }));
  for (const it of items) bytes += Buffer.byteLength(JSON.stringify([it.id, tag])) + 1;
  return bytes - 1;
}

/** Records changed at the host while the dialer is away (issue 6.5). */
const CHANGED = 100;
const HUB_URL = 'memory://hub';
const BATCH = 1_000;
/** The host's retention, the least allowed (GUAR-28), and short segments, so that a few hundred writes pass a cursor. */
const HOST_SYNC = { signatures: false, retention: { ops: 1000 }, log: { rollAfter: 5 } } as const;

/** One cycle: the dialer's incremental bootstrap and then a full snapshot to it, each in bytes on the link and ms. */
interface BootCycle {
  incBytes: number;
  incMs: number;
  fullBytes: number;
  fullMs: number;
}

const linkBytes = (l: MemoryLink) => {
  const s = l.stats();
  return s.bytesIn + s.bytesOut;
};

/** The next 'bootstrap' event of a storage: the records it joined. */
function nextBootstrap(s: Storage, ms = 300_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`${BOOT}: no 'bootstrap' event in ${ms / 1000} s`)); }, ms);
    const off = s.sync.on('bootstrap', (e) => { clearTimeout(timer); off(); resolve(e.records); });
  });
}

/**
 * An incremental bootstrap against a full snapshot (issue 6.5): a host of
 * 100k records (10k quick) and a dialer that bootstrapped from it once.
 * Per run: the dialer's link is cut, 100 records change at the host (each
 * updated again until the host's retention has passed the dialer's cursor),
 * the link comes back and the dialer reconciles (incremental); then the
 * dialer drops the host and adds it again, so with a fresh cursor and the
 * same data it pages the full snapshot. Bytes are what the memory link
 * carried, both ways, from reconnecting (or adding the node) to the
 * 'bootstrap' event: hello, the changes subscription, then reconcile and
 * records calls or snapshot pages. Both storages on memory backends,
 * signatures off (false) on both: 100k signed records take minutes to build,
 * and signatures change the bytes of both bootstraps alike.
 */
export function reconcileBootstrapSuite(profile: Profile): Suite {
  const size = profile.quick ? 10_000 : 100_000;
  const at = `${BOOT}/${sizeName(size)}`;
  const names = {
    fullBytes: `${at}/full-snapshot-bytes`, incBytes: `${at}/incremental-bytes`,
    fullMs: `${at}/full-snapshot-time`, incMs: `${at}/incremental-time`,
  };
  let hub: Storage | undefined;
  let dialer: Storage | undefined;
  let ids: string[] = [];
  const links: MemoryLink[] = [];
  let cycle = 0;
  const link = () => links[links.length - 1];

  /** Cut the dialer off, change 100 records at the host until its retention passed the dialer's cursor. */
  const away = async (h: Storage, d: Storage) => {
    const cursor = d.sync.peers()[0]?.cursor;
    if (!cursor || !h.replica.cursor(cursor).ok) throw new Error(`${BOOT}: the dialer holds no live cursor before going away`);
    link().cut();
    const changed = [...new Set(Array.from(randomIndexes(CHANGED * 4, size, 1000 + cycle), (i) => ids[i]))].slice(0, CHANGED);
    if (changed.length < CHANGED) throw new Error(`${BOOT}: picked ${changed.length} records, not ${CHANGED}`);
    for (let r = 0; h.replica.cursor(cursor).ok; r++) {
      if (r >= 100) throw new Error(`${BOOT}: the host's retention never passed the dialer's cursor`);
      await Promise.all(changed.map((id) => h.update(id, { n: -(cycle * 1000 + r) })));
      await h.replica.idle();
    }
  };

  const subscribed = (d: Storage) => reached(d, () => d.sync.peers()[0]?.subscribed === true, `${BOOT}: the dialer subscribed`);

  const runCycle = async (): Promise<BootCycle> => {
    const h = hub as Storage;
    const d = dialer as Storage;
    cycle++;
    await away(h, d);
    const l = link();
    const before = linkBytes(l);
    const inc = nextBootstrap(d);
    const start = performance.now();
    l.restore();
    const joined = await inc;
    const incMs = performance.now() - start;
    const incBytes = linkBytes(l) - before;
    if (joined !== CHANGED) throw new Error(`${BOOT}: the incremental bootstrap joined ${joined} records, not ${CHANGED}`);
    await subscribed(d);

    await d.sync.removeNode(HUB_URL);
    const fullStart = performance.now();
    const paged = await bootstrapFrom(d, HUB_URL);
    const fullMs = performance.now() - fullStart;
    const fullBytes = linkBytes(link());
    if (paged !== size) throw new Error(`${BOOT}: the full snapshot carried ${paged} records, not ${size}`);
    await subscribed(d);
    return { incBytes, incMs, fullBytes, fullMs };
  };
  const runs = new SharedRuns(Object.values(names), runCycle);
  return {
    benchmarks: [
      { name: names.fullBytes, unit: 'bytes', baseline: null, ops: size, run: async () => (await runs.take(names.fullBytes)).fullBytes },
      { name: names.incBytes, unit: 'bytes', baseline: names.fullBytes, ops: CHANGED, run: async () => (await runs.take(names.incBytes)).incBytes },
      { name: names.fullMs, unit: 'ms', baseline: null, ops: size, run: async () => (await runs.take(names.fullMs)).fullMs },
      { name: names.incMs, unit: 'ms', baseline: names.fullMs, ops: CHANGED, run: async () => (await runs.take(names.incMs)).incMs },
    ],
    async setup() {
      const h = await open({ path: 'reconcile-hub', backend: memoryBackend(), sync: HOST_SYNC });
      hub = h;
      const unit: HostUnit = h.sync.unit({ access: 'public' });
      const built = await timed(async () => {
        for (let i = 0; i < size; i += BATCH) {
          ids.push(...(await Promise.all(Array.from({ length: Math.min(BATCH, size - i) }, (_, k) => h.insert(makeRecord(i + k))))));
        }
      });
      const connect = () => {
        const l = createMemoryLink(unit);
        links.push(l);
        return l;
      };
      const d = await open({ path: 'reconcile-dialer', backend: memoryBackend(), sync: { ...HOST_SYNC, connect, antiEntropyInterval: 0 } });
      dialer = d;
      const first = await timed(async () => {
        const records = await bootstrapFrom(d, HUB_URL);
        if (records !== size) throw new Error(`${BOOT}: the first bootstrap carried ${records} records, not ${size}`);
        await subscribed(d);
      });
      process.stderr.write(`  built the reconcile host: ${size} records in ${(built / 1000).toFixed(1)} s, first bootstrap ${(first / 1000).toFixed(1)} s\n`);
    },
    async teardown() {
      await dialer?.close();
      await hub?.close();
      dialer = undefined;
      hub = undefined;
      ids = [];
      links.length = 0;
    },
  };
}

/**
 * Set reconciliation at 100k and 1M items (50k only with --quick, which must
 * stay under two minutes), the incremental bootstrap, and anti-entropy over
 * an unchanged store.
 */
export function reconcileSuites(profile: Profile): Suite[] {
  const sizes = profile.quick ? [50_000] : [100_000, 1_000_000];
  return [...sizes.map((n) => reconcileSetSuite(n, profile)), reconcileBootstrapSuite(profile), reconcileUnchangedSuite(profile)];
}
