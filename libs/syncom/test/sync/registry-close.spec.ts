import { createMemoryBackend, createMemoryLink, open, type MemoryBackend } from '../../src';
import { hub, until } from './helpers';

/**
 * The node registry against close() and against itself. An addNode() or
 * removeNode() that met close() while it hung up a dialer wrote (or removed)
 * the node's file after close() resolved, the lock let go: a restart's own
 * change to that node was undone. A removeNode() and an addNode() of one
 * url not awaited in between left the node gone in memory and its file on
 * disk, registered again at the next open. A synced() wait on a store whose
 * sync never started never settled at close().
 */
const URL = 'memory://hub';

/** A memory backend whose registry writes can be held, and whose changes are listed from `mark()` on. */
function gated(inner: MemoryBackend) {
  const state = { hold: undefined as undefined | Promise<void>, asked: undefined as undefined | (() => void), changes: [] as string[], marked: false };
  const backend = new Proxy(inner, {
    get(t, key) {
      const v = Reflect.get(t, key) as unknown;
      if ((key === 'write' || key === 'remove') && typeof v === 'function') {
        return async (path: string, ...rest: unknown[]) => {
          if (state.marked) state.changes.push(`${key} ${path}`);
          if (path.startsWith('remote/') && state.hold) {
            const hold = state.hold;
            state.hold = undefined;
            state.asked?.();
            await hold;
          }
          return (v as (...a: unknown[]) => Promise<unknown>).call(t, path, ...rest);
        };
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  }) as MemoryBackend;
  return { backend, state };
}

/** A dialer subscribed to a hub, its next registry write (the cursor saved after a page) held until `release()`. */
async function heldSave() {
  const h = await hub();
  const { backend, state } = gated(createMemoryBackend());
  const connect = () => createMemoryLink(h.unit);
  const d = await open({ path: 'd', backend, sync: { connect, antiEntropyInterval: 0 } });
  await d.sync.addNode({ url: URL, token: 't' });
  await until(() => d.sync.peers()[0]?.subscribed === true && !d.sync.peers()[0].bootstrapping, [d]);
  let release!: () => void;
  state.hold = new Promise<void>((r) => (release = r));
  const asked = new Promise<void>((r) => (state.asked = r));
  await h.s.insert({ n: 1 });
  await asked;
  return { h, d, backend, state, connect, release };
}

describe('the node registry and close()', () => {
  it.each(['addNode', 'removeNode'] as const)('REG-2 REG-4 LIFE-24: a %s() that meets close() while it hangs up a dialer writes nothing after close() resolved', async (call) => {
    const { h, d, backend, state, connect, release } = await heldSave();
    const changed = call === 'addNode' ? d.sync.addNode({ url: URL, token: 'NEW' }) : d.sync.removeNode(URL);
    const outcome = changed.then(() => 'ok', (e: { code?: string }) => e.code);
    // The call hung up the dialer (out of the map: close() does not wait for it), which waits for the held save.
    // Told once close() waits for the registry's writes (a private part, reached for this race alone).
    const registry = (d.sync as unknown as { registry: { flush(): Promise<void> } }).registry;
    const flush = registry.flush.bind(registry);
    const flushing = new Promise<void>((resolve) => (registry.flush = () => (resolve(), flush())));
    const closed = d.close().then(() => void (state.marked = true));
    // close() waits for the registry's writes under way (the held save) before the lock goes: then the save lands.
    await flushing;
    release();
    await closed;
    // The call's own write comes after close() began to wait: refused, not written once the lock is gone.
    expect(await outcome).toBe('CLOSED');
    await new Promise((r) => setImmediate(r));
    expect(state.changes).toEqual([]);
    const again = await open({ path: 'd', backend, sync: { connect, autoStart: false } });
    await again.close();
    await h.s.close();
  });

  it('REG-4 REG-5: removeNode() then addNode() of one url, not awaited in between, leave memory and the next open agreeing', async () => {
    const backend = createMemoryBackend();
    const s = await open({ path: 'r', backend });
    await s.sync.addNode({ url: URL, token: 't' });
    await Promise.all([s.sync.removeNode(URL), s.sync.addNode({ url: URL, token: 't2' })]);
    const now = s.sync.listNodes().map((n) => n.token);
    await s.close();
    const again = await open({ path: 'r', backend });
    expect(again.sync.listNodes().map((n) => n.token)).toEqual(now);
    await again.close();
  });

  it.each([[undefined], [60_000]])('LIFE-24: a synced() wait (timeout %s) on a store whose sync never started ends CLOSED at close()', async (timeout) => {
    const s = await open({ path: 's', backend: createMemoryBackend(), sync: { autoStart: false, connect: () => { throw new Error('never dialed'); } } });
    await s.sync.addNode({ url: URL });
    const waiting = s.sync.synced(URL, timeout === undefined ? {} : { timeout });
    const outcome = waiting.then(() => 'ok', (e: { code?: string }) => e.code);
    await s.close();
    expect(await outcome).toBe('CLOSED');
  });
});
