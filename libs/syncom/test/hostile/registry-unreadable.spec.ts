import { createMemoryBackend, open, type SyncomError } from '../../src';
import { internals } from '../../src/testing/internals';
import { nodeFile } from '../../src/sync/dial/registry';

/**
 * A registry file that cannot be read (torn where writes are not atomic, or
 * damaged after the fact) names a node of unknown scopes and acks. It is
 * reported (OP_UNREADABLE) and not dialed, and retention keeps every own op
 * for it until addNode() registers that url again or it is removed: dropped
 * silently, the node's own writes made offline aged out of the log and never
 * reached that host.
 */

const URL = 'wss://hub/api';
/** A link that never connects: the node writes offline. */
const offline = () => new Promise<never>(() => undefined);
const options = (backend: ReturnType<typeof createMemoryBackend>) =>
  ({ path: 's', backend, sync: { connect: offline, retention: { ops: 1000 }, log: { rollAfter: 4 } } });

async function writes(s: Awaited<ReturnType<typeof open>>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await s.set(`w${i % 20}`, { i });
  await internals(s).committer.idle();
}

describe('a registry file that cannot be read', () => {
  it('LOG-16, LOG-17: is reported, and every own op stays in the log for its node (the floor does not move) until addNode() registers the url again', async () => {
    const backend = createMemoryBackend();
    const s = await open(options(backend));
    await s.sync.addNode({ url: URL, token: 'secret' });
    await writes(s, 3);
    await s.close();
    await backend.write(nodeFile(URL), '{"url":"ws');
    const again = await open(options(backend));
    const errors: SyncomError[] = [];
    again.on('error', (e) => errors.push(e));
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((e) => e.code)).toEqual(['OP_UNREADABLE']);
    expect(again.startupErrors.map((e) => e.code)).toEqual(['OP_UNREADABLE']);
    expect(again.sync.listNodes()).toEqual([]);
    await writes(again, 1_100);
    expect(internals(again).log.floor).toBe(0);
    // Registered again, then removed: its own ops are no longer held, and retention drops the old ones.
    await again.sync.addNode({ url: URL, token: 'secret' });
    await again.sync.removeNode(URL);
    await writes(again, 1_100);
    expect(internals(again).log.floor).toBeGreaterThan(0);
    await again.close();
  });

  it('LOG-21: removeNode() of its url removes the unreadable file, and retention lets the own ops go (no addNode needed)', async () => {
    const backend = createMemoryBackend();
    const s = await open(options(backend));
    await s.sync.addNode({ url: URL, token: 'secret' });
    await s.close();
    await backend.write(nodeFile(URL), '');
    await backend.write(nodeFile(URL), '{"url":');
    const again = await open(options(backend));
    await again.sync.removeNode(URL);
    expect(await backend.read(nodeFile(URL))).toBeUndefined();
    await writes(again, 1_100);
    expect(internals(again).log.floor).toBeGreaterThan(0);
    await again.close();
  });

  it('a registry file whose fields are not of their types (remote: null, a count that is no number) is unreadable too, not taken as it came', async () => {
    for (const change of [{ remote: null }, { acked: { x: 'many' } }, { scopes: 'A' }, { enabled: 'yes' }]) {
      const backend = createMemoryBackend();
      const s = await open(options(backend));
      await s.sync.addNode({ url: URL, token: 'secret' });
      await s.close();
      const rec = JSON.parse((await backend.read(nodeFile(URL))) as string) as Record<string, unknown>;
      await backend.write(nodeFile(URL), JSON.stringify({ ...rec, ...change }));
      const again = await open(options(backend));
      expect(again.startupErrors.map((e) => e.code)).toEqual(['OP_UNREADABLE']);
      expect(again.sync.listNodes()).toEqual([]);
      await again.close();
    }
  });
});
