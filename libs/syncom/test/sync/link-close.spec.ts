import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { SyncLink } from '../../src/link/contract';
import { stoppable } from '../../src/sync/dial/link-close';

/** A link whose calls answer at once, or never (`hang`). */
function fakeLink(hang = false): SyncLink & { closed: boolean } {
  const link = {
    closed: false,
    call: () => (hang ? new Promise<never>(() => undefined) : Promise.resolve('ok')),
    subscribe: () => ({ unsubscribe: () => undefined }),
    close: () => void (link.closed = true),
    on: () => undefined,
    off: () => undefined,
  };
  return link as unknown as SyncLink & { closed: boolean };
}

/** The heap in use after a full collection (the flag is set at run time: jest runs without --expose-gc). */
function heapAfterGc(): number {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}

describe('the dialer\'s link wrapper (stoppable)', () => {
  it('a call answered lets go of everything it held: 200,000 calls on one link keep no memory (a shared race had kept ~0.3 KB a call)', async () => {
    const link = stoppable(fakeLink());
    for (let i = 0; i < 1_000; i++) await link.call('hello', {});
    const before = heapAfterGc();
    for (let i = 0; i < 200_000; i++) await link.call('push', { ops: [] });
    expect(heapAfterGc() - before).toBeLessThan(10 * 2 ** 20);
    // Still in use after the measure, as a dialer's link is for its life (else the whole wrapper is garbage).
    link.close();
  });

  it('close() ends every call still waiting with LINK_DOWN, and a call after it fails at once without reaching the link', async () => {
    const inner = fakeLink(true);
    let reached = 0;
    const call = inner.call.bind(inner);
    inner.call = ((m: string, a: unknown) => (reached++, call(m, a))) as SyncLink['call'];
    const link = stoppable(inner);
    const waiting = [link.call('push', {}), link.call('records', {})];
    link.close();
    for (const p of waiting) await expect(p).rejects.toMatchObject({ code: 'LINK_DOWN' });
    await expect(link.call('hello', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
    expect(reached).toBe(2);
    expect(inner.closed).toBe(true);
  });

  it('a call during which close() runs (a link that reports its socket gone at once) ends LINK_DOWN too, not waiting for an answer that never comes', async () => {
    const inner = fakeLink(true);
    const call = inner.call.bind(inner);
    let link!: SyncLink;
    inner.call = ((m: string, a: unknown) => (link.close(), call(m, a))) as SyncLink['call'];
    link = stoppable(inner);
    await expect(link.call('push', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
  });

  it('a link that rejects its waiting calls at close (as the built-in links do) leaves no unhandled rejection when close() runs inside a call', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      let rejectWaiting: (e: Error) => void = () => undefined;
      let link!: SyncLink;
      const inner = {
        call: () => {
          const waiting = new Promise<never>((_, reject) => (rejectWaiting = reject));
          link.close();
          return waiting;
        },
        subscribe: () => ({ unsubscribe: () => undefined }),
        close: () => rejectWaiting(new Error('socket closed')),
        on: () => undefined,
        off: () => undefined,
      } as unknown as SyncLink;
      link = stoppable(inner);
      await expect(link.call('push', {})).rejects.toMatchObject({ code: 'LINK_DOWN' });
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
