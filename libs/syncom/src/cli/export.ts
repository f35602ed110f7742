import { type Entry, isHidden, readEntry } from '../crdt';
import { type CliIo, EXIT_FAULTS, EXIT_OK, textLines, writeOut } from './io';
import { openReadOnly } from './open-read-only';
import { findStorage } from './storage-dir';

/** One NDJSON line of `syncom export`. */
export interface ExportLine {
  id: string;
  /** The fields as get() reads them; null for a tombstone, a purge marker or a sealed record left closed. */
  data: Record<string, unknown> | null;
  meta: { ts?: number; v?: number; sealed?: true; deleted?: true; purged?: true };
}

/** What export includes besides the live unsealed records. */
export interface ExportOptions {
  /** Tombstones and purge markers too. */
  all: boolean;
  /** Sealed records decrypted; else a sealed record is a line with only its id and `sealed: true`. */
  sealed: boolean;
}

/** The line of one record, or undefined when the options leave it out. */
export function exportLine(e: Entry, isSealed: boolean, o: ExportOptions): ExportLine | undefined {
  if (isSealed && !o.sealed) return { id: e.id, data: null, meta: { sealed: true } };
  const meta: ExportLine['meta'] = { ts: e.latest[0] };
  if (e.v !== undefined) meta.v = e.v;
  if (isSealed) meta.sealed = true;
  if (e.purged) return o.all ? { id: e.id, data: null, meta: { ...meta, purged: true } } : undefined;
  if (isHidden(e)) return o.all ? { id: e.id, data: null, meta: { ...meta, deleted: true } } : undefined;
  return { id: e.id, data: readEntry(e), meta };
}

// Lines are written in chunks of about this many characters: one write per record is slow on a pipe.
const CHUNK = 64 * 1024;

/**
 * `syncom export <path> [--all] [--sealed]`: every record as one JSON line
 * `{ id, data, meta }` on stdout, in id order. Tombstones and purge markers
 * only with --all. A sealed record is written as `{ id, data: null, meta:
 * { sealed: true } }` unless --sealed asks for it decrypted: an export is
 * easily piped or copied somewhere the record was never meant to go.
 * Exit 1 when the engine could not read part of the storage (the export is
 * then incomplete, and says so on stderr).
 */
export async function exportCommand(path: string, o: ExportOptions, io: CliIo): Promise<number> {
  const { storage, problems, close } = await openReadOnly(await findStorage(path));
  try {
    const committed = storage.replica.records;
    let chunk = '';
    for (const id of [...committed.keys()].sort()) {
      const line = exportLine(committed.get(id) as Entry, storage.isSealed(id), o);
      if (line) chunk += JSON.stringify(line) + '\n';
      if (chunk.length >= CHUNK) { await writeOut(io.stdout, chunk); chunk = ''; }
    }
    if (chunk) await writeOut(io.stdout, chunk);
    for (const p of problems) await writeOut(io.stderr, textLines([`syncom export: ${p}; the export may be incomplete`]));
    return problems.length ? EXIT_FAULTS : EXIT_OK;
  } finally {
    await close();
  }
}
