import { SyncomError } from '../errors';
import { digestOp, FLAG_SEALED, isScrubbed, unpackEntry } from '../op';
import { MAX_LOGGED_DEPTH } from '../op/pack';
import { depthWithin } from '../op/shape';
import { opStreamKey } from '../op/types';
import { batchFile, chainBlock, type LogFile, openFileLines, opsHashHolds, opsTextOf, parseLogFile, segmentFile } from './files';
import type { LogEntry, OpLog, OpLogOptions } from './op-log';
import { salvageEntries } from './salvage';
import { advanceVector } from './vector';

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

/** What an operator can do about damage the load refuses to open over. */
export const RESTORE = 'Restore the store\'s log/ folder from a backup of it (`syncom verify` lists what is damaged).';

/** Report damage the load goes on past: its positions are a hole, the rest of the log is taken. */
export function report(options: OpLogOptions, file: string, message: string): void {
  options.onError?.(new SyncomError('OP_UNREADABLE', message, { file }));
}

/** Report a log file, or part of one, that cannot be read (see report). */
export function unreadable(options: OpLogOptions, file: string, detail: string): void {
  report(options, file, `log file ${file} cannot be read (${detail})`);
}

/** A file's packed entries as read: those that could be, and how many could not (damaged, or sealed and not to be opened). */
export interface ReadOps {
  entries: LogEntry[];
  damaged: number;
  closed: number;
  /** The entries not taken (sealed ones that did not open, damaged ones), by position, as read (OpLog.unopened). */
  unopened: [number, unknown][];
  /** Entries not taken that nest too deep to be written back (KEPT_DEPTH): a rewrite of the file leaves them empty. */
  deep: number;
}

/** How deep an entry not taken may nest and still be kept: past it, writing it back could run out of stack. */
const KEPT_DEPTH = MAX_LOGGED_DEPTH + 2;

/** Unpack a file's packed entries at positions from.., sealed ones opened; nothing is taken into the log yet. */
export function readOps(log: OpLog, from: number, ops: readonly unknown[]): ReadOps {
  const out: ReadOps = { entries: [], damaged: 0, closed: 0, unopened: [], deep: 0 };
  ops.forEach((packed, i) => {
    if (packed === null) return;
    const opened = log.openPacked(packed);
    const e = opened === undefined ? undefined : unpackEntry(opened);
    if (e) out.entries.push({ pos: from + i, op: e.op, flags: e.flags });
    else {
      if (opened === undefined) out.closed++;
      else out.damaged++;
      // Kept as read either way: a rewrite of the file writes it back, so an operator can still salvage it. Not one
      // nested past what JSON.stringify gets through: writing it back would fail every rewrite of the file.
      if (depthWithin(packed, KEPT_DEPTH)) out.unopened.push([from + i, packed]);
      else out.deep++;
    }
  });
  return out;
}

/** Take a file's entries into the log (and the tail), and report those that could not be read. */
export function take(log: OpLog, options: OpLogOptions, file: string, read: ReadOps, tail?: LogEntry[]): void {
  for (const e of read.entries) {
    log.addEntry(e);
    tail?.push(e);
  }
  for (const [pos, packed] of read.unopened) log.unopened.set(pos, packed);
  if (read.closed > 0) {
    // A sealed entry is boxed for this node's seal key: the file may be whole, the key the wrong one.
    report(options, file, `log file ${file} holds ${read.closed} sealed entries that cannot be opened with keys/seal-private.pem `
      + '(the key is missing or not the one they were sealed for, or the entries are damaged): they are left out here, and kept in the log as written');
  }
  if (read.damaged > 0) {
    const deep = read.deep > 0 ? `, but ${read.deep} nested too deep to be written again, which a rewrite of the file leaves empty` : '';
    unreadable(options, file, `${read.damaged} of its entries are damaged: kept in the file as read${deep}`);
  }
}

/** What the sealed part of the log left for the open batches after it. */
export interface SealedPart {
  /** The last position sealed (or the floor). */
  to: number;
  /** The chain head the first open batch chains to; undefined when it is not known (sealed behind a hole, or before the chain). */
  chain?: string;
  /** Listed segments whose entries were not taken (missing, torn, or not what index.json lists). */
  failed: readonly { from: number; to: number }[];
}

/** One open file as read: its name's position, its lines' text and the batches they hold (undefined: a line that cannot be read). */
interface OpenFile {
  name: number;
  texts: string[];
  lines: (LogFile | undefined)[];
  /** Its text ends with a newline: its last line was appended whole (a cut append never ends with one). */
  ended: boolean;
  /** Its last line is an append cut short or superseded (see cutAppend), dropped by the load. */
  cut?: boolean;
}

/**
 * The most positions lost files of the open part may leave as one hole. A
 * lost batch file leaves its own positions (at most a page or a commit's
 * batch); a file named a hundred million positions on made the load keep a
 * hole that long, and visit each of its positions (3.7 GB and 30 s; at 9e15
 * it never finished).
 */
export const MAX_HOLE = 1_000_000;

/** The walk of the open files in position order. */
interface Walk {
  sealed: SealedPart;
  /** Where the next batch starts. */
  expect: number;
  /** The chain head the next batch chains to; undefined after a hole (not known). */
  prev?: string;
  tail: LogEntry[];
  /** Where the file after this one starts (undefined for the newest). */
  next?: number;
}

/**
 * Whether an unreadable or overlapping LAST line is an append a crash or a
 * failure cut short, never announced: in the newest file, or in a file whose
 * successor starts at its position (the log went on from there). Dropped.
 */
function cutAppend(f: OpenFile, line: LogFile | undefined, w: Walk): boolean {
  // A line's newline is written with it, in one append: one that has it was written whole, so it is damage.
  if (w.next === undefined) return line === undefined && !f.ended;
  return line === undefined ? w.next === w.expect : line.from >= w.next;
}

/** Where the positions of an unreadable line end: before the next readable line, or the next file. */
function holeEnd(f: OpenFile, j: number, w: Walk): number {
  const after = f.lines.slice(j + 1).find((l): l is LogFile => l !== undefined);
  const end = after?.from ?? w.next;
  if (end !== undefined) return end - 1;
  // Nothing after it tells: each of its entries is an array, so its brackets bound how many it held. Leaving too
  // few positions would have the next batch take some of them again, and a subscriber past them miss that batch.
  const brackets = f.texts[j].split('[').length - 1;
  return w.expect + Math.min(Math.max(brackets, 1), MAX_HOLE) - 1;
}

/** Positions from `w.expect` to `to` are a hole of the open part: kept as a batch of no ops, so the log's positions stay its own. */
function hole(log: OpLog, w: Walk, to: number, file: number): void {
  if (to - w.expect + 1 > MAX_HOLE) {
    const path = batchFile(file);
    throw new SyncomError('STORE_DAMAGED', `${path} would leave positions ${w.expect}..${to} a hole, ${to - w.expect + 1} of them: no lost batch `
      + `leaves that many (a file placed by hand, or another store's); open() refuses rather than take them. ${RESTORE}`, { file: path });
  }
  log.head = Math.max(log.head, to);
  log.batches.push({ from: w.expect, to, recorded: false, file });
  w.expect = to + 1;
  w.prev = undefined;
}

/**
 * A line of positions the sealed part holds: a seal's leftover (the seal
 * wrote index.json, a crash came before it removed the batch files). It is
 * skipped, but where its segment was not taken, the load cannot tell which
 * of the two is right, and index.json's range may be the damaged part.
 */
function sealedLine(line: LogFile, path: string, w: Walk): void {
  const to = line.from + line.ops.length - 1;
  const seg = w.sealed.failed.find((s) => s.from <= to && line.from <= s.to);
  if (!seg) return;
  throw new SyncomError('STORE_DAMAGED', `${path} holds log positions ${line.from}..${to}, which index.json says are sealed in `
    + `${segmentFile(seg.from)}, and that segment could not be taken: open() cannot tell which is right. ${RESTORE}`, { file: path });
}

/**
 * Why a batch must not be taken, or undefined: its chain block, recomputed
 * over its ops as written and the head before it, is not the one it carries
 * (a batch a purge rewrote: the hash it carries for that). Not checked where
 * nothing can check it: a batch of a version before the chain, or after a
 * hole (the head it chains to is lost).
 */
function chainFault(log: OpLog, f: OpenFile, j: number, w: Walk, read: ReadOps): string | undefined {
  const line = f.lines[j] as LogFile;
  if (line.scrub !== undefined) return opsHashHolds(f.texts[j], line) ? undefined : 'does not match the hash its purge wrote';
  const ops = opsTextOf(f.texts[j], line);
  if (line.chain === undefined || w.prev === undefined) return undefined;
  if (ops !== undefined && chainBlock(w.prev, ops) === line.chain) return undefined;
  return rewrittenBefore(log, f, read) ? undefined : 'does not re-hash to its chain block';
}

/**
 * A batch an earlier version's purge rewrote: that version left no hash for
 * it, and packed again every batch of the file it scrubbed (sealed entries
 * boxed anew), so none re-hashes. Taken when its file holds a scrubbed op and
 * the batch's entries all read, each payload matching its digest (a sealed
 * entry's box also binds its header); a stored directory may hold one.
 */
function rewrittenBefore(log: OpLog, f: OpenFile, read: ReadOps): boolean {
  if (read.damaged > 0 || read.closed > 0) return false;
  if (!read.entries.every((e) => e.op.nonce === undefined || e.op.digest === digestOp(e.op, e.op.nonce))) return false;
  return f.lines.some((l) => l !== undefined && readOps(log, l.from, l.ops).entries.some((e) => isScrubbed(e.op)));
}

/**
 * A batch left out was appended all the same: the seqs it used in this
 * node's own streams (`self`) are counted where they follow on their
 * streams, so this node never signs one of them again (a fork of what its
 * peers hold); kept in `raised` too, since once a seal makes the batch a
 * hole of a segment, no op shows them. A peer's op in it is not counted:
 * left out of the vector, it comes again from a peer. Its ops are not
 * taken: a seq rot moved off its stream's next is left alone, since a stream
 * pushed ahead would leave a gap no peer fills.
 */
function countSeqs(log: OpLog, entries: readonly LogEntry[], self: string | undefined): void {
  for (const { op, flags } of entries) {
    const sealed = (flags & FLAG_SEALED) !== 0;
    if (!sealed && self !== undefined && op.origin !== self) continue;
    if (op.seq !== (sealed ? log.sealedSeq : (log.vector[opStreamKey(op)] ?? 0)) + 1) continue;
    if (sealed) log.sealedSeq = op.seq;
    else {
      advanceVector(log.vector, op);
      advanceVector(log.raised, op);
    }
  }
}

/** Take the readable batch at line j: its entries, or a hole when it fails its chain check. */
function takeLine(log: OpLog, options: OpLogOptions, f: OpenFile, j: number, w: Walk): void {
  const line = f.lines[j] as LogFile;
  const path = batchFile(f.name);
  const to = line.from + line.ops.length - 1;
  const read = readOps(log, line.from, line.ops);
  const fault = chainFault(log, f, j, w, read);
  if (fault === undefined) take(log, options, path, read, w.tail);
  else {
    report(options, path, `log file ${path}: the batch at ${line.from} ${fault}, so it changed after it was written: it is left out, a hole of the log`);
    countSeqs(log, read.entries, options.self);
  }
  log.head = Math.max(log.head, to);
  // A batch left out keeps its chain head: the batches after it chain to it.
  if (line.chain !== undefined) log.chain = line.chain;
  log.batches.push({ from: line.from, to, recorded: false, chain: line.chain, file: f.name });
  w.expect = to + 1;
  w.prev = line.chain;
}

/** Take one open file's lines into the log; true when it holds nothing to keep (every batch sealed or cut). */
function takeFile(log: OpLog, options: OpLogOptions, f: OpenFile, w: Walk): boolean {
  const path = batchFile(f.name);
  let kept = false;
  for (const [j, line] of f.lines.entries()) {
    if (line && line.from + line.ops.length - 1 <= w.sealed.to) { sealedLine(line, path, w); continue; }
    if (j === f.lines.length - 1 && cutAppend(f, line, w)) {
      f.cut = true;
      break;
    }
    kept = true;
    if (!line || line.from < w.expect) {
      unreadable(options, path, line ? `a batch at ${line.from} overlaps the one before it` : 'a batch in it does not parse: torn or damaged');
      // Appended all the same: the seqs its own ops used must not be signed again (see countSeqs).
      if (!line && options.self !== undefined) countSeqs(log, readOps(log, 0, salvageEntries(f.texts[j], options.self)).entries, options.self);
      const end = line ? undefined : holeEnd(f, j, w);
      if (end !== undefined && end >= w.expect) hole(log, w, end, f.name);
      continue;
    }
    if (line.from > w.expect) {
      report(options, batchFile(w.expect), `log file ${batchFile(w.expect)} is missing: positions ${w.expect}..${line.from - 1}, `
        + `before ${path}, were lost (deleted, or left out of a copy); they are a hole of the log`);
      hole(log, w, line.from - 1, f.name);
    }
    takeLine(log, options, f, j, w);
  }
  return !kept;
}

/**
 * Read the open files after the sealed part: batches in position order from
 * the position after it, each checked against its chain block. A torn last
 * line (an append cut short, never announced: no newline after it) is
 * dropped; a torn line
 * elsewhere, a batch that fails its chain check and positions no file holds
 * are damage: reported (OP_UNREADABLE) and kept as holes. A file holding
 * only sealed batches is removed. Returns the tail.
 */
export async function loadOpen(log: OpLog, names: readonly number[], read: (path: string) => Promise<string | undefined>, sealed: SealedPart): Promise<LogEntry[]> {
  const { backend } = log.options;
  const w: Walk = { sealed, expect: sealed.to + 1, prev: sealed.chain, tail: [] };
  const files: OpenFile[] = [];
  for (const name of names) {
    const text = (await read(batchFile(name))) ?? '';
    const texts = openFileLines(text);
    files.push({ name, texts, lines: texts.map((t) => (t === '' ? undefined : parseLogFile(t))), ended: text.endsWith('\n') });
  }
  for (const [i, f] of files.entries()) {
    w.next = files[i + 1]?.name;
    if (takeFile(log, log.options, f, w)) await backend.remove(batchFile(f.name));
    // A dropped append may hold a record's data (a write never acknowledged), which a later purge of that record
    // would not reach: no batch holds it. Cut off here, by rewriting the file's whole lines in place: the same
    // bytes, then the cut, so a crash inside it leaves the file as it was or without that line.
    else if (f.cut) {
      const whole = f.texts.slice(0, -1).map((t) => `${t}\n`).join('');
      await backend.overwrite(batchFile(f.name), whole, { durable: log.options.durable === true });
    }
  }
  return w.tail;
}
