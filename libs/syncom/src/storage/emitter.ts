import { SyncomError } from '../errors';
import { nearest } from '../open-options';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

/**
 * A small event emitter whose listeners are contained (LIFE-20): one that
 * throws, or (async) rejects, is reported to `onListenerError`
 * (console.error by default) and never fails what it observed. No 'error' special case, unlike node's.
 */
export class Emitter<Events extends Record<string, unknown[]>> {
  private listeners = new Map<keyof Events, Set<Listener>>();

  /**
   * @param names Every event's name, for on() to check: a misspelt `'chnage'` had taken a listener that
   * never ran, and a listener that is no function had failed only once emitted, with a TypeError.
   */
  constructor(
    private readonly onListenerError: (e: unknown, event: string) => void = defaultReport,
    private readonly names?: Readonly<Record<keyof Events, unknown>>,
  ) {}

  /**
   * Add a listener; returns a function that removes it.
   * @throws SyncomError INVALID_ARGUMENT for an event this emitter has no name for, or a listener that is no function.
   */
  on<K extends keyof Events>(event: K, listener: (...args: Events[K]) => void): () => void {
    const known = this.names && Object.keys(this.names);
    if (known && !known.includes(event as string)) {
      const near = typeof event === 'string' ? nearest(event, known) : undefined;
      throw new SyncomError('INVALID_ARGUMENT', `no event ${String(event)}${near ? ` (did you mean ${near}?)` : ''}; the events are ${known.join(', ')}`);
    }
    if (typeof listener !== 'function') throw new SyncomError('INVALID_ARGUMENT', `a listener of ${String(event)} is a function`);
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
