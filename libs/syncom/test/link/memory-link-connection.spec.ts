import type { SyncomError } from '../../src/errors';
import { createMemoryLink } from '../../src/link';
import { collector, FakeUnit } from './fake-unit';

describe('memory link: cut and restore', () => {
  it('LINK-6 a cut fails calls with LINK_DOWN, in flight or new, and disconnects the old context', async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit, { context: { token: 't' } });
    const held = link.call('hold', {});
    link.cut();
    expect(link.connected).toBe(false);
    await expect(held).rejects.toMatchObject({ code: 'LINK_DOWN' });
    await expect(link.call('echo', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
    expect(unit.disconnected).toEqual([{ token: 't', connection: 1 }]);
    unit.release();
    await link.settle();
    link.cut();
    expect(unit.disconnected).toHaveLength(1);
  });

  it('LINK-6 each connection gets a new context: the host forgets the session (428) until hello', async () => {
    const unit = new FakeUnit(true);
    const link = createMemoryLink(unit, { context: { token: 't' } });
    await link.call('hello', {});
    await link.call('push', {});
    link.cut();
    link.restore();
    expect(link.connections).toBe(2);
    const refused = (await link.call('push', {}).catch((e: unknown) => e)) as SyncomError;
    expect(refused).toMatchObject({ code: 'HELLO_REQUIRED', status: 428 });
    await link.call('hello', {});
    await expect(link.call('push', {})).resolves.toMatchObject({ context: { token: 't', connection: 2 } });
    expect(unit.calls[0].context).not.toBe(unit.calls[2].context);
  });

  it('LINK-5 a cut mid-stream throws LINK_DOWN; a stream asked for while cut rejects too', async () => {
    const unit = new FakeUnit();
    unit.streams.s = [new Uint8Array([1]), new Uint8Array([2])];
    const link = createMemoryLink(unit);
    const it = link.stream('s')[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual(new Uint8Array([1]));
    link.cut();
    await expect(it.next()).rejects.toMatchObject({ code: 'LINK_DOWN' });
    const later = link.stream('s')[Symbol.asyncIterator]();
    await expect(later.next()).rejects.toMatchObject({ code: 'LINK_DOWN' });
  });

  it('PROTO-12 a subscription resumes from the last delivered event id after cut and restore', async () => {
    const unit = new FakeUnit();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const link = createMemoryLink(unit);
    const { pages, options } = collector();
    link.subscribe('changes', { scopes: ['*'] }, options);
    await link.settle();
    link.cut();
    unit.publish('e3', 3);
    await link.settle();
    expect(unit.open()).toHaveLength(0);
    link.restore();
    unit.publish('e4', 4);
    await link.settle();
    expect(unit.subs.map((s) => s.lastEventId)).toEqual([undefined, 'e2']);
    expect(unit.subs[1].context).toEqual({ connection: 2 });
    expect(unit.subs[1].args).toEqual({ scopes: ['*'] });
    expect(pages.map(([id]) => id)).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('PROTO-12 with nothing delivered yet it resumes from the original lastEventId', async () => {
    const unit = new FakeUnit();
    unit.publish('e1', 1);
    const link = createMemoryLink(unit, { connected: false });
    const { pages, options } = collector();
    link.subscribe('changes', {}, { ...options, lastEventId: 'e1' });
    link.restore();
    link.cut();
    link.restore();
    unit.publish('e2', 2);
    await link.settle();
    expect(unit.subs.map((s) => s.lastEventId)).toEqual(['e1', 'e1']);
    expect(pages).toEqual([['e2', 2]]);
  });

  it('PROTO-12 a resumed subscription refused with 428 reopens once the dialer has greeted', async () => {
    const unit = new FakeUnit(true);
    unit.publish('e1', 1);
    const link = createMemoryLink(unit);
    const errors: unknown[] = [];
    const { pages, options } = collector();
    link.on('reconnect', () => void link.call('hello', {}).catch(() => undefined));
    await link.call('hello', {});
    link.subscribe('changes', {}, { ...options, onError: (e) => errors.push(e) });
    await link.settle();
    link.cut();
    unit.publish('e2', 2);
    link.restore();
    await link.settle();
    expect(errors).toEqual([]);
    expect(pages.map(([id]) => id)).toEqual(['e1', 'e2']);
    expect(unit.open()).toHaveLength(1);
    expect(unit.open()[0].lastEventId).toBe('e1');
  });

  it('PROTO-12 a page the subscriber failed to take is offered again on resume', async () => {
    const unit = new FakeUnit();
    unit.publish('e1', 1);
    unit.publish('e2', 2);
    const link = createMemoryLink(unit);
    const taken: string[] = [];
    let failed = false;
    link.subscribe('changes', {}, {
      onData: (_v, id) => {
        if (id === 'e2' && !failed) {
          failed = true;
          throw new Error('cannot apply');
        }
        taken.push(id as string);
      },
    });
    await link.settle();
    link.cut();
    link.restore();
    await link.settle();
    expect(unit.subs[1].lastEventId).toBe('e1');
    expect(taken).toEqual(['e1', 'e2']);
  });

  it('LINK-4 unsubscribe while cut keeps it from reopening on restore', async () => {
    const unit = new FakeUnit();
    const link = createMemoryLink(unit);
    const sub = link.subscribe('changes', {}, { onData: () => undefined });
    link.cut();
    sub.unsubscribe();
    link.restore();
    await link.settle();
    expect(unit.subs).toHaveLength(1);
    expect(unit.open()).toHaveLength(0);
  });
});
