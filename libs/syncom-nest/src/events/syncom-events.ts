import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { concat, defer, filter, from, merge, Observable, ReplaySubject, share, takeUntil } from 'rxjs';
import { Storage, type StorageEvents, type SyncEvents, type SyncomError } from 'syncom';

/** What an event's observable emits: the payload, or the argument tuple when there are several. */
type Payload<A extends unknown[]> = A extends [infer Only] ? Only : A;

type Source<E extends Record<string, unknown[]>> = {
  on<K extends keyof E>(event: K, listener: (...args: E[K]) => void): () => void;
};

/**
 * Every storage and sync event as an RxJS observable (DESIGN: Adaptations).
 * Each is hot and shared: the engine listener is added on the first
 * subscription and removed with the last, so an event nobody observes costs
 * nothing on the write path. All complete when the application shuts down.
 *
 * @example
 * events.change$.pipe(filter(([op, via]) => via !== null)).subscribe(([op]) => log(op.id));
 */
@Injectable()
export class SyncomEvents implements OnApplicationBootstrap {
  /** Shutdown; replayed, so a subscription made after it completes at once and adds no listener to the closed storage. */
  private readonly done = new ReplaySubject<void>(1);
  private readonly cache = new Map<string, Observable<unknown>>();
  /** Until the application has bootstrapped, error$ replays what open() read past (see error$). */
  private starting = true;

  constructor(@Inject(Storage) private readonly storage: Storage) {}

  /** A write applied here, own (via null) or a peer's: [op, via]. */
  get change$() { return this.fromStorage('change'); }
  /** A peer's page applied: { peer, applied, skipped }. */
  get apply$() { return this.fromStorage('apply'); }
  /** The log sealed a segment: { kind, sealed, dropped, floor, segments }. */
  get log$() { return this.fromStorage('log'); }
  /** Schema drift with a peer, or held ops lost to retention. */
  get schema$() { return this.fromStorage('schema'); }
  /** A peer connected (after hello) or its link closed. */
  get peer$() { return this.fromSync('peer'); }
  /** A push answered or a changes page applied, with its counts. */
  get sync$() { return this.fromSync('sync'); }
  /** A bootstrap finished: { url, records }. */
  get bootstrap$() { return this.fromSync('bootstrap'); }
  /** Bootstrap progress: { url, received, total? }. */
  get progress$() { return this.fromSync('progress'); }
  /** Ops refused from a peer: { node, reason, count }. */
  get refused$() { return this.fromSync('refused'); }
  /** A push refused by a limit: { node, reason }. */
  get limited$() { return this.fromSync('limited'); }
  /** A peer greeted this host: { node, scopes, schema }. */
  get hello$() { return this.fromSync('hello'); }
  /** The registry changed: { url, action }. */
  get node$() { return this.fromSync('node'); }
  /** The dialer got a link to a node, before hello: { url }. */
  get connect$() { return this.fromSync('connect'); }
  /** A peer shares no wire version with this node: { peer, versions }. */
  get incompatible$() { return this.fromSync('incompatible'); }
  /** storage.sync started or stopped. */
  get start$() { return this.fromSync('start'); }
  get stop$() { return this.fromSync('stop'); }
  /**
   * Every SyncomError: the storage's (apply-level) and the sync's (about a
   * peer, with `url`). A subscriber that comes before the application has
   * bootstrapped (in a constructor or an onModuleInit) first gets the damage
   * open() read past (storage.startupErrors), once: the engine emits it a
   * turn after open() resolves, and Nest 12 runs its modules' init after
   * that turn, where it reached no subscriber.
   */
  get error$(): Observable<SyncomError> {
    const live = this.cached('error$', () => merge(this.fromStorage('error'), this.fromSync('error')));
    return defer(() => {
      const replayed = this.starting ? this.storage.startupErrors : [];
      if (replayed.length === 0) return live;
      return concat(from(replayed), live.pipe(filter((e) => !replayed.includes(e))));
    }).pipe(takeUntil(this.done));
  }

  /** The application has bootstrapped: a later error$ subscriber gets live errors only. */
  onApplicationBootstrap(): void {
    this.starting = false;
  }

  /** Completes every observable (the module calls it on application shutdown). */
  complete(): void {
    this.done.next();
    this.done.complete();
  }

  private fromStorage<K extends keyof StorageEvents>(event: K): Observable<Payload<StorageEvents[K]>> {
    return this.cached(`storage:${event}`, () => this.adapt(this.storage, event));
  }

  private fromSync<K extends keyof SyncEvents>(event: K): Observable<Payload<SyncEvents[K]>> {
    return this.cached(`sync:${event}`, () => this.adapt(this.storage.sync, event));
  }

  private cached<T>(key: string, make: () => Observable<T>): Observable<T> {
    let o = this.cache.get(key);
    if (!o) this.cache.set(key, (o = make()));
    return o as Observable<T>;
  }

  /** The one place a listener becomes an Observable: teardown removes the listener. */
  private adapt<E extends Record<string, unknown[]>, K extends keyof E>(source: Source<E>, event: K): Observable<Payload<E[K]>> {
    return new Observable<Payload<E[K]>>((sub) => source.on(event, (...args: E[K]) => sub.next((args.length === 1 ? args[0] : args) as Payload<E[K]>))).pipe(
      takeUntil(this.done),
      share(),
    );
  }
}
