import { SyncomError } from '../errors';
import { unpackEntry } from '../op';
import type { Backend } from '../backend/types';
import { batchFile, batchFromName, INDEX_FILE, LOG_DIR, OPEN_DIR, parseIndex, parseLogFile, segmentFile } from './files';
import type { LogEntry, OpLog, OpLogOptions } from './op-log';

/** An appended batch not sealed yet. */
export interface OpenBatch {
  from: number;
  to: number;
  /** Its records are written: it may be sealed. */
  recorded: boolean;
  /** The JSON of its packed ops as appended, reused when it is sealed (absent after a reopen or a scrub). */
  text?: string;
  /** The chain head after this batch. */
  chain?: string;
}

function unreadable(options: OpLogOptions, file: string, detail: string): void {
  options.onError?.(new SyncomError('OP_UNREADABLE', `log file ${file} cannot be read (${detail})`, { file }));
}

/** Take a file's packed ops into the log at positions from..; false when an entry cannot be read. */
function takeOps(log: OpLog, from: number, ops: unknown[], out?: LogEntry[]): boolean {
  let ok = true;
  ops.forEach((packed, i) => {
    if (packed === null) return;
    const e = unpackEntry(log.openPacked(packed));
    if (!e) { ok = false; return; }
    const entry: LogEntry = { pos: from + i, op: e.op, flags: e.flags };
    log.addEntry(entry);
    out?.push(entry);
  });
  log.head = Math.max(log.head, from + ops.length - 1);
  return ok;
}

async function loadSegments(log: OpLog, backend: Backend, options: OpLogOptions): Promise<void> {
  const known = new Set(log.segments.map((s) => `seg-${s.from}.json`));
  for (const name of await backend.list(LOG_DIR)) {
    if (name.startsWith('seg-') && !known.has(name)) await backend.remove(`${LOG_DIR}/${name}`);
  }
  for (const s of log.segments) {
    const file = parseLogFile(await backend.read(segmentFile(s.from)));
    if (!file || !takeOps(log, s.from, file.ops)) unreadable(options, segmentFile(s.from), 'torn or missing');
    log.head = Math.max(log.head, s.to);
  }
}

async function loadBatches(log: OpLog, backend: Backend, options: OpLogOptions): Promise<LogEntry[]> {
  const tail: LogEntry[] = [];
  const sealedTo = log.head;
  const froms = (await backend.list(OPEN_DIR)).map(batchFromName).filter((n): n is number => n !== undefined);
  froms.sort((a, b) => a - b);
  for (const [i, from] of froms.entries()) {
    if (from <= sealedTo) { await backend.remove(batchFile(from)); continue; }
    const file = parseLogFile(await backend.read(batchFile(from)));
    if (!file && i === froms.length - 1) { await backend.remove(batchFile(from)); continue; }
    if (!file || file.from !== from || !takeOps(log, from, file.ops, tail)) unreadable(options, batchFile(from), 'torn');
    const to = file ? from + file.ops.length - 1 : (froms[i + 1] ?? from) - 1;
    log.head = Math.max(log.head, to);
    if (file?.chain) log.chain = file.chain;
    log.batches.push({ from, to, recorded: false, chain: file?.chain });
  }
  return tail;
}

/**
 * Read index.json, the sealed segments and the open batches into `log`.
 * A torn newest batch (never announced) is dropped; any other unreadable
 * file is reported as OP_UNREADABLE and left as a hole. Returns the tail.
 */
export async function loadLog(log: OpLog, options: OpLogOptions): Promise<LogEntry[]> {
  const { backend } = options;
  await backend.mkdir(OPEN_DIR);
  const index = parseIndex(await backend.read(INDEX_FILE));
  if (index) {
    log.epoch = index.epoch;
    log.floor = index.floor;
    log.head = index.floor;
    log.segments = index.segments;
    log.vector = { ...index.vector };
    log.sealedVector = { ...index.vector };
    log.maxTs = index.ts;
    log.heldLost = index.heldLost ?? 0;
    log.sealedSeq = Number.isSafeInteger(index.sealedSeq) ? (index.sealedSeq as number) : 0;
    log.chain = log.sealedChain = index.chain ?? '';
  }
  await loadSegments(log, backend, options);
  return loadBatches(log, backend, options);
}
