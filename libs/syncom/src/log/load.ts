import { SyncomError } from '../errors';
import { unpackEntry } from '../op';
import type { Backend } from '../backend/types';
import { batchFile, batchFromName, INDEX_FILE, LOG_DIR, type LogFile, OPEN_DIR, parseIndex, parseLogFile, parseOpenFile, segmentFile } from './files';
import type { LogEntry, OpLog, OpLogOptions } from './op-log';
import { finishScrub, readScrubJournal, readThrough } from './scrub-journal';

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
  /** The position in the name of the open file that holds it (log/open/<file>.json); its own `from` when absent. */
  file?: number;
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

/** How the load reads a log file: through a scrub a crash cut short, as it is once finished. */
type ReadFile = (path: string) => Promise<string | undefined>;

async function loadSegments(log: OpLog, backend: Backend, read: ReadFile, options: OpLogOptions): Promise<void> {
  const known = new Set(log.segments.map((s) => `seg-${s.from}.json`));
  for (const name of await backend.list(LOG_DIR)) {
    if (name.startsWith('seg-') && !known.has(name)) await backend.remove(`${LOG_DIR}/${name}`);
  }
  for (const s of log.segments) {
    const file = parseLogFile(await read(segmentFile(s.from)));
    if (!file || !takeOps(log, s.from, file.ops)) unreadable(options, segmentFile(s.from), 'torn or missing');
    log.head = Math.max(log.head, s.to);
  }
}

/** One open file as read: its name's position and its lines (undefined: a line that cannot be read). */
interface OpenFile {
  name: number;
  lines: (LogFile | undefined)[];
}

/** Where the file after this one starts (undefined for the newest), and what the sealed part covers. */
interface FileContext {
  next?: number;
  sealedTo: number;
  tail: LogEntry[];
}

/**
 * Whether an unreadable or overlapping LAST line is an append a crash or a
 * failure cut short, never announced: in the newest file, or in a file whose
 * successor starts at its position (the log went on from there). Dropped.
 */
function cutAppend(line: LogFile | undefined, expect: number, c: FileContext): boolean {
  if (c.next === undefined) return line === undefined;
  return line === undefined ? c.next === expect : line.from >= c.next;
}

/** Where the positions of an unreadable line end: before the next readable line, or the next file. */
function holeEnd(f: OpenFile, j: number, c: FileContext): number | undefined {
  const after = f.lines.slice(j + 1).find((l): l is LogFile => l !== undefined);
  const end = after?.from ?? c.next;
  return end === undefined ? undefined : end - 1;
}

/** Take one open file's lines into the log; true when it holds nothing to keep (every batch sealed or cut). */
function takeFile(log: OpLog, f: OpenFile, c: FileContext, options: OpLogOptions): boolean {
  const path = batchFile(f.name);
  let expect = f.name;
  let kept = false;
  for (const [j, line] of f.lines.entries()) {
    if (line && line.from + line.ops.length - 1 <= c.sealedTo) { expect = line.from + line.ops.length; continue; }
    if (j === f.lines.length - 1 && cutAppend(line, expect, c)) break;
    kept = true;
    if (!line || line.from < expect) {
      unreadable(options, path, line ? `a batch at ${line.from} overlaps the one before it` : 'torn');
      const end = line ? undefined : holeEnd(f, j, c);
      if (end !== undefined && end >= expect) {
        log.head = Math.max(log.head, end);
        log.batches.push({ from: expect, to: end, recorded: false, file: f.name });
        expect = end + 1;
      }
      continue;
    }
    if (!takeOps(log, line.from, line.ops, c.tail)) unreadable(options, path, `an entry of the batch at ${line.from}`);
    const to = line.from + line.ops.length - 1;
    log.head = Math.max(log.head, to);
    if (line.chain) log.chain = line.chain;
    log.batches.push({ from: line.from, to, recorded: false, chain: line.chain, file: f.name });
    expect = to + 1;
  }
  return !kept;
}

async function loadBatches(log: OpLog, backend: Backend, read: ReadFile, options: OpLogOptions): Promise<LogEntry[]> {
  const tail: LogEntry[] = [];
  const sealedTo = log.head;
  const names = (await backend.list(OPEN_DIR)).map(batchFromName).filter((n): n is number => n !== undefined);
  names.sort((a, b) => a - b);
  const files: OpenFile[] = [];
  for (const name of names) files.push({ name, lines: parseOpenFile((await read(batchFile(name))) ?? '') });
  for (const [i, f] of files.entries()) {
    if (takeFile(log, f, { next: files[i + 1]?.name, sealedTo, tail }, options)) await backend.remove(batchFile(f.name));
  }
  return tail;
}

/**
 * Read index.json, the sealed segments and the open batches into `log`.
 * An open file holds one batch a line (one in all, with no newline, when
 * written whole). A torn last line (an append cut short, never announced) is
 * dropped; any other unreadable line is reported as OP_UNREADABLE and left as
 * a hole. A file the scrub journal names is read as the journal says (the
 * rewrite is finished). Returns the tail.
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
  // A purge's rewrite a crash cut short is finished first, and read as finished where the backend may not be written (the CLI's).
  const journal = await readScrubJournal(backend);
  await finishScrub(backend, journal, options.durable === true);
  const read = readThrough(backend, journal);
  await loadSegments(log, backend, read, options);
  return loadBatches(log, backend, read, options);
}
