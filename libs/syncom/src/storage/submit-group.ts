/** Ops queued under one promise (Committer.group). */
export interface OpGroup<P> {
  /** Queue an op now, as submit() does. */
  add(p: P): void;
  /** No more ops: resolves once every op added is committed, rejects when any is refused. */
  end(): Promise<void>;
}

/**
 * Ops queued one by one through `enqueue` (each is sequenced on the ones
 * before), under one promise: end() resolves once every op added is logged
 * (or persisted, with afterPersist) and rejects when any is refused. A
 * joined snapshot page of 500 merges made 500 promises and their callbacks,
 * for a caller that awaits them all at once.
 */
export function submitGroup<P>(enqueue: (p: P, resolve: () => void, reject: (e: Error) => void) => void): OpGroup<P> {
  let added = 0;
  let logged = 0;
  let ended = false;
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const all = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  // A group left unended (its caller threw while adding) must not turn a refused append into an unhandled rejection.
  all.catch(() => undefined);
  const done = () => { if (++logged === added && ended) resolve(); };
  return {
    add: (p) => { added++; enqueue(p, done, reject); },
    end: () => { ended = true; if (logged === added) resolve(); return all; },
  };
}
