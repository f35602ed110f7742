import { SyncomError } from '../errors';
import type { BackendLock } from './lock';
import type { WebLockManager } from './opfs-types';

/** How a storage's Web Lock is taken. */
export interface WebLockOptions {
  /** The lock's name: one per store, shared by every tab and worker of the origin. */
  name: string;
  /** open()'s path, for the message. */
  path: string;
  /** Wait for the holder to let go instead of failing with LOCKED. */
  wait?: boolean;
  /** Give up a wait: the lock then fails with LOCKED. */
  signal?: AbortSignal;
}

function lockedInBrowser(o: WebLockOptions, why: string, cause?: unknown): SyncomError {
  return new SyncomError('LOCKED', `the storage at ${o.path} is locked: ${why}`, {
    status: 423, path: o.path, lock: o.name, ...(cause !== undefined && { cause }),
  });
}

/** The browser's LockManager, or undefined where there is none (an insecure context, an old browser). */
export function navigatorLocks(): WebLockManager | undefined {
  const nav = (globalThis as { navigator?: { locks?: WebLockManager } }).navigator;
  return typeof nav?.locks?.request === 'function' ? nav.locks : undefined;
}

/**
 * Take the exclusive Web Lock `name` (DESIGN: one owner per storage path; in
 * the browser, Web Locks), held until release(). The browser lets go of it by
 * itself when the tab or worker goes away, so a closed tab never leaves a store
 * locked. Without `wait`, a lock held elsewhere (another tab, a worker, or an
 * earlier open() in this page) fails at once; with it, the request queues.
 *
 * @throws SyncomError LOCKED (status 423) when the lock is held and `wait` is
 *   off, or when `signal` aborts the wait.
 */
export function takeWebLock(locks: WebLockManager, o: WebLockOptions): Promise<BackendLock> {
  return new Promise<BackendLock>((resolve, reject) => {
    let letGo!: () => void;
    const held = new Promise<void>((r) => { letGo = r; });
    const options = o.wait ? { mode: 'exclusive' as const, signal: o.signal } : { mode: 'exclusive' as const, ifAvailable: true };
    const granted = (lock: unknown): Promise<void> | undefined => {
      if (lock === null) {
        // `wait` is the backend's option: open() refuses an unknown option, so the hint names where it goes.
        reject(lockedInBrowser(o, 'another tab, worker or open() of this page has it open. Close it there, or make the backend with { wait: true } (opfsBackend, browserBackend)'));
        return undefined;
      }
      let released = false;
      resolve({
        async release() {
          if (released) return;
          released = true;
          letGo();
          await done.catch(() => undefined);
        },
      });
      // The lock is held for as long as this promise is pending.
      return held;
    };
    const done = locks.request(o.name, options, granted);
    done.catch((e: unknown) => {
      const name = (e as { name?: unknown } | null)?.name;
      // An aborted request rejects with the signal's reason (a TimeoutError from AbortSignal.timeout(), the app's own
      // error), not always an AbortError: read as no Web Locks, a store only busy was UNSUPPORTED, advising locks: false.
      if (name === 'AbortError' || (o.wait && o.signal?.aborted)) return reject(lockedInBrowser(o, 'the wait for it was aborted', e));
      // The page may not take Web Locks (a sandboxed iframe: SecurityError): a code, not a raw DOMException whose `code` is a number.
      reject(new SyncomError('UNSUPPORTED', `the storage at ${o.path} cannot be locked here: Web Locks refused (${String(name ?? e)}); `
        + 'open it from a page that may use them, or pass locks: false where one owner is guaranteed', { path: o.path, lock: o.name, cause: e }));
    });
  });
}
