/**
 * The subset of the File System (OPFS) and Web Locks APIs the OPFS backend
 * uses, typed structurally: syncom compiles without the DOM lib, and a real
 * FileSystemDirectoryHandle or LockManager fits these shapes as it is.
 */

/** An entry of a directory, as values() yields it. */
export interface OpfsEntry {
  readonly kind: string;
  readonly name: string;
}

/** What getFile() returns: a File (a Blob) of the committed content. */
export interface OpfsBlob {
  readonly size: number;
  text(): Promise<string>;
}

/** FileSystemWritableFileStream: its writes land in a swap file that close() commits. */
export interface OpfsWritable {
  write(data: string): Promise<void>;
  close(): Promise<void>;
  abort(reason?: unknown): Promise<void>;
}

/** FileSystemFileHandle. */
export interface OpfsFileHandle extends OpfsEntry {
  getFile(): Promise<OpfsBlob>;
  /** Missing where a browser has OPFS but no writable streams (Safari before 26). */
  createWritable?(options?: { keepExistingData?: boolean }): Promise<OpfsWritable>;
}

/** FileSystemDirectoryHandle. */
export interface OpfsDirectoryHandle extends OpfsEntry {
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<OpfsDirectoryHandle>;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<OpfsFileHandle>;
  removeEntry(name: string, options?: { recursive?: boolean }): Promise<void>;
  values(): AsyncIterable<OpfsEntry>;
}

/** A held Web Lock, as the request callback gets it (null when ifAvailable found it taken). */
export interface WebLockInfo {
  readonly name: string;
  readonly mode: string;
}

/** The options of navigator.locks.request that the backend passes. */
export interface WebLockRequestOptions {
  mode?: 'exclusive' | 'shared';
  ifAvailable?: boolean;
  signal?: AbortSignal;
}

/** navigator.locks (LockManager). */
export interface WebLockManager {
  request<T>(name: string, options: WebLockRequestOptions, callback: (lock: WebLockInfo | null) => Promise<T> | T): Promise<T>;
}
