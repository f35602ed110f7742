import { SyncomError } from '../../src/errors';
import type { HostUnit, SubscribeOptions, Subscription } from '../../src/link';

/** One open subscription at the fake host. */
export interface FakeSub {
  method: string;
  args: unknown;
  context: object;
  lastEventId: string | undefined;
  options: SubscribeOptions;
  pos: number;
  closed: boolean;
  pumping: boolean;
}

export interface FakeCall {
  method: string;
  args: unknown;
  context: object;
}

/**
 * A small host unit for link tests: `call` echoes (hello opens a session;
 * 'fail' refuses with 413; 'hold' waits for release()), `subscribe` replays a
 * log of [eventId, value] pages after lastEventId then follows it live,
 * `stream` yields the chunks of `streams[id]`. With `session: true` calls
 * other than hello and subscriptions need a greeted context (428).
 */
export class FakeUnit implements HostUnit {
  readonly access = 'public' as const;
  readonly calls: FakeCall[] = [];
  readonly subs: FakeSub[] = [];
  readonly disconnected: object[] = [];
  readonly log: Array<[string, unknown]> = [];
  readonly streams: Record<string, Uint8Array[]> = {};
  readonly answer = { kept: { n: 1 } };
  private readonly sessions = new Set<object>();
  private readonly held: Array<() => void> = [];

  constructor(private readonly session = false) {}

  async call(method: string, args: unknown, context: object): Promise<unknown> {
    this.calls.push({ method, args, context });
    if (method === 'hello') this.sessions.add(context);
    else if (this.session && !this.sessions.has(context)) throw new SyncomError('HELLO_REQUIRED', 'greet first', { status: 428 });
    if (method === 'fail') throw new SyncomError('OPS_PER_PUSH', 'too many ops', { status: 413 });
    if (method === 'kept') return this.answer;
    if (method === 'hold') await new Promise<void>((resolve) => this.held.push(resolve));
    return { method, args, context };
  }

  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }

  subscribe(method: string, args: unknown, context: object, options: SubscribeOptions): Subscription {
    const at = options.lastEventId === undefined ? 0 : this.log.findIndex(([id]) => id === options.lastEventId) + 1;
    const sub: FakeSub = { method, args, context, lastEventId: options.lastEventId, options, pos: at, closed: false, pumping: false };
    this.subs.push(sub);
    if (this.session && !this.sessions.has(context)) {
      sub.closed = true;
      options.onError?.(new SyncomError('HELLO_REQUIRED', 'greet first', { status: 428 }));
    } else void this.pump(sub);
    return { unsubscribe: () => void (sub.closed = true) };
  }

  /** Appends a page and sends it to every open subscription. */
  publish(eventId: string, value: unknown): void {
    this.log.push([eventId, value]);
    for (const sub of this.subs) void this.pump(sub);
  }

  /** The open subscriptions. */
  open(): FakeSub[] {
    return this.subs.filter((s) => !s.closed);
  }

  async *stream(id: string): AsyncIterable<Uint8Array> {
    for (const chunk of this.streams[id] ?? []) yield chunk;
  }

  disconnect(context: object): void {
    this.disconnected.push(context);
    this.sessions.delete(context);
  }

  private async pump(sub: FakeSub): Promise<void> {
    if (sub.pumping) return;
    sub.pumping = true;
    while (!sub.closed && sub.pos < this.log.length) {
      const [id, value] = this.log[sub.pos++];
      await sub.options.onData(value, id);
    }
    sub.pumping = false;
  }
}

/** Collects a subscriber's pages. */
export function collector(): { pages: Array<[string | undefined, unknown]>; options: SubscribeOptions } {
  const pages: Array<[string | undefined, unknown]> = [];
  return { pages, options: { onData: (value, id) => void pages.push([id, value]) } };
}
