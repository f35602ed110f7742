/** `list` in the order `keys` sorts it, with the ops at `dups` delivered once more (property tests of any order and duplication). */
export function shuffled<T>(list: readonly T[], keys: readonly number[], dups: readonly number[]): T[] {
  const order = list.map((x, i) => ({ x, k: keys[i % Math.max(1, keys.length)] ?? 0, i }));
  order.sort((a, b) => a.k - b.k || a.i - b.i);
  const out = order.map((o) => o.x);
  for (const d of dups) if (out.length) out.splice(d % (out.length + 1), 0, out[d % out.length]);
  return out;
}
