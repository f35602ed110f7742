import type { BackendLock } from './lock';

/** Options of `Backend.write`. */
export interface WriteOptions {
  /** fsync before resolving (GUAR-17). */
  durable?: boolean;
  /** No temp file and rename: a crash can leave the file torn (see `write`). */
  inPlace?: boolean;
}

/** Options of `Backend.remove`. */
export interface RemoveOptions {
  /**
   * The file may be kept, emptied, for a later write of a file in the same
   * directory (node:fs: its bytes zeroed under a temp name, then written and
   * renamed into place, so no file is created; the log's batch files at a
   * seal, the record files a merge took). Nothing reads it meanwhile;
   * close() removes what is kept. A backend may ignore it and remove the file.
   */
  recycle?: boolean;
  /**
   * The removal survives a power cut once this resolves (node:fs: the
   * directory is fsynced after the unlink), as a durable write does: a file
   * whose removal an app was told of (a registry file) does not come back.
   */
  durable?: boolean;
}

/** Options of `Backend.append`. */
export interface AppendOptions {
  /** fsync the data (and, for a file this append creates, its directory entry) before resolving (GUAR-17). */
  durable?: boolean;
  /** Start the file afresh: whatever it held is cut first (a leftover of a failed append at that name). */
  fresh?: boolean;
}

/**
 * The pluggable file backend: everything syncom stores goes through it, so a
 * browser (OPFS) backend stays possible. Paths are relative to the storage
 * root and use '/' separators.
 */
export interface Backend {
  /** The file's content, or undefined when it does not exist. */
  read(path: string): Promise<string | undefined>;
  /**
   * Write a whole file. Atomic where the backend can make it so (node:fs:
   * temp file then rename): a reader sees the old content or the new, never half.
   * With `durable`, the data (and the rename) are fsynced before it resolves.
   * With `inPlace`, the caller gives up that atomicity for fewer round trips
   * (node:fs: open, write, close; no temp file, no rename): a crash or a failed
   * write can leave the file torn, so use it only for a file whose torn copy the
   * caller tolerates (the log's newest batch). With both, the file and its
   * directory entry are fsynced. A backend may ignore it and write atomically.
   */
  write(path: string, data: string, options?: WriteOptions): Promise<void>;
  /**
   * Rewrite a file in place, with no rename (the spec's purge scrub): a crash
   * can leave it torn.
   */
  overwrite(path: string, data: string, options?: { durable?: boolean }): Promise<void>;
  /**
   * Optional: add `data` at the end of the file, creating it if absent (the
   * log's newest open file, one batch a line). The backend may keep the file
   * open between appends; it lets it go on any other call on that path, on an
   * append to another file, and on close() (after which it stays usable).
   * A crash or a failed append can leave part of `data` at the end (a torn
   * last line); a failed one is cut back where the backend can do so. A
   * backend without it gets one whole file per batch from the log instead.
   */
  append?(path: string, data: string, options?: AppendOptions): Promise<void>;
  /** Remove a file; a missing one is not an error. */
  remove(path: string, options?: RemoveOptions): Promise<void>;
  /** Names (not paths) of the files in a directory; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
  /** Create a directory and its parents; an existing one is not an error. */
  mkdir(dir: string): Promise<void>;
  /** Whether anything exists at the path. */
  exists(path: string): Promise<boolean>;
  /** Release what the backend holds (file handles, locks). */
  close?(): Promise<void>;
  /**
   * Take the storage's exclusive lock (DESIGN: one owner per storage path):
   * open() calls it first and releases it at close(). A backend without it
   * is not locked (the CLI's read-only backend; your own, unless you add one).
   * `path` is open()'s path, for the message.
   *
   * @throws SyncomError LOCKED (status 423) while another open storage holds it.
   */
  lock?(path: string): Promise<BackendLock>;
  /**
   * True where a whole-file write cut by a power cut may leave the file
   * torn or empty, not old or new (OPFS: no rename, no fsync). The log then
   * writes `log/index.json` twice, `log/index.next.json` first, and a load
   * that finds `index.json` torn takes the other.
   */
  readonly tornWrites?: boolean;
  /** True where no write is kept (the CLI's inspection): the log then mints no epoch at open (LOG-8). */
  readonly readOnly?: boolean;
}
