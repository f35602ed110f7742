import { lowerBound } from '../crdt/sorted-map';
import { FLAG_HELD, FLAG_SEALED, hasPayload, scrubForPurge } from '../op';
import { ID_SLOT } from '../op/pack';
import type { Op } from '../op/types';
import { batchFile, hashedFileText, logFileText, segmentFile, type SegmentInfo } from './files';
import { FLAG_GRANTED } from './flags';
import type { OpenBatch } from './load';
import type { LogEntry, OpLog } from './op-log';
import { segmentsToDrop } from './retention';
import { SCRUB_FILE, scrubJournalText } from './scrub-journal';
import { advanceVector, raiseVector } from './vector';

function rangeOf(log: OpLog, from: number, to: number): (LogEntry | undefined)[] {
  const out: (LogEntry | undefined)[] = [];
  for (let p = from; p <= to; p++) out.push(log.at(p));
  return out;
}

/**
 * A log file's text as a seal or a purge's rewrite writes it, carrying the
 * hash of its ops (LogFile.scrub): an open batch's changed under its chain
 * block, a segment's join blocks that cannot be re-hashed. Given `from`,
 * packText writes back the entries the load could not take (OpLog.unopened:
 * sealed ones it could not open, damaged ones), never null for them. A
 * segment whose ops failed their hash at open keeps the hash it failed
 * (OpLog.rotted): hashed anew, the entries it keeps as read would pass the
 * next open's check.
 */
function fileText(log: OpLog, from: number, entries: (LogEntry | undefined)[], chain?: string, erase?: ReadonlySet<number>): string {
  const ops = log.packText(entries, from, erase);
  const failed = log.rotted.get(from);
  return failed === undefined ? hashedFileText(from, ops, chain) : logFileText(from, ops, chain || undefined, failed);
}

/** A segment's text: the batches' own JSON joined when every one has it, else packed again. */
function segmentText(log: OpLog, from: number, batches: { text?: string; chain?: string }[], entries: (LogEntry | undefined)[]): string {
  const chain = batches[batches.length - 1].chain;
  if (!batches.every((b) => b.text !== undefined)) return fileText(log, from, entries, chain);
  const parts = batches.map((b) => (b.text as string).slice(1, -1)).filter((t) => t.length > 0);
  return hashedFileText(from, `[${parts.join(',')}]`, chain);
}

/** The position in the name of the open file holding a batch. */
const fileOf = (b: { from: number; file?: number }): number => b.file ?? b.from;

/** Roll open batches into one sealed segment: write it, then index.json, then drop the batch files. */
export async function sealBatches(log: OpLog, batches: OpenBatch[]): Promise<{ from: number; to: number }> {
  const { backend, durable } = log.options;
  const from = batches[0].from;
  const to = batches[batches.length - 1].to;
  const entries = rangeOf(log, from, to);
  await backend.write(segmentFile(from), segmentText(log, from, batches, entries), { durable });
  let minTs = Infinity;
  let maxTs = 0;
  for (const e of entries) {
    if (!e) continue;
    minTs = Math.min(minTs, e.op.ts);
    maxTs = Math.max(maxTs, e.op.ts);
    // A sealed op's stream is in no vector (GUAR-19): index.json keeps its seq apart.
    if (!(e.flags & FLAG_SEALED)) advanceVector(log.sealedVector, e.op);
    if (e.flags & FLAG_GRANTED && e.op.vector) raiseVector(log.sealedVector, e.op.vector);
  }
  const seg: SegmentInfo = { from, to, minTs: minTs === Infinity ? 0 : minTs, maxTs, chain: batches[batches.length - 1].chain, hashed: true };
  log.sealedChain = batches[batches.length - 1].chain ?? log.sealedChain;
  log.segments.push(seg);
  try {
    await log.writeIndex(log.sealedVector);
  } catch (e) {
    // index.json does not list it, so it is not sealed: the next seal writes it again, and lists it once.
    log.segments.pop();
    throw e;
  }
  // Sealed: index.json lists the segment. What is left lets go of files, and a failure there must not undo it: the
  // batches stayed open, the next seal listed the segment a second time, and every open refused the store.
  // Whole files only: one that still holds a batch not sealed now stays (files are cut where seals cut, see OpenFiles).
  const keep = new Set(log.batches.slice(batches.length).map(fileOf));
  const gone = [...new Set(batches.map(fileOf))].filter((f) => !keep.has(f));
  log.files.removed(gone);
  log.batches.splice(0, batches.length);
  log.unremoved.push(...gone);
  await removeDropped(log);
  await removeSealedFiles(log);
  return { from, to };
}

/**
 * Remove the open files whose batches are sealed; one whose removal fails
 * stays listed and is tried again at the next seal (an open removes such a
 * file too). Recycled: the next batches are written into these files rather
 * than into new ones (see the fs backend).
 */
async function removeSealedFiles(log: OpLog): Promise<void> {
  while (log.unremoved.length > 0) {
    await log.options.backend.remove(batchFile(log.unremoved[0]), { recycle: log.files.recycles });
    log.unremoved.shift();
  }
}

/** Drop the oldest sealed segments retention lets go; the floor moves up (LOG-13, LOG-14). */
export async function dropSegments(log: OpLog): Promise<{ from: number; to: number }[]> {
  const { pinned } = log.options;
  const isPinned = pinned ? (s: SegmentInfo) => pinned(s, rangeOf(log, s.from, s.to).filter((e): e is LogEntry => !!e)) : undefined;
  const n = segmentsToDrop(log.segments, log.head, log.retention, log.now, isPinned);
  if (n === 0) return [];
  const dropped = log.segments.splice(0, n);
  for (const s of dropped) log.rotted.delete(s.from);
  const newFloor = dropped[dropped.length - 1].to;
  const waits = log.options.stillHeld ?? ((e: LogEntry) => (e.flags & FLAG_HELD) !== 0);
  const held = rangeOf(log, log.floor + 1, newFloor).filter((e) => e && waits(e)).length;
  if (held) log.heldLost += held;
  log.dropBelow(newFloor);
  log.dropped.push(...dropped);
  await log.writeIndex(log.sealedVector);
  if (held) log.options.onHeldLost?.(held);
  await removeDropped(log);
  return dropped.map((s) => ({ from: s.from, to: s.to }));
}

/**
 * Remove the files of the segments retention let go, once index.json no
 * longer lists them (`write`: write it first). A failed write of index.json
 * left them on disk, unlisted in memory, so no purge's scrub reached them;
 * they used to stay until the next open.
 */
async function removeDropped(log: OpLog, write = false): Promise<void> {
  if (log.dropped.length === 0) return;
  if (write) await log.writeIndex(log.sealedVector);
  while (log.dropped.length > 0) {
    await log.options.backend.remove(segmentFile(log.dropped[0].from));
    log.dropped.shift();
  }
}

/**
 * A merge op that carries nothing but a purge marker (id, stamps, no fields):
 * it is the purge itself as a bootstrap or reconciliation delivered it, and
 * carries no payload of the record. The scrub keeps it, so a node resuming
 * from this one still learns of the purge (bootstrap is transitive).
 */
export function isPurgeMarkerOp(op: Op): boolean {
  const d = op.data as { purged?: unknown; fields?: unknown } | undefined;
  if (op.type !== 'merge' || !d?.purged || typeof d.fields !== 'object' || d.fields === null) return false;
  return Object.keys(d.fields).length === 0 && Object.keys(d).every((k) => MARKER_KEYS.has(k));
}

const MARKER_KEYS = new Set(['id', 'latest', 'purged', 'fields']);

/** Whether the scrub of `ids` rewrites this entry: one of theirs that still carries a payload. */
function scrubs(e: LogEntry | undefined, ids: ReadonlySet<string>, sealed?: ReadonlySet<string>): boolean {
  if (!e || !ids.has(e.op.id) || !hasPayload(e.op) || isPurgeMarkerOp(e.op)) return false;
  // An id kept sealed here is this node's record alone: a peer's ops of it (logged skipped, relayed) are the
  // peer's record, which a purge of the sealed one must not erase on their way to other nodes (GUAR-19).
  return !(sealed?.has(e.op.id) && !(e.flags & FLAG_SEALED));
}

/**
 * The unopened entries (OpLog.unopened) a scrub of `ids` erases: a sealed
 * entry names its id in clear, and one boxed for a key this process lacks
 * is still the record's payload, which the purge is there to erase; so is a
 * damaged entry whose id slot still reads. One whose id cannot be read is
 * kept: nothing ties it to the purged record.
 */
function erasedUnopened(log: OpLog, ids: ReadonlySet<string>): Set<number> {
  const out = new Set<number>();
  for (const [pos, packed] of log.unopened) {
    const id: unknown = Array.isArray(packed) ? packed[ID_SLOT] : undefined;
    if (typeof id === 'string' && ids.has(id)) out.add(pos);
  }
  return out;
}

/** A file the scrub may rewrite: its path and the batches it holds (a segment: one, the whole of it). */
interface ScrubFile {
  path: string;
  batches: { from: number; to: number; chain?: string }[];
  open: boolean;
}

/** The log's files: the sealed segments, then the open files with their batches. */
function filesOf(log: OpLog): ScrubFile[] {
  const out: ScrubFile[] = log.segments.map((s) => ({ path: segmentFile(s.from), batches: [s], open: false }));
  const open = new Map<number, ScrubFile>();
  for (const b of log.batches) {
    const f = open.get(fileOf(b)) ?? { path: batchFile(fileOf(b)), batches: [], open: true };
    open.set(fileOf(b), f);
    f.batches.push(b);
  }
  return out.concat([...open.values()]);
}

/** Whether any of `positions` (in order) falls in from..to. */
function holdsAny(positions: readonly number[], from: number, to: number): boolean {
  const i = lowerBound(positions, from);
  return i < positions.length && positions[i] <= to;
}

/**
 * Rewrite in place every log file holding an unscrubbed entry of `ids`
 * (GUAR-20, GUAR-22): the files their positions fall in (OpLog.positionsOf),
 * not every file of the log, each once however many of the ids it holds
 * (the purges of one batch are scrubbed together). Each rewrite is
 * journaled first (scrub-journal.ts), so a crash inside one tears nothing
 * the next load does not finish.
 */
export async function scrubFiles(log: OpLog, ids: readonly string[], sealed?: ReadonlySet<string>): Promise<number> {
  const { backend, durable } = log.options;
  const scrubbing = new Set(ids);
  const erase = erasedUnopened(log, scrubbing);
  const positions = [...new Set(ids)].flatMap((id) => log.positionsOf(id)).concat([...erase]).sort((x, y) => x - y);
  // What retention let go goes first: no scrub reaches it.
  await removeDropped(log, true);
  if (positions.length === 0) return 0;
  // No append is in flight to a file rewritten here, and none goes to it after.
  await log.files.restart(() => log.head + 1);
  let scrubbed = 0;
  let journaled = false;
  for (const f of filesOf(log)) {
    if (!f.batches.some((b) => holdsAny(positions, b.from, b.to))) continue;
    const lines = f.batches.map((b) => {
      const entries = rangeOf(log, b.from, b.to);
      return { b, entries, next: entries.map((e) => (e && scrubs(e, scrubbing, sealed) ? { ...e, op: scrubForPurge(e.op) } : e)) };
    });
    const erased = erase.size === 0 ? 0 : lines.reduce((k, l) => k + l.entries.filter((_, i) => erase.has(l.b.from + i)).length, 0);
    const n = lines.reduce((k, l) => k + l.next.filter((e, i) => e !== l.entries[i]).length, erased);
    if (n === 0) continue;
    const texts = lines.map((l) => fileText(log, l.b.from, l.next, l.b.chain, erase));
    const text = f.open ? texts.map((t) => `${t}\n`).join('') : texts.join('\n');
    // Whole in the journal first, so that a crash inside the rewrite in place leaves it to be finished.
    await backend.write(SCRUB_FILE, scrubJournalText(f.path, text), { durable });
    journaled = true;
    // Memory follows the file only once it is rewritten, so a scrub that failed is found again.
    await backend.overwrite(f.path, text, { durable });
    for (const l of lines) {
      const batch = log.batches.find((b) => b.from === l.b.from);
      if (batch && f.open) delete batch.text;
      l.next.forEach((e, i) => { if (e && e !== l.entries[i]) (l.entries[i] as LogEntry).op = e.op; });
      for (let p = l.b.from; p <= l.b.to; p++) if (erase.has(p)) log.unopened.delete(p);
    }
    log.scrubs++;
    scrubbed += n;
  }
  if (journaled) await backend.remove(SCRUB_FILE);
  for (const id of scrubbing) log.forget(id);
  if (scrubbed > 0) for (const listener of log.scrubbed) listener();
  return scrubbed;
}
