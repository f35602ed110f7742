import type { HostUnit, SubscribeOptions } from '../../src/link';
import { unpackOps } from '../../src/op';

/**
 * A hub's unit whose changes subscriptions `feed` answers instead; counts
 * them, and `subscribed(n)` awaits the n-th. At most 40 are answered: a loop
 * is cut short there, so a test that fails reports instead of spinning.
 */
export function feedingUnit(inner: HostUnit, feed: (n: number, o: SubscribeOptions) => void) {
  const waits: { n: number; resolve: () => void }[] = [];
  const unit = {
    access: inner.access,
    meta: inner.meta,
    subscribes: 0,
    subscribed: (n: number) => new Promise<void>((resolve) => (unit.subscribes >= n ? resolve() : waits.push({ n, resolve }))),
    call: (m: string, a: unknown, c: object) => inner.call(m, a, c),
    subscribe: (_m: string, _a: unknown, _c: object, o: SubscribeOptions) => {
      const n = ++unit.subscribes;
      for (const w of waits) if (w.n <= n) w.resolve();
      if (n <= 40) queueMicrotask(() => feed(n, o));
      return { unsubscribe() {} };
    },
    stream: (id: string, c: object) => inner.stream(id, c),
    disconnect: (c: object) => inner.disconnect(c),
  };
  return unit;
}

/** `n` turns of the event loop: what the last page started (the link's hops, the dialer's next subscribe) runs out. */
export async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** Counts the JSON.stringify calls whose text is at least `min` characters while `fn` runs. */
export async function bigStringifies(min: number, fn: () => Promise<void>): Promise<number> {
  const real = JSON.stringify;
  let big = 0;
  const spy = jest.spyOn(JSON, 'stringify').mockImplementation(((...args: Parameters<typeof JSON.stringify>) => {
    const text = real(...args);
    if (typeof text === 'string' && text.length >= min) big++;
    return text;
  }) as typeof JSON.stringify);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return big;
}

/**
 * A hub's unit that takes no pushed op: each push is answered `refusal` (by
 * default one op refused as unsigned, no stream named), and counted (`pushes`,
 * `ops`). Its changes feeds send nothing; `feed` is the last one's options,
 * for a test to hand it pages, and `subscribed` resolves at the first.
 */
export function refusingUnit(inner: HostUnit, refusal: Record<string, unknown> = { unsigned: 1 }) {
  let opened!: () => void;
  const unit = {
    pushes: 0,
    ops: 0,
    feed: undefined as SubscribeOptions | undefined,
    /** Resolves once a feed was opened (the dialer greeted and pushed first). */
    subscribed: new Promise<void>((resolve) => (opened = resolve)),
    access: inner.access,
    meta: inner.meta,
    async call(m: string, a: unknown, c: object): Promise<unknown> {
      if (m !== 'push') return inner.call(m, a, c);
      unit.pushes++;
      unit.ops += unpackOps((a as { ops: unknown }).ops).ops.length;
      return { applied: 0, skipped: 0, duplicates: 0, gaps: 0, malformed: 0, unsigned: 0, forged: 0, vector: {}, ...refusal };
    },
    subscribe: (_m: string, _a: unknown, _c: object, o: SubscribeOptions) => {
      unit.feed = o;
      opened();
      return { unsubscribe() {} };
    },
    stream: (id: string, c: object) => inner.stream(id, c),
    disconnect: (c: object) => inner.disconnect(c),
  };
  return unit;
}
