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
