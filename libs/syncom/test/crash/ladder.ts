import { internals } from '../../src/testing/internals';
import { createMemoryLink, open, type Storage } from '../../src';
import { IO_POINTS, type MemoryBackend } from '../../src/backend';
import { FLAG_SEALED, streamKey } from '../../src/op';
import { openOn, viewsOf } from '../log/helpers';
import { records, seeded, until } from '../sync/helpers';
import { distinctCrashes, type RunOptions } from './harness';
import { CRASH_STRIDE, crashPoints, traced } from './points';

/**
 * A sweep of one operation's I/O steps, by states: the calls are awaited one
 * at a time, and the records are noted after each resolves. A crash while
 * call r+1 is in flight may leave it landed or not, never anything else: the
 * reopened records are state r or state r+1 of a clean run (every resolved
 * call kept, none made up, nothing half-applied).
 */

/** One call of a ladder, given the storage and the options it was opened with. */
export type Call = (s: Storage) => Promise<unknown>;

/** What a (possibly crashed) ladder run saw. */
export interface Ladder {
  opened: boolean;
  /** The records after each resolved call (states[0]: after open). */
  states: string[];
  /** Calls resolved before the first that failed. */
  resolved: number;
  /** The highest seq of each own stream announced (passed the commit point, maybe sent to a peer). */
  announced: Map<string, number>;
}

const viewText = (s: Storage) => JSON.stringify(viewsOf(internals(s).committer.committed));

/** Open, await each call in turn (stop at the first that fails), close. Never throws. */
export async function climb(b: MemoryBackend, calls: readonly Call[], options: RunOptions): Promise<Ladder> {
  const l: Ladder = { opened: false, states: [], resolved: 0, announced: new Map() };
  let s: Storage;
  try {
    s = await openOn(b, options);
  } catch {
    return l;
  }
  l.opened = true;
  s.on('error', () => undefined);
  s.on('change', (op) => {
    if (op.origin !== s.id || s.sealed.has(op.id)) return;
    const k = streamKey(op.origin, op.scope, op.from);
    l.announced.set(k, Math.max(op.seq, l.announced.get(k) ?? 0));
  });
  l.states.push(viewText(s));
  for (const call of calls) {
    try {
      await call(s);
    } catch {
      break;
    }
    l.resolved++;
    l.states.push(viewText(s));
  }
  await internals(s).committer.idle().catch(() => undefined);
  await s.close().catch(() => undefined);
  return l;
}

/**
 * A fresh peer bootstraps from `s` over a memory link and must come to hold
 * its records (but the sealed ones): what the crash left is a state peers can take.
 */
export async function peerConverges(s: Storage): Promise<string | undefined> {
  const unit = s.sync.unit({ access: 'public', authorize: (_c, h) => h.token === 't' });
  const peer = await open({ path: 'peer', backend: await seeded(), sync: { connect: () => createMemoryLink(unit), antiEntropyInterval: 0 } });
  peer.sync.on('error', () => undefined);
  try {
    // A record sealed here never leaves this node (GUAR-19): the peer holds the others.
    const shared = async () => (await records(s)).filter(([id]) => !s.sealed.has(id as string));
    const want = JSON.stringify(await shared());
    await peer.sync.addNode({ url: 'memory://recovered', token: 't' });
    await until(async () => JSON.stringify(await records(peer)) === want, [peer, s], 5_000).catch(() => undefined);
    const got = JSON.stringify(await records(peer));
    return got === want ? undefined : `a peer did not converge\n${JSON.stringify({ want, got }).slice(0, 1500)}`;
  } finally {
    await peer.close().catch(() => undefined);
  }
}

/**
 * Reopen a crashed disk and check (a) the open succeeds, (b) the records are
 * state r or r+1 of the ladder, (c) the next own op's seq is above every seq
 * announced before and every seq the log holds, (d) a peer syncing afterwards
 * converges. Returns the first problem, labelled, or undefined.
 */
export async function checkLadder(disk: MemoryBackend, l: Ladder, clean: Ladder, options: RunOptions, label: string, peer = true): Promise<string | undefined> {
  let s: Storage;
  try {
    s = await openOn(disk, options);
  } catch (e) {
    return `${label}: open failed: ${(e as Error).message}`;
  }
  s.on('error', () => undefined);
  try {
    const views = viewText(s);
    // The call in flight at the crash (rejected, or never issued): landed, as in the clean run, or not.
    const ok = l.opened ? [l.states[l.resolved], clean.states[l.resolved + 1]].filter((x) => x !== undefined) : [clean.states[0]];
    if (l.opened && l.states[l.resolved] !== clean.states[l.resolved]) return `${label}: the run before the crash differs from the clean run`;
    if (!ok.includes(views)) return `${label}: records are neither state ${l.resolved} nor ${l.resolved + 1}\n${JSON.stringify({ views, ok }).slice(0, 2000)}`;
    const log = internals(s).log;
    const seen = new Set<string>();
    for (const e of log.read(log.floor)) {
      // Sealed ops run in a stream of their own (GUAR-19), numbered apart.
      const k = `${streamKey(e.op.origin, e.op.scope, e.op.from)}${e.flags & FLAG_SEALED ? '/sealed' : ''}#${e.op.seq}`;
      if (seen.has(k)) return `${label}: seq logged twice: ${k}`;
      seen.add(k);
    }
    const before = log.vector[s.id] ?? 0;
    await s.set('after-crash', { title: label });
    const op = log.at(log.head)?.op;
    const stream = op && streamKey(op.origin, op.scope, op.from);
    if (!op || op.id !== 'after-crash') return `${label}: the write after the crash is not the newest log entry`;
    if (op.seq <= before || op.seq <= (l.announced.get(stream as string) ?? 0)) {
      return `${label}: next seq ${op.seq} is not above the log's ${before} and the announced ${l.announced.get(stream as string)}`;
    }
    return peer ? await peerConverges(s).then((p) => p && `${label}: ${p}`) : undefined;
  } finally {
    await s.close().catch(() => undefined);
  }
}

/**
 * Count a clean run's I/O points, then crash at each point the sweep cuts
 * (crashPoints: every one at CRASH_STRIDE=1, `npm run test:hunt`; else a
 * seeded one in each run of half that stride, and the first and last point
 * of every kind, as sweep-small.spec.ts cuts), reopen each distinct disk the
 * crash can leave (durable: every damage; else a process crash alone) and
 * check it (checkLadder). `make` gives a fresh disk as the ladder starts
 * from. Returns the problems, the number of points and how many were cut.
 */
export async function sweepLadder(o: {
  make: () => Promise<MemoryBackend>;
  calls: readonly Call[];
  options: RunOptions;
  /** Options of the reopen (default: the run's). */
  reopen?: RunOptions;
  peer?: boolean;
}): Promise<{ problems: string[]; total: number; cut: number; clean: Ladder }> {
  const b0 = await o.make();
  const base = b0.opCount(IO_POINTS);
  const t = traced(b0);
  const clean = await climb(t.backend, o.calls, o.options);
  const total = b0.opCount(IO_POINTS) - base;
  // The traced kinds and the backend's counter must agree, or the points cut are not the kinds named.
  if (t.kinds.length !== total) throw new Error(`traced ${t.kinds.length} I/O points, the backend counted ${total}`);
  const problems: string[] = [];
  const points = crashPoints(t.kinds, Math.ceil(CRASH_STRIDE / 2));
  for (const k of points) {
    const b = await o.make();
    b.crashAt(k, { ops: IO_POINTS });
    const l = await climb(b, o.calls, o.options);
    const disks = o.options.durable ? distinctCrashes(b, k) : [{ damage: 'none', disk: b.crash('none') }];
    for (const { damage, disk } of disks) {
      const p = await checkLadder(disk, l, clean, o.reopen ?? o.options, `crash at ${k}/${total} ('${damage}')`, o.peer);
      if (p) problems.push(p);
    }
  }
  return { problems, total, cut: points.length, clean };
}
