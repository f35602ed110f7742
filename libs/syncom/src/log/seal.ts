import { FLAG_HELD, FLAG_SEALED, hasPayload, scrubForPurge } from '../op';
import type { Op } from '../op/types';
import { batchFile, segmentFile, type SegmentInfo } from './files';
import { FLAG_GRANTED } from './flags';
import type { LogEntry, OpLog } from './op-log';
import { segmentsToDrop } from './retention';
import { advanceVector, mergeVectors } from './vector';

function rangeOf(log: OpLog, from: number, to: number): (LogEntry | undefined)[] {
  const out: (LogEntry | undefined)[] = [];
  for (let p = from; p <= to; p++) out.push(log.at(p));
  return out;
}

function fileText(log: OpLog, from: number, entries: (LogEntry | undefined)[], chain?: string): string {
  return `{"from":${from}${chain ? `,"chain":${JSON.stringify(chain)}` : ''},"ops":${log.packText(entries)}}`;
}

/** A segment's text: the batches' own JSON joined when every one has it, else packed again. */
function segmentText(log: OpLog, from: number, batches: { text?: string; chain?: string }[], entries: (LogEntry | undefined)[]): string {
  const chain = batches[batches.length - 1].chain;
  if (!batches.every((b) => b.text !== undefined)) return fileText(log, from, entries, chain);
  const parts = batches.map((b) => (b.text as string).slice(1, -1)).filter((t) => t.length > 0);
  return `{"from":${from}${chain ? `,"chain":"${chain}"` : ''},"ops":[${parts.join(',')}]}`;
}

/** Roll open batches into one sealed segment: write it, then index.json, then drop the batch files. */
export async function sealBatches(log: OpLog, batches: { from: number; to: number; text?: string; chain?: string }[]): Promise<{ from: number; to: number }> {
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
    if (e.flags & FLAG_GRANTED && e.op.vector) log.sealedVector = mergeVectors(log.sealedVector, e.op.vector);
  }
  const seg: SegmentInfo = { from, to, minTs: minTs === Infinity ? 0 : minTs, maxTs, chain: batches[batches.length - 1].chain };
  log.sealedChain = batches[batches.length - 1].chain ?? log.sealedChain;
  log.segments.push(seg);
  try {
    await log.writeIndex(log.sealedVector);
  } catch (e) {
    // index.json does not list it, so it is not sealed: the next seal writes it again, and lists it once.
    log.segments.pop();
    throw e;
  }
  for (const b of batches) await backend.remove(batchFile(b.from));
  log.batches.splice(0, batches.length);
  return { from, to };
}

/** Drop the oldest sealed segments retention lets go; the floor moves up (LOG-13, LOG-14). */
export async function dropSegments(log: OpLog): Promise<{ from: number; to: number }[]> {
  const { backend, pinned } = log.options;
  const isPinned = pinned ? (s: SegmentInfo) => pinned(s, rangeOf(log, s.from, s.to).filter((e): e is LogEntry => !!e)) : undefined;
  const n = segmentsToDrop(log.segments, log.head, log.retention, log.now, isPinned);
  if (n === 0) return [];
  const dropped = log.segments.splice(0, n);
  const newFloor = dropped[dropped.length - 1].to;
  const held = rangeOf(log, log.floor + 1, newFloor).filter((e) => e && e.flags & FLAG_HELD).length;
  if (held) log.heldLost += held;
  log.entries.splice(0, newFloor - log.floor);
  log.floor = newFloor;
  await log.writeIndex(log.sealedVector);
  if (held) log.options.onHeldLost?.(held);
  for (const s of dropped) await backend.remove(segmentFile(s.from));
  return dropped.map((s) => ({ from: s.from, to: s.to }));
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

/** Whether the scrub of `id` rewrites this entry: one of the id that still carries a payload. */
function scrubs(e: LogEntry | undefined, id: string): boolean {
  return !!e && e.op.id === id && hasPayload(e.op) && !isPurgeMarkerOp(e.op);
}

/** Rewrite in place every log file holding an unscrubbed entry of `id` (GUAR-20, GUAR-22). */
export async function scrubFiles(log: OpLog, id: string): Promise<number> {
  const { backend, durable } = log.options;
  const files = [
    ...log.segments.map((s) => ({ path: segmentFile(s.from), from: s.from, to: s.to, chain: s.chain })),
    ...log.batches.map((b) => ({ path: batchFile(b.from), from: b.from, to: b.to, chain: b.chain })),
  ];
  let scrubbed = 0;
  for (const f of files) {
    const entries = rangeOf(log, f.from, f.to);
    const next = entries.map((e) => (e && scrubs(e, id) ? { ...e, op: scrubForPurge(e.op) } : e));
    const n = next.filter((e, i) => e !== entries[i]).length;
    if (n === 0) continue;
    // Memory follows the file only once it is rewritten, so a scrub that failed is found again.
    await backend.overwrite(f.path, fileText(log, f.from, next, f.chain), { durable });
    const batch = log.batches.find((b) => b.from === f.from);
    if (batch) delete batch.text;
    next.forEach((e, i) => { if (e && e !== entries[i]) (entries[i] as LogEntry).op = e.op; });
    scrubbed += n;
  }
  return scrubbed;
}
