import type { Backend } from '../backend/types';
import { LOG_DIR, OPEN_DIR } from './files';

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
 */
export const SCRUB_FILE = `${LOG_DIR}/scrub.json`;

/** A rewrite under way: the log file and its whole new text. */
export interface ScrubJournal {
  path: string;
  text: string;
}

/** A file the scrub rewrites: a sealed segment or an open file of the log, and nothing else. */
const LOG_FILE = new RegExp(`^(${LOG_DIR}/seg-|${OPEN_DIR}/)\\d+\\.json$`);

/** The journal's text for the rewrite of `path` with `text`. */
export const scrubJournalText = (path: string, text: string): string => JSON.stringify({ path, text });

/** The journal in `text`, if it is one (it names a log file and holds a text). */
export function parseScrubJournal(text: string | undefined): ScrubJournal | undefined {
  if (text === undefined) return undefined;
  try {
    const j = JSON.parse(text) as Partial<ScrubJournal> | null;
    return typeof j?.path === 'string' && LOG_FILE.test(j.path) && typeof j.text === 'string' ? { path: j.path, text: j.text } : undefined;
  } catch {
    return undefined;
  }
}

/** The journal a crash left, if any. */
export async function readScrubJournal(backend: Backend): Promise<ScrubJournal | undefined> {
  return parseScrubJournal(await backend.read(SCRUB_FILE));
}

/**
 * Reads of `backend` as they are once a rewrite a crash cut short is
 * finished: the journal's file reads as the journal says, whether or not
 * the backend may be written (the CLI reads a storage it never changes).
 */
export function readThrough(backend: Backend, journal: ScrubJournal | undefined): (path: string) => Promise<string | undefined> {
  return (path) => (journal !== undefined && path === journal.path ? Promise.resolve(journal.text) : backend.read(path));
}

/** Finish the rewrite the journal names (in place, as the scrub does) and let the journal go. */
export async function finishScrub(backend: Backend, journal: ScrubJournal | undefined, durable: boolean): Promise<void> {
  if (journal === undefined) return;
  await backend.overwrite(journal.path, journal.text, { durable });
  await backend.remove(SCRUB_FILE);
}
