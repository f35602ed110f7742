import { isSyncLink, SyncomError } from 'syncom';
import { collector, HELLO } from './conformance-unit';
import type { ConformanceRun } from './link-conformance';

/** call, subscribe, stream, on/off, close: what every link does on a steady connection. */
export function contractConformance(run: ConformanceRun): void {
  it('LINK-3 call answers through a copy of the args and of the answer', async () => {
    const { unit, h } = await run.make();
    const args = { ops: [1, undefined, { d: 2, e: undefined }] };
    const answer = (await h.link.call('push', args)) as { args: unknown };
    expect(answer.args).toEqual({ ops: [1, null, { d: 2 }] });
    expect(unit.calls[0].args).toEqual({ ops: [1, null, { d: 2 }] });
    expect(unit.calls[0].args).not.toBe(args);
    const kept = (await h.link.call('push', { ops: ['kept'] })) as { kept: { n: number } };
    kept.kept.n = 99;
    expect(unit.answer.kept.n).toBe(1);
  });

  it('LINK-3 a refusal reaches the caller as a new SyncomError with the same code, status and message', async () => {
    const { h } = await run.make();
    const error = (await h.link.call('push', { ops: ['fail'] }).catch((e: unknown) => e)) as SyncomError;
    expect(error).toBeInstanceOf(SyncomError);
    expect(error).toMatchObject({ code: 'OPS_PER_PUSH', status: 413, message: 'too many ops' });
  });

  it('LINK-3 never throws synchronously: args JSON cannot carry reject the promise', async () => {
    const { h } = await run.make();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(h.link.call('push', cyclic)).rejects.toThrow(TypeError);
    await expect(h.link.call('push', { ops: [1n] })).rejects.toThrow(TypeError);
  });

  it('LINK-4 subscribe delivers copies of the pages in order with their event ids; unsubscribe ends it at the host', async () => {
    const { unit, h } = await run.make();
    const page = { ops: [1] };
    unit.publish('e1', page);
    unit.publish('e2', { ops: [2] });
    const { pages, options } = collector(unit);
    const sub = h.link.subscribe('changes', { scopes: ['*'] }, options);
    await unit.signal.until(() => pages.length === 2, 'two pages');
    expect(pages).toEqual([['e1', { ops: [1] }], ['e2', { ops: [2] }]]);
    expect(pages[0][1]).not.toBe(page);
    expect(unit.subs[0].args).toEqual({ scopes: ['*'] });
    sub.unsubscribe();
    await unit.signal.until(() => unit.open().length === 0, 'the host subscription closed');
    unit.publish('e3', {});
    expect(pages).toHaveLength(2);
  });

  it('LINK-4 starts after lastEventId and passes on the host onError and onEnd', async () => {
    const { unit, h } = await run.make();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const seen: unknown[] = [];
    h.link.subscribe('changes', {}, {
      lastEventId: 'e1',
      onData: (value) => void (seen.push(value), unit.signal.notify()),
      onError: (e) => void (seen.push((e as SyncomError).code), unit.signal.notify()),
      onEnd: () => void (seen.push('end'), unit.signal.notify()),
    });
    await unit.signal.until(() => seen.length === 1, 'the page after e1');
    unit.subs[0].options.onError?.(new SyncomError('PAGE_FAILED', 'x'));
    unit.subs[0].options.onEnd?.();
    await unit.signal.until(() => seen.includes('end'), 'the end');
    expect(unit.subs[0].lastEventId).toBe('e1');
    expect(seen).toEqual([2, 'PAGE_FAILED', 'end']);
  });

  it("LINK-4 backpressure: the host's onData resolves only once the subscriber's promise has", async () => {
    const { unit, h } = await run.make();
    const taken: string[] = [];
    const finish: Array<() => void> = [];
    h.link.subscribe('changes', {}, {
      onData: (_v, id) => {
        taken.push(`start ${id}`);
        unit.signal.notify();
        return new Promise<void>((resolve) => finish.push(() => (taken.push(`done ${id}`), resolve())));
      },
    });
    await unit.signal.until(() => unit.subs.length === 1, 'the subscription at the host');
    let hostDone = false;
    const first = Promise.resolve(unit.subs[0].options.onData('p1', 'e1')).then(() => (hostDone = true));
    void unit.subs[0].options.onData('p2', 'e2');
    await unit.signal.until(() => taken.length === 1, 'the first page taken');
    expect(hostDone).toBe(false);
    finish.shift()?.();
    await first;
    await unit.signal.until(() => taken.length === 3, 'the second page started');
    expect(taken).toEqual(['start e1', 'done e1', 'start e2']);
    finish.shift()?.();
  });

  it('LINK-5 stream yields copies of the chunks in order, at the consumer pace', async () => {
    const { unit, h } = await run.make();
    const first = new Uint8Array([1, 2]);
    unit.streams.s = [first, new Uint8Array([3]), new Uint8Array([4, 5])];
    await h.link.call('hello', HELLO);
    const chunks: number[][] = [];
    for await (const chunk of h.link.stream('s')) {
      expect(chunk).toBeInstanceOf(Uint8Array);
      expect(chunk).not.toBe(first);
      chunks.push([...chunk]);
    }
    expect(chunks).toEqual([[1, 2], [3], [4, 5]]);
  });

  it('LINK-6 on/off: close on a cut, open then reconnect on restore; a throwing listener breaks nothing', async () => {
    const { h } = await run.make();
    const events: string[] = [];
    const onClose = () => events.push('close');
    h.link.on('close', () => {
      throw new Error('listener bug');
    });
    h.link.on('close', onClose);
    h.link.on('open', () => events.push('open'));
    h.link.on('reconnect', () => events.push('reconnect'));
    await h.cut();
    await h.restore();
    h.link.off('close', onClose);
    await h.cut();
    expect(events).toEqual(['close', 'open', 'reconnect']);
    await h.restore();
    await expect(h.link.call('push', { ops: [1] })).resolves.toMatchObject({ args: { ops: [1] } });
  });

  it('LINK-7 close ends everything for good: close once, disconnect, LINK_DOWN, no reopening', async () => {
    const { unit, h } = await run.make();
    const events: string[] = [];
    h.link.on('close', () => events.push('close'));
    h.link.on('open', () => events.push('open'));
    await h.link.call('hello', HELLO);
    const held = h.link.call('push', { ops: ['hold'] });
    await unit.signal.until(() => unit.calls.length === 2, 'the held call at the host');
    h.link.subscribe('changes', {}, { onData: () => undefined });
    h.link.close();
    h.link.close();
    await expect(held).rejects.toMatchObject({ code: 'LINK_DOWN' });
    await expect(h.link.call('push', { ops: [] })).rejects.toMatchObject({ code: 'LINK_DOWN' });
    await unit.signal.until(() => unit.disconnected.length === 1 && unit.open().length === 0, 'the host disconnect');
    expect(unit.disconnected[0]).toBe(unit.calls[0].context);
    expect(events).toEqual(['close']);
    const errors: unknown[] = [];
    expect(() => h.link.subscribe('changes', {}, { onData: () => undefined, onError: (e) => void (errors.push(e), unit.signal.notify()) })).not.toThrow();
    unit.release();
    await unit.signal.until(() => errors.length === 1, 'the refusal of a subscribe after close');
    expect(errors).toMatchObject([{ code: 'LINK_DOWN' }]);
  });

  it('LINK-8 LINK-10 the link has the SyncLink shape, stream included', async () => {
    const { h } = await run.make();
    expect(isSyncLink(h.link)).toBe(true);
    expect(typeof h.link.stream).toBe('function');
  });
}
