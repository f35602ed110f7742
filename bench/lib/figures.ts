/**
 * The medians measured so far in this invocation, by name: what a computed
 * figure (a bound derived from the baselines) reads. measureOrTimeout fills it.
 */
const medians = new Map<string, number>();

export function recordFigure(name: string, median: number): void {
  medians.set(name, median);
}

/**
 * The median of `name` in this invocation.
 *
 * @throws Error when it was not measured (yet): a computed figure must name it in `needs`.
 */
export function figureOf(name: string): number {
  const value = medians.get(name);
  if (value === undefined) throw new Error(`${name} was not measured before the figure computed from it`);
  return value;
}

/**
 * Run `fn` with `values` in place of the figures of the same names, then put
 * back what was there: a bracket's baselines (run.ts) are read by the
 * computed figures it works out again, and by nothing after it.
 */
export async function withFigures<T>(values: ReadonlyMap<string, number>, fn: () => Promise<T>): Promise<T> {
  const saved = new Map([...values.keys()].map((k) => [k, medians.get(k)]));
  for (const [k, v] of values) medians.set(k, v);
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) medians.delete(k);
      else medians.set(k, v);
    }
  }
}
