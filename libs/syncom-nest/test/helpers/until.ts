import type { Storage } from 'syncom';

/**
 * Resolves once `check` holds, re-checked whenever `subscribe` reports a
 * change (deterministic: no polling, no sleeping). Rejects after `ms` naming
 * what was awaited, so a failure reports instead of hanging.
 */
export function waitFor(
  check: () => boolean | Promise<boolean>,
  subscribe: (retest: () => void) => () => void,
  what = 'condition',
  ms = 15_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    let off: () => void = () => undefined;
    const finish = (e?: unknown) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      off();
      if (e) reject(e instanceof Error ? e : new Error(String(e)));
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), ms);
    const retest = () => void Promise.resolve(check()).then((ok) => ok && finish(), finish);
    off = subscribe(retest);
    retest();
  });
}

/** waitFor, re-checked on every change, log and sync event of the storages (the hosting side's too). */
export function until(check: () => boolean | Promise<boolean>, storages: Storage[], what?: string): Promise<void> {
  return waitFor(check, (retest) => {
    const offs: (() => void)[] = [];
    for (const s of storages) {
      offs.push(s.on('change', retest));
      for (const ev of ['sync', 'bootstrap', 'peer', 'error', 'hello', 'limited', 'connect'] as const) offs.push(s.sync.on(ev, retest));
    }
    return () => offs.forEach((off) => off());
  }, what);
}

/** A change notifier a fake unit or a collector pokes; waitFor() listens to it. */
export class Signal {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const l of [...this.listeners]) l();
  }

  until(check: () => boolean, what?: string): Promise<void> {
    return waitFor(check, (retest) => {
      this.listeners.add(retest);
      return () => this.listeners.delete(retest);
    }, what);
  }
}
