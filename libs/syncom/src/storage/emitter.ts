// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

/**
 * A small event emitter whose listeners are contained (LIFE-20): one that
 * throws, or (async) rejects, is reported to `onListenerError`
 * (console.error by default) and never fails what it observed. No 'error' special case, unlike node's.
 */
export class Emitter<Events extends Record<string, unknown[]>> {
  private listeners = new Map<keyof Events, Set<Listener>>();

  constructor(private readonly onListenerError: (e: unknown, event: string) => void = defaultReport) {}

  /** Add a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener);
    return () => this.off(event, listener);
  }

  /** Add a listener for one emission. */
  once<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    const off = this.on(event, (...args) => {
      off();
      listener(...args);
    });
    return off;
  }

  off<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): void {
    this.listeners.get(event)?.delete(listener as Listener);
  }

  /** Whether anything listens: lets a hot path skip building a payload. */
  has<K extends keyof Events>(event: K): boolean {
    return (this.listeners.get(event)?.size ?? 0) > 0;
  }

  emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        const r: unknown = l(...args);
        // An async listener's rejection is its throw: reported the same, never an unhandled rejection (which ends a Node process).
        if (typeof (r as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(r).catch((e: unknown) => this.onListenerError(e, String(event)));
      } catch (e) {
        this.onListenerError(e, String(event));
      }
    }
  }

  removeAll(): void {
    this.listeners.clear();
  }
}

function defaultReport(e: unknown, event: string): void {
  console.error(`syncom: a '${event}' listener threw; the operation stands`, e);
}
