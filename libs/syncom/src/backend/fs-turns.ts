/**
 * When a small write is made on the main thread (see mainThreadTurn): shared
 * by the fs backend's in-place writes and its appends, so a slow disk sends
 * both to libuv's pool.
 */

/** The largest write made on the main thread (characters). */
export const SYNC_WRITE_MAX = 64 * 1024;
/** Writes made on the main thread in one event-loop turn, at most (then the next waits for the loop to turn). */
const SYNC_WRITES_PER_TURN = 4;
/**
 * A main-thread write slower than this (ms) sends the next ones of its kind
 * to the pool for a while: SLOW_PAUSE_FACTOR times as long as it took, at
 * least SLOW_PAUSE_MIN_MS and at most SLOW_PAUSE_MAX_MS: slow writes of up
 * to 5 ms hold the main thread at most a twenty-first of the time, longer
 * ones at most their share of 100 ms. In proportion, not a fixed 100 ms: a
 * write preempted once by another thread (two cores shared with the signing
 * threads and the pool) takes 0.5 to 1 ms, and 100 ms of pool writes after
 * it cost an awaited writer about five times its time for some 200 writes.
 * A disk that stays slow is caught again by the first write after the pause.
 */
const SLOW_WRITE_MS = 0.5;
const SLOW_PAUSE_FACTOR = 20;
const SLOW_PAUSE_MIN_MS = 2;
const SLOW_PAUSE_MAX_MS = 100;
/**
 * What a write does to the file system: create a file, or write into one
 * that exists (an append, a recycled file). They are timed apart: a file
 * system can take a millisecond to create a file and microseconds to write
 * into one (ext4 without a journal, with many files freed lately).
 */
export type WriteKind = 'create' | 'existing';
/** Small writes made on the main thread since the event loop last turned. */
let syncWrites = 0;
/** Until when the main thread makes no write of each kind (a slow disk: the wait is the pool's, not every caller's). */
const slowUntil: Record<WriteKind, number> = { create: 0, existing: 0 };

/**
 * Whether a small write that need not wait for the disk is made on the main
 * thread: a write to a page-cache file takes tens of microseconds there, a
 * round trip to libuv's pool far more (an awaited log append). A few per
 * event-loop turn: once SYNC_WRITES_PER_TURN are made, the next waits for the
 * loop to turn (setImmediate: timers, sockets and the record files' writes
 * get their turn) and is then made on the main thread too, which costs a turn
 * of the loop rather than a round trip through the pool. Not while the disk
 * is slow (a contended journal can hold a create for milliseconds): one slow
 * write of a kind sends that kind's writes to the pool for a while; nor for
 * a large write.
 */
export async function mainThreadTurn(data: string, kind: WriteKind = 'existing'): Promise<boolean> {
  if (data.length > SYNC_WRITE_MAX || performance.now() < slowUntil[kind]) return false;
  if (syncWrites >= SYNC_WRITES_PER_TURN) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (syncWrites >= SYNC_WRITES_PER_TURN || performance.now() < slowUntil[kind]) return false;
  }
  if (syncWrites++ === 0) setImmediate(() => (syncWrites = 0));
  return true;
}

/** Run a main-thread write of `kind`, timed: a slow one sends the writes of its kind to the pool for a while (slowPause). */
export function timedOnMainThread<T>(write: () => T, kind: WriteKind = 'existing'): T {
  const start = performance.now();
  try {
    return write();
  } finally {
    const end = performance.now();
    if (end - start > SLOW_WRITE_MS) slowUntil[kind] = end + slowPause(end - start);
  }
}

/** How long (ms) the writes of a kind go to the pool after a main-thread write of theirs took `took` ms. */
export function slowPause(took: number): number {
  return Math.min(SLOW_PAUSE_MAX_MS, Math.max(SLOW_PAUSE_MIN_MS, SLOW_PAUSE_FACTOR * took));
}
