import { internals } from '../../src/testing/internals';
import { createMemoryBackend, createMemoryLink, open } from '../../src';
import { until } from '../sync/helpers';
import { cleanup, tempDir } from './helpers';

/** The ids a used storage holds, by what was done to them. */
export interface UsedIds {
  node: string;
  hubNode: string;
  /** Written, inc'd, added to, removed from, updated. */
  note: string;
  deleted: string;
  sealed: string;
  fromHub: string;
  purged: string;
  /** Written after the reopen: in the open batches. */
  tail: string[];
}

/** Sync with a hub on the memory link until the hub's record has arrived and the hub holds ours. */
async function syncedPhase(path: string): Promise<Omit<UsedIds, 'purged' | 'tail'>> {
  const hub = await open({ path: 'hub', backend: createMemoryBackend() });
  const unit = hub.sync.unit({ access: 'public' });
  const s = await open({ path, sync: { connect: () => createMemoryLink(unit), log: { rollAfter: 2 } } });
  // The hub's own write is made after the bootstrap, so it reaches this node as a write op on the feed, not in the snapshot.
  const booted = new Promise<unknown>((resolve) => s.sync.on('bootstrap', resolve));
  await s.sync.addNode({ url: 'memory://hub', token: 'secret-token', scopes: ['*'] });
  await s.sync.start();
  const note = await s.insert({ title: 'Draft', body: 'first' });
  await s.inc(note, 'views', 3);
  await s.add(note, 'tags', ['bug', 'ui']);
  await s.remove(note, 'tags', ['ui']);
  await s.update(note, { title: 'Final' });
  const deleted = await s.insert({ title: 'Gone' });
  await s.delete(deleted);
  const sealed = await s.insert({ pin: 'pin-secret-x' }, { sealed: true });
  await booted;
  const fromHub = await hub.insert({ title: 'From the hub' });
  await until(async () => (await s.has(fromHub)) && (await hub.has(note)) && s.sync.listNodes()[0].cursor !== null, [s, hub]);
  await s.close();
  await hub.close();
  return { node: s.id, hubNode: hub.id, note, deleted, sealed, fromHub };
}

/**
 * A storage at `path` as an application leaves it: sealed segments from a
 * synced session with a registered hub (cursor and acked set), a tombstone,
 * a sealed record; then, reopened without sync, a purge and two writes in
 * open batches that were never sealed: the storage is dropped without
 * close, as a process that died would leave it (everything is written).
 */
export async function usedStorage(path: string): Promise<UsedIds> {
  const first = await syncedPhase(path);
  const s = await open({ path });
  const purged = await s.insert({ title: 'Secret' });
  await s.purge(purged);
  const tail = [await s.insert({ n: 1 }), await s.insert({ n: 2, title: 'tail' })];
  await internals(s).committer.idle();
  // A dead process holds no lock: let go of it, or the CLI would rightly note the storage is in use.
  await internals(s).lock?.release();
  return { ...first, purged, tail };
}

/**
 * The used storage of a test file: made once in a temp directory before its
 * tests (beforeAll, registered first, so the file's own beforeAll sees it),
 * every temp directory removed after them. Read `path` and `ids` in hooks and
 * tests, once it is made.
 */
export function usedFixture(): { readonly path: string; readonly ids: UsedIds } {
  const fx = { path: '', ids: undefined as unknown as UsedIds };
  beforeAll(async () => {
    fx.path = await tempDir();
    fx.ids = await usedStorage(fx.path);
  });
  afterAll(cleanup);
  return fx;
}
