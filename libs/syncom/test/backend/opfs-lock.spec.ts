import { opfsBackend } from '../../src/backend';
import { takeWebLock } from '../../src/backend/web-lock';
import { FakeLocks, FakeOpfs } from './fake-opfs';
import { contents, openTab, origin } from './opfs-helpers';

const LOCKED = { code: 'LOCKED', status: 423 };

describe('opfs backend: one tab owns a store (Web Locks)', () => {
  it('a second open of the store (another tab, or this page again) is LOCKED (423) and writes nothing', async () => {
    const o = await origin();
    const first = await openTab(o);
    await first.set('a', { title: 'one' });
    const before = contents(o.fs);
    const error = await openTab(o).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ ...LOCKED, path: 'notes', lock: 'syncom:opfs:notes' });
    // The hint names where `wait` goes: open() itself refuses it as an unknown option (INVALID_ARGUMENT).
    expect((error as Error).message).toMatch(/notes is locked: another tab, worker or open\(\) of this page has it open.*the backend with \{ wait: true \} \(opfsBackend, browserBackend\)$/);
    expect(contents(o.fs)).toEqual(before);
    expect(o.locks.names()).toEqual(['syncom:opfs:notes']);
    await first.close();
    expect(o.locks.names()).toEqual([]);
    const again = await openTab(o);
    expect(await again.get('a')).toEqual({ title: 'one' });
    await again.close();
  });

  it('two stores of one origin in different directories do not lock each other', async () => {
    const o = await origin('a', 'b');
    const a = await openTab(o, { dir: 'a' });
    const b = await openTab(o, { dir: 'b' });
    expect(o.locks.names()).toEqual(['syncom:opfs:a', 'syncom:opfs:b']);
    await Promise.all([a.close(), b.close()]);
  });

  it('with { wait: true } the second open waits for the first to close, then proceeds with its writes', async () => {
    const o = await origin();
    const first = await openTab(o);
    await first.set('a', { title: 'first' });
    let opened = false;
    const second = openTab(o, { wait: true }).then((s) => { opened = true; return s; });
    // The request is queued behind the holder: nothing of the second store has run.
    await new Promise((r) => setImmediate(r));
    expect(o.locks.waiting('syncom:opfs:notes')).toBe(1);
    expect(opened).toBe(false);
    await first.close();
    const s = await second;
    expect(await s.get('a')).toEqual({ title: 'first' });
    await s.set('b', { title: 'second' });
    await s.close();
  });

  it('an aborted wait fails with LOCKED, without advice to wait, and leaves no request queued', async () => {
    const o = await origin();
    const first = await openTab(o);
    const controller = new AbortController();
    const waiting = openTab(o, { wait: true, signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort();
    const error = await waiting.then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ ...LOCKED, message: expect.stringContaining('aborted') });
    // It waited already: no advice to wait.
    expect((error as Error).message).not.toMatch(/wait: true/);
    expect(o.locks.waiting('syncom:opfs:notes')).toBe(0);
    await first.close();
  });

  it.each([['a TimeoutError (AbortSignal.timeout())', new DOMException('The operation timed out.', 'TimeoutError')], ['the app\'s own error', new Error('the user left the page')]])('a wait aborted with %s fails with LOCKED too, the reason its cause (browsers reject with it, not with an AbortError)', async (_what, reason) => {
    const o = await origin();
    const first = await openTab(o);
    const controller = new AbortController();
    const waiting = openTab(o, { wait: true, signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort(reason);
    const error = await waiting.then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ ...LOCKED, message: expect.stringContaining('aborted'), cause: reason });
    expect(o.locks.waiting('syncom:opfs:notes')).toBe(0);
    await first.close();
  });

  it('without navigator.locks, open() refuses with LOCKED rather than risk a second writer; locks: false opts out', async () => {
    const o = await origin();
    const refused = opfsBackend({ root: o.fs.root(), dir: 'notes' });
    await expect((refused.lock as NonNullable<typeof refused.lock>)('notes')).rejects.toMatchObject({
      ...LOCKED, message: expect.stringContaining('no Web Locks'),
    });
    const unlocked = opfsBackend({ root: o.fs.root(), dir: 'notes', locks: false });
    const lock = await (unlocked.lock as NonNullable<typeof unlocked.lock>)('notes');
    await lock.release();
  });

  it('a LockManager that refuses the request (a sandboxed iframe: SecurityError) fails UNSUPPORTED with the cause, not a raw DOMException', async () => {
    const refusing = { request: () => Promise.reject(new DOMException('The request was denied.', 'SecurityError')) };
    await expect(takeWebLock(refusing as never, { name: 'syncom:opfs:notes', path: 'notes' })).rejects.toMatchObject({
      code: 'UNSUPPORTED', message: expect.stringContaining('SecurityError'), cause: { name: 'SecurityError' },
    });
  });

  it('takes navigator.locks by default, and a lock released twice lets go once', async () => {
    const locks = new FakeLocks();
    const g = globalThis as { navigator?: unknown };
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true });
    try {
      const backend = opfsBackend({ root: new FakeOpfs().root() });
      const lock = await (backend.lock as NonNullable<typeof backend.lock>)('p');
      expect(locks.names()).toEqual(['syncom:opfs:']);
      await lock.release();
      await lock.release();
      expect(locks.names()).toEqual([]);
    } finally {
      if (saved) Object.defineProperty(globalThis, 'navigator', saved);
      else delete g.navigator;
    }
  });

  it('a queued waiter gets the lock only after the holder lets go, and ifAvailable never queues', async () => {
    const locks = new FakeLocks();
    const held = await takeWebLock(locks, { name: 'n', path: 'p' });
    await expect(takeWebLock(locks, { name: 'n', path: 'p' })).rejects.toMatchObject(LOCKED);
    const waiter = takeWebLock(locks, { name: 'n', path: 'p', wait: true });
    expect(locks.waiting('n')).toBe(1);
    // A waiter queued first comes first: ifAvailable fails even in the gap of a hand-over.
    await held.release();
    await expect(takeWebLock(locks, { name: 'n', path: 'p' })).rejects.toMatchObject(LOCKED);
    await (await waiter).release();
    expect(locks.names()).toEqual([]);
  });
});
