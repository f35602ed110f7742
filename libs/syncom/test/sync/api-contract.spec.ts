import { isSyncomError, type Storage } from '../../src';
import type { SyncLink } from '../../src/link';
import { node } from '../storage/helpers';

/**
 * storage.sync's registry calls as docs/replication.md states them, called
 * wrongly: each wrong call is a SyncomError with a stable code, never a bare
 * TypeError or URIError, and never a registration other than the one asked.
 */

const URL = 'memory://hub';

/** A node whose dialer never gets a link: its registered node is never in sync. */
async function dialing(): Promise<Storage> {
  const { s } = await node(1_000_000, { sync: { connect: () => new Promise<SyncLink>(() => undefined) } });
  await s.sync.addNode({ url: URL, token: 't' });
  return s;
}

const outcome = (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (isSyncomError(e) ? e.code : `not a SyncomError: ${String(e)}`));

describe('storage.sync registry calls under wrong calls', () => {
  it('REG-3 REG-4: enableNode(), removeNode() and synced() of something that is no url, or of a lone surrogate, are INVALID_ARGUMENT', async () => {
    const s = await dialing();
    for (const url of [42, null, undefined, {}, '', 'x'.repeat(2000), '\uD800']) {
      expect([url, await outcome(s.sync.enableNode(url as never, false))]).toEqual([url, 'INVALID_ARGUMENT']);
      expect([url, await outcome(s.sync.removeNode(url as never))]).toEqual([url, 'INVALID_ARGUMENT']);
      expect([url, await outcome(s.sync.synced(url as never))]).toEqual([url, 'INVALID_ARGUMENT']);
    }
    // A url that names no registered node stays NOT_FOUND.
    expect(await outcome(s.sync.removeNode('memory://other'))).toBe('NOT_FOUND');
    expect(s.sync.listNodes().map((n) => [n.url, n.enabled])).toEqual([[URL, true]]);
    await s.close();
  });

  it("REG-3: enableNode(url, 'false') is INVALID_ARGUMENT, not a node kept enabled by a truthy string", async () => {
    const s = await dialing();
    for (const enabled of ['false', 0, null, undefined]) expect([enabled, await outcome(s.sync.enableNode(URL, enabled as never))]).toEqual([enabled, 'INVALID_ARGUMENT']);
    expect(s.sync.listNodes().map((n) => n.enabled)).toEqual([true]);
    await s.sync.enableNode(URL, false);
    expect(s.sync.listNodes().map((n) => n.enabled)).toEqual([false]);
    await s.close();
  });

  it('REG-1: addNode() with a key it does not know (a misspelt tokn) is INVALID_ARGUMENT, not a node registered without its token', async () => {
    const s = await dialing();
    expect(await outcome(s.sync.addNode({ url: 'memory://b', tokn: 't' } as never))).toBe('INVALID_ARGUMENT');
    expect(await outcome(s.sync.addNode({ url: URL, token: 'u', enabled: false } as never))).toBe('INVALID_ARGUMENT');
    expect(s.sync.listNodes().map((n) => [n.url, n.token, n.enabled])).toEqual([[URL, 't', true]]);
    await s.sync.addNode({ url: 'memory://b', token: undefined, scopes: ['*'] });
    expect(s.sync.listNodes().map((n) => n.url).sort()).toEqual(['memory://b', URL]);
    await s.close();
  });

  it('synced() options of the wrong shape are INVALID_ARGUMENT, not an at-once SYNC_TIMEOUT or a TypeError', async () => {
    const s = await dialing();
    for (const o of [null, 5, [], { timeout: NaN }, { timeout: -1 }, { timeout: '10s' }, { timout: 10 }]) {
      expect([o, await outcome(s.sync.synced(URL, o as never))]).toEqual([o, 'INVALID_ARGUMENT']);
    }
    await s.close();
  });

  it('synced() with a timeout of Infinity, or past the 24.8 days a timer holds, does not time out at once', async () => {
    const s = await dialing();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    let waits: Promise<string[]>;
    try {
      waits = Promise.all([Infinity, 2 ** 31 + 10, 1e300].map((timeout) => outcome(s.sync.synced(URL, { timeout }))));
      jest.advanceTimersByTime(60_000);
    } finally {
      jest.useRealTimers();
    }
    // Still waiting: unregistering the node is what ends each wait.
    await s.sync.removeNode(URL);
    expect(await waits).toEqual(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND']);
    await s.close();
  });

  it('HOST-1: sync.unit() of options that are no object, or with a key it does not know (a misspelt limts), throws INVALID_ARGUMENT, not a TypeError or a unit without its limits', async () => {
    const { s } = await node();
    const thrown = (o: unknown) => {
      try {
        s.sync.unit(o as never);
        return 'made';
      } catch (e) {
        return isSyncomError(e) ? e.code : `not a SyncomError: ${String(e)}`;
      }
    };
    for (const o of [null, 'public', 5, [], { access: 'public', limts: { opsPerSecond: 1 } }, { acess: 'public' }]) expect([o, thrown(o)]).toEqual([o, 'INVALID_ARGUMENT']);
    expect(thrown({ access: 'public', limits: { opsPerSecond: 1 }, pageSize: 10, authorize: undefined })).toBe('made');
    expect(thrown(undefined)).toBe('made');
    await s.close();
  });
});
