import { mulberry32 } from '../backend/memory-damage';

/** A seeded source of choices: the same seed gives the same choices, in the same order. */
export interface SimRandom {
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [0, n); 0 when n <= 0. */
  int(n: number): number;
  /** An integer in [min, max]. */
  range(min: number, max: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(xs: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(xs: readonly T[]): T[];
  /** An independent source seeded from this one: a part of the run that draws on its own. */
  fork(): SimRandom;
}

/**
 * A SimRandom over mulberry32.
 * @example
 * const rng = createRandom(42);
 * rng.pick(['a', 'b']); rng.chance(0.3);
 */
export function createRandom(seed: number): SimRandom {
  const next = mulberry32(seed);
  const int = (n: number) => (n > 0 ? Math.floor(next() * n) : 0);
  return {
    next,
    int,
    range: (min, max) => min + int(max - min + 1),
    chance: (p) => p > 0 && next() < p,
    pick<T>(xs: readonly T[]): T {
      if (xs.length === 0) throw new TypeError('pick() from an empty list');
      return xs[int(xs.length)];
    },
    shuffle<T>(xs: readonly T[]): T[] {
      const out = [...xs];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
    fork: () => createRandom(Math.floor(next() * 0x1_0000_0000)),
  };
}
