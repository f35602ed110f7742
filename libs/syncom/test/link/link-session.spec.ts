import { SyncomError } from '../../src/errors';
import { createMemoryLink, type HostUnit, type SubscribeOptions } from '../../src/link';
import { LinkConnection } from '../../src/link/link-connection';
import { LinkSession, type SessionFeed } from '../../src/link/link-session';

/** A feed that records what the session asked of it into `log`. */
function recordingFeed(name: string, log: string[]): SessionFeed {
  return {
    open: (resumed) => void log.push(`${name}.open(${resumed})`),
    suspend: () => void log.push(`${name}.suspend`),
    unpark: () => void log.push(`${name}.unpark`),
    unsubscribe: () => void log.push(`${name}.unsubscribe`),
    fail: (e) => void log.push(`${name}.fail(${(e as SyncomError).code})`),
  };
}

function recordingSession(log: string[]) {
  const session = new LinkSession({
    sever: (c) => void log.push(`sever ${(c.context as { n: number }).n}`),
    release: (c) => void log.push(`release ${(c.context as { n: number }).n}`),
    closed: () => void log.push('closed'),
  });
  for (const e of ['open', 'close', 'reconnect'] as const) session.on(e, () => void log.push(e));
  const make = (n: number) => new LinkConnection({ n });
  return { session, make };
}

describe('link session: the core every link shares', () => {
  it('LINK-6 PROTO-12 a drop severs, suspends the feeds, fails the calls, releases, then fires close; a connect fires open, reconnect, then reopens the feeds', async () => {
    const log: string[] = [];
    const { session, make } = recordingSession(log);
    session.begin(make);
    session.subscribe(recordingFeed('a', log));
    const call = session.live!.pending<unknown>();
    const failed = call.promise.catch((e: SyncomError) => void log.push(`call ${e.code}`));
    expect(session.dropped()).toBe(true);
    expect(session.dropped()).toBe(false);
    await failed;
    expect(call.settle({ value: 1 })).toBe(false);
    expect(session.connected(make)).toBe(true);
    expect(session.connected(make)).toBe(false);
    expect(log).toEqual(['a.open(false)', 'sever 1', 'a.suspend', 'release 1', 'close', 'call LINK_DOWN', 'open', 'reconnect', 'a.open(true)']);
    expect(session.connections).toBe(2);
  });

  it('LINK-7 close drops the connection, ends every feed, fires close once; a later subscribe fails with LINK_DOWN and nothing reconnects', () => {
    const log: string[] = [];
    const { session, make } = recordingSession(log);
    session.begin(make);
    session.subscribe(recordingFeed('a', log));
    session.close();
    session.close();
    session.subscribe(recordingFeed('b', log));
    expect(session.connected(make)).toBe(false);
    expect(log).toEqual(['a.open(false)', 'sever 1', 'a.suspend', 'release 1', 'a.unsubscribe', 'closed', 'close', 'b.fail(LINK_DOWN)']);
  });

  it('PROTO-12 an answered call counts and unparks the feeds; a forgotten feed hears nothing more', () => {
    const log: string[] = [];
    const { session, make } = recordingSession(log);
    session.begin(make);
    const a = recordingFeed('a', log);
    session.subscribe(a);
    session.subscribe(recordingFeed('b', log));
    session.forget(a);
    session.answer();
    expect(session.answered).toBe(1);
    expect(log).toEqual(['a.open(false)', 'b.open(false)', 'b.unpark']);
  });
});

/** A unit whose subscriptions are refused with 428 only when the test says, so the hello's answer can come first. */
function lateRefusingUnit() {
  const refusals: Array<() => void> = [];
  const subs: Array<string | undefined> = [];
  let greeted = new Set<object>();
  const unit: HostUnit = {
    access: 'public',
    call: async (method, _args, context) => {
      if (method === 'hello') greeted.add(context);
      return { method };
    },
    subscribe: (_m, _a, context, options: SubscribeOptions) => {
      subs.push(options.lastEventId);
      if (greeted.has(context)) void options.onData({ page: subs.length }, `e${subs.length}`);
      else refusals.push(() => options.onError?.(new SyncomError('HELLO_REQUIRED', 'greet first', { status: 428 })));
      return { unsubscribe: () => undefined };
    },
    stream: () => (async function* () {})(),
    disconnect: () => void (greeted = new Set()),
  };
  return { unit, refusals, subs };
}

describe('link session: a greeting that overtakes the refusal', () => {
  it('PROTO-12 a resumed feed refused with 428 after the hello was answered reopens at once, without waiting for another answer', async () => {
    const { unit, refusals, subs } = lateRefusingUnit();
    const link = createMemoryLink(unit);
    const pages: unknown[] = [];
    await link.call('hello', {});
    link.subscribe('changes', {}, { onData: (_v, id) => void pages.push(id) });
    await link.settle();
    link.cut();
    link.restore();
    await link.call('hello', {});
    refusals.shift()?.();
    await link.settle();
    expect(subs).toEqual([undefined, 'e1', 'e1']);
    expect(pages).toEqual(['e1', 'e3']);
  });
});
