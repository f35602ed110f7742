import type { MemoryFileState, MemorySnapshot } from './memory-files';

/**
 * What a crash does to content that was not made durable:
 * - 'none': a process crash; the page cache survives, so everything does.
 * - 'lost': a power cut; each file falls back to its durable content, or
 *   vanishes if it never had any. Unsynced removals are undone.
 * - 'torn': the newest content keeps a strict prefix (length from the seeded
 *   rng); after an in-place `overwrite`, the old durable bytes follow the tear;
 *   after an `append`, the tear is in what it added (the durable part stays).
 * - 'zeroed': same length as the new content, with a tail of NUL characters
 *   (after an append, within what it added).
 * - 'reordered': each pending change (file by file) is kept or lost at random.
 * Under 'torn' and 'zeroed' an unsynced removal is undone, as under 'lost'.
 */
export type CrashDamage = 'none' | 'lost' | 'torn' | 'zeroed' | 'reordered';

/**
 * mulberry32, a small seeded PRNG: the same seed gives the same sequence.
 * @example const rng = mulberry32(42); rng() // in [0, 1)
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What survives of one file's pending change; undefined when the file is gone. */
function survivor(state: MemoryFileState, damage: CrashDamage, rng: () => number): string | undefined {
  const { current, durable } = state;
  if (damage === 'none') return current;
  if (damage === 'reordered') return rng() < 0.5 ? current : durable;
  if (damage === 'lost' || current === undefined) return durable;
  // An append (the new content extends the durable one) can only lose or damage what it added.
  const kept = state.inPlace && durable !== undefined && current.startsWith(durable) ? durable.length : 0;
  const cut = kept + Math.floor(rng() * (current.length - kept));
  if (damage === 'zeroed') return current.slice(0, cut) + '\0'.repeat(current.length - cut);
  return current.slice(0, cut) + (state.inPlace ? (durable ?? '').slice(cut) : '');
}

/**
 * The snapshot a crash leaves: files visited in path order (so a seed replays),
 * each clean file kept, each pending change damaged; what survives is durable.
 * Cuts are in UTF-16 code units, so a tear may split a surrogate pair, as a
 * byte-level tear would split a UTF-8 sequence.
 */
export function damageSnapshot(snapshot: MemorySnapshot, damage: CrashDamage, seed: number): MemorySnapshot {
  const rng = mulberry32(seed);
  const files: Record<string, MemoryFileState> = {};
  for (const path of Object.keys(snapshot.files).sort()) {
    const state = snapshot.files[path] as MemoryFileState;
    const kept = state.current === state.durable ? state.durable : survivor(state, damage, rng);
    if (kept !== undefined) files[path] = { current: kept, durable: kept };
  }
  return { files, dirs: [...snapshot.dirs] };
}
