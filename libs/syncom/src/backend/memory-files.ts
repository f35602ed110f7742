/**
 * One file of the memory backend: `current` is what reads see, `durable` what
 * survives a power cut. `inPlace` marks a pending (non-durable) overwrite, which
 * tears over the old bytes instead of replacing the file.
 * `current` undefined with `durable` set is an unsynced removal.
 */
export interface MemoryFileState {
  current?: string;
  durable?: string;
  inPlace?: boolean;
}

/** The whole state of a memory backend, plain data: `createMemoryBackend({ from })` reopens it. */
export interface MemorySnapshot {
  files: Record<string, MemoryFileState>;
  /** Directories made by mkdir (their parents are implied). Directories always survive a crash. */
  dirs: string[];
}

/** The synchronous file table under the memory backend; paths are already checked. */
export interface FileTable {
  read(path: string): string | undefined;
  put(path: string, data: string, how: { durable: boolean; inPlace: boolean }): void;
  /** Add to the end of a file (created if absent): pending, as an in-place write, until made durable. */
  append(path: string, data: string, durable: boolean): void;
  /** A copy of one file's state, to put back with `restore` (undefined: no such file). */
  state(path: string): MemoryFileState | undefined;
  restore(path: string, state: MemoryFileState | undefined): void;
  remove(path: string): void;
  /** Make a removal durable: what survived a crash of it goes too. */
  forget(path: string): void;
  list(dir: string): string[];
  mkdir(dir: string): void;
  exists(path: string): boolean;
  snapshot(): MemorySnapshot;
  current(): Map<string, string>;
}

/**
 * An Error shaped like a node:fs one (`code`, `syscall`, `path`), its
 * message `<code>[: <meaning>], <syscall> '<path>'`. The file table's own
 * codes (ENOENT, EISDIR, EEXIST, ENOTDIR) go without a meaning: the words
 * are Node's, and they would weigh on the browser bundle; the fault
 * injection gives its codes theirs (memory-faults.ts).
 * Typed without Node's `NodeJS.ErrnoException`: this module is in the
 * browser entry's declarations, which a web app without @types/node reads
 * (test/platform/browser-types.spec.ts).
 * @example throw fsError('ENOENT', 'open', 'log/index')
 */
export function fsError(code: string, syscall: string, path?: string, meaning?: string): Error & { code: string; syscall: string; path?: string } {
  const where = path === undefined ? syscall : `${syscall} '${path}'`;
  return Object.assign(new Error(`${code}${meaning ? `: ${meaning}` : ''}, ${where}`), { code, syscall, path });
}

/** The parent directory of a checked path ('' for the root). */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function addDir(dirs: Set<string>, dir: string): void {
  const parts = dir.split('/').filter((s) => s !== '');
  for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
}

interface Table {
  files: Map<string, MemoryFileState>;
  dirs: Set<string>;
}

function loadTable(from?: MemorySnapshot): Table {
  const table: Table = { files: new Map(), dirs: new Set(['']) };
  for (const [path, state] of Object.entries(from?.files ?? {})) {
    table.files.set(path, { ...state });
    addDir(table.dirs, parentOf(path));
  }
  for (const dir of from?.dirs ?? []) addDir(table.dirs, dir);
  return table;
}

const live = ({ files }: Table, path: string): boolean => files.get(path)?.current !== undefined;

/** mkdir -p, refusing where a file stands, as node:fs does. */
function makeDir(table: Table, dir: string): void {
  const parts = dir.split('/');
  for (let i = 1; i <= parts.length; i++) {
    if (live(table, parts.slice(0, i).join('/'))) throw fsError(i === parts.length ? 'EEXIST' : 'ENOTDIR', 'mkdir', dir);
  }
  addDir(table.dirs, dir);
}

function putFile(table: Table, path: string, data: string, how: { durable: boolean; inPlace: boolean }): void {
  // As on node:fs: no implicit parent directories, and a directory is not a file.
  if (!table.dirs.has(parentOf(path))) throw fsError('ENOENT', 'open', path);
  if (table.dirs.has(path)) throw fsError('EISDIR', 'open', path);
  const old = table.files.get(path)?.durable;
  table.files.set(path, how.durable ? { current: data, durable: data } : { current: data, durable: old, inPlace: how.inPlace });
}

function removeFile({ files }: Table, path: string): void {
  const old = files.get(path)?.durable;
  // An unlink is not fsynced: until a crash decides, the durable content remains.
  if (old === undefined) files.delete(path);
  else files.set(path, { durable: old });
}

/** Create a file table, optionally from a snapshot (copied, not shared). */
export function createFileTable(from?: MemorySnapshot): FileTable {
  const table = loadTable(from);
  const { files, dirs } = table;
  const paths = () => [...files.keys()].filter((p) => live(table, p)).sort();
  return {
    read(path) {
      if (dirs.has(path)) throw fsError('EISDIR', 'read', path);
      return files.get(path)?.current;
    },
    put: (path, data, how) => putFile(table, path, data, how),
    append: (path, data, durable) => putFile(table, path, (files.get(path)?.current ?? '') + data, { durable, inPlace: true }),
    remove: (path) => removeFile(table, path),
    forget: (path) => void (files.get(path)?.current === undefined && files.delete(path)),
    state: (path) => (files.has(path) ? { ...files.get(path) } : undefined),
    restore: (path, state) => void (state ? files.set(path, { ...state }) : files.delete(path)),
    list(dir) {
      const prefix = dir === '' ? '' : `${dir}/`;
      return paths().filter((p) => parentOf(p) === dir).map((p) => p.slice(prefix.length));
    },
    mkdir: (dir) => makeDir(table, dir),
    exists: (path) => dirs.has(path) || live(table, path),
    snapshot: () => ({
      files: Object.fromEntries([...files].map(([p, s]) => [p, { ...s }])),
      dirs: [...dirs].filter((d) => d !== '').sort(),
    }),
    current: () => new Map(paths().map((p) => [p, files.get(p)?.current as string])),
  };
}
