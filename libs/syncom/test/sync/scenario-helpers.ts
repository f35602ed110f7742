import { internals } from '../../src/testing/internals';
import { open, packOps, signOp, type OpenOptions, type Storage, type SyncEvents } from '../../src';
import type { HostUnit, MemoryLink, SubscribeOptions } from '../../src/link';
import type { Op } from '../../src/op/types';
import type { Dialer } from '../../src/sync/dial/dialer';
import { nodeFile, type NodeRecord } from '../../src/sync/dial/registry';
import { Net } from './helpers';

/** Collect every event of one kind a storage.sync emits. */
export function record<K extends keyof SyncEvents>(s: Storage, event: K): SyncEvents[K][0][] {
  const seen: SyncEvents[K][0][] = [];
  s.sync.on(event, ((...args: SyncEvents[K]) => void seen.push(args[0])) as never);
  return seen;
}

/** The internal state of a registered node's dialer a test reads: the backoff, the host vector. */
export function dialerOf(s: Storage, url: string): { readonly backoff: number; readonly hv: Record<string, number> } {
  const d = (s.sync as unknown as { dialers: Map<string, Dialer> }).dialers.get(url);
  if (!d) throw new Error(`no dialer for ${url}`);
  // The backoff is the dialer's recovery's (dial/recovery.ts).
  const inner = d as unknown as { recovery: { backoff: number } };
  return { get backoff() { return inner.recovery.backoff; }, get hv() { return d.hv; } };
}

/** Reopen a storage on its backend (a restart), with new options. */
export function reopen(s: Storage, options: Partial<OpenOptions> = {}): Promise<Storage> {
  return open({ path: internals(s).options.path, backend: internals(s).backend, ...options });
}

/** What a call intercept may do: answer itself, or pass on with next(). */
export type CallHook = (method: string, args: unknown, context: object, next: () => Promise<unknown>) => Promise<unknown>;

/** A host unit wrapper: every call goes through `hook`; the methods called are counted in order. */
export function wrapUnit(inner: HostUnit, hook?: CallHook): HostUnit & { methods: string[]; contexts: object[] } {
  const methods: string[] = [];
  const contexts: object[] = [];
  return {
    access: inner.access,
    meta: inner.meta,
    methods,
    contexts,
    call(method, args, context) {
      methods.push(method);
      if (!contexts.includes(context)) contexts.push(context);
      const next = () => inner.call(method, args, context);
      return hook ? hook(method, args, context, next) : next();
    },
    subscribe(method, args, context, options: SubscribeOptions) {
      methods.push(method);
      return inner.subscribe(method, args, context, options);
    },
    stream: (id, context) => inner.stream(id, context),
    disconnect: (context) => inner.disconnect(context),
  };
}

/** Traffic a dialer makes on one link: calls by method, the most pushes in flight at once, subscribe cursors. */
export interface Watch {
  calls: string[];
  maxPushes: number;
  subscribes: (string | undefined)[];
  streams: number;
}

/**
 * A Net (same shape) whose links are watched: every call and subscribe is recorded, and
 * concurrent 'push' calls are counted (LIFE-21). `noStream` strips stream()
 * so the link is not binary-capable.
 */
export class WatchedNet {
  private readonly net = new Net();
  readonly units = this.net.units;
  readonly links = this.net.links;
  readonly watches: Watch[] = [];
  noStream = false;

  connect = (n: { url: string }): MemoryLink => {
    const link = this.net.connect(n);
    const w: Watch = { calls: [], maxPushes: 0, subscribes: [], streams: 0 };
    this.watches.push(w);
    let pushes = 0;
    const watched: MemoryLink = {
      call: async (method, args) => {
        w.calls.push(method);
        if (method !== 'push') return link.call(method, args);
        w.maxPushes = Math.max(w.maxPushes, ++pushes);
        try {
          return await link.call(method, args);
        } finally {
          pushes--;
        }
      },
      subscribe: (method, args, options) => {
        w.subscribes.push(options.lastEventId);
        return link.subscribe(method, args, options);
      },
      stream: (id) => {
        w.streams++;
        return link.stream(id);
      },
      on: (e, l) => link.on(e, l),
      off: (e, l) => link.off(e, l),
      close: () => link.close(),
      get connected() { return link.connected; },
      get connections() { return link.connections; },
      cut: () => link.cut(),
      restore: () => link.restore(),
      faults: (f) => link.faults(f),
      stats: () => link.stats(),
      settle: () => link.settle(),
    };
    if (this.noStream) delete (watched as Partial<MemoryLink>).stream;
    return watched;
  };
}

/** A hello as a dialer sends it, for driving a unit by hand. */
export function helloOf(p: Storage, scopes: string[] = ['*'], extra: Record<string, unknown> = {}) {
  return { node: p.id, vector: { ...internals(p).log.vector }, epoch: internals(p).log.epoch, schema: p.sync.schemaInfo(), scopes, ...extra };
}

/** Greet a unit by hand (token 't' unless told) on a fresh connection context; returns the context. */
export async function greet(unit: HostUnit, p: Storage, scopes: string[] = ['*'], extra: Record<string, unknown> = { token: 't' }, context: object = {}): Promise<object> {
  await unit.call('hello', helloOf(p, scopes, extra), context);
  return context;
}

/** Push ops to a unit by hand. */
export function push(unit: HostUnit, context: object, ops: Op[]): Promise<Record<string, unknown>> {
  return unit.call('push', { ops: packOps(ops) }, context) as Promise<Record<string, unknown>>;
}

/** Every op in a storage's log, in order. */
export function opsOf(s: Storage): Op[] {
  return internals(s).log.read(0).map((e) => e.op);
}

/** An op of `p`'s, signed, with the scope and seq the test chooses (a peer's word, SCOPE-14). */
export function craft(p: Storage, body: Pick<Op, 'type' | 'id'> & Partial<Op>, scope: string, seq: number): Op {
  const op: Op = { origin: p.id, seq, ts: internals(p).clock.next(), scope, ...body } as Op;
  return signOp(op, internals(p).keys.signPrivate);
}

/** A node file's contents under remote/ (REG-6). */
export function nodeFileOf(s: Storage, url: string): NodeRecord | undefined {
  const files = (internals(s).backend as unknown as { files(): Map<string, string> }).files();
  const text = files.get(nodeFile(url));
  return text === undefined ? undefined : (JSON.parse(text) as NodeRecord);
}

/** The names of the files under remote/. */
export function remoteFiles(s: Storage): string[] {
  const files = (internals(s).backend as unknown as { files(): Map<string, string> }).files();
  return [...files.keys()].filter((k) => k.startsWith('remote/')).sort();
}

/** A promise and its resolver, for holding a host's answer. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

/** The real timers, captured before any test fakes them: waitFor's deadline holds under jest.useFakeTimers. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

const SYNC_EVENTS = ['sync', 'bootstrap', 'peer', 'error', 'refused', 'hello', 'node', 'connect', 'limited'] as const;

/**
 * Like until(), but each check runs once the event's own handler finished
 * (setImmediate after the event), so state set right after an event — a saved
 * cursor, a behind flag — is seen. Listens to every storage and sync event.
 * Its deadline runs on the real clock, fake timers or not.
 */
export function waitFor(check: () => boolean | Promise<boolean>, storages: Storage[], ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const offs: (() => void)[] = [];
    let done = false;
    const finish = (e?: Error) => {
      if (done) return;
      done = true;
      realClearTimeout(t);
      offs.forEach((o) => o());
      if (e) reject(e);
      else resolve();
    };
    const t = realSetTimeout(() => finish(new Error('condition not reached')), ms);
    const test = () => {
      if (!done) void Promise.resolve().then(check).then((ok) => ok && finish(), finish);
    };
    const later = () => void setImmediate(test);
    for (const s of storages) {
      offs.push(s.on('change', later), s.on('apply', later), s.on('error', later));
      for (const ev of SYNC_EVENTS) offs.push(s.sync.on(ev, later));
    }
    test();
  });
}

/** Every log entry's (stream, seq) names one op (GUAR-6): a second op under one of them is returned. */
export function reusedSeqs(s: Storage): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const { op } of internals(s).log.read(0)) {
    const key = `${op.origin}@${op.scope ?? '*'}<${op.from ?? ''}#${op.seq}`;
    const what = `${op.type}|${op.id}|${op.ts}`;
    const had = seen.get(key);
    if (had === undefined) seen.set(key, what);
    else if (had !== what) out.push(`${key}: ${had} vs ${what}`);
  }
  return out;
}
