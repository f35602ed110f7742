import { SyncomError } from '../../src';
import type { SubscribeOptions } from '../../src/link';
import { internals } from '../../src/testing/internals';
import { closeAll, hub, node } from './helpers';
import { greet, helloOf } from './scenario-helpers';

/** A promise and its resolve, for an application callback the test holds open. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * queueMicrotask as the unit calls it, with whatever a callback throws caught
 * and kept: in a process such a throw is an uncaught exception, which ends it.
 */
function catchMicrotaskThrows() {
  const escaped: unknown[] = [];
  const original = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (fn) => original(() => {
    try { fn(); } catch (e) { escaped.push(e); }
  });
  return { escaped, restore: () => void (globalThis.queueMicrotask = original) };
}

/** Past the microtasks queued now (a notice, an error told in one). */
const macrotask = () => new Promise<void>((r) => setImmediate(r));

/** A changes subscriber whose pages and errors collect. */
function subscriber(lastEventId?: string) {
  const pages: unknown[] = [];
  const errors: unknown[] = [];
  const options: SubscribeOptions = {
    lastEventId,
    onData: (value) => void pages.push(value),
    onError: (e) => void errors.push(e),
  };
  return { pages, errors, options };
}

describe('hosting: application callbacks that fail', () => {
  it('HOST-4: a tracked that throws on the bootstrap notice (event id \'\') ends that feed with an error to its subscriber, never an uncaught exception', async () => {
    // A wrpc/tRPC-style tracked(id, data) refuses an empty id: the notice a brand-new dialer is sent first.
    const threw = deferred<void>();
    const h = await hub({ tracked: (data, eventId) => {
      if (eventId !== '') return data;
      threw.resolve();
      throw new Error('id must not be empty');
    } });
    const p = await node();
    const ctx = await greet(h.unit, p);
    const trap = catchMicrotaskThrows();
    try {
      const sub = subscriber();
      h.unit.subscribe('changes', {}, ctx, sub.options);
      await threw.promise;
      await macrotask();
      expect(trap.escaped).toEqual([]);
      expect(sub.errors).toEqual([expect.objectContaining({ message: 'id must not be empty' })]);
      expect(h.unit.hosted()).toEqual([]);
    } finally {
      trap.restore();
    }
    await closeAll(h.s, p);
  });

  it('HOST-4 PROTO-6: a tracked that throws on a changes page ends the feed with an error to its subscriber, not in silence', async () => {
    let fail = false;
    const threw = deferred<void>();
    const h = await hub({ tracked: (data) => {
      if (!fail) return data;
      threw.resolve();
      throw new Error('cannot shape');
    } });
    const p = await node();
    const ctx = await greet(h.unit, p);
    await h.s.insert({ n: 1 });
    const sub = subscriber(internals(h.s).log.eventId());
    h.unit.subscribe('changes', {}, ctx, sub.options);
    expect(h.unit.hosted()).toHaveLength(1);
    fail = true;
    await h.s.insert({ n: 2 });
    await threw.promise;
    await macrotask();
    expect(h.unit.hosted()).toEqual([]);
    expect(sub.errors).toEqual([expect.objectContaining({ message: 'cannot shape' })]);
    await closeAll(h.s, p);
  });

  it('LIFE-14 LIFE-20: an async hello listener that rejects is contained (reported as a throw is), never an unhandled rejection', async () => {
    const h = await hub();
    const p = await node();
    const reported = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const heard = deferred<void>();
      h.s.sync.on('hello', async () => {
        heard.resolve();
        throw new Error('audit store down');
      });
      await greet(h.unit, p);
      await heard.promise;
      // The listener's rejection settles a microtask later; a macrotask lets Node report it if nothing took it.
      await macrotask();
      await macrotask();
      expect(unhandled).toEqual([]);
      expect(reported).toHaveBeenCalledWith(expect.stringContaining("'hello' listener"), expect.any(Error));
    } finally {
      process.off('unhandledRejection', onUnhandled);
      reported.mockRestore();
    }
    await closeAll(h.s, p);
  });

  it('HOST-3 HOST-21: a hello whose authorize settles after the connection went leaves no session on it', async () => {
    const gate = deferred<boolean>();
    const h = await hub({ authorize: () => gate.promise });
    const p = await node();
    const ctx = {};
    const hello = h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), ctx);
    h.unit.disconnect(ctx);
    gate.resolve(true);
    await expect(hello).rejects.toMatchObject({ code: 'HELLO_REQUIRED', status: 428 });
    await expect(h.unit.call('push', { ops: [] }, ctx)).rejects.toMatchObject({ code: 'HELLO_REQUIRED' });
    await closeAll(h.s, p);
  });

  it('HOST-3 HOST-21: of two hellos on one connection, an earlier one whose authorize settles last does not replace the later grant', async () => {
    const slow = deferred<boolean>();
    const h = await hub({ authorize: (_c, hello) => (hello.scopes.includes('*') ? slow.promise : true) });
    const p = await node();
    const ctx = {};
    const wide = h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), ctx);
    await h.unit.call('hello', helloOf(p, ['a'], { token: 't' }), ctx);
    slow.resolve(true);
    await expect(wide).rejects.toMatchObject({ code: 'HELLO_REQUIRED', status: 428 });
    // The session is the later hello's: a snapshot of scope b is refused, as its grant says.
    await expect(h.unit.call('snapshot', { scopes: ['b'] }, ctx)).rejects.toMatchObject({ code: 'SCOPES' });
    await closeAll(h.s, p);
  });

  it('LIFE-25: a hello whose authorize settles after the storage closed is answered CLOSED', async () => {
    const gate = deferred<boolean>();
    const h = await hub({ authorize: () => gate.promise });
    const p = await node();
    const hello = h.unit.call('hello', helloOf(p, ['*'], { token: 't' }), {});
    await h.s.close();
    gate.resolve(true);
    await expect(hello).rejects.toBeInstanceOf(SyncomError);
    await expect(hello).rejects.toMatchObject({ code: 'CLOSED' });
    await closeAll(p);
  });
});
