import { ioError, SyncomError } from '../errors';
import type { Backend } from '../backend/types';

/** The file at a store's root naming the format of its files: `{ "format": <n> }`, and only that, in every version. */
export const FORMAT_FILE = 'format.json';

/**
 * The format of the files this version writes, and the newest it reads. A
 * later version that writes files this one would misread (a record file's
 * layout, a log file's) raises it, and writes the new number before any
 * such file; this version then refuses the store rather than lose what it
 * cannot read (docs/operations.md, "Upgrades and rollbacks"). Format 2:
 * every record file ends with its sum (record-sum.ts), which format 1 reads
 * as a damaged entry.
 */
export const STORE_FORMAT = 2;

/**
 * The format a store's format.json names; undefined when there is none (a
 * new store, or one an earlier version wrote) or it cannot be read. An
 * unreadable one is a write that never finished (OPFS may tear a file): the
 * version that made it had written nothing of its format after it, since it
 * writes the number first.
 */
export async function readStoreFormat(backend: Backend): Promise<number | undefined> {
  const text = await backend.read(FORMAT_FILE);
  if (text === undefined) return undefined;
  try {
    const format = (JSON.parse(text) as { format?: unknown } | null)?.format;
    return Number.isSafeInteger(format) && (format as number) >= 1 ? (format as number) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Refuse a store a later version of syncom wrote in a newer format, before
 * anything is read into memory or written.
 *
 * @throws SyncomError STORE_TOO_NEW naming format.json, the store's format and the one this version reads.
 */
export function refuseNewerFormat(format: number | undefined): void {
  if (format === undefined || format <= STORE_FORMAT) return;
  throw new SyncomError(
    'STORE_TOO_NEW',
    `${FORMAT_FILE} says this store's files are in format ${format}, written by a later version of syncom; this one reads format ${STORE_FORMAT} `
    + 'and could lose data it misreads. Open it with that later version, or open a copy of the store taken before the upgrade',
    { file: FORMAT_FILE, format, reads: STORE_FORMAT },
  );
}

/**
 * Write this version's format, where the store named none or an older one: before any file of its format is written.
 *
 * @throws SyncomError IO_ERROR naming format.json where the write fails (a read-only store, a full disk), the OS error its cause.
 */
export async function writeStoreFormat(backend: Backend, durable: boolean): Promise<void> {
  await backend.write(FORMAT_FILE, JSON.stringify({ format: STORE_FORMAT }), { durable }).catch((e: unknown) => { throw ioError(FORMAT_FILE, e); });
}
