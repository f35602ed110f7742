import { type MemoryBackend, mulberry32 } from '../../src/backend';

/**
 * Which crash points a sweep cuts at. `npm run test:hunt` sets CRASH_STRIDE=1:
 * every point. CI cuts one point drawn from each run of CRASH_STRIDE (default
 * 6) consecutive ones, by a seeded PRNG (CRASH_SEED; fixed, so a failure
 * replays), plus the first and the last point of every kind (an op on a kind
 * of file), so every kind is cut and the rare ones (the purge's in-place
 * scrubs, the first mkdirs) always are.
 */
export const CRASH_STRIDE = Math.max(1, Number(process.env.CRASH_STRIDE ?? 6));
export const CRASH_SEED = Number(process.env.CRASH_SEED ?? 2026);

/** A kind of I/O point: the op and the file with its numbers blanked ('fsync(write) records/N.json'). */
const kindOf = (op: string, path: string): string => `${op} ${path.replace(/[0-9a-f]{6,}|\d+/g, 'N')}`;

/**
 * A view of `b` that records the kind of every I/O point it passes, in the
 * order the backend counts them: each mutating op, then the fsync of a
 * durable write, overwrite or removal, which the memory backend makes right after
 * (its counter and this list must agree; a sweep checks that they do).
 */
export function traced(b: MemoryBackend): { backend: MemoryBackend; kinds: string[] } {
  const kinds: string[] = [];
  const log = (op: string, path: string, durable?: boolean) => {
    kinds.push(kindOf(op, path));
    if (durable) kinds.push(kindOf(`fsync(${op})`, path));
  };
  const backend: MemoryBackend = {
    ...b,
    write: (path, data, o) => (log('write', path, o?.durable), b.write(path, data, o)),
    overwrite: (path, data, o) => (log('overwrite', path, o?.durable), b.overwrite(path, data, o)),
    append: b.append && ((path, data, o) => (log('append', path, o?.durable), (b.append as NonNullable<MemoryBackend['append']>)(path, data, o))),
    remove: (path, o) => (log('remove', path), o?.durable && kinds.push(kindOf('fsync(remove)', path)), b.remove(path, o)),
    mkdir: (dir) => (log('mkdir', dir), b.mkdir(dir)),
  };
  return { backend, kinds };
}

/**
 * The crash points (1-based) to cut at, given the kind of each point of a
 * clean run: all of them at stride 1; else a seeded one in each stride,
 * the first and last of each kind, and the first and last point overall.
 */
export function crashPoints(kinds: readonly string[], stride = CRASH_STRIDE, seed = CRASH_SEED): number[] {
  if (stride <= 1) return kinds.map((_, i) => i + 1);
  const rng = mulberry32(seed);
  const picked = new Set<number>([1, kinds.length]);
  for (let from = 1; from <= kinds.length; from += stride) {
    picked.add(Math.min(kinds.length, from + Math.floor(rng() * stride)));
  }
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  kinds.forEach((kind, i) => {
    if (!first.has(kind)) first.set(kind, i + 1);
    last.set(kind, i + 1);
  });
  for (const k of [...first.values(), ...last.values()]) picked.add(k);
  return [...picked].sort((a, b) => a - b);
}
