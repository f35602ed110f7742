/**
 * When a small write is made on the main thread (see mainThreadTurn): shared
 * by the fs backend's in-place writes and its appends, so a slow disk sends
 * both to libuv's pool.
 */

/** The largest write made on the main thread (characters). */
export const SYNC_WRITE_MAX = 64 * 1024;
/** Writes made on the main thread in one event-loop turn, at most (then the next waits for the loop to turn). */
const SYNC_WRITES_PER_TURN = 4;
/** A main-thread write slower than this (ms) sends the next ones to the pool for SLOW_PAUSE_MS. */
const SLOW_WRITE_MS = 0.5;
const SLOW_PAUSE_MS = 1000;
/** Small writes made on the main thread since the event loop last turned. */
let syncWrites = 0;
/** Until when the main thread writes nothing (a slow disk: the wait is the pool's, not every caller's). */
let slowUntil = 0;

/**
 * Whether a small write that need not wait for the disk is made on the main
 * thread: a write to a page-cache file takes tens of microseconds there, a
 * round trip to libuv's pool far more (an awaited log append). A few per
 * event-loop turn: once SYNC_WRITES_PER_TURN are made, the next waits for the
 * loop to turn (setImmediate: timers, sockets and the record files' writes
 * get their turn) and is then made on the main thread too, which costs a turn
 * of the loop rather than a round trip through the pool. Not while the disk
 * is slow (a contended journal can hold a create for milliseconds): one slow
 * write sends the next second's to the pool; nor for a large write.
 */
export async function mainThreadTurn(data: string): Promise<boolean> {
  if (data.length > SYNC_WRITE_MAX || performance.now() < slowUntil) return false;
  if (syncWrites >= SYNC_WRITES_PER_TURN) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (syncWrites >= SYNC_WRITES_PER_TURN || performance.now() < slowUntil) return false;
  }
  if (syncWrites++ === 0) setImmediate(() => (syncWrites = 0));
  return true;
}

/** Run a main-thread write, timed: a slow one sends the next second's writes to the pool. */
export function timedOnMainThread<T>(write: () => T): T {
  const start = performance.now();
  try {
    return write();
  } finally {
    const end = performance.now();
    if (end - start > SLOW_WRITE_MS) slowUntil = end + SLOW_PAUSE_MS;
  }
}
