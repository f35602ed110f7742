import type { Storage } from '../../src';
import { internals } from '../../src/testing';
import { SharedReads } from '../../src/sync/host/shared-pages';
import { closeAll, node } from './helpers';

/**
 * A read the unit's feeds share is kept for the next feed at its position;
 * a purge scrubs the log in place afterwards, and a read kept from before
 * must not be served again: it still holds the purged payload.
 */
describe('shared reads and the purge scrub', () => {
  let stores: Storage[] = [];
  afterEach(async () => {
    await closeAll(...stores);
    stores = [];
  });

  const SECRET = 'SCRUBBED-7f3a';
  const spec = (s: Storage) => ({ log: s.replica, pos: 0, scopes: ['*'], pageSize: 50, pageBytes: 1 << 20 });
  const texts = (read: { page(k: number, prev: string): { ops: unknown[] } }) => JSON.stringify(read.page(0, 'p').ops);

  it('OPS-11, GUAR-20: a read kept before a scrub is read again after it; one kept with no scrub since is shared', async () => {
    const s = await node();
    stores = [s];
    const x = await s.insert({ title: SECRET });
    await s.insert({ title: 'other' });
    const shared = new SharedReads();
    const first = shared.read(spec(s), 'peer-a', () => true);
    expect(texts(first)).toContain(SECRET);
    // No scrub: the next feed at that position gets the same read.
    expect(shared.read(spec(s), 'peer-b', () => true)).toBe(first);

    const scrubs = s.replica.scrubs;
    await s.purge(x);
    await internals(s).committer.idle();
    expect(s.replica.scrubs).toBeGreaterThan(scrubs);
    const after = shared.read(spec(s), 'peer-c', () => true);
    expect(after).not.toBe(first);
    expect(texts(after)).not.toContain(SECRET);
  });
});
