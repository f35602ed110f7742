import type { Backend } from '../backend/types';
import { digestOp, unpackEntry } from '../op';
import { platform } from '../platform';
import { batchFromName, INDEX_FILE, INDEX_NEXT_FILE, LOG_DIR, type LogFile, OPEN_DIR, parseIndex, parseLogFile, parseOpenFile, type SegmentInfo } from './files';

/**
 * The purge scrub's journal: the log file it is rewriting in place and the
 * whole text it writes there. A scrub rewrites a file in place (GUAR-20: no
 * rename), its bytes first, then the cut of what is left of the old text,
 * so a process killed between the two (or inside a large write, done in
 * several system calls) leaves the file part new and part old, unreadable:
 * a whole sealed segment of acknowledged ops became a hole of the log. The
 * journal is written whole (a temp file renamed into place; with `durable`,
 * fsynced) before the file is touched and removed once every file is
 * rewritten, so the load finishes a rewrite a crash cut short. A file torn
 * with no journal left (a backend whose writes are not atomic, a power cut
 * that lost a journal written without `durable`) is still reported
 * (GUAR-21).
 *
 * Finishing a journal overwrites a file of acknowledged ops, so the load
 * checks it first (journalFault): its hash, that it names a file of this log
 * and that its text is that file's. One that fails (rotted, torn on a backend
 * without rename, copied from another store) is reported and let go, and the
 * file it names is left as it is.
 */
export const SCRUB_FILE = `${LOG_DIR}/scrub.json`;

/** A rewrite under way: the log file, its whole new text and that text's SHA-256. */
export interface ScrubJournal {
  path: string;
  text: string;
  /** Absent in a journal an earlier version wrote (see journalFault). */
  sha256?: string;
}

/** What the log holds, for the check of a journal: index.json's segments and the open files' positions. */
export interface LogFiles {
  segments: readonly SegmentInfo[];
  open: ReadonlySet<number>;
  /** A packed entry as read, a sealed one opened (OpLog.openPacked); without it sealed entries go unchecked. */
  openPacked?: (packed: unknown) => unknown;
}

/** A file the scrub rewrites: a sealed segment or an open file of the log, and nothing else. */
const LOG_FILE = new RegExp(`^(?:${LOG_DIR}/seg-|${OPEN_DIR}/)(\\d{1,16})\\.json$`);

/** The journal's text for the rewrite of `path` with `text`. */
export const scrubJournalText = (path: string, text: string): string => JSON.stringify({ path, text, sha256: platform().sha256(text) });

/** The journal in `text`, if it is one (it names a log file and holds a text). */
export function parseScrubJournal(text: string | undefined): ScrubJournal | undefined {
  if (text === undefined) return undefined;
  try {
    const j = JSON.parse(text) as Partial<ScrubJournal> | null;
    if (typeof j?.path !== 'string' || !LOG_FILE.test(j.path) || typeof j.text !== 'string') return undefined;
    if (j.sha256 !== undefined && typeof j.sha256 !== 'string') return undefined;
    return { path: j.path, text: j.text, ...(j.sha256 !== undefined && { sha256: j.sha256 }) };
  } catch {
    return undefined;
  }
}

/**
 * Why a journal must not be finished, or undefined when it may: its text
 * does not match its hash, it names a file the log does not hold (a segment
 * index.json does not list, an open file not there), or its text is not that
 * file's (a segment: its `from`, op count and chain head as index.json lists
 * them; an open file: readable batches, the first at the file's position
 * or after it where the batches before are sealed (a scrub rewrites a
 * file whose first batches a seal took without them), each with the chain
 * head of the batch `current`, the file's text now, holds at its position).
 *
 * A journal with no hash is one an earlier version wrote: a store may hold
 * one after a crash cut a purge short, and the file it names may then be torn,
 * the journal its only whole copy. It is finished if the rest holds and each
 * payload it holds still matches its op's digest (it is removed once
 * finished, so it is honoured once): refusing it would make a hole of a
 * segment of acknowledged ops, where what it still risks, rot in an op's
 * header, is what the old version risked too.
 */
export function journalFault(j: ScrubJournal, log: LogFiles, current?: string): string | undefined {
  if (j.sha256 !== undefined && j.sha256 !== platform().sha256(j.text)) return 'its text does not match its hash';
  const pos = Number(LOG_FILE.exec(j.path)?.[1]);
  const files = j.path.startsWith(`${OPEN_DIR}/`) ? parseOpenFile(j.text) : [parseLogFile(j.text)];
  if (j.path.startsWith(`${OPEN_DIR}/`)) {
    if (!log.open.has(pos)) return `it names ${j.path}, which the log does not hold`;
    const first = files[0]?.from ?? 0;
    // Past the file's position only over sealed batches (index.json's segments reach the one before its first).
    const starts = first === pos || (first > pos && (log.segments[log.segments.length - 1]?.to ?? 0) >= first - 1);
    if (!files.every((l) => l !== undefined) || !starts || !sameChains(files as LogFile[], current)) return `its text is not that of ${j.path}`;
  } else {
    const s = log.segments.find((x) => x.from === pos);
    if (!s) return `it names ${j.path}, which index.json does not list`;
    const file = files[0];
    const same = file !== undefined && file.from === s.from && file.ops.length === s.to - s.from + 1 && file.chain === s.chain;
    if (!same) return `its text is not that of ${j.path} as index.json lists it`;
  }
  const open = log.openPacked ?? ((p: unknown) => p);
  return j.sha256 !== undefined || files.every((f) => f?.ops.every((p) => payloadHolds(open(p)))) ? undefined : 'an op in its text does not match its digest';
}

/**
 * Whether the batches of an open file's rewrite carry the chain heads of the
 * batches the file holds now, where it still holds them whole (a torn
 * rewrite is the new text, then what is left of the old): a rewrite keeps
 * every batch's head, so another log's file differs.
 */
function sameChains(lines: readonly LogFile[], current: string | undefined): boolean {
  const heads = new Map(lines.map((l) => [l.from, l.chain]));
  return parseOpenFile(current ?? '').every((l) => l === undefined || !heads.has(l.from) || heads.get(l.from) === l.chain);
}

/** Whether a packed entry's payload matches its digest; true where there is nothing to check (no nonce, or not readable here). */
function payloadHolds(packed: unknown): boolean {
  const e = packed === null || packed === undefined ? undefined : unpackEntry(packed);
  return e?.op.nonce === undefined || e.op.digest === digestOp(e.op, e.op.nonce);
}

/** The positions of the open files (log/open/<from>.json). */
export async function openFileNames(backend: Backend): Promise<number[]> {
  return (await backend.list(OPEN_DIR)).map(batchFromName).filter((n): n is number => n !== undefined).sort((a, b) => a - b);
}

/** The text of the open file a journal names as it is now (a segment's is not needed: index.json describes it). */
async function currentText(backend: Backend, j: ScrubJournal): Promise<string | undefined> {
  return j.path.startsWith(`${OPEN_DIR}/`) ? backend.read(j.path) : undefined;
}

/** The journal a crash left, if any, and only one that passes journalFault. */
export async function readScrubJournal(backend: Backend): Promise<ScrubJournal | undefined> {
  const j = parseScrubJournal(await backend.read(SCRUB_FILE));
  if (!j) return undefined;
  // Where a write may tear, index.json's copy stands in for a torn one, as at the log's load (readIndexOf).
  const index = parseIndex(await backend.read(INDEX_FILE)) ?? parseIndex(await backend.read(INDEX_NEXT_FILE));
  const segments = index?.segments ?? [];
  return journalFault(j, { segments, open: new Set(await openFileNames(backend)) }, await currentText(backend, j)) === undefined ? j : undefined;
}

/**
 * Reads of `backend` as they are once a rewrite a crash cut short is
 * finished: the journal's file reads as the journal says, whether or not
 * the backend may be written (the CLI reads a storage it never changes).
 */
export function readThrough(backend: Backend, journal: ScrubJournal | undefined): (path: string) => Promise<string | undefined> {
  return (path) => (journal !== undefined && path === journal.path ? Promise.resolve(journal.text) : backend.read(path));
}

/**
 * Finish the rewrite the journal names (in place, as the scrub does) and let
 * the journal go; returns it. A journal that fails journalFault (or is no
 * journal) is reported through `onFault` and let go, its file untouched.
 */
export async function finishScrub(
  backend: Backend,
  log: LogFiles,
  options: { durable: boolean; onFault: (detail: string) => void },
): Promise<ScrubJournal | undefined> {
  const text = await backend.read(SCRUB_FILE);
  if (text === undefined) return undefined;
  const journal = parseScrubJournal(text);
  const fault = journal ? journalFault(journal, log, await currentText(backend, journal)) : 'not a journal: torn or damaged';
  if (journal && fault === undefined) await backend.overwrite(journal.path, journal.text, { durable: options.durable });
  else options.onFault(`${fault}; it is let go, and the file it names is left as it is`);
  await backend.remove(SCRUB_FILE);
  return fault === undefined ? journal : undefined;
}
