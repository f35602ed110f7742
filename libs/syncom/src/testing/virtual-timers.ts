/** Time that moves only when the simulation says so, and the timers due in it. */
export interface VirtualTimers {
  /** The current virtual time, ms. */
  readonly now: number;
  /** Timers waiting, one-shot and repeating. */
  readonly pending: number;
  /** When the next one-shot timer is due (setTimeout), or undefined when none waits; repeating ones never end. */
  next(): number | undefined;
  /** Move time `ms` forward, running each timer due by then in due order; returns how many ran. */
  advance(ms: number): number;
  /**
   * Route the global setTimeout, setInterval and their clear functions here
   * until uninstall(). One set of virtual timers at a time.
   * @throws Error when virtual timers are installed already.
   */
  install(): void;
  /** Give the globals back; pending timers are forgotten. */
  uninstall(): void;
}

interface Timer {
  id: number;
  due: number;
  /** Repeats every `every` ms (setInterval); 0 for a one-shot timer. */
  every: number;
  fn: (...args: unknown[]) => void;
  args: unknown[];
}

type Handle = ReturnType<typeof handleOf>;

const TIMER_GLOBALS = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] as const;
let installed = false;

function handleOf(t: Timer, timers: Map<number, Timer>) {
  return {
    id: t.id,
    unref() { return this; },
    ref() { return this; },
    hasRef: () => false,
    refresh() { return this; },
    close: () => void timers.delete(t.id),
    [Symbol.toPrimitive]: () => t.id,
  };
}

/** The timer table behind a VirtualTimers: schedule, cancel, and the next due. */
function createTable(clock: { now: number }) {
  const timers = new Map<number, Timer>();
  let ids = 0;
  const schedule = (every: boolean) => (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]): Handle => {
    const delay = Math.max(every ? 1 : 0, Number(ms) || 0);
    const t: Timer = { id: ++ids, due: clock.now + delay, every: every ? delay : 0, fn, args };
    timers.set(t.id, t);
    return handleOf(t, timers);
  };
  const cancel = (h: unknown): boolean => typeof h === 'object' && h !== null && 'id' in h && timers.delete((h as Handle).id);
  const due = (once = false) => {
    let first: Timer | undefined;
    for (const t of timers.values()) if ((!once || t.every === 0) && (!first || t.due < first.due || (t.due === first.due && t.id < first.id))) first = t;
    return first;
  };
  return { timers, schedule, cancel, due };
}

/**
 * Virtual timers for a deterministic run: the engine's own timers (the
 * dialer's recovery backoff, HOST-17; anti-entropy's interval) fire at a
 * point the schedule chose, never at a wall-clock moment that differs
 * between two runs of one seed.
 *
 * @example
 * const timers = createVirtualTimers(Date.UTC(2025, 0, 1));
 * timers.install();
 * try { setTimeout(tick, 1000); timers.advance(1000); } finally { timers.uninstall(); }
 */
export function createVirtualTimers(start: number): VirtualTimers {
  const clock = { now: start };
  const { timers, schedule, cancel, due } = createTable(clock);
  const real = { clearTimeout: globalThis.clearTimeout, clearInterval: globalThis.clearInterval };
  const saved = Object.fromEntries(TIMER_GLOBALS.map((k) => [k, globalThis[k]]));
  // A timer made before install is the real one's to clear.
  const virtual = {
    setTimeout: schedule(false), setInterval: schedule(true),
    clearTimeout: (h: unknown) => void (cancel(h) || real.clearTimeout(h as Parameters<typeof clearTimeout>[0])),
    clearInterval: (h: unknown) => void (cancel(h) || real.clearInterval(h as Parameters<typeof clearInterval>[0])),
  };
  return {
    get now() { return clock.now; },
    get pending() { return timers.size; },
    next: () => due(true)?.due,
    advance(ms) {
      const until = clock.now + ms;
      let ran = 0;
      for (let t = due(); t && t.due <= until; t = due(), ran++) {
        clock.now = Math.max(clock.now, t.due);
        if (t.every > 0) t.due += t.every;
        else timers.delete(t.id);
        t.fn(...t.args);
      }
      clock.now = until;
      return ran;
    },
    install() {
      if (installed) throw new Error('virtual timers are installed already: one simulation at a time');
      installed = true;
      Object.assign(globalThis, virtual);
    },
    uninstall() {
      if (globalThis.setTimeout !== (virtual.setTimeout as unknown)) return;
      Object.assign(globalThis, saved);
      installed = false;
      timers.clear();
    },
  };
}
