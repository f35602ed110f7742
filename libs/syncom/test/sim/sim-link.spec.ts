import { isSyncLink, type SubscribeOptions } from 'syncom';
import { createRandom, createTrace, type LinkFaultState, SimLink, SimNetwork } from 'syncom/testing';

/** A host unit that answers every call with what it got, and keeps subscriptions for the test to feed. */
function fakeUnit() {
  const calls: { method: string; args: unknown; connection: unknown }[] = [];
  const subs: { options: SubscribeOptions; connection: unknown; closed: boolean }[] = [];
  let refuse = false;
  const unit = {
    access: 'public' as const,
    calls, subs,
    refuseSubscriptions(on: boolean) { refuse = on; },
    async call(method: string, args: unknown, ctx: object) {
      const connection = (ctx as { connection: number }).connection;
      calls.push({ method, args, connection });
      if (method === 'fail') throw Object.assign(new Error('no such thing'), { code: 'UNKNOWN_METHOD', status: 404 });
      return { method, connection };
    },
    subscribe(_m: string, _a: unknown, ctx: object, options: SubscribeOptions) {
      if (refuse) {
        queueMicrotask(() => options.onError?.({ code: 'HELLO_REQUIRED', status: 428, message: 'greet first' }));
        return { unsubscribe: () => undefined };
      }
      const sub = { options, connection: (ctx as { connection: number }).connection, closed: false };
      subs.push(sub);
      return { unsubscribe: () => void (sub.closed = true) };
    },
    stream: () => (async function* () {})(),
    disconnect: () => undefined,
  };
  return unit;
}

function setup(faults: Partial<LinkFaultState> = {}) {
  const net = new SimNetwork(createTrace());
  const unit = fakeUnit();
  const f: LinkFaultState = { drop: 0, duplicate: 0, delay: 0, reorder: false, ...faults };
  const link = new SimLink({ net, name: 'L0-1.1', from: 0, to: 1, unitOf: () => unit, faults: f });
  const rng = createRandom(1);
  /** Deliver what waits on one of the link's channels. */
  const deliver = async (ch: 'up' | 'answers' | 'pages' | 'acks', faulty = true) => {
    net.deliver(link[ch], rng, faulty);
    await net.settle();
  };
  return { net, unit, link, faults: f, deliver };
}

describe('SimLink: the link contract over the simulated network', () => {
  it('LINK-3 LINK-8: a call is a request packet, then an answer packet; errors cross with code and status', async () => {
    const { link, unit, deliver } = setup();
    expect(isSyncLink(link)).toBe(true);
    const answer = link.call('hello', { node: 'a' });
    const failed = link.call('fail', {});
    expect(unit.calls).toEqual([]);
    await deliver('up');
    await deliver('up');
    expect(unit.calls.map((c) => c.method)).toEqual(['hello', 'fail']);
    await deliver('answers');
    await deliver('answers');
    await expect(answer).resolves.toEqual({ method: 'hello', connection: 1 });
    await expect(failed).rejects.toMatchObject({ code: 'UNKNOWN_METHOD', status: 404 });
  });

  it('a lost call rejects with LINK_TIMEOUT when its timeout comes; a copied call runs twice at the host, answered once', async () => {
    const { link, unit, faults, deliver } = setup({ drop: 1 });
    const lost = link.call('push', { n: 1 });
    await deliver('up');
    expect(unit.calls).toEqual([]);
    await deliver('answers');
    await expect(lost).rejects.toMatchObject({ code: 'LINK_TIMEOUT' });
    Object.assign(faults, { drop: 0, duplicate: 1 });
    const twice = link.call('push', { n: 2 });
    await deliver('up');
    await deliver('up', false);
    expect(unit.calls.map((c) => c.args)).toEqual([{ n: 2 }, { n: 2 }]);
    await deliver('answers');
    await expect(twice).resolves.toMatchObject({ method: 'push' });
    expect(link.answers.queue).toHaveLength(0);
  });

  it('LINK-4: pages reach the subscriber in order; the host may send the next one only once the ack of the last is delivered', async () => {
    const { link, unit, deliver } = setup();
    const seen: [unknown, string | undefined][] = [];
    link.subscribe('changes', {}, { lastEventId: 'e.0', onData: (v, id) => void seen.push([v, id]) });
    await deliver('up');
    expect(unit.subs[0].options.lastEventId).toBe('e.0');
    let released = false;
    void Promise.resolve(unit.subs[0].options.onData({ ops: [1] }, 'e.1')).then(() => (released = true));
    await deliver('pages');
    expect(seen).toEqual([[{ ops: [1] }, 'e.1']]);
    expect(released).toBe(false);
    await deliver('acks');
    expect(released).toBe(true);
  });

  it('LINK-6 LINK-7 PROTO-12: a cut fails calls in flight with LINK_DOWN and drops what was queued; restore reopens the feed from the last page taken', async () => {
    const { link, unit, deliver } = setup();
    const events: string[] = [];
    for (const e of ['open', 'close', 'reconnect'] as const) link.on(e, () => events.push(e));
    link.subscribe('changes', {}, { onData: () => undefined });
    await deliver('up');
    void unit.subs[0].options.onData({ ops: [1] }, 'e.1');
    await deliver('pages');
    void unit.subs[0].options.onData({ ops: [2] }, 'e.2');
    const inFlight = link.call('push', {});
    link.cut();
    await expect(inFlight).rejects.toMatchObject({ code: 'LINK_DOWN' });
    await expect(link.call('push', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
    expect([link.up.queue.length, link.pages.queue.length, unit.subs[0].closed]).toEqual([0, 0, true]);
    link.restore();
    await deliver('up');
    expect(unit.subs[1]).toMatchObject({ connection: 2 });
    expect(unit.subs[1].options.lastEventId).toBe('e.1');
    link.close();
    expect(events).toEqual(['close', 'open', 'reconnect', 'close']);
    await expect(link.call('push', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
  });

  it('a reopened feed refused with 428 waits for the next answered call (the dialer\'s hello), then asks again', async () => {
    const { link, unit, deliver } = setup();
    link.subscribe('changes', {}, { onData: () => undefined, onError: () => { throw new Error('not for a parked feed'); } });
    await deliver('up');
    link.cut();
    unit.refuseSubscriptions(true);
    link.restore();
    await deliver('up');
    await deliver('pages');
    expect(link.up.queue).toHaveLength(0);
    unit.refuseSubscriptions(false);
    const hello = link.call('hello', {});
    await deliver('up');
    await deliver('answers');
    await hello;
    await deliver('up');
    expect(unit.subs.map((s) => s.connection)).toEqual([1, 2]);
  });

  it('PROTO-12 PROTO-13 LINK-9: a reopened feed whose 428 arrives after the hello was answered asks again at once, as the memory link does (no later call need come)', async () => {
    const { link, unit, deliver } = setup();
    link.subscribe('changes', {}, { onData: () => undefined, onError: () => { throw new Error('not for a refused resume'); } });
    await deliver('up');
    link.cut();
    unit.refuseSubscriptions(true);
    link.restore();
    // The resume goes first and is refused (no session yet); the hello behind it is answered before that refusal lands.
    const hello = link.call('hello', {});
    await deliver('up');
    await deliver('up');
    unit.refuseSubscriptions(false);
    await deliver('answers');
    await hello;
    await deliver('pages');
    // Parked, the feed waited for a call the dialer had no reason to make (nothing to push): deaf to the host until its next write.
    expect(link.up.queue).toHaveLength(1);
    await deliver('up');
    expect(unit.subs.map((s) => s.connection)).toEqual([1, 2]);
  });
});
