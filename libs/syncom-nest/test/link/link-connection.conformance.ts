import type { SyncomError } from 'syncom';
import { collector, HELLO } from './conformance-unit';
import type { ConformanceRun } from './link-conformance';

/** What a link does when its connection drops and comes back (LINK-5, LINK-6, PROTO-12). */
export function connectionConformance(run: ConformanceRun): void {
  it('LINK-6 a cut fails calls with LINK_DOWN, in flight or new, and disconnects the old context', async () => {
    const { unit, h } = await run.make();
    const held = h.link.call('push', { ops: ['hold'] }).catch((e: unknown) => e);
    await unit.signal.until(() => unit.calls.length === 1, 'the held call at the host');
    await h.cut();
    expect(await held).toMatchObject({ code: 'LINK_DOWN' });
    await expect(h.link.call('push', { ops: [] })).rejects.toMatchObject({ code: 'LINK_DOWN' });
    expect(unit.disconnected).toEqual([unit.calls[0].context]);
    unit.release();
  });

  it('LINK-6 HOST-21 each connection gets a new context: the host forgets the session (428) until hello', async () => {
    const { unit, h } = await run.make(true);
    await h.link.call('hello', HELLO);
    await h.link.call('push', { ops: [] });
    await h.cut();
    await h.restore();
    const refused = (await h.link.call('push', { ops: [] }).catch((e: unknown) => e)) as SyncomError;
    expect(refused).toMatchObject({ code: 'HELLO_REQUIRED', status: 428 });
    await h.link.call('hello', HELLO);
    await expect(h.link.call('push', { ops: [] })).resolves.toMatchObject({ method: 'push' });
    expect(unit.calls[0].context).not.toBe(unit.calls[2].context);
    expect(unit.calls[3].context).toBe(unit.calls[4].context);
  });

  it('LINK-5 a cut mid-stream throws LINK_DOWN; a stream asked for while cut rejects too', async () => {
    const { unit, h } = await run.make();
    unit.streams.s = [new Uint8Array([1]), new Uint8Array([2])];
    await h.link.call('hello', HELLO);
    const it = h.link.stream('s')[Symbol.asyncIterator]();
    expect([...((await it.next()).value as Uint8Array)]).toEqual([1]);
    await h.cut();
    await expect(it.next()).rejects.toMatchObject({ code: 'LINK_DOWN' });
    const later = h.link.stream('s')[Symbol.asyncIterator]();
    await expect(later.next()).rejects.toMatchObject({ code: 'LINK_DOWN' });
  });

  it('PROTO-12 a subscription resumes from the last delivered event id after cut and restore', async () => {
    const { unit, h } = await run.make();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const { pages, options } = collector(unit);
    h.link.subscribe('changes', { scopes: ['*'] }, options);
    await unit.signal.until(() => pages.length === 2, 'e1 and e2');
    await h.cut();
    unit.publish('e3', 3);
    expect(unit.open()).toHaveLength(0);
    await h.restore();
    unit.publish('e4', 4);
    await unit.signal.until(() => pages.length === 4, 'e3 and e4 after the restore');
    expect(unit.subs.map((s) => s.lastEventId)).toEqual([undefined, 'e2']);
    expect(unit.subs[1].context).not.toBe(unit.subs[0].context);
    expect(unit.subs[1].args).toEqual({ scopes: ['*'] });
    expect(pages.map(([id]) => id)).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('PROTO-12 with nothing delivered yet it resumes from the original lastEventId', async () => {
    const { unit, h } = await run.make();
    unit.publish('e1', 1);
    const { pages, options } = collector(unit);
    h.link.subscribe('changes', {}, { ...options, lastEventId: 'e1' });
    await unit.signal.until(() => unit.subs.length === 1, 'the subscription');
    await h.cut();
    await h.restore();
    unit.publish('e2', 2);
    await unit.signal.until(() => pages.length === 1, 'e2');
    expect(unit.subs.map((s) => s.lastEventId)).toEqual(['e1', 'e1']);
    expect(pages).toEqual([['e2', 2]]);
  });

  it('PROTO-12 a resumed subscription refused with 428 reopens once the dialer has greeted', async () => {
    const { unit, h } = await run.make(true);
    unit.publish('e1', 1);
    const errors: unknown[] = [];
    const { pages, options } = collector(unit);
    h.link.on('reconnect', () => void h.link.call('hello', HELLO).catch(() => undefined));
    await h.link.call('hello', HELLO);
    h.link.subscribe('changes', {}, { ...options, onError: (e) => errors.push(e) });
    await unit.signal.until(() => pages.length === 1, 'e1');
    await h.cut();
    unit.publish('e2', 2);
    await h.restore();
    await unit.signal.until(() => pages.length === 2, 'e2 after the fresh hello');
    expect(errors).toEqual([]);
    expect(pages.map(([id]) => id)).toEqual(['e1', 'e2']);
    expect(unit.open()).toHaveLength(1);
    expect(unit.open()[0].lastEventId).toBe('e1');
  });

  it('PROTO-12 PROTO-18 a page the subscriber failed to take is offered again on resume', async () => {
    const { unit, h } = await run.make();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const taken: string[] = [];
    let failed = false;
    h.link.subscribe('changes', {}, {
      onData: (_v, id) => {
        if (id === 'e2' && !failed) {
          failed = true;
          unit.signal.notify();
          throw new Error('cannot apply');
        }
        taken.push(id as string);
        unit.signal.notify();
      },
    });
    await unit.signal.until(() => failed, 'the failed page');
    await h.cut();
    await h.restore();
    await unit.signal.until(() => taken.length === 2, 'e2 again');
    expect(unit.subs[1].lastEventId).toBe('e1');
    expect(taken).toEqual(['e1', 'e2']);
  });

  it('PROTO-12 a page still with the subscriber at a cut is taken once: the feed resumes after it', async () => {
    const { unit, h } = await run.make();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const taken: string[] = [];
    let release: () => void = () => undefined;
    h.link.subscribe('changes', {}, {
      onData: (_v, id) => {
        taken.push(id as string);
        unit.signal.notify();
        if (taken.length === 1) return new Promise<void>((resolve) => (release = resolve));
      },
    });
    await unit.signal.until(() => taken.length === 1, 'e1 with the subscriber');
    await h.cut();
    await h.restore();
    release();
    await unit.signal.until(() => taken.includes('e2'), 'e2');
    expect(taken).toEqual(['e1', 'e2']);
    expect(unit.subs.map((s) => s.lastEventId)).toEqual([undefined, 'e1']);
  });

  it('LINK-4 unsubscribe while cut keeps it from reopening on restore', async () => {
    const { unit, h } = await run.make();
    const sub = h.link.subscribe('changes', { scopes: ['gone'] }, { onData: () => undefined });
    await unit.signal.until(() => unit.subs.length === 1, 'the subscription');
    await h.cut();
    sub.unsubscribe();
    await h.restore();
    // A later subscription is a marker: a reopened one would have reached the host before it.
    h.link.subscribe('changes', { scopes: ['marker'] }, { onData: () => undefined });
    await unit.signal.until(() => unit.subs.some((s) => (s.args as { scopes?: string[] }).scopes?.[0] === 'marker'), 'the marker');
    expect(unit.subs.filter((s) => (s.args as { scopes?: string[] }).scopes?.[0] === 'gone')).toHaveLength(1);
    expect(unit.open().map((s) => s.args)).toEqual([{ scopes: ['marker'] }]);
  });
}
