import type { Op, Vector } from '../op/types';
import { FLAG_SEALED, packedJson, packOp } from '../op';
import { type EntryCipher, INDEX_FILE, INDEX_NEXT_FILE, type LogIndex } from './files';
import type { OpLog } from './op-log';
import { epochsAfter, newEpoch } from './event-id';

/**
 * Write log/index.json as the log stands: the vector covering the sealed
 * part, and `raised`, the counts no op shows (OpLog.raised), less those the
 * sealed part's ops now reach. OpLog.writeIndex runs these one at a time.
 */
export async function writeIndexFile(log: OpLog, vector: Vector): Promise<void> {
  for (const k of Object.keys(log.raised)) if (log.sealedVector[k] >= log.raised[k]) delete log.raised[k];
  const raised = Object.keys(log.raised).length > 0 ? { ...log.raised } : undefined;
  const index: LogIndex = {
    epoch: log.epoch, epochs: log.epochs.length > 0 ? log.epochs : undefined, floor: log.floor, vector, segments: log.segments, ts: log.maxTs, heldLost: log.heldLost, chain: log.sealedChain,
    sealedSeq: log.sealedSeq || undefined, raised,
  };
  const text = JSON.stringify(index);
  const { backend, durable } = log.options;
  // Where a write may tear, a copy first: a power cut tearing index.json leaves this one whole, and the load takes it.
  if (backend.tornWrites === true) await backend.write(INDEX_NEXT_FILE, text, { durable });
  await backend.write(INDEX_FILE, text, { durable });
}

/**
 * Mint this open's epoch (LOG-8), the one it was opened with ended at the
 * head, and keep both in index.json before any event id of it is served; an
 * inspection (a read-only backend) keeps the epoch it read.
 */
export async function openEpoch(log: OpLog): Promise<void> {
  if (log.epoch && log.options.backend.readOnly) return;
  if (log.epoch) log.epochs = epochsAfter(log.epochs, log.epoch, log.head, log.floor);
  log.epoch = newEpoch();
  await log.writeIndex(log.sealedVector);
}

/** The unopened entries (OpLog.unopened) among a file's holes: index in the file, and the entry as read; none at `erase`. */
export function unopenedIn(unopened: ReadonlyMap<number, unknown>, entries: readonly unknown[], from: number, erase?: ReadonlySet<number>): [number, unknown][] {
  if (unopened.size === 0) return [];
  const out: [number, unknown][] = [];
  entries.forEach((e, i) => {
    const p = e ? undefined : unopened.get(from + i);
    if (p !== undefined && !erase?.has(from + i)) out.push([i, p]);
  });
  return out;
}

/** A file's entries as JSON: packed, sealed ones sealed by `cipher`, the unopened ones put back as they were read. */
export function fileEntriesText(cipher: EntryCipher | undefined, entries: readonly ({ op: Op; flags?: number } | undefined)[], unopened: [number, unknown][]): string {
  const sealed = cipher !== undefined && entries.some((e) => e && (e.flags ?? 0) & FLAG_SEALED);
  if (!sealed && unopened.length === 0) return packedJson(entries);
  const packed = entries.map((e) => (e ? packOp(e.op, e.flags ?? 0) : null));
  const out = sealed ? (cipher as EntryCipher).seal(packed) : packed;
  for (const [i, p] of unopened) out[i] = p;
  return JSON.stringify(out);
}
