import { SyncomError, type HostUnit, type SubscribeOptions, type Subscription } from 'syncom';
import { Signal } from '../helpers/until';

/** One subscription opened at the fake host. */
export interface ConformanceSub {
  args: unknown;
  context: object;
  lastEventId: string | undefined;
  options: SubscribeOptions;
  pos: number;
  closed: boolean;
  pumping: boolean;
}

/** A valid hello, so it passes a gateway's envelope checks too. */
export const HELLO = { node: 'dialer', vector: {}, epoch: 'e', schema: null, scopes: ['*'] };

/**
 * The host unit the conformance suite runs links against, using the
 * protocol's own procedure names so a gateway's envelope checks pass:
 * `hello` opens a session; `push` echoes `{ method, args }` unless its first
 * op is 'fail' (413), 'kept' (answers `answer`) or 'hold' (waits for
 * release()). `subscribe` replays `log` after lastEventId, then follows it
 * live; `stream` yields `streams[id]`. With `session` true everything but
 * hello needs a greeted context (428). Every change pokes `signal`.
 */
export class ConformanceUnit implements HostUnit {
  readonly access = 'public' as const;
  readonly calls: { method: string; args: unknown; context: object }[] = [];
  readonly subs: ConformanceSub[] = [];
  readonly disconnected: object[] = [];
  readonly log: Array<[string, unknown]> = [];
  readonly streams: Record<string, Uint8Array[]> = {};
  readonly answer = { kept: { n: 1 } };
  readonly signal = new Signal();
  private readonly sessions = new Set<object>();
  private held: Array<() => void> = [];

  constructor(private readonly session = false) {}

  async call(method: string, args: unknown, context: object): Promise<unknown> {
    this.calls.push({ method, args, context });
    this.signal.notify();
    if (method === 'hello') this.sessions.add(context);
    else if (this.session && !this.sessions.has(context)) throw new SyncomError('HELLO_REQUIRED', 'greet first', { status: 428 });
    const first = (args as { ops?: unknown[] } | null)?.ops?.[0];
    if (first === 'fail') throw new SyncomError('OPS_PER_PUSH', 'too many ops', { status: 413 });
    if (first === 'kept') return this.answer;
    if (first === 'hold') await new Promise<void>((resolve) => this.held.push(resolve));
    return { method, args };
  }

  /** Lets every held call answer. */
  release(): void {
    for (const resolve of this.held.splice(0)) resolve();
  }

  subscribe(_method: string, args: unknown, context: object, options: SubscribeOptions): Subscription {
    const at = options.lastEventId === undefined ? 0 : this.log.findIndex(([id]) => id === options.lastEventId) + 1;
    const sub: ConformanceSub = { args, context, lastEventId: options.lastEventId, options, pos: at, closed: false, pumping: false };
    this.subs.push(sub);
    this.signal.notify();
    if (this.session && !this.sessions.has(context)) {
      sub.closed = true;
      options.onError?.(new SyncomError('HELLO_REQUIRED', 'greet first', { status: 428 }));
    } else void this.pump(sub);
    return { unsubscribe: () => void ((sub.closed = true), this.signal.notify()) };
  }

  /** Appends a page and sends it to every open subscription. */
  publish(eventId: string, value: unknown): void {
    this.log.push([eventId, value]);
    for (const sub of this.subs) void this.pump(sub);
  }

  /** The open subscriptions. */
  open(): ConformanceSub[] {
    return this.subs.filter((s) => !s.closed);
  }

  async *stream(id: string, _context?: object): AsyncIterable<Uint8Array> {
    for (const chunk of this.streams[id] ?? []) yield chunk;
  }

  disconnect(context: object): void {
    this.disconnected.push(context);
    this.sessions.delete(context);
    this.signal.notify();
  }

  private async pump(sub: ConformanceSub): Promise<void> {
    if (sub.pumping) return;
    sub.pumping = true;
    while (!sub.closed && sub.pos < this.log.length) {
      const [id, value] = this.log[sub.pos++];
      await sub.options.onData(value, id);
    }
    sub.pumping = false;
  }
}

/** Collects a subscriber's pages, poking the unit's signal on each. */
export function collector(unit: ConformanceUnit): { pages: Array<[string | undefined, unknown]>; options: SubscribeOptions } {
  const pages: Array<[string | undefined, unknown]> = [];
  return { pages, options: { onData: (value, id) => void (pages.push([id, value]), unit.signal.notify()) } };
}
