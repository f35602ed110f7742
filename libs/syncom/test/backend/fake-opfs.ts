import type {
  OpfsBlob, OpfsDirectoryHandle, OpfsEntry, OpfsFileHandle, OpfsWritable, WebLockInfo, WebLockManager, WebLockRequestOptions,
} from '../../src/backend/opfs-types';

/**
 * An in-memory Origin Private File System that behaves as Chromium's does,
 * for the OPFS backend's tests under Node:
 * - a writable stream writes to a swap file, `<name>.crswap`, listed in its
 *   directory while it is open; close() commits it whole, abort() drops it;
 *   getFile() sees the committed content only;
 * - errors are DOMExceptions by name (NotFoundError, TypeMismatchError,
 *   InvalidModificationError) and a TypeError for a name OPFS refuses;
 * - a directory lists its entries in no sorted order (newest first);
 * - a file is created empty by getFileHandle({ create: true }), before any
 *   commit, and a file with an open stream cannot be removed
 *   (NoModificationAllowedError).
 * Checked against Chromium 156 (headless): all of the above, and that a closed
 * page's open streams are dropped. There Chromium removes their swaps too; this
 * fake leaves them listed, the harsher case.
 * Test controls: crash() (the page dies: its handles go dead, open swaps stay),
 * dieAtNextClose() (before or, torn, during a commit), cut(), put(), text(), paths().
 */

type Node = FileNode | DirNode;
interface FileNode { kind: 'file'; bytes: Uint8Array }
interface DirNode { kind: 'directory'; entries: Map<string, Node> }

const utf8 = new TextEncoder();
const dom = (name: string, message: string) => new DOMException(message, name);

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\\')) {
    throw new TypeError(`Name is not allowed: ${JSON.stringify(name)}`);
  }
}

interface Tear {
  match: (path: string) => boolean;
  keep?: number;
}

/** One origin's OPFS. */
export class FakeOpfs {
  readonly tree: DirNode = { kind: 'directory', entries: new Map() };
  private generation = 0;
  private tear: Tear | undefined;
  /** @internal Streams not yet closed or aborted. */
  readonly streams = new Set<FakeWritable>();

  /** @internal */
  get current(): number {
    return this.generation;
  }

  /** The root directory handle, as navigator.storage.getDirectory() gives it to the page alive now. */
  root(): OpfsDirectoryHandle {
    return new FakeDir(this, this.tree, '', '', this.generation);
  }

  /** The page dies: every handle and stream it had throws from now on; swaps of open streams stay behind. */
  crash(): void {
    this.generation++;
  }

  /**
   * The page dies at the next close() of a stream whose path matches: with
   * `keep`, a power cut during the commit leaves the file's first `keep` bytes
   * of the new content; without, it dies before the commit (the old content
   * and the swap stay).
   */
  dieAtNextClose(match: (path: string) => boolean, keep?: number): void {
    this.tear = { match, keep };
  }

  /** @internal */
  alive(generation: number): void {
    if (generation !== this.generation) throw dom('InvalidStateError', 'the page that held this handle is gone');
  }

  /** @internal Take the tear planned for this path, if any. */
  takeTear(path: string): Tear | undefined {
    const tear = this.tear?.match(path) ? this.tear : undefined;
    if (tear) this.tear = undefined;
    return tear;
  }

  /** The node at a '/'-path, or undefined. */
  node(path: string): Node | undefined {
    let node: Node | undefined = this.tree;
    for (const part of path.split('/').filter((p) => p !== '')) {
      node = node?.kind === 'directory' ? node.entries.get(part) : undefined;
    }
    return node;
  }

  /** A file's committed content as text, or undefined. */
  text(path: string): string | undefined {
    const node = this.node(path);
    return node?.kind === 'file' ? new TextDecoder().decode(node.bytes) : undefined;
  }

  /** Cut a file to its first `bytes` bytes (a torn write, made by hand). */
  cut(path: string, bytes: number): void {
    const node = this.node(path);
    if (node?.kind !== 'file') throw new Error(`no file ${path}`);
    node.bytes = node.bytes.slice(0, bytes);
  }

  /** Set a file's content (its directory must exist). */
  put(path: string, text: string): void {
    const i = path.lastIndexOf('/');
    const dir = this.node(path.slice(0, Math.max(i, 0)));
    if (dir?.kind !== 'directory') throw new Error(`no directory for ${path}`);
    dir.entries.set(path.slice(i + 1), { kind: 'file', bytes: utf8.encode(text) });
  }

  /** Every file's path, sorted. */
  paths(): string[] {
    const out: string[] = [];
    const walk = (dir: DirNode, prefix: string) => {
      for (const [name, node] of dir.entries) {
        if (node.kind === 'file') out.push(prefix + name);
        else walk(node, `${prefix}${name}/`);
      }
    };
    walk(this.tree, '');
    return out.sort();
  }
}

class FakeDir implements OpfsDirectoryHandle {
  readonly kind = 'directory' as const;
  constructor(readonly fs: FakeOpfs, readonly node: DirNode, readonly name: string, readonly path: string, readonly gen: number) {}

  private child(name: string): string {
    return this.path ? `${this.path}/${name}` : name;
  }

  private get(name: string, kind: Node['kind'], create: boolean): Node {
    this.fs.alive(this.gen);
    checkName(name);
    let found = this.node.entries.get(name);
    if (!found) {
      if (!create) throw dom('NotFoundError', `A requested file or directory could not be found: ${this.child(name)}`);
      found = kind === 'file' ? { kind, bytes: new Uint8Array() } : { kind, entries: new Map() };
      this.node.entries.set(name, found);
    }
    if (found.kind !== kind) throw dom('TypeMismatchError', `The path supplied exists, but was not an entry of requested type: ${this.child(name)}`);
    return found;
  }

  async getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<OpfsDirectoryHandle> {
    await Promise.resolve();
    return new FakeDir(this.fs, this.get(name, 'directory', options?.create === true) as DirNode, name, this.child(name), this.gen);
  }

  async getFileHandle(name: string, options?: { create?: boolean }): Promise<OpfsFileHandle> {
    await Promise.resolve();
    return new FakeFile(this.fs, this, this.get(name, 'file', options?.create === true) as FileNode, name, this.gen);
  }

  async removeEntry(name: string, options?: { recursive?: boolean }): Promise<void> {
    await Promise.resolve();
    this.fs.alive(this.gen);
    checkName(name);
    const found = this.node.entries.get(name);
    if (!found) throw dom('NotFoundError', `A requested file or directory could not be found: ${this.child(name)}`);
    if (found.kind === 'file' && this.writing(name)) {
      throw dom('NoModificationAllowedError', `An attempt was made to modify an object where modifications are not allowed: ${this.child(name)}`);
    }
    if (found.kind === 'directory' && found.entries.size > 0 && !options?.recursive) {
      throw dom('InvalidModificationError', `The directory is not empty: ${this.child(name)}`);
    }
    this.node.entries.delete(name);
  }

  async *values(): AsyncGenerator<OpfsEntry> {
    this.fs.alive(this.gen);
    // Chromium promises no order: yield newest first, so a caller that forgets to sort shows it.
    for (const [name, node] of [...this.node.entries].reverse()) {
      yield node.kind === 'file' ? new FakeFile(this.fs, this, node, name, this.gen) : new FakeDir(this.fs, node, name, this.child(name), this.gen);
    }
  }

  /** @internal Whether a stream of the live page is open on the file `name` (Chromium then refuses to remove it). */
  writing(name: string): boolean {
    const node = this.node.entries.get(name);
    return [...this.fs.streams].some((w) => w.file.node === node && w.file.gen === this.fs.current && w.isOpen());
  }

  /** @internal A fresh swap name beside `name` (Chromium: name.crswap, then name.1.crswap, ...). */
  swapName(name: string): string {
    for (let i = 0; ; i++) {
      const candidate = i === 0 ? `${name}.crswap` : `${name}.${i}.crswap`;
      if (!this.node.entries.has(candidate)) return candidate;
    }
  }
}

class FakeFile implements OpfsFileHandle {
  readonly kind = 'file' as const;
  constructor(readonly fs: FakeOpfs, readonly dir: FakeDir, readonly node: FileNode, readonly name: string, readonly gen: number) {}

  async getFile(): Promise<OpfsBlob> {
    await Promise.resolve();
    this.fs.alive(this.gen);
    if (this.dir.node.entries.get(this.name) !== this.node) throw dom('NotFoundError', `A requested file or directory could not be found: ${this.name}`);
    return new Blob([this.node.bytes.slice()]);
  }

  async createWritable(options?: { keepExistingData?: boolean }): Promise<OpfsWritable> {
    await Promise.resolve();
    this.fs.alive(this.gen);
    const swapName = this.dir.swapName(this.name);
    const swap: FileNode = { kind: 'file', bytes: options?.keepExistingData ? this.node.bytes.slice() : new Uint8Array() };
    this.dir.node.entries.set(swapName, swap);
    const stream = new FakeWritable(this, swap, swapName);
    this.fs.streams.add(stream);
    return stream;
  }
}

class FakeWritable implements OpfsWritable {
  private position = 0;
  private state: 'open' | 'closed' | 'aborted' = 'open';
  constructor(readonly file: FakeFile, readonly swap: FileNode, readonly swapName: string) {}

  isOpen(): boolean {
    return this.state === 'open';
  }

  private check(): void {
    this.file.fs.alive(this.file.gen);
    if (this.state !== 'open') throw new TypeError(`Cannot write to a ${this.state} writable stream`);
  }

  async write(data: string | Uint8Array): Promise<void> {
    await Promise.resolve();
    this.check();
    const bytes = typeof data === 'string' ? utf8.encode(data) : data;
    const end = this.position + bytes.byteLength;
    const next = new Uint8Array(Math.max(end, this.swap.bytes.byteLength));
    next.set(this.swap.bytes);
    next.set(bytes, this.position);
    this.swap.bytes = next;
    this.position = end;
  }

  async truncate(size: number): Promise<void> {
    await Promise.resolve();
    this.check();
    const next = new Uint8Array(size);
    next.set(this.swap.bytes.slice(0, size));
    this.swap.bytes = next;
    this.position = Math.min(this.position, size);
  }

  async close(): Promise<void> {
    await Promise.resolve();
    this.check();
    this.state = 'closed';
    const { dir, node, name, fs } = this.file;
    fs.streams.delete(this);
    const tear = fs.takeTear(dir.path ? `${dir.path}/${name}` : name);
    if (tear) {
      if (tear.keep !== undefined) node.bytes = this.swap.bytes.slice(0, tear.keep);
      if (tear.keep !== undefined) dir.node.entries.delete(this.swapName);
      fs.crash();
      throw dom('InvalidStateError', 'the page died at the commit');
    }
    dir.node.entries.delete(this.swapName);
    if (dir.node.entries.get(name) !== node) throw dom('NotFoundError', `A requested file or directory could not be found: ${name}`);
    node.bytes = this.swap.bytes;
  }

  async abort(): Promise<void> {
    await Promise.resolve();
    if (this.state !== 'open') return;
    this.state = 'aborted';
    this.file.fs.streams.delete(this);
    this.file.dir.node.entries.delete(this.swapName);
  }
}

interface Waiter {
  mode: string;
  grant: () => void;
}

/**
 * navigator.locks for one origin, as the Web Locks spec has it: a request is
 * granted when the name is free and no request waits before it; ifAvailable
 * gets null instead of waiting; the lock is held until the callback's promise
 * settles; an aborted signal rejects a waiting request with an AbortError.
 */
export class FakeLocks implements WebLockManager {
  private readonly held = new Map<string, string>();
  private readonly queues = new Map<string, Waiter[]>();

  /** The names held now. */
  names(): string[] {
    return [...this.held.keys()].sort();
  }

  /** How many requests wait for `name`. */
  waiting(name: string): number {
    return this.queues.get(name)?.length ?? 0;
  }

  request<T>(name: string, options: WebLockRequestOptions, callback: (lock: WebLockInfo | null) => Promise<T> | T): Promise<T> {
    const mode = options.mode ?? 'exclusive';
    const queue = this.queues.get(name) ?? [];
    this.queues.set(name, queue);
    // As browsers do: an aborted request rejects with the signal's reason (an AbortError only when abort() was given none).
    const aborted = (signal: AbortSignal) => (signal.reason !== undefined ? signal.reason : dom('AbortError', 'The request was aborted.'));
    if (options.signal?.aborted) return Promise.reject(aborted(options.signal));
    const free = !this.held.has(name) && queue.length === 0;
    if (!free && options.ifAvailable) return Promise.resolve().then(() => callback(null));
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = { mode, grant: () => this.run(name, mode, callback).then(resolve, reject) };
      if (free) return void waiter.grant();
      queue.push(waiter);
      options.signal?.addEventListener('abort', () => {
        const i = queue.indexOf(waiter);
        if (i >= 0) { queue.splice(i, 1); reject(aborted(options.signal as AbortSignal)); }
      });
    });
  }

  private async run<T>(name: string, mode: string, callback: (lock: WebLockInfo | null) => Promise<T> | T): Promise<T> {
    // Held from the grant on, before the callback runs: a request made meanwhile sees it taken.
    this.held.set(name, mode);
    try {
      await Promise.resolve();
      return await callback({ name, mode });
    } finally {
      this.held.delete(name);
      this.queues.get(name)?.shift()?.grant();
    }
  }
}
