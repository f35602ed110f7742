import { SyncomError } from '../errors';

/** A storage's exclusive lock, held from open() to close() (DESIGN: one owner per storage path). */
export interface BackendLock {
  /** Let go of the lock; a second call does nothing. */
  release(): Promise<void>;
}

/** Who holds a lock, as its lock file says. */
export interface LockHolder {
  pid: number;
  /** The holder's machine: its process cannot be seen from another. */
  host: string;
  /** A random id of this hold: only its owner (or a takeover of a dead one) removes the file. */
  token: string;
  /** The process's start time (Linux: clock ticks since boot): tells a reused pid from the holder. */
  start?: string;
  /** The boot the process ran in (Linux): after a reboot no holder is alive. */
  boot?: string;
}

/**
 * The error of an open() on a path another live storage holds: code LOCKED,
 * status 423, naming the path and the holder's pid (and its host when it is
 * another machine's).
 */
export function lockedError(path: string, holder: Pick<LockHolder, 'pid' | 'host'>, here: { pid: number; host: string }): SyncomError {
  const who = holder.pid === here.pid && holder.host === here.host
    ? `this process (pid ${holder.pid}) has it open already`
    : `process ${holder.pid}${holder.host === here.host ? '' : ` on ${holder.host}`} has it open`;
  // Another machine's process cannot be checked from here: only a person can tell it is gone.
  const foreign = holder.host === here.host ? '' : ` If that process is gone, remove ${path}/LOCK.`;
  return new SyncomError('LOCKED', `the storage at ${path} is locked: ${who}. Close that storage first.${foreign}`, {
    status: 423, path, pid: holder.pid, host: holder.host,
  });
}
