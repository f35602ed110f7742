import { SyncomError } from '../../src/errors';
import { createMemoryLink, isSyncLink } from '../../src/link';
import { collector, FakeUnit } from './fake-unit';

describe('memory link: the contract', () => {
  it('LINK-3 call answers through a copy of the args and of the answer', async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit, { context: { token: 't' } });
    const args = { a: [1, undefined], b: undefined, c: { d: 2 } };
    const answer = (await link.call('echo', args)) as { args: unknown; context: unknown };
    expect(answer.args).toEqual({ a: [1, null], c: { d: 2 } });
    expect(unit.calls[0].args).not.toBe(args);
    expect(unit.calls[0].context).toEqual({ token: 't', connection: 1 });
    const kept = (await link.call('kept', undefined)) as { n: number };
    expect(unit.calls[1].args).toBeNull();
    kept.n = 99;
    expect(unit.answer.kept.n).toBe(1);
  });

  it('LINK-3 a refusal reaches the caller as a new SyncomError with the same code, status and message', async () => {
    const link = createMemoryLink(new FakeUnit());
    const error = (await link.call('fail', {}).catch((e: unknown) => e)) as SyncomError;
    expect(error).toBeInstanceOf(SyncomError);
    expect(error).toMatchObject({ code: 'OPS_PER_PUSH', status: 413, message: 'too many ops' });
  });

  it('LINK-3 never throws synchronously: args JSON cannot carry reject the promise', async () => {
    const link = createMemoryLink(new FakeUnit());
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(link.call('echo', cyclic)).rejects.toThrow(TypeError);
    await expect(link.call('echo', { n: 1n })).rejects.toThrow(TypeError);
  });

  it('LINK-4 subscribe delivers copies of the pages in order with their event ids; unsubscribe ends it at the host', async () => {
    const unit = new FakeUnit();
    const page = { ops: [1] };
    unit.publish('e1', page);
    unit.publish('e2', { ops: [2] });
    const link = createMemoryLink(unit);
    const { pages, options } = collector();
    const sub = link.subscribe('changes', { scopes: ['*'] }, options);
    await link.settle();
    expect(pages).toEqual([['e1', { ops: [1] }], ['e2', { ops: [2] }]]);
    expect(pages[0][1]).not.toBe(page);
    expect(unit.subs[0].args).toEqual({ scopes: ['*'] });
    sub.unsubscribe();
    expect(unit.open()).toHaveLength(0);
    unit.publish('e3', {});
    await link.settle();
    expect(pages).toHaveLength(2);
  });

  it('LINK-4 starts after lastEventId and passes on the host onError and onEnd', async () => {
    const unit = new FakeUnit();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const link = createMemoryLink(unit);
    const seen: unknown[] = [];
    link.subscribe('changes', {}, {
      lastEventId: 'e1',
      onData: (value) => void seen.push(value),
      onError: (e) => void seen.push((e as SyncomError).code),
      onEnd: () => void seen.push('end'),
    });
    await link.settle();
    unit.subs[0].options.onError?.(new SyncomError('PAGE_FAILED', 'x'));
    unit.subs[0].options.onEnd?.();
    await link.settle();
    expect(unit.subs[0].lastEventId).toBe('e1');
    expect(seen).toEqual([2, 'PAGE_FAILED', 'end']);
  });

  it("LINK-4 backpressure: the host's onData resolves only once the subscriber's promise has", async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit);
    const taken: string[] = [];
    let finish: () => void = () => undefined;
    link.subscribe('changes', {}, {
      onData: (_v, id) => {
        taken.push(`start ${id}`);
        return new Promise<void>((resolve) => (finish = () => (taken.push(`done ${id}`), resolve())));
      },
    });
    let hostDone = false;
    void Promise.resolve(unit.subs[0].options.onData('p1', 'e1')).then(() => (hostDone = true));
    void unit.subs[0].options.onData('p2', 'e2');
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(taken).toEqual(['start e1']);
    expect(hostDone).toBe(false);
    finish();
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(hostDone).toBe(true);
    expect(taken).toEqual(['start e1', 'done e1', 'start e2']);
    finish();
    await link.settle();
  });

  it('LINK-5 stream yields copies of the chunks in order, at the consumer pace', async () => {
    const unit = new FakeUnit();
    const first = new Uint8Array([1, 2]);
    unit.streams.s = [first, new Uint8Array([3]), new Uint8Array([4, 5])];
    const link = createMemoryLink(unit);
    const chunks: number[][] = [];
    for await (const chunk of link.stream('s')) {
      expect(chunk).not.toBe(first);
      chunks.push([...chunk]);
    }
    expect(chunks).toEqual([[1, 2], [3], [4, 5]]);
    expect(link.stats().bytesIn).toBe(5);
  });

  it('LINK-6 on/off: close on a cut, open then reconnect on restore; a throwing listener breaks nothing', async () => {
    const link = createMemoryLink(new FakeUnit());
    const events: string[] = [];
    const onClose = () => events.push('close');
    link.on('close', () => {
      throw new Error('listener bug');
    });
    link.on('close', onClose);
    link.on('open', () => events.push('open'));
    link.on('reconnect', () => events.push('reconnect'));
    link.cut();
    link.restore();
    link.off('close', onClose);
    link.cut();
    expect(events).toEqual(['close', 'open', 'reconnect']);
    link.restore();
    await expect(link.call('echo', 1)).resolves.toMatchObject({ args: 1 });
  });

  it('LINK-7 close ends everything for good: close once, disconnect, LINK_DOWN, no restore', async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit);
    const events: string[] = [];
    link.on('close', () => events.push('close'));
    link.on('open', () => events.push('open'));
    const held = link.call('hold', {});
    link.subscribe('changes', {}, { onData: () => undefined });
    link.close();
    link.close();
    link.restore();
    expect(events).toEqual(['close']);
    expect(unit.disconnected).toEqual([{ connection: 1 }]);
    expect(unit.open()).toHaveLength(0);
    await expect(held).rejects.toMatchObject({ code: 'LINK_DOWN' });
    await expect(link.call('echo', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
    const errors: unknown[] = [];
    expect(() => link.subscribe('changes', {}, { onData: () => undefined, onError: (e) => errors.push(e) })).not.toThrow();
    unit.release();
    await link.settle();
    expect(errors).toMatchObject([{ code: 'LINK_DOWN' }]);
  });

  it('LINK-8 isSyncLink is true for the shape with and without stream, false otherwise', () => {
    const fn = () => undefined;
    const shape = { call: fn, subscribe: fn, on: fn, off: fn, close: fn };
    expect(isSyncLink(shape)).toBe(true);
    expect(isSyncLink({ ...shape, stream: fn })).toBe(true);
    expect(isSyncLink({ ...shape, stream: 1 })).toBe(false);
    expect(isSyncLink({ ...shape, close: undefined })).toBe(false);
    expect(isSyncLink({ call: fn })).toBe(false);
    expect(isSyncLink(null)).toBe(false);
    expect(isSyncLink('link')).toBe(false);
    expect(isSyncLink(fn)).toBe(false);
  });

  it('LINK-10 createMemoryLink gives an in-process SyncLink with stream', () => {
    const link = createMemoryLink(new FakeUnit());
    expect(isSyncLink(link)).toBe(true);
    expect(typeof link.stream).toBe('function');
    expect(link.connected).toBe(true);
    expect(link.connections).toBe(1);
  });
});
