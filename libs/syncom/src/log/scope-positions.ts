/**
 * Each scope's retained log positions (an op's declared scope, '*' for none),
 * kept by the log once a changes feed of some scopes first asks for them
 * (a node whose feeds all serve '*' pays nothing): such a feed steps over a
 * run of other scopes' ops without reading it. A feed of scope a resumed from
 * an old position read every op of the log, and sent nothing
 * (test/hostile/feed-walk-cost.spec.ts).
 */
export class ScopePositions {
  private readonly byScope = new Map<string, number[]>();

  /** File an entry's position under its op's scope (again for a position already filed: nothing). */
  add(pos: number, scope: string | undefined): void {
    const key = scope ?? '*';
    const list = this.byScope.get(key);
    if (!list) this.byScope.set(key, [pos]);
    else if (list[list.length - 1] < pos) list.push(pos);
    else {
      const k = firstAbove(list, pos - 1);
      if (list[k] !== pos) list.splice(k, 0, pos);
    }
  }

  /** The first position after `after` of `scopes` or the global scope, or `none` when there is none. O(scopes × log n). */
  next(after: number, scopes: readonly string[], none: number): number {
    let next = none;
    for (const scope of scopes.concat('*')) {
      const list = this.byScope.get(scope);
      if (!list) continue;
      const k = firstAbove(list, after);
      if (k < list.length && list[k] < next) next = list[k];
    }
    return next;
  }

  /** Forget the positions at or below `floor` (the log dropped them). */
  dropBelow(floor: number): void {
    for (const [scope, list] of this.byScope) {
      const k = firstAbove(list, floor);
      if (k === list.length) this.byScope.delete(scope);
      else if (k > 0) list.splice(0, k);
    }
  }
}

/** The index of the first item of an ascending list above `x` (its length when none). */
function firstAbove(list: readonly number[], x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
